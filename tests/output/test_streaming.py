"""The streamed build: files go into the staging folder as they are set; only paths stay in memory."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from builder.output import writer
from builder.output.streaming import StreamedFiles
from builder.output.writer import Staging, UnsafePath


def test_set_files_are_written_deleted_ones_removed_and_paths_kept_in_order(tmp_path: Path) -> None:
    with Staging(tmp_path / "site") as staging:
        files = StreamedFiles(staging)
        files["b/one.json"] = b"1"
        files["a.json"] = b"2"
        files["b/gone.json"] = b"3"
        del files["b/gone.json"]
        assert list(files) == ["b/one.json", "a.json"]
        assert (staging.folder / "b" / "one.json").read_bytes() == b"1"
        assert not (staging.folder / "b" / "gone.json").exists()
        assert files["a.json"] == b"2" and "a.json" in files and len(files) == 2
        other = files.sibling()
        other["c.json"] = b"4"
        files.adopt(other)
        assert list(files) == ["b/one.json", "a.json", "c.json"]
        assert (staging.folder / "c.json").read_bytes() == b"4"
        staging.commit()
    assert (sorted(p.name for p in (tmp_path / "site").iterdir())
            == [".vllm-recipes-site", "a.json", "b", "c.json"])


def test_a_failed_write_stops_the_writing_and_is_raised_by_commit(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = writer.Staging.write_file
    written: list[str] = []

    def disk_full(self: Staging, rel: str, data: bytes) -> None:
        if rel == "full.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(rel)
        real_write(self, rel, data)

    monkeypatch.setattr(writer.Staging, "write_file", disk_full)
    with Staging(tmp_path / "site") as staging:
        files = StreamedFiles(staging)
        for name in ("first.json", "full.json", "after.json"):
            files[name] = b"{}"
        assert list(files) == ["first.json", "full.json", "after.json"]  # the collision checks see every path
        assert written == ["first.json"]
        with pytest.raises(OSError, match="No space left on device"):
            staging.commit()
    assert not (tmp_path / "site").exists()


def test_a_refused_path_is_raised_by_commit_and_nothing_is_swapped_in(tmp_path: Path) -> None:
    with Staging(tmp_path / "site") as staging:
        files = StreamedFiles(staging)
        files["../escape.json"] = b"{}"
        with pytest.raises(UnsafePath, match="refusing to write outside the site: '../escape.json'"):
            staging.commit()
    assert not (tmp_path / "escape.json").exists() and not (tmp_path / "site").exists()
