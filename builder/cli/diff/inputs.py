"""The two content roots ``diff`` compares: two folders, or two revisions of one git repository
(written from their git objects by :mod:`.revision`; the repository and its work tree are left alone).
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from builder.cli.diff.revision import (
    RevisionError,
    commit_of,
    has_folder,
    run_git,
    tree_entries,
    write_revision,
)


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


def content_folder(folder: str) -> str:
    """``--content`` as a path inside the repository (``"."``: its root); InputError for any other."""
    normal = posixpath.normpath(folder) if folder else ""
    if not normal or normal.startswith("/") or normal == ".." or normal.startswith("../") or "\0" in normal:
        raise InputError(f"--content {folder}: must be a folder inside the repository")
    return normal


@contextmanager
def trees(base: str, head: str, git_repo: Path | None, content: str | None) -> Iterator[tuple[Tree, Tree]]:
    """The two sides: folders ``base`` and ``head``, or with ``git_repo`` its revisions ``base`` and ``head``
    (their ``content`` folder: default ``recipes`` when the head revision has one, else the root)."""
    if git_repo is None:
        if content is not None:
            raise InputError("--content names the content folder inside the repository of --git")
        yield content_root(base, Path(base)), content_root(head, Path(head))
        return
    if not git_repo.is_dir() or run_git(git_repo, "rev-parse", "--git-dir").returncode != 0:
        raise InputError(f"--git {git_repo}: not a git repository")
    if content is not None:
        content = content_folder(content)
    try:
        commits = commit_of(git_repo, base), commit_of(git_repo, head)
        listed = {commit: tree_entries(git_repo, commit) for commit in set(commits)}
        folder = content or ("recipes" if has_folder(listed[commits[1]], "recipes") else ".")
        with tempfile.TemporaryDirectory(prefix="vllm-recipes-diff-") as tmp:
            sides = []
            for label, revision, commit in (("BASE", base, commits[0]), ("HEAD", head, commits[1])):
                where = Path(tmp) / label.lower()
                where.mkdir()
                root = write_revision(git_repo, listed[commit], folder, where)
                sides.append(content_root(f"{revision} ({commit[:12]})", root))
            yield sides[0], sides[1]
    except RevisionError as exc:
        raise InputError(str(exc)) from None
