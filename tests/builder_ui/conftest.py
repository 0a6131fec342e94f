"""Builder UI fixtures: one site build with the Pyodide runtime, one local server, one Chromium."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
UPSTREAM = ROOT.parent / "shared" / "upstream"
CHROMIUM = "/usr/bin/chromium"  # same browser as tests/conftest.py (the shared `chromium` fixture)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def build_builder_site(out: Path, content_root: Path) -> dict[str, Any]:
    """Build the site (JSON, HTML, the Pyodide runtime and the builder data) into ``out``."""
    from builder.build import BuildOptions, render
    from builder.writer import write_tree

    result = render(BuildOptions(content=content_root, out=out, html=True))
    write_tree(result.files, out)
    return {"content": result.content, "files": result.files}


def merged_content(tmp: Path) -> Path:
    """The upstream corpus with the project's own recipes laid over it (presets, notes)."""
    root = tmp / "content"
    shutil.copytree(UPSTREAM, root)
    for src in (ROOT / "recipes" / "models").rglob("*.yaml"):
        dst = root / "models" / src.relative_to(ROOT / "recipes" / "models")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return root


def serve(directory: Path) -> tuple[Any, str]:
    """Serve ``directory`` on a random 127.0.0.1 port (the project's static host, with gzip)."""
    from builder.serve import serve_directory

    return serve_directory(directory)


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
