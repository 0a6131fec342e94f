"""Dotted field paths (``variants.fp8.extra_args[2]``): building them and finding their source line."""

from __future__ import annotations


def join_path(parent: str, key: str | int) -> str:
    """Extend a dotted field path with a mapping key or a list index."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def locate(locations: dict[str, tuple[str, int]], field: str, default_file: str) -> tuple[str, int]:
    """The (file, line) of ``field``, or of its nearest ancestor that has one."""
    path = field
    while True:
        if path in locations:
            return locations[path]
        if not path:
            return default_file, 0
        cut = max(path.rfind("."), path.rfind("["))
        path = path[:cut] if cut > 0 else ""
