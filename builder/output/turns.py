"""Work handed out one item at a time to whichever of two processes asks first, so neither waits idle
for the other: the positions ``0..count-1`` are written into a pipe before the fork, and each process
reads the next one when it is free (a pipe read of one 4-byte item is atomic).

A static split (every other item to the child) left one core idle while the other finished: the
child writes its files itself while the parent hands its own to writer processes, and the machine's
other load falls on one process more than the other.
"""

from __future__ import annotations

import fcntl
import os
import struct
from collections.abc import Iterator

ITEM = struct.Struct("<I")
F_SETPIPE_SZ = 1031  # Linux fcntl (not in the fcntl module before Python 3.10)
DEFAULT_PIPE = 1 << 16  # the capacity of a pipe whose size cannot be set


class Turns:
    """The positions ``0..count-1``, each taken by exactly one process (:meth:`take`)."""

    def __init__(self, read_end: int) -> None:
        self.read_end = read_end

    @classmethod
    def open(cls, count: int) -> Turns | None:
        """The positions queued in a new pipe; None when they do not fit in one (the caller then does
        the work in one process)."""
        queue = b"".join(ITEM.pack(position) for position in range(count))
        read_end, write_end = os.pipe()
        try:
            if len(queue) > DEFAULT_PIPE:
                fcntl.fcntl(write_end, F_SETPIPE_SZ, len(queue))
            os.set_blocking(write_end, False)  # a pipe smaller than the queue refuses, never blocks
            written = os.write(write_end, queue)
        except OSError:
            written = -1
        finally:
            os.close(write_end)  # the queue is complete: an empty pipe reads as its end
        if written != len(queue):
            os.close(read_end)
            return None
        return cls(read_end)

    def take(self) -> Iterator[int]:
        """The next position nobody has taken yet, until none is left."""
        while True:
            item = os.read(self.read_end, ITEM.size)
            if not item:
                return
            yield ITEM.unpack(item)[0]

    def close(self) -> None:
        os.close(self.read_end)
