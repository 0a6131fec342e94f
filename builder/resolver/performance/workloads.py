"""The standard workloads the predictions and their reproducers use (input and output tokens)."""

from __future__ import annotations

# name -> (input tokens, output tokens): the standard workloads, in the order pages show them
WORKLOADS: dict[str, tuple[int, int]] = {"1k/1k": (1024, 1024), "8k/1k": (8192, 1024), "1k/8k": (1024, 8192)}
