"""The disk cache of slow results: computed once however many processes want an entry, and twins
another process is computing taken last."""

from __future__ import annotations

import fcntl
import threading
import time
from pathlib import Path

import pytest

from builder.site import compression
from builder.site.disk_cache import Busy, cached_bytes


def test_an_entry_is_computed_once_then_read(tmp_path: Path) -> None:
    calls: list[int] = []

    def compute() -> bytes:
        calls.append(1)
        return b"result"

    entry = tmp_path / "cache" / "key.bin"
    assert cached_bytes(entry, compute) == b"result"
    assert cached_bytes(entry, compute) == b"result"
    assert calls == [1] and entry.read_bytes() == b"result"
    assert cached_bytes(tmp_path / "cache" / "none.bin", lambda: None) is None
    assert not (tmp_path / "cache" / "none.bin").exists()


def test_an_entry_being_computed_is_busy_for_a_caller_that_will_not_wait(tmp_path: Path) -> None:
    entry = tmp_path / "key.bin"
    with open(tmp_path / "key.bin.lock", "w") as held:  # as another process computing it holds it
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(Busy):
            cached_bytes(entry, lambda: b"x", wait=False)
    assert cached_bytes(entry, lambda: b"x", wait=False) == b"x"


def test_twins_being_computed_elsewhere_are_taken_last_and_the_order_kept(tmp_path: Path) -> None:
    big = compression.CACHE_MIN_BYTES
    files = {"a.txt": b"a" * big, "b.txt": b"b" * big, "small.txt": b"s" * 2048}
    expected = compression.with_twins(files, tmp_path / "reference")
    cache = tmp_path / "cache"
    cache.mkdir()
    first_twin = cache / f"{compression.hashlib.sha256(files['a.txt']).hexdigest()}.br"
    done: dict[str, dict[str, bytes]] = {}
    with open(first_twin.with_name(first_twin.name + ".lock"), "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        worker = threading.Thread(
            target=lambda: done.setdefault("twins", compression.with_twins(files, cache)))
        worker.start()
        others = [cache / f"{compression.hashlib.sha256(files['a.txt']).hexdigest()}.gz",
                  cache / f"{compression.hashlib.sha256(files['b.txt']).hexdigest()}.br"]
        deadline = time.monotonic() + 30
        while not all(p.is_file() for p in others) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert all(p.is_file()
                   for p in others), "the other twins were not computed while the first one was busy"
        assert not first_twin.exists() and "twins" not in done
    worker.join(30)
    assert list(done["twins"]) == list(expected) and done["twins"] == expected


def test_cold_twins_are_the_large_files_without_cached_twins_largest_first(tmp_path: Path) -> None:
    big = compression.CACHE_MIN_BYTES
    files = {"small.txt": b"s" * (big - 1), "a.txt": b"a" * big, "b.txt": b"b" * (big + 1)}
    assert compression.cold_twins(files, tmp_path) == ["b.txt", "a.txt"]
    compression.with_twins({"a.txt": files["a.txt"]}, tmp_path)
    assert compression.cold_twins(files, tmp_path) == ["b.txt"]
    (tmp_path / f"{compression.hashlib.sha256(files['a.txt']).hexdigest()}.gz").unlink()
    assert compression.cold_twins(files, tmp_path) == ["b.txt", "a.txt"]  # one twin missing is cold
