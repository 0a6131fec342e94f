"""A forked child that takes some turns (``builder/output/turns.py``) and dies."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from builder.output.turns import Turns


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
