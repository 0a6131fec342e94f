"""Every reproducer a build of a content root publishes, with the record and point it measures (shared by
the real-parser suite and the resolver's tests)."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from builder.api.publish import ApiBuilder
from builder.content.loader import load_content


class Published(NamedTuple):
    """One published point: where, the record it belongs to, its workload and the point itself."""

    label: str
    record: dict[str, Any]
    workload: str
    point: dict[str, Any]


def _records(objects: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, value in objects.items():
        if not isinstance(value, dict):
            continue
        if "performance" in value:
            yield path, value
        for key, point in (value.get("points") or {}).items():  # a preset's points
            if isinstance(point, dict) and "performance" in point:
                yield f"{path}#{key}", point


def published_points(root: Path) -> list[Published]:
    """The predicted points of every record (preset points included) of a JSON API build of ``root``."""
    content, _ = load_content(root)
    objects = ApiBuilder(content).build().objects
    out = []
    for label, record in _records(objects):
        for workload, points in (record["performance"].get("workloads") or {}).items():
            out.extend(Published(f"{label} {workload} c{p['concurrency']}", record, workload, p)
                       for p in points)
    return out


def argv_of(text: str) -> list[str]:
    """A reproducer's text as the shell splits it (continuation lines joined)."""
    return shlex.split(text.replace(" \\\n  ", " "))
