"""The real vLLM start-ups and the ``config.json`` facts of ``../shared/memory``, and running a command
of the CLI the way the memory tests do."""

from __future__ import annotations

import json
from typing import Any

import pytest

from builder.cli.main import main
from tests.support.paths import SHARED

MEMORY = SHARED / "memory"
CASES: list[dict[str, Any]] = json.loads((MEMORY / "cases.json").read_text()) if MEMORY.is_dir() else []
CONFIG_NAMES = sorted(p.name for p in (MEMORY / "configs").glob("*.json")) if MEMORY.is_dir() else []
LLAMA = MEMORY / "configs" / "meta-llama__Llama-3.1-8B-Instruct.json"


def config(name: str) -> dict[str, Any]:
    """One shared ``config.json`` by its file name."""
    loaded: dict[str, Any] = json.loads((MEMORY / "configs" / name).read_text())
    return loaded


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``python -m builder ARGV`` in this process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
