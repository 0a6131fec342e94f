"""Terminal commands for users and agents: ``resolve`` (:mod:`.resolve`) and ``new`` (:mod:`.new`)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from builder.problems import ContentError


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
        print(f"error: {exc}", file=sys.stderr)
        return 2
