"""The Hugging Face Hub: a repository's ``config.json`` at a resolved commit, and the commit a branch or
tag points to now.

The Hub's conventions are kept, read through ``huggingface_hub``: ``HF_ENDPOINT`` (a mirror), ``HF_TOKEN``
or the stored login (gated and private models), ``HF_HOME``/``HF_HUB_CACHE`` (the cache, in its layout:
:mod:`builder.cli.hub_cache`), ``HF_HUB_OFFLINE`` (cache only) and ``HF_HUB_DOWNLOAD_TIMEOUT``. The
requests themselves are made by :mod:`builder.cli.hub_http`, not by the library's downloader, so that a
hostile or broken server cannot choose a path (its ``ETag`` and ``X-Repo-Commit`` must be hashes, and the
``ETag`` must be the hash of the bytes), stretch a request past its deadline, send more than
:data:`MAX_JSON_BYTES` or redirect to another host. Every failure becomes a :class:`HubFailure` whose text
says why and what to do. Imported only by the commands that reach the Hub.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

from builder.cli.hub_cache import FILE_HASH, SHA, cached, revision_problem, store
from builder.cli.hub_http import Answer, HttpFailure, Unreachable, get

CONFIG_FILE = "config.json"
MAX_JSON_BYTES = 4_000_000  # a config.json or a model info answer
MAX_DEPTH = 32  # nesting of a JSON document (configs nest 3 or 4 levels)


class HubFailure(Exception):
    """Why a repository's facts could not be read (one line, for the user)."""


class HubUnreachable(HubFailure):
    """No connection to the Hub (the cache may still answer)."""


def _repo_problem(repo: str) -> str | None:
    from huggingface_hub.errors import HFValidationError
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo)
    except HFValidationError:
        return f"not a Hub repository id: {repo[:200]!r}"
    return None if repo.count("/") == 1 else f"not a Hub repository id: {repo[:200]!r}"


def _checked(repo: str, revision: str) -> None:
    problem = _repo_problem(repo) or revision_problem(revision)
    if problem:
        raise HubFailure(problem)


def _headers() -> dict[str, str]:
    from huggingface_hub.utils import build_hf_headers

    return build_hf_headers()  # the user agent, and HF_TOKEN or the stored login as the Authorization


def _refusal(answer: Answer, repo: str, revision: str) -> str:
    """Words for an answer that is not a 200, from the Hub's ``X-Error-Code``."""
    from huggingface_hub import constants

    code = answer.header("X-Error-Code")
    if code == "GatedRepo":
        return f"gated: set HF_TOKEN and accept the licence at {constants.ENDPOINT}/{repo}"
    if code == "RepoNotFound" or answer.status == 401:
        return "not on the Hub (repository not found; a private repository needs HF_TOKEN)"
    if code == "RevisionNotFound":
        return f"revision {revision!r} not found"
    if code == "EntryNotFound":
        return f"no {CONFIG_FILE} in the repository"
    return f"the Hub answered HTTP {answer.status}"


def _answer(url: str, repo: str, revision: str) -> Answer:
    """The Hub's 200 answer to ``url``; raises :class:`HubFailure` for anything else."""
    from huggingface_hub import constants

    try:
        answer = get(url, _headers(), MAX_JSON_BYTES, float(constants.HF_HUB_DOWNLOAD_TIMEOUT))
    except Unreachable as error:
        raise HubUnreachable(f"the Hub could not be reached at {constants.ENDPOINT} ({error})") from None
    except HttpFailure as error:
        raise HubFailure(f"the Hub at {constants.ENDPOINT}: {error}") from None
    if answer.status != 200:
        raise HubFailure(_refusal(answer, repo, revision))
    return answer


def json_object(data: bytes, what: str) -> dict[str, Any]:
    """``data`` as a JSON object nested at most :data:`MAX_DEPTH` deep; raises :class:`HubFailure`."""
    try:
        value = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise HubFailure(f"{what} is not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise HubFailure(
            f"{what} is not JSON ({error.msg} at line {error.lineno} column {error.colno})") from None
    except RecursionError:
        raise HubFailure(f"{what} nests deeper than {MAX_DEPTH} levels") from None
    if not isinstance(value, dict):
        raise HubFailure(f"{what} is not a JSON object (it is a JSON {type(value).__name__})")
    level: list[Any] = [value]
    for _ in range(MAX_DEPTH):
        level = [item for node in level for item in (node.values() if isinstance(node, dict) else node)
                 if isinstance(item, dict | list)]
        if not level:
            return value
    raise HubFailure(f"{what} nests deeper than {MAX_DEPTH} levels")


def _file_hash(answer: Answer, data: bytes) -> str:
    """The file's hash from its ``ETag`` (as the Hub sends it: a git blob sha1, or an LFS sha256), checked
    against ``data``."""
    etag = answer.header("X-Linked-Etag") or answer.header("ETag") or ""
    etag = etag.removeprefix("W/").strip('"')
    if not FILE_HASH.fullmatch(etag):
        raise HubFailure(f"the Hub sent an ETag that is not a file hash: {etag[:100]!r}")
    actual = (hashlib.sha1(b"blob %d\0" % len(data) + data) if len(etag) == 40
              else hashlib.sha256(data)).hexdigest()
    if actual != etag:
        raise HubFailure(f"the Hub's ETag {etag} is not the hash of the {CONFIG_FILE} it sent")
    return etag


def _download(repo: str, revision: str, cache: Path, filename: str) -> tuple[bytes, str]:
    """(``filename``'s bytes, the commit) from the Hub, stored in the cache."""
    from huggingface_hub import constants

    url = f"{constants.ENDPOINT}/{repo}/resolve/{quote(revision, safe='')}/{filename}"
    answer = _answer(url, repo, revision)
    sha = answer.header("X-Repo-Commit") or ""
    if not SHA.fullmatch(sha):
        raise HubFailure(f"the Hub gave no commit sha for {revision!r} (X-Repo-Commit {sha[:100]!r})")
    if SHA.fullmatch(revision) and sha != revision:
        raise HubFailure(f"the Hub answered for commit {sha}, not {revision}")
    file_hash = _file_hash(answer, answer.body)
    json_object(answer.body, filename)  # nothing that is not a config enters the cache
    try:
        store(cache, repo, revision, sha, file_hash, filename, answer.body)
    except OSError as error:
        raise HubFailure(f"cannot write the Hugging Face cache {cache}: {error.strerror or error}") from None
    return answer.body, sha


def fetch_config(repo: str, revision: str | None, filename: str = CONFIG_FILE) -> tuple[dict[str, Any], str]:
    """(the repository's ``config.json``, or another small JSON file such as ModelOpt's
    ``hf_quant_config.json``, the commit sha it was read at); raises :class:`HubFailure`.

    The cache answers first for a commit sha and under ``HF_HUB_OFFLINE=1``, and when the Hub cannot be
    reached; a branch or tag is otherwise resolved by the Hub (it may have moved)."""
    from huggingface_hub import constants

    asked = revision or "main"
    _checked(repo, asked)
    cache = Path(constants.HF_HUB_CACHE)
    hit = cached(cache, repo, asked, filename)
    if hit is not None and (SHA.fullmatch(asked) or constants.HF_HUB_OFFLINE):
        return _read_cached(*hit, filename)
    if constants.HF_HUB_OFFLINE:
        raise HubFailure("not in the Hugging Face cache, and HF_HUB_OFFLINE=1 forbids downloading it")
    try:
        data, sha = _download(repo, asked, cache, filename)
    except HubUnreachable as failure:
        if hit is None:
            raise HubFailure(f"{failure} and the file is not in the cache") from None
        return _read_cached(*hit, filename)
    return json_object(data, filename), sha


def _read_cached(path: Path, sha: str, filename: str) -> tuple[dict[str, Any], str]:
    """The cached ``filename`` and its commit."""
    try:
        data = path.read_bytes()[: MAX_JSON_BYTES + 1]
    except OSError as error:
        raise HubFailure(f"cannot read the cached {filename}: {error.strerror or error}") from None
    if len(data) > MAX_JSON_BYTES:
        raise HubFailure(f"the cached {filename} is larger than {MAX_JSON_BYTES:,} bytes")
    return json_object(data, f"the cached {filename}"), sha


def current_revision(repo: str, ref: str | None) -> str:
    """The commit sha ``ref`` (default: the main branch) points to on the Hub now."""
    from huggingface_hub import constants

    if constants.HF_HUB_OFFLINE:
        raise HubFailure("HF_HUB_OFFLINE=1: comparing with the Hub needs the network")
    _checked(repo, ref or "main")
    url = f"{constants.ENDPOINT}/api/models/{repo}" + (f"/revision/{quote(ref, safe='')}" if ref else "")
    info = json_object(_answer(url + "?expand=sha", repo, ref or "main").body, "the Hub's model info")
    sha = info.get("sha")
    if not isinstance(sha, str) or not SHA.fullmatch(sha):
        raise HubFailure("the Hub gave no commit sha")
    return sha
