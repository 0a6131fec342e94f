"""Work handed out one item at a time (``builder/output/turns.py``): two processes taking turns get every
position exactly once; a queue that does not fit in a pipe is refused, never blocks."""

from __future__ import annotations

import fcntl
import os
import pickle
from typing import Any

import pytest

from builder.output import turns
from builder.output.turns import Turns


def test_two_processes_take_every_position_once() -> None:
    queue = Turns.open(5000)  # 20,000 bytes: beyond a page, within the default pipe
    assert queue is not None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: what it took, pickled
        status = 1
        try:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(list(queue.take()), pipe)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    mine = list(queue.take())
    with os.fdopen(read_end, "rb") as pipe:
        theirs = pickle.load(pipe)
    os.waitpid(pid, 0)
    queue.close()
    assert mine == sorted(mine) and theirs == sorted(theirs)  # each takes them in order
    assert sorted(mine + theirs) == list(range(5000))


def test_a_large_queue_gets_a_larger_pipe() -> None:
    queue = Turns.open(100_000)  # 400,000 bytes
    assert queue is not None
    assert list(queue.take()) == list(range(100_000))
    queue.close()


def test_a_queue_that_does_not_fit_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(fd: int, command: int, arg: Any = 0) -> int:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(fcntl, "fcntl", refused)  # the pipe stays at its default size
    assert Turns.open(turns.DEFAULT_PIPE // turns.ITEM.size + 1) is None
    small = Turns.open(turns.DEFAULT_PIPE // turns.ITEM.size)
    assert small is not None
    assert len(list(small.take())) == turns.DEFAULT_PIPE // turns.ITEM.size
    small.close()


def test_no_positions() -> None:
    queue = Turns.open(0)
    assert queue is not None
    assert list(queue.take()) == []
    queue.close()
