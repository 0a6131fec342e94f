"""Results too slow to compute on every build (Brotli at its best quality, the runtime byte-compiled
by Pyodide), kept on disk by a key that names their inputs.

One process computes a missing entry while the others wanting the same one wait for it (a lock
file beside the entry), so two builds started together, or the workers of a test run, do the
minute of work once. A cache that can't be written costs only the time.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from pathlib import Path


class Busy(Exception):
    """Another process is computing the entry (raised only when the caller would rather not wait)."""


def cached_bytes(entry: Path, compute: Callable[[], bytes | None], wait: bool = True) -> bytes | None:
    """The bytes stored at ``entry``, or ``compute()``'s, stored there (None is not stored).

    ``wait`` False: raise :class:`Busy` instead of waiting for another process computing it."""
    if entry.is_file():
        return entry.read_bytes()
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        lock = open(entry.with_name(entry.name + ".lock"), "w")  # noqa: SIM115 - held until the entry exists
    except OSError:
        return compute()
    with lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(entry) from None
        if entry.is_file():  # another process computed it while this one waited
            return entry.read_bytes()
        data = compute()
        if data is not None:
            try:
                partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
                partial.write_bytes(data)
                partial.replace(entry)
            except OSError:
                pass
        return data


def cached_files(entry: Path, compute: Callable[[], dict[str, bytes]], keep_bytes: int) -> dict[str, bytes]:
    """The files stored at ``entry`` (names and bytes, one file on disk), or ``compute()``'s, stored there.

    A hit marks the entry as used; after storing one, the least recently used entries of the folder
    go until it holds at most ``keep_bytes``."""
    if entry.is_file():
        try:
            files = unpack_files(entry.read_bytes())
            os.utime(entry)
            return files
        except (OSError, ValueError):
            entry.unlink(missing_ok=True)  # unreadable or damaged: computed and stored again
    files = compute()
    stored = cached_bytes(entry, lambda: pack_files(files))
    if stored is not None:
        _prune(entry.parent, keep_bytes)
    return files


def pack_files(files: dict[str, bytes]) -> bytes:
    """``files`` as one byte string: per file its name's and its data's length (8 bytes each, big-endian),
    the name (UTF-8) and the data."""
    out = bytearray()
    for name, data in files.items():
        encoded = name.encode()
        out += len(encoded).to_bytes(8, "big") + len(data).to_bytes(8, "big") + encoded + data
    return bytes(out)


def unpack_files(blob: bytes) -> dict[str, bytes]:
    """The files of :func:`pack_files` (ValueError when ``blob`` is not one)."""
    files: dict[str, bytes] = {}
    at = 0
    while at < len(blob):
        if at + 16 > len(blob):
            raise ValueError("truncated entry")
        name_len = int.from_bytes(blob[at:at + 8], "big")
        data_len = int.from_bytes(blob[at + 8:at + 16], "big")
        at += 16
        if at + name_len + data_len > len(blob):
            raise ValueError("truncated entry")
        files[blob[at:at + name_len].decode()] = blob[at + name_len:at + name_len + data_len]
        at += name_len + data_len
    return files


def _prune(folder: Path, keep_bytes: int) -> None:
    """Delete the least recently used entries of ``folder`` (and their lock files) beyond ``keep_bytes``."""
    try:
        entries = [(e.stat().st_mtime, e.stat().st_size, e) for e in folder.iterdir()
                   if e.is_file() and not e.name.endswith((".lock", ".tmp"))]
    except OSError:
        return
    total = sum(size for _, size, _ in entries)
    for _, size, entry in sorted(entries, key=lambda item: item[0]):
        if total <= keep_bytes:
            break
        for path in (entry, entry.with_name(entry.name + ".lock")):
            path.unlink(missing_ok=True)
        total -= size
