"""Write an in-memory site to disk atomically: build into a temporary folder, then swap."""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
from pathlib import Path


class Staging:
    """A temporary folder beside ``out`` that replaces it on :meth:`commit` (and vanishes otherwise)."""

    def __init__(self, out: Path):
        self.out = out.resolve()
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self.folder = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.new-", dir=self.out.parent))
        self.made: set[str] = set()
        self.error: BaseException | None = None

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.folder.exists():
            shutil.rmtree(self.folder, ignore_errors=True)

    def write(self, files: dict[str, bytes]) -> None:
        """Write ``files`` (output-relative paths) into the staging folder."""
        for rel in sorted(files):
            target = self.folder / rel
            parent = str(target.parent)
            if parent not in self.made:
                os.makedirs(parent, exist_ok=True)
                self.made.add(parent)
            with open(target, "wb") as handle:
                handle.write(files[rel])

    def write_in_background(self, files: dict[str, bytes]) -> threading.Thread:
        """Start writing ``files`` in a thread; join it before :meth:`commit`."""

        def run() -> None:
            try:
                self.write(files)
            except BaseException as exc:  # re-raised by commit()
                self.error = exc

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def commit(self) -> None:
        """Swap the staging folder in place of ``out``."""
        if self.error is not None:
            raise self.error
        swap_in(self.folder, self.out)


def write_tree(files: dict[str, bytes], out: Path) -> None:
    """Replace ``out`` with exactly ``files``; on failure ``out`` is left as it was."""
    with Staging(out) as staging:
        staging.write(files)
        staging.commit()


def swap_in(staging: Path, out: Path) -> None:
    """Move ``staging`` to ``out``, keeping the old tree until the new one is in place."""
    if not out.exists():
        os.rename(staging, out)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rename(out, retired / "site")
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(retired / "site", out)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def update_tree(changed: dict[str, bytes], removed: set[str], out: Path) -> None:
    """Rewrite only ``changed`` files and delete ``removed`` ones (incremental rebuilds)."""
    for rel in sorted(removed):
        (out / rel).unlink(missing_ok=True)
    for rel in sorted(changed):
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_bytes(changed[rel])
        os.replace(tmp, target)
