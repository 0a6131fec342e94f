"""The Hugging Face Hub, through ``huggingface_hub``: a repository's ``config.json`` at a resolved
commit, and the commit a branch or tag points to now.

``huggingface_hub`` reads ``HF_ENDPOINT`` (a mirror), ``HF_TOKEN`` (gated and private models),
``HF_HOME``/``HF_HUB_CACHE`` (the cache) and ``HF_HUB_OFFLINE`` (cache only) itself, so this module
behaves as every Hugging Face tool does. It is imported only by the commands that reach the Hub
(``check`` and ``build`` never load it). Every failure becomes a :class:`HubFailure` whose text
says why and what to do.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

CONFIG_FILE = "config.json"
MAX_CONFIG_BYTES = 4_000_000
SHA = re.compile(r"^[0-9a-f]{40}$")


class HubFailure(Exception):
    """Why a repository's facts could not be read (one line, for the user)."""


def _reason(repo: str, revision: str, error: BaseException) -> str:
    """Words for a ``huggingface_hub`` error."""
    from huggingface_hub import constants
    from huggingface_hub.errors import (
        GatedRepoError,
        HfHubHTTPError,
        LocalEntryNotFoundError,
        OfflineModeIsEnabled,
        RemoteEntryNotFoundError,
        RepositoryNotFoundError,
        RevisionNotFoundError,
    )

    if isinstance(error, LocalEntryNotFoundError | OfflineModeIsEnabled):  # before the remote errors it derives from
        if constants.HF_HUB_OFFLINE:
            return "not in the Hugging Face cache, and HF_HUB_OFFLINE=1 forbids downloading it"
        return f"the Hub could not be reached at {constants.ENDPOINT} and the file is not in the cache"
    if isinstance(error, GatedRepoError):
        return f"gated: set HF_TOKEN and accept the licence at {constants.ENDPOINT}/{repo}"
    if isinstance(error, RepositoryNotFoundError):
        return "not on the Hub (repository not found; a private repository needs HF_TOKEN)"
    if isinstance(error, RevisionNotFoundError):
        return f"revision {revision!r} not found"
    if isinstance(error, RemoteEntryNotFoundError):
        return f"no {CONFIG_FILE} in the repository"
    if isinstance(error, HfHubHTTPError):
        status = error.response.status_code if error.response is not None else "?"
        return f"the Hub answered HTTP {status}"
    return f"the Hub could not be reached: {type(error).__name__}"


def fetch_config(repo: str, revision: str | None, filename: str = CONFIG_FILE) -> tuple[dict[str, Any], str]:
    """(the repository's ``config.json``, or another JSON file, the commit sha it was read at); raises :class:`HubFailure`."""
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import HFValidationError

    asked = revision or "main"
    try:
        path = Path(hf_hub_download(repo, filename, revision=asked))
    except HFValidationError as error:
        raise HubFailure(f"not a Hub repository id: {str(error).splitlines()[0][:200]}") from None
    except Exception as error:  # every network and Hub error is worded by _reason
        raise HubFailure(_reason(repo, asked, error)) from None
    sha = path.parent.name  # the cache keeps each file under snapshots/<commit sha>/
    if not SHA.match(sha):
        raise HubFailure(f"the cache did not resolve {asked!r} to a commit sha")
    try:
        raw = path.read_bytes()[: MAX_CONFIG_BYTES + 1]
        data = json.loads(raw.decode("utf-8")) if len(raw) <= MAX_CONFIG_BYTES else None
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        data = None
    if not isinstance(data, dict):
        raise HubFailure(f"{filename} is not a JSON object of at most {MAX_CONFIG_BYTES:,} bytes")
    return data, sha


def current_revision(repo: str, ref: str | None) -> str:
    """The commit sha ``ref`` (default: the main branch) points to on the Hub now."""
    from huggingface_hub import HfApi, constants

    if constants.HF_HUB_OFFLINE:
        raise HubFailure("HF_HUB_OFFLINE=1: comparing with the Hub needs the network")
    try:
        info = HfApi().model_info(repo, revision=ref)
    except Exception as error:
        raise HubFailure(_reason(repo, ref or "main", error)) from None
    if not isinstance(info.sha, str) or not SHA.match(info.sha):
        raise HubFailure("the Hub gave no commit sha")
    return info.sha
