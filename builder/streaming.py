"""Output files streamed into a staging folder as they are produced, so the site is never held in memory.

:class:`StreamedFiles` is the mapping the build hands the JSON API (and the pages) in place of a
dict: setting a path sends its bytes down a pipe to a writer process (:mod:`builder.file_writer`,
started on the first file), so creating the files costs another core and the building process
neither holds them nor waits for a writer thread's GIL; deleting a path removes the file again.
Only the paths stay in memory, so the collision checks still see every output. A write that fails
(a refused path, a full disk) is kept and stops the writing; :meth:`Staging.commit` raises it,
after the collision checks have had their say, and the staging folder is dropped: the previous
site stays untouched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterable, Iterator, MutableMapping
from pathlib import Path

from builder.file_writer import DELETE, HEADER
from builder.writer import Staging, UnsafePath, inside

WRITER_SCRIPT = Path(__file__).with_name("file_writer.py")
_PIPE_BUFFER = 1 << 18  # bytes gathered before a write to the pipe


class StreamedFiles(MutableMapping[str, bytes]):
    """Paths written into ``staging`` as they are set (by a writer process), in the order they are set."""

    def __init__(self, staging: Staging) -> None:
        self.staging = staging
        self.paths: dict[str, None] = {}  # insertion order, like the dict it replaces
        self.writer: subprocess.Popen[bytes] | None = None

    def __setitem__(self, path: str, data: bytes) -> None:
        self.paths[path] = None
        self._send(path, data)

    def __delitem__(self, path: str) -> None:
        del self.paths[path]
        self._send(path, None)

    def __getitem__(self, path: str) -> bytes:
        """The bytes written for ``path`` (read back from the staging folder)."""
        if path not in self.paths:
            raise KeyError(path)
        self.flush()
        return inside(self.staging.folder, path).read_bytes()

    def __contains__(self, path: object) -> bool:
        return path in self.paths

    def __iter__(self) -> Iterator[str]:
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def sibling(self) -> StreamedFiles:
        """A new, empty stream into the same staging folder (e.g. for a forked process)."""
        return StreamedFiles(self.staging)

    def adopt(self, paths: Iterable[str]) -> None:
        """Count ``paths`` as written: another stream (or process) wrote them into the staging folder."""
        if isinstance(paths, StreamedFiles):
            paths.flush()
        for path in paths:
            self.paths[path] = None

    def _send(self, path: str, data: bytes | None) -> None:
        staging = self.staging
        if staging.error is not None:
            return  # after a failed write: write nothing more
        try:
            target = os.fsencode(inside(staging.folder, path))
        except UnsafePath as exc:  # re-raised by Staging.commit()
            staging.error = exc
            return
        if self.writer is None:
            self.writer = subprocess.Popen([sys.executable, "-I", "-S", str(WRITER_SCRIPT)], stdin=subprocess.PIPE,
                                           stdout=subprocess.PIPE, bufsize=_PIPE_BUFFER)
        assert self.writer.stdin is not None
        size = DELETE if data is None else len(data)
        try:
            self.writer.stdin.write(HEADER.pack(len(target), size) + target)
            if data:
                self.writer.stdin.write(data)
        except OSError as exc:  # the writer process died (its pipe is broken)
            staging.error = OSError(exc.errno, f"the file writer stopped: {exc.strerror}")

    def flush(self) -> None:
        """Wait until every file sent is written and stop the writer process (before a fork)."""
        writer, self.writer = self.writer, None
        if writer is None:
            return
        try:
            reply, _ = writer.communicate(HEADER.pack(0, 0))
        except OSError as exc:  # the writer died: its pipe is broken
            reply = f"{exc.errno or 0}\0the file writer stopped: {exc.strerror}\0".encode()
        if reply != b"ok" and self.staging.error is None:
            code, message, name = (reply.decode("utf-8", "surrogateescape").split("\0") + ["", "", ""])[:3]
            failure = OSError(int(code) if code.isdigit() else 0, message or "the file writer failed")
            failure.filename = name or None
            self.staging.error = failure
