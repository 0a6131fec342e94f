"""The order tests run in: the costliest files first, so that with ``--dist worksteal`` (``make test``: one
worker more than there are cores) no worker starts a long file while the others have run out of work (the
longest-processing-time-first rule): each worker starts on its share of this order, and one that runs out
steals the cheap end of another's.

The costs are the CPU seconds per file of a measured run (``tests/support/cpu_costs.json``, written
by ``python -m tests.support.cpu_profile PROFILE --write``). A file the table doesn't know yet
counts as an average one. A file's tests keep their order and stay together, so a module's
fixtures are set up once per worker.
"""

from __future__ import annotations

import json
from statistics import mean

import pytest

from tests.support.cpu_profile import COSTS


def file_of(item: pytest.Item) -> str:
    """The test file of ``item`` as the table names it (``tests/...py``)."""
    return item.nodeid.split("::", 1)[0]


def costliest_first(items: list[pytest.Item]) -> None:
    """Reorder ``items`` in place: files by measured cost, descending; ties in collection order."""
    costs: dict[str, float] = json.loads(COSTS.read_text(encoding="utf-8")) if COSTS.is_file() else {}
    unknown = mean(costs.values()) if costs else 0.0
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(file_of(item), index)
    items.sort(key=lambda item: (-costs.get(file_of(item), unknown), first_seen[file_of(item)]))
