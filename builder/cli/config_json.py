"""A Hugging Face ``config.json`` read from a file, and the memory model's refusal of it, as located problems
(shared by ``memory`` and ``import-config``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from builder.content.problems import ContentError, Problem
from builder.resolver.memory import ArchitectureError

MAX_CONFIG_BYTES = 4_000_000  # a config.json is a few kB; refuse anything absurd


def read_config(path: Path) -> dict[str, Any]:
    """A config.json as a mapping; raises ContentError with one problem."""

    def fail(message: str) -> ContentError:
        return ContentError([Problem(str(path), 0, "", message)])

    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise fail(f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise fail(f"file is too large: more than {MAX_CONFIG_BYTES:,} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise fail("not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise fail(f"invalid JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise fail("expected a JSON object at the top level")
    return data


def architecture_problem(path: Path, exc: ArchitectureError) -> ContentError:
    return ContentError([Problem(str(path), 0, exc.field, exc.message)])
