"""Build problems: errors and warnings with a file, a line and a field path."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    """One problem found in the content, printed as ``path:line: field.path: message``."""

    path: str  # relative to the content root
    line: int  # 1-based; 0 when unknown
    field: str  # dotted field path, "" for the whole file
    message: str
    warning: bool = False

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}:" if self.line else f"{self.path}:"
        field = f" {self.field}:" if self.field else ""
        kind = " warning:" if self.warning else ""
        return f"{where}{field}{kind} {self.message}"


class ContentError(Exception):
    """Raised when the content has errors; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems


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
