"""The writer process of :class:`builder.streaming.StreamedFiles`: files from stdin onto the disk.

Run as a script (``python -I -S file_writer.py``, standard library only, nothing of the build
imported), so the cost of creating thousands of files is paid on another core, and the
building process never waits for the GIL behind a writer thread.

Stdin carries records ``<path length: u32><data length: u32><absolute path><data>`` (big-endian;
a data length of :data:`DELETE` removes the file instead, a path length of 0 ends the stream).
Folders are made as needed with the umask's modes. After the first failed write nothing more is
written; at the end stdout receives ``ok`` or ``<errno>\\0<message>\\0<file name>`` of that failure.
"""

from __future__ import annotations

import errno
import os
import struct
import sys
from typing import BinaryIO

HEADER = struct.Struct(">II")
DELETE = 0xFFFFFFFF


def write_all(source: BinaryIO) -> OSError | None:
    """Apply every record of ``source``; the first failure, if any (later records are skipped)."""
    made: set[str] = set()
    failed: OSError | None = None
    while True:
        header = source.read(HEADER.size)
        if len(header) < HEADER.size:  # the build stopped without ending the stream
            return failed or OSError(errno.EPIPE, "the file stream ended early")
        path_size, size = HEADER.unpack(header)
        if path_size == 0:
            return failed
        path = os.fsdecode(source.read(path_size))
        data = b"" if size == DELETE else source.read(size)
        if failed is not None:
            continue
        try:
            if size == DELETE:
                try:
                    os.unlink(path)
                except FileNotFoundError:
                    pass
                continue
            folder = os.path.dirname(path)
            if folder not in made:
                os.makedirs(folder, exist_ok=True)
                made.add(folder)
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_BINARY", 0), 0o666)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(handle, view):]
            finally:
                os.close(handle)
        except OSError as exc:
            failed = exc
        except ValueError as exc:  # a path the system refuses (an embedded NUL)
            failed = OSError(errno.EINVAL, str(exc), path)


def main() -> None:
    failed = write_all(sys.stdin.buffer)
    if failed is None:
        sys.stdout.buffer.write(b"ok")
    else:
        fields = (str(failed.errno or 0), failed.strerror or str(failed), failed.filename or "")
        sys.stdout.buffer.write("\0".join(os.fsdecode(f) if isinstance(f, bytes) else str(f) for f in fields)
                                .encode("utf-8", "surrogateescape"))


if __name__ == "__main__":
    main()
