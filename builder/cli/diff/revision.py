"""A revision's content root written to a folder from its git objects: exactly the blobs of the commit's
tree, as :mod:`builder.content.loader` would find them in a checkout of it.

Nothing of the revision decides what is read or how: no ``git archive`` (it obeys the revision's own
``.gitattributes``: ``export-ignore`` hides a file, ``export-subst`` rewrites one), no checkout filters,
no LFS smudging, no replace refs; ``git ls-tree`` lists the tree and ``git cat-file --batch`` gives
each blob's bytes. Only what the loader reads is written: ``taxonomy.yaml``, ``platforms.yaml``,
``site.yaml`` and the YAML files under ``strategies/``, ``kv_store/``, ``quickstart/``, ``models/`` and
``overlays/`` (and what a symbolic link among them points at inside the root). Symbolic links are
written as links, never followed here, so the loader treats them as in a checkout. A file over the
loader's size limit is written sparse (its size, none of its bytes): the loader reports it without
reading it. Revision names are checked before git sees them: never an option, a range or a path.
"""

from __future__ import annotations

import os
import posixpath
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from builder.content.files import RECIPE_SUFFIXES
from builder.content.yaml12 import MAX_FILE_BYTES

# A branch, tag, remote branch or commit id, with ~N and ^N: what a workflow passes. No leading "-"
# (git would read an option), no ":" (a path), no "..", "@{" or spaces.
REVISION = re.compile(r"(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9._/~^-]{0,254}")
TOP_FILES = frozenset({"taxonomy.yaml", "platforms.yaml", "site.yaml"})
TOP_FOLDERS = frozenset({"strategies", "kv_store", "quickstart", "models", "overlays"})
MAX_FILES = 50_000  # files written for one revision
MAX_TOTAL_BYTES = 256 * 1024 * 1024  # bytes read for one revision (held in memory while written)
GIT_TIMEOUT = 300
MAX_LINK_BYTES = 4096  # a symbolic link's target
_SYMLINK, _GITLINK = "120000", "160000"


class RevisionError(Exception):
    """A revision that can't be read (``diff`` exits 2)."""


@dataclass(frozen=True)
class Entry:
    """One entry of ``git ls-tree -r -l``: a blob (file or symbolic link) or a submodule."""

    mode: str
    oid: str
    size: int  # 0 for a submodule


def git_command(repo: Path, *args: str) -> list[str]:
    """``git`` on ``repo`` reading objects as they are: no replace refs, no fsmonitor, no hooks."""
    return ["git", "--no-replace-objects", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null",
            "-C", str(repo), *args]


def run_git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(git_command(repo, *args), capture_output=True, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        raise RevisionError(f"cannot run git: {exc}") from None


def commit_of(repo: Path, revision: str) -> str:
    """The full commit id ``revision`` names in ``repo``; RevisionError unless it is a plain revision
    name (:data:`REVISION`) naming a commit."""
    if not REVISION.fullmatch(revision):
        raise RevisionError(f"{revision!r} is not a revision (a branch, tag or commit id, with ~N or ^N)")
    done = run_git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    if done.returncode != 0:
        raise RevisionError(f"unknown revision {revision!r} in {repo}")
    return done.stdout.decode().strip()


def tree_entries(repo: Path, commit: str) -> dict[str, Entry]:
    """Every blob and submodule of ``commit``'s tree by path (raw names, as a checkout writes them)."""
    done = run_git(repo, "ls-tree", "-r", "-z", "-l", "--full-tree", commit)
    if done.returncode != 0:
        raise RevisionError(f"git ls-tree {commit[:12]}: {done.stderr.decode(errors='replace').strip()}")
    entries: dict[str, Entry] = {}
    for record in done.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, raw_path = record.partition(b"\t")
        mode, kind, oid, size = meta.split()
        if kind not in (b"blob", b"commit"):
            continue
        path = os.fsdecode(raw_path)
        if any(part in ("", ".", "..") for part in path.split("/")):
            raise RevisionError(f"commit {commit[:12]} has a malformed path {raw_path!r}")
        entries[path] = Entry(mode.decode(), oid.decode(), int(size) if size != b"-" else 0)
    return entries


def has_folder(entries: dict[str, Entry], folder: str) -> bool:
    """Whether the tree holds anything under ``folder``."""
    return any(path.startswith(f"{folder}/") for path in entries)


def _yaml_in(parts: list[str]) -> bool:
    return any(part.endswith(RECIPE_SUFFIXES) for part in parts)


def _read_by_loader(rel: str, entry: Entry) -> bool:
    """Whether the loader reads an entry at ``rel`` (relative to the content root): a link or a
    submodule where it looks is written too, to be treated as in a checkout."""
    parts = rel.split("/")
    if parts[0] not in TOP_FOLDERS:
        return rel in TOP_FILES
    return entry.mode in (_SYMLINK, _GITLINK) or _yaml_in(parts[1:])


def _link_target(link: str, target: bytes) -> str | None:
    """Where a symbolic link at ``link`` points, relative to the root; None outside it."""
    text = os.fsdecode(target)
    if text.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(link), text))
    return None if joined == ".." or joined.startswith("../") else joined


def _selected(entries: dict[str, Entry], links: dict[str, bytes]) -> set[str]:
    """The paths to write: what the loader reads, plus what the symbolic links among them point at
    inside the root (``links``: link path → target)."""
    chosen = {rel for rel, entry in entries.items() if _read_by_loader(rel, entry)}
    pending = [rel for rel in chosen if entries[rel].mode == _SYMLINK]
    while pending:
        link = pending.pop()
        target = _link_target(link, links[link]) if link in links else None
        if target is None:
            continue
        under = f"{target}/"
        reached = [target] if target in entries else [
            rel for rel, entry in entries.items() if rel.startswith(under) and (
                entry.mode in (_SYMLINK, _GITLINK) or _yaml_in(rel.removeprefix(under).split("/")))]
        for rel in reached:
            if rel not in chosen:
                chosen.add(rel)
                if entries[rel].mode == _SYMLINK:
                    pending.append(rel)
    return chosen


class _Blobs:
    """``git cat-file --batch`` over one revision's objects."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo

    def read(self, oids: list[str]) -> dict[str, bytes]:
        """The bytes of each object (the caller bounds their sizes)."""
        with tempfile.TemporaryFile() as wanted:
            wanted.write("".join(f"{oid}\n" for oid in oids).encode())
            wanted.seek(0)
            try:
                with subprocess.Popen(git_command(self.repo, "cat-file", "--batch"), stdin=wanted,
                                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as proc:
                    assert proc.stdout is not None
                    found = {oid: self._one(proc.stdout, oid) for oid in oids}
                    proc.wait(timeout=GIT_TIMEOUT)
            except (OSError, subprocess.SubprocessError) as exc:
                raise RevisionError(f"cannot run git cat-file: {exc}") from None
        return found

    @staticmethod
    def _one(stream: IO[bytes], oid: str) -> bytes:
        header = stream.readline().split()
        if len(header) != 3 or header[0].decode() != oid or header[1] != b"blob":
            raise RevisionError(f"git cat-file: object {oid[:12]} is not a blob")
        size = int(header[2])
        data = stream.read(size)
        if len(data) != size or stream.read(1) != b"\n":
            raise RevisionError(f"git cat-file: object {oid[:12]} is cut short")
        return data


def write_revision(repo: Path, entries: dict[str, Entry], folder: str, into: Path) -> Path:
    """The content root ``folder`` (``"."``: the repository's root) of a revision written under ``into``
    (an empty folder); returns its path there."""
    prefix = "" if folder == "." else f"{folder}/"
    inside = {path.removeprefix(prefix): entry for path, entry in entries.items() if path.startswith(prefix)}
    blobs = _Blobs(repo)
    link_paths = [rel for rel, entry in inside.items() if entry.mode == _SYMLINK
                  and entry.size <= MAX_LINK_BYTES]
    targets = blobs.read(sorted({inside[rel].oid for rel in link_paths})) if link_paths else {}
    links = {rel: targets[inside[rel].oid] for rel in link_paths}
    chosen = sorted(_selected(inside, links))
    if len(chosen) > MAX_FILES:
        raise RevisionError(
            f"the content root holds {len(chosen):,} files the loader reads (the limit is {MAX_FILES:,})")
    readable = [rel for rel in chosen if inside[rel].mode not in (_SYMLINK, _GITLINK)
                and inside[rel].size <= MAX_FILE_BYTES]
    total = sum(inside[rel].size for rel in readable)
    if total > MAX_TOTAL_BYTES:
        raise RevisionError(
            f"the content root's files hold {total:,} bytes (the limit is {MAX_TOTAL_BYTES:,})")
    data = blobs.read(sorted({inside[rel].oid for rel in readable})) if readable else {}
    root = into / "tree"
    root.mkdir()
    try:
        for rel in chosen:
            entry, path = inside[rel], root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if entry.mode == _SYMLINK:
                if rel not in links:
                    continue  # a target longer than any path: no checkout can write it
                os.symlink(links[rel], path)
            elif entry.mode == _GITLINK:
                path.mkdir()  # a submodule is an empty folder in a checkout
            elif entry.size > MAX_FILE_BYTES:
                with open(path, "wb") as out:
                    out.truncate(entry.size)  # sparse: the loader reads its size, never its bytes
            else:
                path.write_bytes(data[entry.oid])
    except OSError as exc:
        raise RevisionError(f"cannot write the revision's files: {exc}") from None
    return root
