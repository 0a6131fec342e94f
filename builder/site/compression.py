"""Pre-compressed twins of the files the browser loads: ``<file>.gz`` and ``<file>.br`` beside ``<file>``.

Both are reproducible (gzip without name and with mtime 0; Brotli with a 16 MB window).  Files of
at least :data:`CACHE_MIN_BYTES` (the Pyodide runtime) get Brotli's best quality, which takes about a
minute for the runtime, so those results are remembered on disk by content hash
(``node_modules/.cache`` in a checkout, the user's cache when installed: :mod:`builder.site.paths`); smaller
files get quality 5: about 12 % larger than the best, and 40 times faster.  The builder data (``quick``:
several files per recipe, up to 0.8 MB, remembered by the build's own cache) gets quality 8 at any size: 7 %
larger than the best and 60 times faster.  ``builder.cli.static_host`` picks
the twin the request's ``Accept-Encoding`` allows (``br`` before ``gzip``).
"""

from __future__ import annotations

import gzip
import hashlib
import io
from collections.abc import Callable
from pathlib import Path

import brotli

from builder.site.disk_cache import Busy, cached_bytes
from builder.site.paths import NODE_CACHE_DIR

CACHE = NODE_CACHE_DIR / "vllm-recipes-compressed"
TWIN_MIN_BYTES = 1024  # smaller files are sent as they are
CACHE_MIN_BYTES = 256 * 1024  # smaller files are compressed again on every build (milliseconds)
ENCODINGS = (("br", ".br"), ("gzip", ".gz"))  # server preference order
QUICK_QUALITY = 8  # the builder data's Brotli quality (with_twins(quick=True))


def gzip_bytes(data: bytes) -> bytes:
    """Reproducible gzip (no name, mtime 0)."""
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(data)
    return buf.getvalue()


def brotli_bytes(data: bytes) -> bytes:
    """Brotli (deterministic): best quality for large files, quality 5 for the others."""
    return bytes(brotli.compress(data, quality=11 if len(data) >= CACHE_MIN_BYTES else 5, lgwin=24))


def quick_brotli_bytes(data: bytes) -> bytes:
    """Brotli quality 8 (deterministic), whatever the size: for the builder data."""
    return bytes(brotli.compress(data, quality=QUICK_QUALITY, lgwin=24))


def _cached(data: bytes, suffix: str, pack: Callable[[bytes], bytes], cache_dir: Path,
            wait: bool = True) -> bytes:
    """``pack(data)``, kept in ``cache_dir`` for large files; raises :class:`Busy` (``wait`` False)
    while another process computes it."""
    if len(data) < CACHE_MIN_BYTES:
        return pack(data)
    packed = cached_bytes(_entry(data, suffix, cache_dir), lambda: pack(data), wait)
    assert packed is not None
    return packed


def _entry(data: bytes, suffix: str, cache_dir: Path) -> Path:
    """Where the ``suffix`` twin of ``data`` is cached."""
    return cache_dir / f"{hashlib.sha256(data).hexdigest()}{suffix}"


def cold_twins(files: dict[str, bytes], cache_dir: Path = CACHE) -> list[str]:
    """The paths of ``files`` whose twins :func:`with_twins` would compute at Brotli's best quality
    (none cached yet), largest first."""
    cold = [path for path, data in files.items() if len(data) >= CACHE_MIN_BYTES
            and not all(_entry(data, suffix, cache_dir).is_file() for _, suffix in ENCODINGS)]
    return sorted(cold, key=lambda path: -len(files[path]))


def with_twins(files: dict[str, bytes], cache_dir: Path = CACHE, quick: bool = False) -> dict[str, bytes]:
    """``files`` plus a ``.br`` and a ``.gz`` twin of each file of at least :data:`TWIN_MIN_BYTES`
    that compresses to under 90 % of its size.

    ``quick``: Brotli :data:`QUICK_QUALITY` and no disk cache, whatever the size (the builder data).
    Twins another process is computing are taken last, so two builds of a fresh checkout share the
    work of filling the cache instead of waiting for each other."""
    jobs = [(path, suffix, pack) for path, data in files.items() if len(data) >= TWIN_MIN_BYTES
            for suffix, pack in ((".br", quick_brotli_bytes if quick else brotli_bytes), (".gz", gzip_bytes))]
    packed: dict[tuple[str, str], bytes] = {}
    for path, suffix, pack in jobs:
        if quick:
            packed[path, suffix] = pack(files[path])
            continue
        try:
            packed[path, suffix] = _cached(files[path], suffix, pack, cache_dir, wait=False)
        except Busy:
            pass
    for path, suffix, pack in jobs:
        if (path, suffix) not in packed:
            packed[path, suffix] = _cached(files[path], suffix, pack, cache_dir)
    out = dict(files)
    for path, suffix, _ in jobs:
        if len(packed[path, suffix]) < 0.9 * len(files[path]):
            out[path + suffix] = packed[path, suffix]
    return out
