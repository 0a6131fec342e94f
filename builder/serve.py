"""``python -m builder serve``: build, serve on 127.0.0.1, rebuild what an edit touches, reload pages.

An edited recipe re-renders only its own endpoints and pages plus the indexes that list
it; any other edit (vocabulary, overlays, templates, static files) re-renders in memory
and rewrites only the files whose bytes changed. Open pages reload through a small
Server-Sent-Events script that the dev server (only) injects into HTML responses.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import re
import socket
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from builder.build import BuildOptions, Pipeline
from builder.compression import ENCODINGS, TWIN_MIN_BYTES, brotli_bytes, gzip_bytes
from builder.content import Content
from builder.paths import PROJECT_ROOT, STATIC_DIR, TEMPLATES_DIR
from builder.problems import ContentError
from builder.versions import VERSION_CHARS
from builder.writer import UnsafeOutput, UnsafePath, check_out, update_tree, write_tree

RELOAD_SCRIPT = (
    b"<script>new EventSource('/__events').onmessage=function(){location.reload()}</script>"
)


@dataclass
class SiteState:
    """The in-memory site, the pipeline that built it, and the files last written."""

    options: BuildOptions
    pipeline: Pipeline = field(init=False)
    files: dict[str, bytes] = field(default_factory=dict)
    version: int = 0  # bumped after every successful write
    changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self.pipeline = Pipeline(self.options)

    @property
    def content(self) -> Content | None:
        return self.pipeline.result.content if self.pipeline.result else None

    def full(self) -> set[str]:
        """Build everything in memory; write only what differs. Returns the changed paths."""
        result = self.pipeline.run()
        report(result.problems)
        return self.replace(result.files)

    def recipe_edited(self, rel: str) -> set[str] | None:
        """Rebuild after an edit of one recipe; None when only a full build is exact."""
        rebuilt = self.pipeline.rebuild(rel)
        if rebuilt is None:
            return None
        files, problems = rebuilt
        report(problems)
        return self.replace(files)

    def replace(self, files: dict[str, bytes]) -> set[str]:
        """Swap in a new file set, writing only the differences."""
        out = self.options.out
        if not self.files or not out.exists():
            write_tree(files, out)
            changed = set(files)
        else:
            changed = {p for p, data in files.items() if self.files.get(p) != data}
            removed = set(self.files) - set(files)
            update_tree({p: files[p] for p in changed}, removed, out)
            changed |= removed
        self.files = files
        if changed:
            with self.changed:
                self.version += 1
                self.changed.notify_all()
        return changed


def report(problems: list[Any]) -> None:
    for problem in problems:
        print(problem, file=sys.stderr)


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

    def requested_file(self) -> Path:
        """The file the URL names: a folder's ``index.html`` with or without the trailing slash.

        A page's canonical URL has no slash (``/<org>/<repo>``): it is answered at once rather
        than redirected to the folder, which would cost every navigation a round trip (the pages
        link only site-absolute URLs, so both spellings show the same page)."""
        path = Path(self.translate_path(self.path))
        return path / "index.html" if path.is_dir() and (path / "index.html").is_file() else path

    def send_head(self) -> Any:
        """Files (or their chosen twin) with an ``ETag`` of their bytes, ``304`` when it matches."""
        path = self.requested_file()
        if path.is_dir():  # a folder without index.html: no listing, and no redirect to one
            self.send_error(404)
            return None
        if not path.is_file():
            self._cache_control = "no-cache"
            return super().send_head()
        accept = self.headers.get("Accept-Encoding", "")
        twin = chosen_twin(path, accept)
        encoding, body = (twin[0], twin[1].read_bytes()) if twin else compressed_on_the_fly(path, accept)
        etag = f'"{hashlib.sha256(body).hexdigest()[:24]}"'
        self._cache_control = cache_control(self.path, path)
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


def serve_directory(directory: Path, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """Serve ``directory`` with :class:`StaticHandler` on 127.0.0.1 in a daemon thread."""
    handler = functools.partial(StaticHandler, directory=str(directory))
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


class DevHandler(StaticHandler):
    """The dev server: static files, a reload event stream, and the reload script in HTML pages."""

    state: SiteState

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        if self.path == "/__events":
            self.events()
            return
        target = self.requested_file()
        if target.suffix == ".html" and target.is_file():
            body = target.read_bytes().replace(b"</body>", RELOAD_SCRIPT + b"</body>", 1)
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def events(self) -> None:
        """Server-Sent Events: one message per rebuild."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        state = self.state
        seen = state.version
        try:
            while True:
                with state.changed:
                    state.changed.wait_for(lambda last=seen: state.version != last, timeout=15)
                if state.version != seen:
                    seen = state.version
                    self.wfile.write(b"data: reload\n\n")
                else:
                    self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return


def watch_paths(content: Path) -> list[Path]:
    """What a rebuild depends on: the content, templates and static sources."""
    return [p for p in (content, TEMPLATES_DIR, STATIC_DIR) if p.exists()]


def on_changes(state: SiteState, changes: set[tuple[Any, str]], everything: bool = False) -> None:
    """Apply one batch of file-system changes.

    Whatever was saved, the server keeps serving: problems in the content are printed and
    the previous site stays; so does it after an internal error, printed with its traceback."""
    started = time.perf_counter()
    try:
        # realpath, not Path.resolve(): a saved symlink loop must not raise
        edited = None if everything else edited_recipes(state, {Path(os.path.realpath(p)) for _, p in changes})
        changed: set[str] | None = set()
        for rel in edited or []:
            done = state.recipe_edited(rel)
            changed = None if done is None or changed is None else changed | done
            if changed is None:
                break
        if edited is None or changed is None:
            changed = state.full()
    except ContentError as exc:
        report(exc.problems)
        print("rebuild failed; the site is unchanged", file=sys.stderr)
        return
    except (UnsafeOutput, UnsafePath, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        print("rebuild failed; the site is unchanged", file=sys.stderr)
        return
    except Exception:  # a bug of ours: show it to whoever develops, keep serving the last site
        traceback.print_exc()
        print("rebuild failed with an internal error (please report it); the site is unchanged", file=sys.stderr)
        return
    print(f"rebuilt: {len(changed)} file(s) in {time.perf_counter() - started:.2f} s", flush=True)


def edited_recipes(state: SiteState, paths: set[Path]) -> list[str] | None:
    """The known recipe files a batch edited in place, or None when anything else changed.

    Editors save through temporary and swap files: files the build does not read are ignored.
    """
    if state.content is None:
        return None
    root = Path(os.path.realpath(state.options.content))
    known = {Path(os.path.realpath(root / r.rel_path)): r.rel_path for r in state.content.recipes}
    edited = []
    for path in sorted(paths):
        if path in known and path.exists():
            edited.append(known[path])
        elif _is_source(path, root):
            return None
    return edited


def _is_source(path: Path, root: Path) -> bool:
    """A file the site is built from: content YAML, or a template or static file."""
    if not path.is_relative_to(root):
        return not path.name.startswith(".") and not path.name.endswith("~")
    return path.suffix in (".yaml", ".yml") and not path.name.startswith(".")


@dataclass
class DevServer:
    """A ``python -m builder serve`` child process, serving and watching."""

    process: subprocess.Popen[str]
    port: int
    lines: list[str]  # its output so far; a reader thread keeps appending

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def start_dev_server(content: Path, out: Path) -> DevServer:
    """Start ``serve`` on a free port in a child process; return once it serves and watches."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "builder", "serve", "--content", str(content), "--out", str(out), "--port", str(port)],
        cwd=PROJECT_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    assert process.stdout is not None
    for line in process.stdout:
        lines.append(line)
        if line.startswith("watching for changes"):
            break
    else:
        raise RuntimeError("serve stopped before watching:\n" + "".join(lines))
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    return DevServer(process, port, lines)


def watch_and_rebuild(state: SiteState, content: Path) -> None:
    """Rebuild on every batch of changes, forever.

    watchfiles gives up on a path it cannot decode (a file name that is not UTF-8): the
    watcher is then started again and everything rebuilt, since changes may have been missed.
    """
    from watchfiles import watch as watch_files

    announced = missed = False
    while True:
        try:
            for changes in watch_files(
                *watch_paths(content), debounce=50, step=20, yield_on_timeout=True, rust_timeout=500
            ):
                if not announced:
                    print("watching for changes", flush=True)
                    announced = True
                if missed:
                    missed = False
                    print("watching again; rebuilding everything", flush=True)
                    on_changes(state, set(), everything=True)
                if changes:
                    on_changes(state, changes)
            return
        except RuntimeError as exc:  # watchfiles' WatchfilesRustInternalError
            print(f"error: the file watcher stopped: {exc}", file=sys.stderr, flush=True)
            missed = True
            time.sleep(0.2)  # should it keep failing, without spinning


def serve(content: Path, out: Path, port: int, watch: bool = True) -> int:
    """Build, then serve ``out`` on 127.0.0.1:``port`` until interrupted (exit 2: an unsafe ``out``)."""
    try:
        check_out(out, content)
    except UnsafeOutput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    state = SiteState(BuildOptions(content=content, out=out))
    try:
        state.full()
    except ContentError as exc:
        report(exc.problems)
        return 1
    handler = functools.partial(DevHandler, directory=str(out.resolve()))
    DevHandler.state = state
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"serving {out} on http://127.0.0.1:{port}/ (Ctrl-C to stop)", flush=True)
    try:
        if watch:
            watch_and_rebuild(state, content)
        else:
            threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    return 0
