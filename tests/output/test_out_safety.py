"""``--out`` safety and the writer: refusals, the marker, stale staging folders, the atomic swap, modes."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from builder.cli.main import main
from builder.output import writer
from builder.output.discard import wait_for_discards
from builder.output.writer import MARKER, MARKER_TEXT, UnsafeOutput, UnsafePath, update_tree, write_tree
from tests.support.paths import RECIPES

NOT_EMPTY = (f"it is not empty and has no {MARKER} marker from an earlier build (delete it or "
             "choose another --out)")


@dataclass
class Place:
    """A tmp folder holding a content root, the current directory and $HOME."""

    root: Path
    content: Path
    cwd: Path
    home: Path


@pytest.fixture()
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    root = Path(os.path.realpath(tmp_path))
    content, cwd, home = root / "content", root / "cwd", root / "home"
    shutil.copytree(RECIPES, content)
    cwd.mkdir()
    home.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("HOME", str(home))
    return Place(root, content, cwd, home)


def snapshot(folder: Path) -> dict[str, object]:
    """Every path under ``folder`` with its mode and bytes (or link target)."""
    found: dict[str, object] = {}
    for base, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(base) / name
            info = path.lstat()
            if path.is_symlink():
                found[str(path)] = ("link", os.readlink(path))
            elif path.is_dir():
                found[str(path)] = ("dir", info.st_mode)
            else:
                found[str(path)] = ("file", info.st_mode, path.read_bytes())
    return found


def tree(folder: Path) -> dict[str, bytes]:
    """The files of a site, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def build(capsys: pytest.CaptureFixture[str], content: Path, out: Path | str) -> tuple[int, str, str]:
    """One build, and the deletion of the site it replaced (a detached process) done."""
    status = main(["build", "--content", str(content), "--out", str(out), "--json-only"])
    wait_for_discards()
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def beside(out: Path) -> list[str]:
    """Names of the entries next to ``out`` that belong to it (staging folders included)."""
    return sorted(n for n in os.listdir(out.parent) if n == out.name or n.startswith(f".{out.name}."))


@pytest.fixture()
def nothing_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal must come before the content is read or anything is written."""

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("the build went past the --out check")

    monkeypatch.setattr("builder.cli.build.load_content", forbidden)
    monkeypatch.setattr("builder.cli.build.Staging", forbidden)
    monkeypatch.setattr("builder.cli.serve.SiteState.full", forbidden)
    monkeypatch.setattr("builder.cli.serve.QuietServer", forbidden)


# ── refusals: exit 2, one line, nothing changed ──


def refusal_case(place: Place, case: str) -> tuple[str, str]:
    """Set up one unsafe --out; returns (the --out argument, the expected reason)."""
    root = place.root
    if case == "content root":
        return str(place.content), "it is the content root"
    if case == "content root's parent":
        box = root / "box"
        box.mkdir()
        shutil.move(place.content, box / "content")
        place.content = box / "content"
        return str(box), f"it contains the content root {box / 'content'}"
    if case == "link to the content root":
        (root / "link").symlink_to(place.content)
        return str(root / "link"), "it is the content root"
    if case == "current directory":
        (place.cwd / "notes.txt").write_text("mine")
        return ".", "it is the current directory"
    if case == "empty current directory":
        return ".", "it is the current directory"
    if case == "parent of the current directory":
        return "..", f"it contains the current directory {place.cwd}"
    if case == "home":
        return str(place.home), "it is your home folder"
    if case == "parent of home":
        (root / "users" / "me").mkdir(parents=True)
        os.environ["HOME"] = str(root / "users" / "me")  # restored by the fixture's monkeypatch
        return str(root / "users"), f"it contains your home folder {root / 'users' / 'me'}"
    if case == "root":
        return "/", "it is the root folder /"
    if case == "file":
        (root / "notes.txt").write_text("keep me")
        return str(root / "notes.txt"), "it is a file, not a folder"
    if case == "git checkout":
        (root / "repo" / ".git").mkdir(parents=True)
        (root / "repo" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (root / "repo" / MARKER).write_bytes(MARKER_TEXT)  # even with a marker
        return str(root / "repo"), "it is a git checkout (it has .git)"
    if case == "folder of other files":
        (root / "site").mkdir()
        (root / "site" / "thesis.tex").write_text("years of work")
        return str(root / "site"), NOT_EMPTY
    if case == "old site without marker":
        (root / "site").mkdir()
        for name in ("models.json", "taxonomy.json", "index.html"):
            (root / "site" / name).write_text("{}")
        return str(root / "site"), NOT_EMPTY
    if case == "marker with other bytes":
        (root / "site").mkdir()
        (root / "site" / MARKER).write_text("something else\n")
        return str(root / "site"), NOT_EMPTY
    if case == "marker that is a symlink":
        (root / "site").mkdir()
        (root / "real-marker").write_bytes(MARKER_TEXT)
        (root / "site" / MARKER).symlink_to(root / "real-marker")
        return str(root / "site"), NOT_EMPTY
    raise AssertionError(case)


REFUSALS = [
    "content root",
    "content root's parent",
    "link to the content root",
    "current directory",
    "empty current directory",
    "parent of the current directory",
    "home",
    "parent of home",
    "root",
    "file",
    "git checkout",
    "folder of other files",
    "old site without marker",
    "marker with other bytes",
    "marker that is a symlink",
]


@pytest.mark.parametrize("case", REFUSALS)
def test_build_refuses(place: Place, case: str, nothing_read: None, capsys) -> None:
    out, reason = refusal_case(place, case)
    before = snapshot(place.root)
    assert (build(capsys, place.content, out)
            == (2, "", f"error: refusing to write the site to {out}: {reason}\n"))
    assert snapshot(place.root) == before


@pytest.mark.parametrize("case", ["current directory", "folder of other files", "content root"])
def test_serve_refuses(place: Place, case: str, nothing_read: None, capsys) -> None:
    out, reason = refusal_case(place, case)
    before = snapshot(place.root)
    status = main(["serve", "--content", str(place.content), "--out", out, "--no-watch", "--port", "0"])
    captured = capsys.readouterr()
    assert ((status, captured.out, captured.err)
            == (2, "", f"error: refusing to write the site to {out}: {reason}\n"))
    assert snapshot(place.root) == before


def test_the_writer_itself_refuses_a_folder_of_other_files(place: Place) -> None:
    out, _ = refusal_case(place, "folder of other files")
    before = snapshot(place.root)
    with pytest.raises(UnsafeOutput) as caught:
        write_tree({"index.html": b"site"}, Path(out))
    assert str(caught.value) == f"refusing to write the site to {out}: {NOT_EMPTY}"
    assert snapshot(place.root) == before


# ── accepted outputs and the marker ──


@pytest.mark.parametrize("existing", ["missing", "empty folder"])
def test_a_new_or_empty_out_gets_the_site_and_the_marker(place: Place, existing: str, capsys) -> None:
    out = place.root / "public" / "site"
    if existing == "empty folder":
        out.mkdir(parents=True)
    status, stdout, err = build(capsys, place.content, out)
    assert (status, err) == (0, "")
    assert stdout == (f"built 11 recipes, 20 documents, 890 files into {out}\nmemory facts: 10 of 10 "
                      "recipes, 21 of 21 variants\nperformance: 56 of 193 records predicted, 137 with a "
                      "named reason, in 8 recipes with stored predictions\n")
    assert (out / MARKER).read_bytes() == MARKER_TEXT
    assert (out / "models.json").is_file()
    assert beside(out) == ["site"]  # no staging folder left


def test_a_second_build_replaces_a_marked_site(place: Place, capsys) -> None:
    out = place.root / "site"
    assert build(capsys, place.content, out)[0] == 0
    first = tree(out)
    (out / "leftover.html").write_text("from an older build")
    assert build(capsys, place.content, out)[0] == 0
    assert tree(out) == first  # the leftover is gone, everything else identical
    assert beside(out) == ["site"]


def test_the_default_site_folder_is_refused_when_unmarked_and_accepted_once_deleted(place: Place,
                                                                                    capsys) -> None:
    shutil.copytree(place.content, place.cwd / "recipes")
    (place.cwd / "site").mkdir()
    (place.cwd / "site" / "index.html").write_text("built before markers")
    assert main(["build", "--json-only"]) == 2
    assert capsys.readouterr().err == f"error: refusing to write the site to site: {NOT_EMPTY}\n"
    shutil.rmtree(place.cwd / "site")
    assert main(["build", "--json-only"]) == 0
    assert (place.cwd / "site" / MARKER).is_file()


# ── stale staging folders ──


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not writer.process_alive(child.pid)
    return child.pid


@pytest.fixture()
def live_pid() -> Iterator[int]:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        yield child.pid
    finally:
        child.kill()
        child.wait()


def test_stale_staging_folders_are_removed_and_live_ones_kept(place: Place, live_pid: int, capsys) -> None:
    out = place.root / "site"
    dead = dead_pid()
    made = {
        f".site.new-{dead}-ab12cd_9": "dead build",
        f".site.old-{dead}-zz00zz00": "dead fallback swap",
        f".site.new-{live_pid}-ab12cd34": "live build",
        ".site.new-legacy12": "pre-pid build, two hours old",
        ".site.new-recent12": "pre-pid build, just now",
        f".site.new-{dead}-toolongname": "not our pattern",
        f".sites.new-{dead}-ab12cd34": "another output's name",
    }
    for name, text in made.items():
        (place.root / name / "site").mkdir(parents=True)
        (place.root / name / "site" / "models.json").write_text(text)
    (place.root / f".site.new-{dead}-fileabcd").write_text("a file, not a folder")
    two_hours_ago = time.time() - 7200
    os.utime(place.root / ".site.new-legacy12", (two_hours_ago, two_hours_ago))

    assert build(capsys, place.content, out)[0] == 0
    assert beside(out) == sorted(
        [
            "site",
            f".site.new-{live_pid}-ab12cd34",
            ".site.new-recent12",
            f".site.new-{dead}-toolongname",
            f".site.new-{dead}-fileabcd",
        ]
    )
    assert ((place.root / f".sites.new-{dead}-ab12cd34" / "site" / "models.json").read_text()
            == "another output's name")
    assert ((place.root / f".site.new-{live_pid}-ab12cd34" / "site" / "models.json").read_text()
            == "live build")


def test_staging_folders_carry_the_pid(place: Place) -> None:
    staging = writer.Staging(place.root / "site")
    with staging:
        assert (writer.staging_name_pattern(staging.out).fullmatch(staging.folder.name)["pid"]
                == str(os.getpid()))
        assert (staging.folder / MARKER).read_bytes() == MARKER_TEXT
    assert not staging.folder.exists()


# ── the swap ──


def inodes(folder: Path) -> set[int]:
    found = {folder.lstat().st_ino}
    for base, dirs, files in os.walk(folder):
        found |= {(Path(base) / name).lstat().st_ino for name in dirs + files}
    return found


def test_the_swap_exchanges_atomically_on_linux(place: Place, monkeypatch: pytest.MonkeyPatch,
                                                capsys) -> None:
    out = place.root / "site"
    assert build(capsys, place.content, out)[0] == 0
    old_inode = out.stat().st_ino
    calls: list[tuple[Path, Path, bool, int]] = []
    real_exchange = writer.exchange

    def spy(first: Path, second: Path) -> bool:
        staged_inode = first.stat().st_ino
        done = real_exchange(first, second)
        calls.append((first, second, done, staged_inode))
        return done

    monkeypatch.setattr(writer, "exchange", spy)
    recipe = place.content / "models" / "Qwen" / "Qwen3-14B.yaml"
    recipe.write_text(recipe.read_text().replace('title: "', 'title: "Swapped ', 1))
    assert build(capsys, place.content, out)[0] == 0

    assert sys.platform.startswith("linux") and writer._renameat2() is not None
    [(staged, target, done, staged_inode)] = calls
    assert (target, done) == (out, True)
    assert staged.name.startswith(f".site.new-{os.getpid()}-") and not staged.exists()
    assert out.stat().st_ino == staged_inode != old_inode  # the staged tree is the site now
    assert old_inode not in inodes(place.root)  # and the old tree is gone
    assert '"title": "Swapped ' in (out / "Qwen" / "Qwen3-14B.json").read_text()
    fresh = place.root / "fresh"
    assert build(capsys, place.content, fresh)[0] == 0
    assert tree(out) == tree(fresh)
    assert beside(out) == ["site"]


def test_swap_in_leaves_neither_the_staging_folder_nor_the_old_tree(place: Place) -> None:
    out, staging = place.root / "site", place.root / ".site.new-1-abcdefgh"
    write_tree({"index.html": b"old"}, out)
    old_inode = out.stat().st_ino
    staging.mkdir()
    (staging / "index.html").write_bytes(b"new")
    writer.swap_in(staging, out)
    wait_for_discards()
    assert tree(out) == {"index.html": b"new"}
    assert not staging.exists() and old_inode not in inodes(place.root)


def test_the_two_rename_fallback(place: Place, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    out = place.root / "site"
    assert build(capsys, place.content, out)[0] == 0
    (out / "leftover.html").write_text("old")
    monkeypatch.setattr(writer, "exchange", lambda first, second: False)
    assert build(capsys, place.content, out)[0] == 0
    assert not (out / "leftover.html").exists() and (out / MARKER).is_file()
    assert beside(out) == ["site"]


def test_the_fallback_puts_the_old_site_back_when_the_second_rename_fails(
    place: Place, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = place.root / "site"
    write_tree({"index.html": b"old"}, out)
    monkeypatch.setattr(writer, "exchange", lambda first, second: False)
    with pytest.raises(FileNotFoundError):
        writer.swap_in(place.root / "missing-staging", out)
    assert tree(out) == {MARKER: MARKER_TEXT, "index.html": b"old"}
    assert beside(out) == ["site"]


# ── modes ──


@pytest.mark.parametrize(("umask", "folder_mode", "file_mode"),
                         [(0o022, 0o755, 0o644), (0o027, 0o750, 0o640)])
def test_folders_and_files_follow_the_umask(place: Place, umask: int, folder_mode: int, file_mode: int,
                                            capsys) -> None:
    out = place.root / "site"
    previous = os.umask(umask)
    try:
        assert writer.current_umask() == umask
        for _ in range(2):  # a new out (rename) and a replaced one (exchange)
            assert build(capsys, place.content, out)[0] == 0
            assert out.stat().st_mode & 0o777 == folder_mode
            assert (out / "Qwen").stat().st_mode & 0o777 == folder_mode
            assert (out / "models.json").stat().st_mode & 0o777 == file_mode
            assert (out / MARKER).stat().st_mode & 0o777 == file_mode
    finally:
        os.umask(previous)


# ── failures leave the previous site as it was ──


def test_a_content_error_leaves_the_previous_site_byte_identical(place: Place, capsys) -> None:
    out = place.root / "site"
    assert build(capsys, place.content, out)[0] == 0
    before = snapshot(place.root / "site")
    recipe = place.content / "models" / "Qwen" / "Qwen3-14B.yaml"
    recipe.write_text(
        recipe.read_text().replace("compatible_strategies:\n", "compatible_strategies:\n  - nope\n", 1))
    status, _, err = build(capsys, place.content, out)
    assert status == 1
    assert err.splitlines()[-1] == f"build failed: 1 error(s); {out} left unchanged"
    assert snapshot(place.root / "site") == before
    assert beside(out) == ["site"]


def test_a_failed_write_leaves_the_previous_site_byte_identical(
    place: Place, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    out = place.root / "site"
    assert build(capsys, place.content, out)[0] == 0
    before = snapshot(place.root / "site")
    real_write = writer.Staging.write_file
    written: list[str] = []

    def disk_full(self: writer.Staging, rel: str, data: bytes) -> None:
        if len(written) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(rel)
        real_write(self, rel, data)

    monkeypatch.setattr(writer.Staging, "write_file", disk_full)
    status, stdout, err = build(capsys, place.content, out)
    assert (status, stdout) == (1, "")
    assert err == (f"error: cannot write the site to {out} ([Errno 28] No space left on device); it is "
                   "left unchanged\n")
    assert snapshot(place.root / "site") == before
    assert beside(out) == ["site"]


# ── writes stay inside the output ──


@pytest.mark.parametrize("rel", ["../escape.txt", "a/../../escape.txt", "/tmp/escape.txt", "", "."])
def test_writes_outside_the_site_are_refused(place: Place, rel: str) -> None:
    out = place.root / "site"
    write_tree({"index.html": b"site"}, out)
    before = snapshot(place.root)
    with pytest.raises(UnsafePath) as caught:
        update_tree({rel: b"x"}, set(), out)
    assert str(caught.value) == f"refusing to write outside the site: {rel!r}"
    with pytest.raises(UnsafePath):
        update_tree({}, {rel}, out)
    with pytest.raises(UnsafePath), writer.Staging(out) as staging:
        staging.write({"index.html": b"new", rel: b"x"})
    assert snapshot(place.root) == before


def test_update_tree_rewrites_inside_the_site(place: Place) -> None:
    out = place.root / "site"
    write_tree({"index.html": b"old", "gone.json": b"{}"}, out)
    update_tree({"a/c.json": b"new", "index.html": b"new"}, {"gone.json"}, out)
    assert tree(out) == {MARKER: MARKER_TEXT, "a/c.json": b"new", "index.html": b"new"}
