"""Identifiers that become output paths, and the writer's last guard on output paths.

Every id the build turns into a path segment (organisation and repository names of
recipe files, promoted variant ``model_id``\\ s, hardware ids, strategy and kv-store
names, preset keys, quickstart hardware ids) must match :data:`SEGMENT_PATTERN` and be
at most :data:`MAX_SEGMENT` characters: it then cannot be ``.``/``..``, start with a dot,
hold a ``/``, a backslash, NUL or a control character, or climb out of the site.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

SEGMENT_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._-]*"
MAX_SEGMENT = 100
CASE_CLASH = " (their files would overwrite each other on a case-insensitive disk)"
_SEGMENT = re.compile(SEGMENT_PATTERN)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_UNPLAIN_CHAR = re.compile(r"[\x00-\x1f\x7f\\]")


def segment_problem(value: str) -> str | None:
    """Why ``value`` cannot be one path segment of the site, or None when it can."""
    if len(value) > MAX_SEGMENT:
        return (f"{value[:20]!r}... is {len(value)} characters long; an id used in paths has at most "
                f"{MAX_SEGMENT}")
    if not _SEGMENT.fullmatch(value):
        return (
            f"{value!r} cannot be used in a path: use letters, digits, '.', '_' and '-', "
            "starting with a letter or a digit"
        )
    return None


def model_id_problem(model_id: object) -> str | None:
    """Why a variant ``model_id`` cannot be promoted to ``/<org>/<repo>``, or None.

    Only ids containing ``/`` are promoted (json-api §6.1); others are never paths.
    """
    if not isinstance(model_id, str) or "/" not in model_id:
        return None
    parts = model_id.split("/")
    if len(parts) != 2:
        return f"a model_id with '/' becomes the path /<org>/<repo>: expected one '/', got {model_id!r}"
    for part in parts:
        problem = segment_problem(part)
        if problem is not None:
            return f"a model_id with '/' becomes the path /<org>/<repo>: {problem}"
    return None


def output_path_problem(rel: str) -> str | None:
    """Why the writer must refuse the output-relative path ``rel``, or None when it is a plain
    path inside the output folder (the checks are on the text; the writer's ``inside`` adds
    the containment check of the joined path)."""
    if rel and not _UNPLAIN_CHAR.search(rel) and not _unplain_segment(rel):  # fast for plain paths
        return None
    if not rel:
        return "the path is empty"
    if _CONTROL.search(rel):
        return "the path holds a NUL or another control character"
    if "\\" in rel:
        return "the path holds a backslash"
    if rel.startswith("/"):
        return "the path is absolute"
    if any(part in ("", ".", "..") for part in rel.split("/")):
        return "the path has an empty, '.' or '..' segment"
    return None


def _unplain_segment(rel: str) -> bool:
    """True when ``rel`` is absolute or has an empty, ``.`` or ``..`` segment (string tests: fast)."""
    return (
        "//" in rel
        or "/./" in rel
        or "/../" in rel
        or rel.startswith(("/", "./", "../"))
        or rel.endswith(("/", "/.", "/.."))
        or rel in (".", "..")
    )


def key_problems(keys: Iterable[str], path: str) -> Iterator[tuple[str, str]]:
    """(field, message) for the keys of the mapping at ``path`` that become path segments:
    the identifier pattern, and no two keys equal case-folded."""
    first: dict[str, str] = {}
    for key in keys:
        field = f"{path}.{key}"
        problem = segment_problem(key)
        if problem is not None:
            yield field, problem
            continue
        earlier = first.setdefault(key.casefold(), key)
        if earlier != key:
            yield field, f"{key!r} differs only in case from {earlier!r}{CASE_CLASH}"


def recipe_problems(data: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(field, message) for the ids of a shape-checked recipe that become paths:
    promoted variant ``model_id``\\ s and preset keys."""
    for vkey, variant in (data.get("variants") or {}).items():
        problem = model_id_problem((variant or {}).get("model_id"))
        if problem is not None:
            yield f"variants.{vkey}.model_id", problem
    yield from key_problems(data.get("presets") or {}, "presets")
