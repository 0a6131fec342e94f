"""The in-memory JSON API handed from the API builder to the pages and the writer."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from builder.checks.vllm_lint import Finding
from builder.content.problems import Problem


@dataclass
class BuildOutput:
    """The in-memory site: every file to write, keyed by its path relative to the output root."""

    # a dict, or streamed to disk by the build
    files: MutableMapping[str, bytes] = field(default_factory=dict)
    # path -> the value ``files[path]`` serialises (a streamed build keeps none of the alternative records)
    objects: dict[str, Any] = field(default_factory=dict)
    findings: dict[str, list[Finding]] = field(default_factory=dict)  # record path -> vLLM CLI lint findings
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)  # hf_id -> /<hf_id>.json object
    warnings: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # located warnings (vLLM CLI lint)
