"""URL values of the builder state: integers and comma-separated lists."""

from __future__ import annotations

import re
from typing import Any, TypeVar, overload

from ..values import is_num, js_str

_Default = TypeVar("_Default")


@overload
def int_or(value: object) -> int | None: ...


@overload
def int_or(value: object, default: _Default) -> int | _Default: ...


def int_or(value: object, default: object = None) -> object:
    """Parse an int from a URL value (``"2"``) or a number; ``default`` when not an integer."""
    if type(value) is int:  # a previous state's (the common case)
        return value
    if value is None or isinstance(value, bool):
        return default
    if is_num(value):
        return int(value) if float(value).is_integer() else default
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return default


def parse_csv(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return [js_str(v) for v in value if js_str(v)]
    return [p for p in (s.strip() for s in js_str(value).split(",")) if p]
