"""One function run in a forked child process, its result sent back pickled through a pipe.

The build uses it to put its second core to work: the command builder's data is computed while
the JSON API is resolved, and half of the recipe pages render beside the other half.  A fork
copies only the calling thread, so :func:`fork_job` refuses (returns None) unless the process runs
a single thread; the caller then does the work itself, as it also does when the child fails.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from builder.output.turns import Turns

T = TypeVar("T")


class ForkedJob(Generic[T]):
    """A running child; :meth:`result` waits for it and returns what ``job`` returned (None on failure)."""

    def __init__(self, pid: int, read_end: int) -> None:
        self.pid, self.read_end = pid, read_end

    def result(self) -> T | None:
        with os.fdopen(self.read_end, "rb") as pipe:
            try:
                value: T | None = pickle.load(pipe)
            except (EOFError, pickle.UnpicklingError):
                value = None
        _, status = os.waitpid(self.pid, 0)
        return value if status == 0 else None


def can_fork() -> bool:
    """A fork is safe and worth it here: POSIX, two cores or more, no other thread running."""
    return hasattr(os, "fork") and (os.cpu_count() or 1) >= 2 and threading.active_count() == 1


def fork_job(job: Callable[[], T | None]) -> ForkedJob[T] | None:
    """``job()`` in a forked child (None when :func:`can_fork` says no).

    The child leaves with ``os._exit`` (no cleanup handlers of the parent run twice); a ``job``
    returning None counts as a failure.
    """
    if not can_fork():
        return None
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        status = 1
        try:
            os.close(read_end)
            value = job()
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(value, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0 if value is not None else 1
        finally:
            os._exit(status)
    os.close(write_end)
    return ForkedJob(pid, read_end)


def on_two_cores(jobs: Sequence[Callable[[], T]]) -> list[T]:
    """Every job's result, in order: a forked child and this process take the jobs one at a time
    (:class:`~builder.output.turns.Turns`, so neither waits idle for the other); this process runs what
    the child did not return (it could not fork, or it failed midway). What the jobs change besides their
    results stays in the process that ran them."""
    turns = Turns.open(len(jobs)) if len(jobs) >= 2 else None
    if turns is None:
        return [job() for job in jobs]
    try:
        child = fork_job(lambda: {at: jobs[at]() for at in turns.take()})
        done = {at: jobs[at]() for at in turns.take()}
        theirs = child.result() if child is not None else None
    finally:
        turns.close()
    if theirs is None:
        theirs = {at: jobs[at]() for at in range(len(jobs)) if at not in done}
    done.update(theirs)
    return [done[at] for at in range(len(jobs))]
