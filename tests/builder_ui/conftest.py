"""Builder UI fixtures: one site build with the Pyodide runtime, one local server, one Chromium."""

from __future__ import annotations

import functools
import http.server
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "upstream"
CHROMIUM = "/usr/bin/chromium"  # same browser as tests/conftest.py (the shared `chromium` fixture)

SCRIPT_TAG = '<script src="/static/builder.js" defer></script>'

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def build_builder_site(out: Path, content_root: Path) -> dict[str, Any]:
    """Build the site (JSON + HTML) plus the builder's files into ``out``.

    Until the lead wires them into ``builder/build.py`` the Pyodide runtime, the builder data and
    ``static/resolver.py`` are added here, and recipe pages get the builder script tag.
    """
    from builder.build import BuildOptions, render
    from builder.pyodide_assets import builder_data_files, pyodide_files, resolver_files
    from builder.writer import write_tree

    result = render(BuildOptions(content=content_root, out=out, html=True))
    files = dict(result.files)
    for extra in (pyodide_files(ROOT), builder_data_files(result.content), resolver_files(ROOT)):
        for path, data in extra.items():
            files.setdefault(path, data)
    for path, data in list(files.items()):
        if path.endswith(".html") and b'id="builder"' in data and b"/static/builder.js" not in data:
            files[path] = data.replace(b"</body>", SCRIPT_TAG.encode() + b"\n</body>", 1)
    write_tree(files, out)
    return {"content": result.content, "files": files}


def merged_content(tmp: Path) -> Path:
    """The upstream corpus with the project's own recipes laid over it (presets, notes)."""
    root = tmp / "content"
    shutil.copytree(UPSTREAM, root)
    for src in (ROOT / "recipes" / "models").rglob("*.yaml"):
        dst = root / "models" / src.relative_to(ROOT / "recipes" / "models")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return root


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """Static files; a ``.gz`` twin is sent with ``Content-Encoding: gzip`` when accepted."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".mjs": "text/javascript",
                      ".wasm": "application/wasm", ".js": "text/javascript", ".json": "application/json"}

    sent_bytes = 0  # body bytes served (Content-Length), for bench/page.py

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - base-class signature
        pass

    def send_header(self, keyword: str, value: str) -> None:
        if keyword.lower() == "content-length":
            GzipHandler.sent_bytes += int(value)
        super().send_header(keyword, value)

    def send_head(self) -> Any:
        path = Path(self.translate_path(self.path))
        gz = path.with_name(path.name + ".gz")
        if path.is_file() and gz.is_file() and "gzip" in self.headers.get("Accept-Encoding", ""):
            data = gz.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", self.guess_type(str(path)))
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            import io

            return io.BytesIO(data)
        return super().send_head()


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``directory`` on a random 127.0.0.1 port in a daemon thread."""
    handler = functools.partial(GzipHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}"


def need_runtime() -> None:
    """Skip with the reason when something the browser tests need is missing."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"../shared is absent ({UPSTREAM}): the builder UI tests build its corpus")
    if not (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
        pytest.skip("node_modules/pyodide is missing: run `npm ci`")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")


@pytest.fixture(scope="session")
def builder_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    need_runtime()
    tmp = tmp_path_factory.mktemp("builder-ui")
    out = tmp / "site"
    info = build_builder_site(out, merged_content(tmp))
    info["dir"] = out
    return info


@pytest.fixture(scope="session")
def site_url(builder_site: dict[str, Any]) -> Iterator[str]:
    server, url = serve(builder_site["dir"])
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser(chromium: Any) -> Any:
    """The session's shared Chromium (tests/conftest.py)."""
    need_runtime()
    return chromium


@pytest.fixture()
def page(browser: Any, site_url: str) -> Iterator[Any]:
    ctx = browser.new_context(base_url=site_url)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=site_url)
    pg = ctx.new_page()
    pg.set_default_timeout(30000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.js_errors = errors
    yield pg
    ctx.close()
