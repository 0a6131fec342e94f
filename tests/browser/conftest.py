"""Browser fixtures: one Debian Chromium per test process, the built sites served on 127.0.0.1, and
pages: pages with JavaScript (the builder site's ``page``, the presets site's ``presets_page``, the
upstream build's ``server_page``) open beside a page that keeps the site's shared worker booted (as a
reader's second recipe page finds it), with storage, cookies and permissions reset before each test;
pages in a context of their own for the tests that configure the context or need a cold first boot
(``cold_page``, ``page_js``); ``page_nojs``, a new page of the session's no-script context."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builder.cli.static_host import serve_directory
from tests.browser.warm_context import BUILDER_PERMISSIONS, WarmContext, WarmContexts
from tests.support.paths import CHROMIUM, CHROMIUM_ARGS, TEST_CHROMIUM_ARGS, need_runtime


@pytest.fixture(scope="session")
def driver() -> Iterator[Any]:
    """The process's Playwright driver (the sync API allows one per process)."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        yield pw


@contextlib.contextmanager
def launched(driver: Any, args: list[str]) -> Iterator[Any]:
    """Debian's Chromium (never a downloaded browser) started with ``args``, closed after the block."""
    browser = driver.chromium.launch(executable_path=CHROMIUM, args=args)
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture(scope="session")
def chromium(driver: Any) -> Iterator[Any]:
    """One Chromium for the whole session, shared by every browser test; its WebAssembly is compiled by
    the baseline compiler only (``TEST_CHROMIUM_ARGS``: most tests boot Pyodide and run it briefly)."""
    with launched(driver, TEST_CHROMIUM_ARGS) as browser:
        yield browser


@pytest.fixture(scope="session")
def optimising_chromium(driver: Any) -> Iterator[Any]:
    """Chromium as readers run it (V8 optimises hot WebAssembly), for the tests that run Python in
    Pyodide for half a minute: there the optimised code saves more than compiling it costs."""
    with launched(driver, CHROMIUM_ARGS) as browser:
        yield browser


@contextlib.contextmanager
def serve_dir(directory: Path) -> Iterator[str]:
    """Serve ``directory`` on a random 127.0.0.1 port (the project's static host) for the block."""
    httpd, url = serve_directory(directory)
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def server(built_site: dict[str, Any]) -> Iterator[str]:
    """Base URL of the static host serving the upstream build."""
    with serve_dir(built_site["dir"]) as url:
        yield url


@pytest.fixture(scope="session")
def presets_server(presets_site: dict[str, Any]) -> Iterator[str]:
    """Base URL serving the presets site."""
    with serve_dir(presets_site["dir"]) as url:
        yield url


@pytest.fixture(scope="session")
def site_url(builder_site: dict[str, Any]) -> Iterator[str]:
    """Base URL serving the builder site (upstream and our recipes, with the Pyodide runtime)."""
    with serve_dir(builder_site["dir"]) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium: Any) -> Any:
    """The session's shared Chromium, for the builder tests (which need the runtime)."""
    need_runtime()
    return chromium


@contextlib.contextmanager
def fresh_page(chromium: Any, javascript: bool) -> Iterator[Any]:
    """A page in a context of its own (no storage shared with other tests), closed after the block."""
    ctx = chromium.new_context(java_script_enabled=javascript)
    ctx.set_default_timeout(10_000)
    try:
        yield ctx.new_page()
    finally:
        ctx.close()


@pytest.fixture(scope="session")
def nojs_context(chromium: Any) -> Iterator[Any]:
    """The session's context with JavaScript disabled: without scripts its pages store nothing but
    cookies (``page_nojs`` clears them) and the HTTP cache (the static host's ETags are the files'
    hashes, revalidated on each load)."""
    ctx = chromium.new_context(java_script_enabled=False)
    ctx.set_default_timeout(10_000)
    yield ctx
    ctx.close()


@pytest.fixture()
def page_nojs(nojs_context: Any) -> Iterator[Any]:
    """A page with JavaScript disabled (a new page of ``nojs_context``, closed after the test)."""
    nojs_context.clear_cookies()
    page = nojs_context.new_page()
    yield page
    page.close()


@pytest.fixture()
def page_js(chromium: Any) -> Iterator[Any]:
    """A page with JavaScript enabled."""
    with fresh_page(chromium, javascript=True) as page:
        yield page


def builder_context(browser: Any, site_url: str) -> Any:
    """A context on the builder site, the clipboard allowed."""
    ctx = browser.new_context(base_url=site_url)
    ctx.grant_permissions(BUILDER_PERMISSIONS, origin=site_url)
    return ctx


def builder_page(ctx: Any) -> Any:
    """A new page of ``ctx``; ``page.js_errors`` collects its uncaught errors."""
    pg = ctx.new_page()
    pg.set_default_timeout(30000)
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.js_errors = errors
    return pg


@pytest.fixture(scope="session")
def warm_contexts() -> Iterator[WarmContexts]:
    """The process's warm contexts, one per browser and site (made on first use), closed at the end."""
    made: WarmContexts = {}
    yield made
    for warm in made.values():
        warm.context.close()


def warm_page(warm_contexts: WarmContexts, browser: Any, site_url: str) -> Iterator[Any]:
    """A new page of ``browser``'s warm context on ``site_url`` (see ``page``), closed after the test with
    every other page the test opened."""
    warm = warm_contexts.get((browser, site_url))
    if warm is None or warm.keeper.is_closed():  # first use (or the keeper's page went): a new one
        if warm is not None:
            warm.context.close()
        warm = warm_contexts[browser, site_url] = WarmContext(builder_context(browser, site_url), site_url)
    warm.reset()
    yield builder_page(warm.context)
    for opened in warm.context.pages:
        if opened is not warm.keeper:
            opened.close()


@pytest.fixture()
def page(browser: Any, site_url: str, warm_contexts: WarmContexts) -> Iterator[Any]:
    """A new builder-site page (clipboard allowed; ``page.js_errors`` collects uncaught errors) in its
    browser's warm context: the site's shared worker is booted already, as for a reader's second recipe
    page. Its storage, cookies and permissions are reset first (``WarmContext.reset``); what a test adds
    to its page (routes, init scripts, listeners) goes with the page, closed after the test with every
    other page the test opened. A test that configures the context, or needs a cold first boot, takes
    ``cold_page``."""
    yield from warm_page(warm_contexts, browser, site_url)


@pytest.fixture()
def server_page(browser: Any, server: str, warm_contexts: WarmContexts) -> Iterator[Any]:
    """Like ``page``, on the upstream build's site (``server``): its recipe pages find the site's worker
    booted instead of booting Pyodide in a new context of their own."""
    yield from warm_page(warm_contexts, browser, server)


@pytest.fixture()
def presets_page(browser: Any, presets_server: str,
                 warm_contexts: WarmContexts) -> Iterator[Any]:
    """Like ``page``, on the presets site (our recipes/ with their stored predictions)."""
    yield from warm_page(warm_contexts, browser, presets_server)


@pytest.fixture()
def cold_page(browser: Any, site_url: str) -> Iterator[Any]:
    """A builder-site page like ``page``, but in a new context of its own: its shared worker (or a
    dedicated one) boots from cold, with nothing stored, and the test may configure the context
    (routes, listeners, permissions, more pages)."""
    ctx = builder_context(browser, site_url)
    yield builder_page(ctx)
    ctx.close()
