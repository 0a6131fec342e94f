"""Output files streamed into a staging folder as they are produced, so the site is never held in memory.

:class:`StreamedFiles` is the mapping the build hands the JSON API (and the pages) in place of a
dict: setting a path writes its bytes at once, deleting one removes the file again; only the paths
stay in memory, so the collision checks still see every output.  (No writer thread: each file
call releases the GIL, and a thread waiting to take it back from the rendering one waits a
switch interval, up to 5 ms, per call; that convoy made writing 5-10x slower than writing inline.) A write
that fails (a refused path, a full disk) is kept and stops the writing; :meth:`Staging.commit` raises it,
after the collision checks have had their say, and the staging folder is dropped: the previous site stays
untouched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, MutableMapping

from builder.output.writer import Staging, inside


class StreamedFiles(MutableMapping[str, bytes]):
    """Paths written into ``staging`` as they are set, in the order they are set."""

    def __init__(self, staging: Staging) -> None:
        self.staging = staging
        self.paths: dict[str, None] = {}  # insertion order, like the dict it replaces

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
        self.staging.flush()
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
        for path in paths:
            self.paths[path] = None

    def _send(self, path: str, data: bytes | None) -> None:
        if self.staging.error is not None:
            return  # after a failed write: write nothing more
        try:
            if data is None:
                self.staging.remove_file(path)
            else:
                self.staging.write_file(path, data)
        except BaseException as exc:  # re-raised by Staging.commit()
            self.staging.error = exc
