"""The Hugging Face cache, laid out as ``huggingface_hub`` lays it out, so that its own calls (and
``HF_HUB_OFFLINE=1``) find what the importer downloaded, and the importer finds what they did:

``<HF_HUB_CACHE>/models--<org>--<repo>/blobs/<file hash>`` holds the bytes, ``snapshots/<commit>/<file>``
links to them and ``refs/<branch or tag>`` holds the commit it pointed to. Every name here is one the
importer checked (a repository id, a revision of safe segments, a commit sha, a file hash), never one a
server chose.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

SHA = re.compile(r"[0-9a-f]{40}")
FILE_HASH = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")  # a git blob sha1 or an LFS sha256: the Hub's ETags
_REVISION = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]*(?:/[A-Za-z0-9_][A-Za-z0-9._-]*)*")
MAX_REVISION = 200


def revision_problem(revision: str) -> str | None:
    """Why ``revision`` cannot name a branch, tag or commit (None when it can): it becomes a cache path."""
    if (len(revision) > MAX_REVISION or not _REVISION.fullmatch(revision) or ".." in revision
        or revision.endswith(".lock")):
        return f"not a branch, tag or commit: {revision[:MAX_REVISION]!r}"
    return None


def _folder(cache: Path, repo: str) -> Path:
    from huggingface_hub.file_download import repo_folder_name

    return cache / repo_folder_name(repo_id=repo, repo_type="model")


def cached(cache: Path, repo: str, revision: str, filename: str) -> tuple[Path, str] | None:
    """(the cached file, its commit) for ``revision``, or None when the cache does not hold it."""
    folder = _folder(cache, repo)
    sha = revision
    if not SHA.fullmatch(revision):
        try:
            sha = (folder / "refs" / revision).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
    path = folder / "snapshots" / sha / filename
    return (path, sha) if SHA.fullmatch(sha) and path.is_file() else None


def _write(path: Path, data: bytes) -> None:
    """``data`` into ``path`` in one step (a temporary file beside it, renamed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".incomplete")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def store(cache: Path, repo: str, revision: str, sha: str, file_hash: str, filename: str,
          data: bytes) -> Path:
    """Put ``data`` in the cache as ``filename`` at commit ``sha`` (and ``revision`` -> ``sha``); its snapshot
    path."""
    if (not SHA.fullmatch(sha) or not FILE_HASH.fullmatch(file_hash) or revision_problem(revision)
        or "/" in filename):
        raise ValueError("unchecked name for the cache")  # the caller checks every name first
    folder = _folder(cache, repo)
    blob = folder / "blobs" / file_hash
    if not blob.is_file():
        _write(blob, data)
    pointer = folder / "snapshots" / sha / filename
    pointer.parent.mkdir(parents=True, exist_ok=True)
    if not pointer.is_file():
        try:
            pointer.unlink(missing_ok=True)
            pointer.symlink_to(Path("..") / ".." / "blobs" / file_hash)
        except OSError:  # no symlinks here (as on some Windows setups): a copy, as huggingface_hub makes
            _write(pointer, data)
    if revision != sha:
        ref = folder / "refs" / revision
        if not ref.is_file() or ref.read_text(encoding="ascii", errors="replace") != sha:
            _write(ref, sha.encode())
    return pointer
