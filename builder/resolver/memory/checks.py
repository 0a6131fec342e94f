"""Checked reading of config values: integers and numbers within bounds, and how a bad value is described."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .types import ArchitectureError


def describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"number {value}" if value.bit_length() <= 64 else "a number too large"
    if isinstance(value, float):
        return f"number {value}" if math.isfinite(value) else "a non-finite number"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def check_int(value: Any, field: str, low: int, high: int,
              error: type[ArchitectureError] = ArchitectureError) -> int:
    """``value`` as an int from ``low`` to ``high``; raises ``error`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(field, f"expected an integer, got {describe(value)}")
    if not low <= value <= high:
        shown = f"{value:,}" if value.bit_length() <= 64 else "a number too large"
        raise error(field, f"must be from {low:,} to {high:,}, got {shown}")
    return value


def check_number(
    value: Any, field: str, low: float, high: float, error: type[ArchitectureError] = ArchitectureError
) -> float:
    """``value`` as a finite number with ``low < value <= high``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise error(field, f"expected a number, got {describe(value)}")
    if (isinstance(value, int) and value.bit_length() > 64) or not math.isfinite(value):
        raise error(field, f"must be a number above {low:g} and at most {high:g}, got {describe(value)}")
    if not low < value <= high:
        raise error(field, f"must be above {low:g} and at most {high:g}, got {value:g}")
    return float(value)
