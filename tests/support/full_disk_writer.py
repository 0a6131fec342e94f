"""A stand-in for the writer process (:mod:`builder.file_writer`) whose disk fills up after three files.

Run by the tests as the real one is (``python -I -S <script>``): the real writer's loop, with
``os.open`` failing as on a full disk from the fourth file on.
"""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from builder import file_writer  # noqa: E402

real_open = os.open
opened: list[str] = []


def open_until_full(path: str, flags: int, mode: int = 0o777) -> int:
    if len(opened) >= 3:
        raise OSError(errno.ENOSPC, "No space left on device")
    opened.append(path)
    return real_open(path, flags, mode)


os.open = open_until_full  # type: ignore[assignment]  # this process only
file_writer.main()
