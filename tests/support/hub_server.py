"""A local stand-in for the Hugging Face Hub, answering what ``huggingface_hub`` asks as the Hub does.

``HEAD``/``GET /<repo>/resolve/<rev>/<file>``: for a public repository, a 307 to the commit-pinned
``/api/resolve-cache/models/<repo>/<sha>/<file>`` (as the Hub redirects regular git files), which
answers with the file; a gated repository serves the file directly to a good token. Both carry
``X-Repo-Commit`` and ``ETag`` (the git blob sha of the file, quoted) and ``Content-Length``;
``X-Linked-Etag``/``X-Linked-Size`` belong to LFS files only and config.json is not one.
``GET /api/models/<repo>`` and ``/api/models/<repo>/revision/<rev>`` give the model info with its
``sha``. Failures carry the Hub's ``X-Error-Code`` and ``X-Error-Message``: 404 ``RepoNotFound``,
404 ``RevisionNotFound``, 404 ``EntryNotFound`` (with ``X-Repo-Commit``), 401 ``GatedRepo`` without
a token. Every request is recorded, so tests can say what reached the server.

A hostile or broken Hub: :attr:`FakeHub.headers` replaces headers of every answer (a path-shaped ``ETag``
or ``X-Repo-Commit``, a ``Location`` to another host) and :attr:`FakeHub.mode` makes every answer one of
:data:`MODES` (a trickle, an endless body, a reset connection, a 5xx).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

from tests.support.memory_cases import MEMORY
from tests.support.paths import SHARED

HUB_CONFIGS = SHARED / "hub" / "configs"
QUANT_SUFFIX = ".hf_quant_config.json"

TOKEN = "hf_local_test_token"


@dataclass
class Repo:
    """One model repository: its files at its one commit, and whether it is gated."""

    files: dict[str, bytes]
    gated: bool = False
    sha: str = ""

    def __post_init__(self) -> None:
        if not self.sha:
            self.commit()

    def commit(self) -> None:
        """A new commit: the sha follows the files, as a git commit would change with them."""
        digest = hashlib.sha1()
        for name in sorted(self.files):
            digest.update(name.encode() + b"\0" + self.files[name])
        self.sha = digest.hexdigest()


# the block's comment, its key and its more-indented lines, up to the next line that is not more indented
BLOCK = re.compile(r"^( *)# config\.json facts for the memory model.*\n\1architecture_config:\n(?:\1 "
                   r".*\n|\n)*?(?=(?!\1 ) *\S|\Z)", re.M)


def strip_blocks(text: str) -> str:
    """A recipe without its architecture_config blocks (and their comment line), as before any import."""
    return BLOCK.sub("", text)


def blob_sha(data: bytes) -> str:
    """The git blob sha of a file: the ETag the Hub gives a regular (non-LFS) file."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class FakeHub:
    """The repositories the server knows and the requests it got."""

    repos: dict[str, Repo] = field(default_factory=dict)
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)  # sent instead of the Hub's (hostile values)
    mode: str = ""  # one of MODES: how every answer misbehaves ("": it does not)

    def add(self, repo: str, config: dict[str, Any] | None, gated: bool = False) -> Repo:
        files = {} if config is None else {"config.json": json.dumps(config, indent=1).encode()}
        self.repos[repo] = Repo(files, gated)
        return self.repos[repo]


def shared_hub() -> FakeHub:
    """A hub holding every config of ``../shared/memory/configs`` under its repository."""
    hub = FakeHub()
    for path in sorted((MEMORY / "configs").glob("*.json")):
        hub.repos[path.stem.replace("__", "/", 1)] = Repo({"config.json": path.read_bytes()})
    return hub


def corpus_hub() -> FakeHub:
    """A hub holding the configs of ``../shared/hub/configs`` (with the ``hf_quant_config.json`` their
    publishers ship) and of ``../shared/memory/configs``, each under its repository."""
    hub = shared_hub()
    for path in sorted(HUB_CONFIGS.glob("*.json")):
        if path.name.endswith(QUANT_SUFFIX):
            continue
        files = {"config.json": path.read_bytes()}
        quant = path.with_name(path.stem + QUANT_SUFFIX)
        if quant.is_file():
            files["hf_quant_config.json"] = quant.read_bytes()
        hub.repos[path.stem.replace("__", "/", 1)] = Repo(files)
    return hub


class Handler(BaseHTTPRequestHandler):
    hub: FakeHub

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def _answer(self, status: int, headers: dict[str, str], body: bytes = b"") -> None:
        self.send_response(status)
        for key, value in {**headers, **self.hub.headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, code: str, message: str, extra: dict[str, str] | None = None) -> None:
        headers = {"X-Error-Code": code, "X-Error-Message": message, "Content-Type": "application/json"}
        self._answer(status, {**headers, **(extra or {})}, json.dumps({"error": message}).encode())

    def _repo(self, repo_id: str) -> Repo | None:
        repo = self.hub.repos.get(repo_id)
        if repo is None:
            self._error(404, "RepoNotFound", "Repository not found")
            return None
        if repo.gated and self.headers.get("Authorization") != f"Bearer {TOKEN}":
            message = (f"Access to model {repo_id} is restricted. You must have access to it and be "
                       "authenticated to access it. Please log in.")
            self._error(401, "GatedRepo", message)
            return None
        return repo

    def _file(self, repo: Repo, name: str) -> None:
        data = repo.files[name]
        headers = {"X-Repo-Commit": repo.sha, "ETag": f'"{blob_sha(data)}"',
                   "Content-Type": "text/plain; charset=utf-8", "Accept-Ranges": "bytes"}
        self.send_response(200)
        for key, value in {**headers, **self.hub.headers}.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(data)

    def _resolve(self, repo_id: str, revision: str, name: str) -> None:
        repo = self._repo(repo_id)
        if repo is None:
            return
        if revision not in ("main", repo.sha):
            self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        elif name not in repo.files:
            self._error(404, "EntryNotFound", "Entry not found", {"X-Repo-Commit": repo.sha})
        elif repo.gated:
            self._file(repo, name)  # private and gated files are served directly
        else:
            etag = f'"{blob_sha(repo.files[name])}"'
            target = f"/api/resolve-cache/models/{repo_id}/{repo.sha}/{quote(name)}?etag={quote(etag)}"
            self._answer(307, {"Location": target, "X-Repo-Commit": repo.sha, "ETag": etag})

    def _model_info(self, repo_id: str, revision: str) -> None:
        repo = self._repo(repo_id)
        if repo is None:
            return
        if revision not in ("main", repo.sha):
            self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
            return
        info = {"_id": repo.sha[:24], "id": repo_id, "modelId": repo_id, "sha": repo.sha, "private": False,
                "gated": "manual" if repo.gated else False, "disabled": False, "tags": [],
                "siblings": [{"rfilename": name} for name in sorted(repo.files)]}
        self._answer(200, {"Content-Type": "application/json"}, json.dumps(info).encode())

    def _route(self) -> None:
        path = unquote(urlsplit(self.path).path)
        self.hub.requests.append((self.command, path))
        if self.hub.mode:
            try:
                MODES[self.hub.mode](self)
            except OSError:  # the client gave up, as it should
                pass
            self.close_connection = True
            return
        parts = path.strip("/").split("/")
        if parts[:3] == ["api", "resolve-cache", "models"] and len(parts) >= 7:
            repo = self._repo("/".join(parts[3:5]))
            if repo is not None and parts[5] == repo.sha and "/".join(parts[6:]) in repo.files:
                self._file(repo, "/".join(parts[6:]))
            elif repo is not None:
                self._error(404, "EntryNotFound", "Entry not found", {"X-Repo-Commit": repo.sha})
        elif parts[:2] == ["api", "models"] and len(parts) in (4, 6):
            revision = parts[5] if len(parts) == 6 and parts[4] == "revision" else "main"
            self._model_info("/".join(parts[2:4]), revision)
        elif len(parts) >= 5 and parts[2] == "resolve":
            self._resolve("/".join(parts[:2]), parts[3], "/".join(parts[4:]))
        else:
            self._error(404, "RepoNotFound", "Repository not found")

    do_GET = _route
    do_HEAD = _route


def _trickle_body(handler: Handler) -> None:
    """Headers at once, then a body of 1,000 bytes, one every 50 ms."""
    handler.send_response(200)
    handler.send_header("Content-Length", "1000")
    handler.end_headers()
    for _ in range(1000):
        handler.wfile.write(b" ")
        handler.wfile.flush()
        time.sleep(0.05)


def _trickle_headers(handler: Handler) -> None:
    """A status line, then one header byte every 50 ms, never ending the headers."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    for _ in range(2000):
        handler.wfile.write(b"a")
        handler.wfile.flush()
        time.sleep(0.05)


def _endless(handler: Handler) -> None:
    """A 200 without a length whose body (``{"a": "xxx...``) goes on for 64 MB, unless the client stops."""
    handler.send_response(200)
    handler.end_headers()
    handler.wfile.write(b'{"a": "')
    for _ in range(1024):
        handler.wfile.write(b"x" * 65536)


def _oversize(handler: Handler) -> None:
    """A 200 announcing a 5 GB body (and sending a little of it)."""
    handler.send_response(200)
    handler.send_header("Content-Length", str(5 * 1024**3))
    handler.end_headers()
    handler.wfile.write(b"{" * 1000)


def _reset(handler: Handler) -> None:
    """The connection reset (RST) half-way through the headers."""
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nContent-")
    handler.wfile.flush()
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.connection.close()


def _unavailable(handler: Handler) -> None:
    handler._error(503, "", "Service Unavailable")


MODES = {"trickle-body": _trickle_body, "trickle-headers": _trickle_headers, "endless": _endless,
         "oversize": _oversize, "reset": _reset, "503": _unavailable}


class HubServer:
    """The stand-in on 127.0.0.1 (a thread per request); ``env`` points huggingface_hub at it."""

    def __init__(self, hub: FakeHub, cache: Path):
        handler = type("BoundHandler", (Handler,), {"hub": hub})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.hub = hub
        hub.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.cache = cache
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of a command that should use this hub and a private cache (and no real token)."""
        return {"HF_ENDPOINT": self.hub.url, "HF_HOME": str(self.cache), "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HUB_DISABLE_XET": "1", **extra}
