"""Build problems: errors and warnings with a file, a line and a field path."""

from __future__ import annotations

from dataclasses import dataclass

from builder.content.log_text import log_text


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
        return log_text(f"{where}{field}{kind} {self.message}")


class ContentError(Exception):
    """Raised when the content has errors; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        super().__init__(f"{len(problems)} problem(s)")
        self.problems = problems
