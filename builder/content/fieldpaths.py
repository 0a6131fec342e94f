"""Dotted field paths (``variants.fp8.extra_args[2]``): building them and finding their source line."""

from __future__ import annotations

from typing import Any

# A path not joined yet: (parent link, key), None at the root. Walks over every value keep links and join
# only the paths they report (:func:`path_of`).
Link = tuple[Any, "str | int"] | None


def join_path(parent: str, key: str | int) -> str:
    """Extend a dotted field path with a mapping key or a list index."""
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def path_of(link: Link, root: str = "") -> str:
    """The dotted path of a link, below ``root``."""
    keys: list[str | int] = []
    while link is not None:
        link, key = link
        keys.append(key)
    path = root
    for key in reversed(keys):
        path = join_path(path, key)
    return path


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
