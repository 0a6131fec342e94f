"""Results too slow to compute on every build (Brotli at its best quality, the runtime byte-compiled
by Pyodide), kept on disk by a key that names their inputs.

One process computes a missing entry while the others wanting the same one wait for it (a lock
file beside the entry), so two builds started together, or the workers of a test run, do the
minute of work once. A cache that can't be written costs only the time.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path


class Busy(Exception):
    """Another process is computing the entry (raised only when the caller would rather not wait)."""


def cached_bytes(entry: Path, compute: Callable[[], bytes | None], wait: bool = True) -> bytes | None:
    """The bytes stored at ``entry``, or ``compute()``'s, stored there (None is not stored).

    ``wait`` False: raise :class:`Busy` instead of waiting for another process computing it."""
    if entry.is_file():
        return entry.read_bytes()
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        lock = open(entry.with_name(entry.name + ".lock"), "w")  # noqa: SIM115 - held until the entry exists
    except OSError:
        return compute()
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(entry) from None
        if entry.is_file():  # another process computed it while this one waited
            return entry.read_bytes()
        data = compute()
        if data is not None:
            try:
                partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
                partial.write_bytes(data)
                partial.replace(entry)
            except OSError:
                pass
        return data
