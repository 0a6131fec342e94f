"""Output files streamed into a staging folder as they are produced, so the site is never held in memory.

:class:`StreamedFiles` is the mapping the build hands the JSON API (and the pages) in place of a
dict: setting a path queues its bytes for a writer thread (file I/O releases the GIL, so writing
overlaps the rendering), deleting one removes the file again; only the paths stay in memory, so
the collision checks still see every output. A write that fails (a refused path, a full disk) is
kept and stops the writing; :meth:`Staging.commit` raises it, after the collision checks have
had their say, and the staging folder is dropped: the previous site stays untouched.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator, MutableMapping

from builder.writer import Staging, inside

_QUEUED_FILES = 512  # files waiting for the writer thread at most (bounds the memory they hold)
_STOP = ("", None)


class StreamedFiles(MutableMapping[str, bytes]):
    """Paths written into ``staging`` as they are set (by a writer thread), in the order they are set."""

    def __init__(self, staging: Staging) -> None:
        self.staging = staging
        self.paths: dict[str, None] = {}  # insertion order, like the dict it replaces
        self.pending: queue.Queue[tuple[str, bytes | None]] = queue.Queue(maxsize=_QUEUED_FILES)
        self.thread: threading.Thread | None = None

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
        if self.thread is None:
            self.thread = threading.Thread(target=self._write_all, daemon=True)
            self.thread.start()
        self.pending.put((path, data))

    def _write_all(self) -> None:
        while True:
            path, data = self.pending.get()
            if not path:
                return
            if self.staging.error is not None:
                continue  # after a failed write: drain the queue, write nothing more
            try:
                if data is None:
                    inside(self.staging.folder, path).unlink(missing_ok=True)
                else:
                    self.staging.write({path: data})
            except BaseException as exc:  # re-raised by Staging.commit()
                self.staging.error = exc

    def flush(self) -> None:
        """Wait until every queued file is written and stop the writer thread (before a fork)."""
        if self.thread is not None:
            self.pending.put(_STOP)
            self.thread.join()
            self.thread = None
