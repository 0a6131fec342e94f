"""Copies of built sites for tests that must show a build left them alone."""

from __future__ import annotations

import os
import stat
import time
from functools import cache
from pathlib import Path

Entry = bytes | str  # a file's bytes, "link -> <target>", "folder" or "other"


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


def snapshot(folder: Path, skip: Path | None = None) -> dict[str, Entry]:
    """Every entry below ``folder`` by relative path: a file's bytes, ``"link -> <target>"`` for a symbolic
    link (never followed), ``"folder"``, or ``"other"`` (a FIFO, a socket: never opened); below ``skip``
    nothing (``skip`` itself is listed)."""
    found: dict[str, Entry] = {}
    todo = [("", os.fspath(folder))]
    skipped = os.fspath(skip) if skip is not None else None
    while todo:
        prefix, path = todo.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                rel = prefix + entry.name
                kind = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISLNK(kind):
                    found[rel] = f"link -> {os.readlink(entry.path)}"
                elif stat.S_ISDIR(kind):
                    found[rel] = "folder"
                    if entry.path != skipped:
                        todo.append((rel + "/", entry.path))
                elif stat.S_ISREG(kind):
                    with open(entry.path, "rb") as handle:
                        found[rel] = handle.read()
                else:
                    found[rel] = "other"
    return found


@cache
def site_snapshot(site: Path) -> dict[str, Entry]:
    """:func:`snapshot` of a session's site, which tests only read (taken once per process)."""
    return snapshot(site)


def with_linked_site(folder: Path, out: Path, site: Path) -> dict[str, Entry]:
    """:func:`snapshot` of ``folder`` where ``out`` is a :func:`linked_copy` of the session's ``site``, its
    part taken from :func:`site_snapshot` (the same bytes: the files are links to the site's)."""
    prefix = out.relative_to(folder).as_posix() + "/"
    linked = {prefix + rel: entry for rel, entry in site_snapshot(site).items()}
    return {**snapshot(folder, skip=out), **linked}
