"""The static host of a built site, as a CDN or nginx would serve it: compressed twins by
``Accept-Encoding``, immutable caching of content-versioned URLs, pages at their canonical URLs,
``404.html`` and no directory listings. ``serve`` and the tests run it on 127.0.0.1."""

from __future__ import annotations

import functools
import hashlib
import io
import re
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from builder.content.log_text import log_text
from builder.site.compression import ENCODINGS, TWIN_MIN_BYTES, brotli_bytes, gzip_bytes
from builder.site.versions import VERSION_CHARS


class StaticHandler(SimpleHTTPRequestHandler):
    """A static host for the built site: ``.br``/``.gz`` twins sent with ``Content-Encoding`` as the
    browser's ``Accept-Encoding`` allows (Brotli first), caching by :func:`cache_control`, module and
    wasm MIME types, a page at its canonical URL without the trailing slash (no redirect), ``404.html``
    for missing paths and for folders without an ``index.html`` (no directory listings), HTTP/1.1
    keep-alive."""

    protocol_version = "HTTP/1.1"
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
    }
    sent_bytes = 0  # body bytes served by every handler (Content-Length), for bench/page.py
    base_path = ""  # the site's mount: "/recipes" serves the folder at /recipes/, as a sub-path host does

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        pass

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "content-length":
            StaticHandler.sent_bytes += int(value)
        super().send_header(keyword, value)

    def end_headers(self) -> None:
        value, self._cache_control = self._cache_control, None  # the handler serves a whole connection
        if value:
            super().send_header("Cache-Control", value)
        super().end_headers()

    _cache_control: str | None = None

    def site_path(self, url_path: str) -> str | None:
        """``url_path`` as a path of the site (its mount :attr:`base_path` removed); None outside the
        mount."""
        if not self.base_path:
            return url_path
        path, sep, query = url_path.partition("?")
        if path != self.base_path and not path.startswith(self.base_path + "/"):
            return None
        return (path[len(self.base_path):] or "/") + sep + query

    def translate_path(self, path: str) -> str:
        inside = self.site_path(path)
        if inside is None:  # outside the mount: a folder no build writes (no site path starts with ".")
            return str(Path(self.directory) / ".outside-the-mount")
        return super().translate_path(inside)

    def requested_file(self) -> Path:
        """The file the URL names: a folder's ``index.html`` with or without the trailing slash.

        A page's canonical URL has no slash (``/<org>/<repo>``): it is answered at once rather
        than redirected to the folder, which would cost every navigation a round trip (the pages
        link only site-absolute URLs, so both spellings show the same page)."""
        path = Path(self.translate_path(self.path))
        return path / "index.html" if path.is_dir() and (path / "index.html").is_file() else path

    def send_head(self) -> Any:
        """Files (or their chosen twin) with an ``ETag`` of their bytes, ``304`` when it matches."""
        if self.base_path and self.path.partition("?")[0] == "/":  # the host's root: where the site is
            self.send_response(302)
            self.send_header("Location", self.base_path + "/")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        path = self.requested_file()
        if path.is_dir() or self.site_path(self.path) is None:  # no listings; nothing outside the mount
            self.send_error(404)
            return None
        if not path.is_file():
            self._cache_control = "no-cache"
            return super().send_head()
        accept = self.headers.get("Accept-Encoding", "")
        twin = chosen_twin(path, accept)
        encoding, body = (twin[0], twin[1].read_bytes()) if twin else compressed_on_the_fly(path, accept)
        etag = f'"{hashlib.sha256(body).hexdigest()[:24]}"'
        self._cache_control = cache_control(self.site_path(self.path) or self.path, path)
        if etag in [t.strip() for t in self.headers.get("If-None-Match", "").split(",")]:
            self.send_response(304)
            self.send_header("ETag", etag)
            self.end_headers()
            return None
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        if encoding:
            self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("ETag", etag)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return io.BytesIO(body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def accepted_encodings(header: str) -> set[str]:
    """The content codings an ``Accept-Encoding`` header allows (``q=0`` excluded)."""
    allowed = set()
    for item in header.split(","):
        name, _, params = item.strip().partition(";")
        if not name.strip():
            continue
        quality = params.strip().removeprefix("q=").strip() if params.strip().startswith("q=") else "1"
        try:
            if float(quality) > 0:
                allowed.add(name.strip().lower())
        except ValueError:
            continue
    return allowed


def sendable_encodings(accept_encoding: str) -> list[tuple[str, str]]:
    """(coding, twin suffix) of :data:`ENCODINGS` the request allows, in the server's order."""
    allowed = accepted_encodings(accept_encoding)
    return [(encoding, suffix) for encoding, suffix in ENCODINGS if encoding in allowed or "*" in allowed]


def chosen_twin(path: Path, accept_encoding: str) -> tuple[str, Path] | None:
    """The pre-compressed twin of ``path`` to send (Brotli before gzip), or None for the file itself."""
    for encoding, suffix in sendable_encodings(accept_encoding):
        packed = path.with_name(path.name + suffix)
        if packed.is_file():
            return encoding, packed
    return None


# Text a host compresses as it sends (what GitHub Pages, Netlify or nginx's gzip do for pages and
# stylesheets); the build writes twins only for the builder's runtime and data.
COMPRESSIBLE = frozenset({".html", ".css", ".js", ".mjs", ".json", ".svg", ".xml", ".txt"})
_PACKERS = {"br": brotli_bytes, "gzip": gzip_bytes}


def compressed_on_the_fly(path: Path, accept_encoding: str) -> tuple[str | None, bytes]:
    """The file's bytes, Brotli- or gzip-compressed (in that order) when it is text of at least
    :data:`TWIN_MIN_BYTES` the request accepts compressed; the coding, or None."""
    stat = path.stat()
    sendable = sendable_encodings(accept_encoding)
    if path.suffix in COMPRESSIBLE and stat.st_size >= TWIN_MIN_BYTES and sendable:
        encoding = sendable[0][0]
        return encoding, _packed(str(path), stat.st_mtime_ns, stat.st_size, encoding)
    return None, path.read_bytes()


@functools.lru_cache(maxsize=512)
def _packed(path: str, mtime_ns: int, size: int, encoding: str) -> bytes:
    """One file compressed, remembered while its modification time and size stay the same."""
    return _PACKERS[encoding](Path(path).read_bytes())


IMMUTABLE = "public, max-age=31536000, immutable"
HASHED_RUNTIME = re.compile(r"^/pyodide/[0-9a-f]{16}/")


def cache_control(url_path: str, file: Path) -> str:
    """``immutable`` for versioned URLs (the content-hashed runtime folder, or ``?v=`` naming the
    file's own SHA-256 prefix), ``no-cache`` (revalidate every time) for everything else."""
    path, _, query = url_path.partition("?")
    if HASHED_RUNTIME.match(path):
        return IMMUTABLE
    version = next((v for k, _, v in (item.partition("=") for item in query.split("&")) if k == "v"), "")
    if len(version) >= VERSION_CHARS and hashlib.sha256(file.read_bytes()).hexdigest().startswith(version):
        return IMMUTABLE
    return "no-cache"


class QuietServer(ThreadingHTTPServer):
    """A threading HTTP server for a browser on this machine: a connection the browser drops (a reset, a
    broken pipe, an aborted connection) is a non-event, and any other error in a request is one line on
    stderr, without a traceback."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, ConnectionError):
            return
        print(log_text(f"error: a request from {client_address[0]}:{client_address[1]} failed: "
                       f"{type(error).__name__}: {error}"), file=sys.stderr, flush=True)


def serve_directory(directory: Path, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``directory`` with :class:`StaticHandler` on 127.0.0.1 in a daemon thread."""
    handler = functools.partial(StaticHandler, directory=str(directory))
    server = QuietServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"
