"""Session fixtures: build the site once, serve it on 127.0.0.1, share one Chromium."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import sitedata  # noqa: E402


@pytest.fixture(scope="session")
def built_site(upstream_build: dict[str, Any]) -> dict[str, Any]:
    """The session's one build of ../shared/upstream: its directory, content, output and pages."""
    return upstream_build


@pytest.fixture(scope="session")
def presets_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Our recipes/ built with provenance: MiniMax-M3 carries presets, notes and an edit link."""
    return sitedata.build_presets_site(tmp_path_factory.mktemp("presets-site") / "site")


@pytest.fixture(scope="session")
def presets_server(presets_site: dict[str, Any]) -> Iterator[str]:
    """Base URL serving the presets site."""
    with serve_dir(presets_site["dir"]) as url:
        yield url


@contextlib.contextmanager
def serve_dir(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on a random 127.0.0.1 port (the project's static host) for the block."""
    from builder.serve import serve_directory

    httpd, url = serve_directory(directory)
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def server(built_site: dict[str, Any]) -> Iterator[str]:
    """Base URL of a local http.server serving the built site."""
    with serve_dir(built_site["dir"]) as url:
        yield url


@pytest.fixture()
def page_nojs(chromium: Any) -> Iterator[Any]:
    """A page with JavaScript disabled."""
    ctx = chromium.new_context(java_script_enabled=False)
    ctx.set_default_timeout(10_000)
    page = ctx.new_page()
    try:
        yield page
    finally:
        ctx.close()


@pytest.fixture()
def page_js(chromium: Any) -> Iterator[Any]:
    """A page with JavaScript enabled."""
    ctx = chromium.new_context()
    ctx.set_default_timeout(10_000)
    page = ctx.new_page()
    try:
        yield page
    finally:
        ctx.close()
