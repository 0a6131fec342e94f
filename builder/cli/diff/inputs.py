"""The two content roots ``diff`` compares: two folders, or two revisions of one git repository.

A revision is read with ``git archive`` (the repository and its work tree are left alone) and
unpacked with :mod:`tarfile`'s ``data`` filter: a member that would land outside the folder (an
absolute or escaping link, a device) is skipped, as the loader skips such files in a content root.
"""

from __future__ import annotations

import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class InputError(Exception):
    """A tree or revision that can't be compared (exit 2)."""


@dataclass(frozen=True)
class Tree:
    """One side: its content root and how the report names it."""

    label: str
    root: Path


def content_root(label: str, root: Path) -> Tree:
    """``root`` as one side, refused unless it is a content root (a folder holding ``taxonomy.yaml``)."""
    if not root.is_dir():
        raise InputError(f"{label}: no such folder")
    if not (root / "taxonomy.yaml").is_file():
        raise InputError(f"{label}: not a content root (no taxonomy.yaml)")
    return Tree(label, root)


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, timeout=120)
    except (OSError, subprocess.SubprocessError) as exc:
        raise InputError(f"cannot run git: {exc}") from None


def commit_of(repo: Path, revision: str) -> str:
    """The full commit id ``revision`` names in ``repo``; InputError when it names none."""
    if revision.startswith("-"):
        raise InputError(f"{revision!r} is not a revision")
    done = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{revision}^{{commit}}")
    if done.returncode != 0:
        raise InputError(f"unknown revision {revision!r} in {repo}")
    return done.stdout.decode().strip()


def has_folder(repo: Path, commit: str, folder: str) -> bool:
    """Whether ``folder`` is a directory in ``commit``."""
    done = _git(repo, "cat-file", "-t", f"{commit}:{folder}")
    return done.returncode == 0 and done.stdout.strip() == b"tree"


def _skip_unsafe(member: tarfile.TarInfo, dest: str) -> tarfile.TarInfo | None:
    try:
        return tarfile.data_filter(member, dest)
    except tarfile.FilterError:
        return None


def extract_revision(repo: Path, commit: str, folder: str, into: Path) -> Path:
    """``folder`` of ``commit`` unpacked under ``into``; returns its path there."""
    archive = into / "revision.tar"
    with open(archive, "wb") as out:
        try:
            done = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", commit, "--", folder],
                                  stdout=out, stderr=subprocess.PIPE, timeout=300)
        except (OSError, subprocess.SubprocessError) as exc:
            raise InputError(f"cannot run git archive: {exc}") from None
    if done.returncode != 0:
        raise InputError(f"git archive {commit[:12]} -- {folder}: {done.stderr.decode(errors='replace').strip()}")
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter=_skip_unsafe)
    archive.unlink()
    return tree / folder


@contextmanager
def trees(base: str, head: str, git_repo: Path | None, content: str | None) -> Iterator[tuple[Tree, Tree]]:
    """The two sides: folders ``base`` and ``head``, or with ``git_repo`` its revisions ``base`` and ``head``
    (their ``content`` folder: default ``recipes`` when the head revision has one, else the root)."""
    if git_repo is None:
        if content is not None:
            raise InputError("--content names the content folder inside the repository of --git")
        yield content_root(base, Path(base)), content_root(head, Path(head))
        return
    if not git_repo.is_dir() or _git(git_repo, "rev-parse", "--git-dir").returncode != 0:
        raise InputError(f"--git {git_repo}: not a git repository")
    commits = commit_of(git_repo, base), commit_of(git_repo, head)
    folder = content if content is not None else "recipes" if has_folder(git_repo, commits[1], "recipes") else "."
    if Path(folder).is_absolute() or ".." in Path(folder).parts:
        raise InputError(f"--content {folder}: must be a folder inside the repository")
    with tempfile.TemporaryDirectory(prefix="vllm-recipes-diff-") as tmp:
        sides = []
        for label, revision, commit in (("BASE", base, commits[0]), ("HEAD", head, commits[1])):
            where = Path(tmp) / label.lower()
            where.mkdir()
            root = extract_revision(git_repo, commit, folder, where)
            sides.append(content_root(f"{revision} ({commit[:12]})", root))
        yield sides[0], sides[1]
