"""Forks in tests: allowed beside threads an earlier test left, recorded, and a forked child that takes
some turns (``builder/output/turns.py``) and dies."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from builder.output import forked, parallel_api
from builder.output.turns import Turns


def allow_forks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Forks allowed beside threads an earlier test left in this worker; the jobs the API resolution
    forked, by name."""
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr("builder.output.writer_process.can_fork", lambda: True)
    started: list[str] = []
    real = parallel_api.fork_job

    def recorded(job: Any) -> Any:
        started.append(job.__name__)
        return real(job)

    monkeypatch.setattr(parallel_api, "fork_job", recorded)
    return started


def dies_after_taking(monkeypatch: pytest.MonkeyPatch, count: int) -> None:
    """A process forked from this one exits with status 1 when it takes its ``count``-th position
    (that one is taken from the queue and never worked on; the ones before are done)."""
    parent = os.getpid()
    real = Turns.take

    def take(self: Turns) -> Iterator[int]:
        for taken, position in enumerate(real(self), start=1):
            if os.getpid() != parent and taken == count:
                os._exit(1)
            yield position

    monkeypatch.setattr(Turns, "take", take)
