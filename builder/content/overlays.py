"""Overlays: ``overlays/<org>/<repo>/*.yaml`` deep-merged onto a recipe (mappings merge, lists and
scalars replace, ``null`` deletes), each merged key located in the overlay's own file."""

from __future__ import annotations

from typing import Any

from builder.content.fieldpaths import join_path


def merge_overlay(
    base: Any, overlay: Any, path: str, locations: dict[str, tuple[str, int]], rel: str, lines: dict[str, int]
) -> Any:
    """Deep-merge ``overlay`` onto ``base``: mappings merge, lists and scalars replace, null deletes."""
    if not (isinstance(base, dict) and isinstance(overlay, dict)):
        _relocate(locations, path, rel, lines)
        return overlay
    merged = dict(base)
    for key, value in overlay.items():
        child = join_path(path, key)
        if value is None:
            merged.pop(key, None)
            _drop_locations(locations, child)
        elif key in merged:
            merged[key] = merge_overlay(merged[key], value, child, locations, rel, lines)
        else:
            merged[key] = value
            _relocate(locations, child, rel, lines)
    return merged


def _drop_locations(locations: dict[str, tuple[str, int]], path: str) -> None:
    for key in [k for k in locations if k == path or k.startswith((path + ".", path + "["))]:
        del locations[key]


def _relocate(locations: dict[str, tuple[str, int]], path: str, rel: str, lines: dict[str, int]) -> None:
    """Point ``path`` and everything below it at the overlay file."""
    _drop_locations(locations, path)
    for key, line in lines.items():
        if key == path or key.startswith((path + ".", path + "[")):
            locations[key] = (rel, line)
