"""Copies of built sites for tests that must show a build left them alone."""

from __future__ import annotations

import os
import time
from pathlib import Path


def linked_copy(source: Path, target: Path) -> None:
    """``source`` mirrored at ``target`` with every file a hard link (folders and symbolic links are
    made anew): a copy in a few milliseconds of a site that only a build replaces as a whole.

    Only for an ``--out`` that a test hands to ``build``, which swaps in a new folder: a write into
    one of these files would change the original too (the test comparing the folder before and
    after would still see it)."""
    for folder, dirs, files in os.walk(source):
        rel = Path(folder).relative_to(source)
        (target / rel).mkdir(parents=True, exist_ok=True)
        for name in dirs + files:
            path = Path(folder, name)
            if path.is_symlink():
                (target / rel / name).symlink_to(os.readlink(path))
                if name in dirs:
                    dirs.remove(name)
            elif name in files:
                os.link(path, target / rel / name)


def discards_done(folder: Path, timeout: float = 60.0) -> None:
    """Wait (up to ``timeout`` s) until no replaced site of a build run in another process is still being
    deleted beside its ``--out`` in ``folder`` (``.<out>.old-<pid>-<random>/``: builder.output.discard)."""
    deadline = time.monotonic() + timeout
    while any(folder.glob(".*.old-*")) and time.monotonic() < deadline:
        time.sleep(0.05)
