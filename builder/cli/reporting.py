"""Terminal commands for users and agents: ``resolve`` (:mod:`.resolve`) and ``new`` (:mod:`.new`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from builder.content.identifiers import segment_problem
from builder.content.log_text import log_text
from builder.content.problems import ContentError


class Refused(Exception):
    """An invalid choice; the message lists the valid ones."""


def reported(action: Callable[[], int]) -> int:
    """Run a command: content problems print as located lines (exit 1), a refused choice as
    one ``error:`` line (exit 2)."""
    try:
        return action()
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    except Refused as exc:
        print(f"error: {log_text(str(exc))}", file=sys.stderr)
        return 2


def recipe_file(hf_id: str) -> str:
    """``models/<org>/<repo>.yaml`` for a command-line ``<org>/<repo>``; refuses ids that are not
    two path segments of the identifier pattern (so the file stays under ``models/``)."""
    org, sep, repo = hf_id.partition("/")
    if not sep or not org or not repo or "/" in repo:
        raise Refused(f"expected <org>/<repo>, got {hf_id!r}")
    for segment in (org, repo):
        problem = segment_problem(segment)
        if problem is not None:
            raise Refused(problem)
    return f"models/{org}/{repo}.yaml"
