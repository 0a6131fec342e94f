"""The site a build replaced, deleted after the swap by a detached process: the build returns as
soon as the new site is in place.

Deleting ~14,000 files took a rebuild 10-40 s of wall time on this VM (ext4 mounted with
``discard``), far more than the build itself. The old tree is first renamed into
``.<out>.old-<pid>-<random>/`` named for the deleter's pid, so the next build's sweep
(:func:`~builder.output.writer.remove_stale_staging`) leaves it alone while the deleter runs and
removes it if the deleter was killed. Nothing but that folder is handed to the deleter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# reads the folder to delete from stdin (nothing when the rename failed), at a low priority
DELETER = (
    "import os, shutil, sys\n"
    "path = os.fsdecode(sys.stdin.buffer.read())\n"
    "os.nice(10)\n"
    "if path:\n"
    "    shutil.rmtree(path, ignore_errors=True)\n"
)
_started: list[subprocess.Popen[bytes]] = []


def discard(tree: Path, out: Path) -> None:
    """Delete ``tree`` (the site swapped out of ``out``, or a folder holding it) in the background;
    inline where no deleter process can start."""
    try:
        deleter = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", DELETER],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C of the build does not stop the deletion
        )
    except (OSError, ValueError):  # no interpreter to start (an empty sys.executable)
        shutil.rmtree(tree, ignore_errors=True)
        return
    assert deleter.stdin is not None
    retired: Path | None = None
    try:
        retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{deleter.pid}-", dir=out.parent))
        os.rename(tree, retired / "site")
    except OSError:
        shutil.rmtree(tree, ignore_errors=True)
    finally:
        try:
            deleter.stdin.write(os.fsencode(retired) if retired is not None else b"")
            deleter.stdin.close()
        except OSError:
            pass  # the deleter is gone: the next build's sweep removes the folder
    _started[:] = [*(started for started in _started if started.poll() is None), deleter]


def wait_for_discards() -> None:
    """Wait until every deletion this process started is done."""
    while _started:
        _started.pop().wait()
