"""The build's file IO beside the renderer: a forked writer process writes the staging folder, a
detached process deletes the replaced site after the swap. A failed or lost write still leaves the
previous site untouched, and nothing but the replaced site is deleted."""

from __future__ import annotations

import errno
import os
import shutil
import signal
from pathlib import Path

import pytest

from builder.cli.main import main
from builder.output import discard
from builder.output.discard import wait_for_discards
from builder.output.streaming import StreamedFiles
from builder.output.writer import (
    MARKER,
    MARKER_TEXT,
    Staging,
    has_marker,
    process_alive,
    staging_name_pattern,
)
from builder.output.writer_process import LOST
from tests.support.paths import RECIPES


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder``: a file's bytes, None for a folder."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes() if path.is_file() else None
        for path in sorted(folder.rglob("*"))
    }


@pytest.fixture(autouse=True)
def writers_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer processes start here even beside pytest-xdist's threads (the build forks only when no
    other thread runs: ``forked.can_fork``)."""
    monkeypatch.setattr("builder.output.writer_process.can_fork", lambda: True)


@pytest.fixture()
def content(tmp_path: Path) -> Path:
    shutil.copytree(RECIPES, tmp_path / "content")
    return tmp_path / "content"


def build(content: Path, out: Path) -> int:
    return main(["build", "--content", str(content), "--out", str(out), "--json-only"])


def test_the_writer_process_writes_and_deletes_in_order_and_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "site"
    with Staging(out, background=True) as staging:
        assert staging.writer is not None
        files = StreamedFiles(staging)
        files["b/one.json"] = b"1"
        files["b/gone.json"] = b"2"
        del files["b/gone.json"]
        files["a.json"] = b"3"
        assert files["b/one.json"] == b"1"  # read back once the writer caught up
        assert not (staging.folder / "b" / "gone.json").exists()
        pids = staging.writer.pids
        assert len(pids) == 2 and os.getpid() not in pids
        staging.commit()
    assert snapshot(out) == {MARKER: MARKER_TEXT, "a.json": b"3", "b": None, "b/one.json": b"1"}
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, 0)  # ended and reaped by the commit


def test_a_write_failing_in_the_writer_process_leaves_the_previous_site(
    tmp_path: Path, content: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert build(content, out) == 0
    wait_for_discards()
    before = snapshot(tmp_path)
    real_put = Staging._put
    builder_pid = os.getpid()

    def disk_full(self: Staging, target: str, data: bytes) -> None:
        if os.getpid() != builder_pid and target.endswith("/models.json"):  # in the writer process only
            raise OSError(errno.ENOSPC, "No space left on device")
        real_put(self, target, data)

    monkeypatch.setattr(Staging, "_put", disk_full)
    capsys.readouterr()
    assert build(content, out) == 1
    assert capsys.readouterr() == (
        "",
        f"error: cannot write the site to {out} ([Errno 28] No space left on device); it is left unchanged\n",
    )
    assert snapshot(tmp_path) == before


def test_a_killed_writer_process_is_never_committed(tmp_path: Path, content: Path) -> None:
    out = tmp_path / "site"
    assert build(content, out) == 0
    wait_for_discards()
    before = snapshot(tmp_path)
    with pytest.raises(OSError, match=f"^{LOST}$"), Staging(out, background=True) as staging:
        files = StreamedFiles(staging)
        files["models.json"] = b"[]"
        assert staging.writer is not None
        killed = staging.writer.pids[0]
        os.kill(killed, signal.SIGKILL)
        os.waitpid(killed, 0)
        files["taxonomy.json"] = b"{}"
        staging.commit()
    assert snapshot(tmp_path) == before


def test_the_build_returns_before_the_replaced_site_is_deleted(
    tmp_path: Path, content: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, go = tmp_path / "site", tmp_path / "go"
    assert build(content, out) == 0
    old_inode = out.stat().st_ino
    waiting = f"import os, time\nwhile not os.path.exists({str(go)!r}):\n    time.sleep(0.01)\n"
    monkeypatch.setattr(discard, "DELETER", waiting + discard.DELETER)
    assert build(content, out) == 0
    [retired] = [name for name in os.listdir(tmp_path) if name.startswith(".site.old-")]
    deleter = int(staging_name_pattern(out).fullmatch(retired)["pid"])
    assert deleter != os.getpid() and process_alive(deleter)
    old = tmp_path / retired / "site"
    assert old.stat().st_ino == old_inode and has_marker(old)
    assert build(content, out) == 0  # the next build's sweep leaves a running deleter's folder alone
    assert (tmp_path / retired / "site").stat().st_ino == old_inode
    go.touch()
    wait_for_discards()
    assert sorted(name for name in os.listdir(tmp_path) if "site" in name) == ["site"]


def test_nothing_beside_out_is_deleted(tmp_path: Path, content: Path) -> None:
    parent = tmp_path / "public"
    out = parent / "site"
    others = ("notes.txt", "other/page.html", ".site.old-notes/keep.txt",
              ".sites.old-1-abcdefgh/site/keep.json", "site-copy/models.json")
    for name in others:
        (parent / name).parent.mkdir(parents=True, exist_ok=True)
        (parent / name).write_text(f"not the build's: {name}")
    before = snapshot(parent)
    for _ in range(2):  # a new out, then a replaced one
        assert build(content, out) == 0
    wait_for_discards()
    assert {path: data for path, data in snapshot(parent).items() if path.split("/")[0] != "site"} == before
