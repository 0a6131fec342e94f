"""The worker falls back to static/resolver.zip when the precompiled resolver is not the published bundle."""

from __future__ import annotations

import json
from typing import Any

from tests.browser.helpers import click, dedicated_worker, open_builder, shown_command, view

RECIPE = "/moonshotai/Kimi-K2.5"
STALE_HASH = "0" * 64


def _record_bundle_requests(page: Any) -> list[str]:
    """URLs of every resolver.zip request the page or its worker makes."""
    urls: list[str] = []
    page.context.on("request", lambda request: urls.append(request.url) if "resolver.zip" in request.url else None)
    return urls


def _stale_vocab(route: Any) -> None:
    """Serve builder-data/vocab.json with a bundle hash the precompiled copy does not carry."""
    vocab = json.loads(route.fetch().text())
    assert len(vocab["resolver_bundle_sha256"]) == 64
    vocab["resolver_bundle_sha256"] = STALE_HASH
    route.fulfill(status=200, content_type="application/json", body=json.dumps(vocab))


def _click_reasoning(page: Any) -> dict:
    open_builder(page, RECIPE)
    click(page, "features", "reasoning")
    return {"view": view(page), "command": shown_command(page)}


def test_stale_precompiled_copy_fetches_the_zip_and_answers_the_same(page: Any, browser: Any, site_url: str) -> None:
    dedicated_worker(page)
    precompiled_requests = _record_bundle_requests(page)
    expected = _click_reasoning(page)
    assert precompiled_requests == []  # the matching precompiled copy needs no download
    assert "--reasoning-parser" not in expected["command"]

    stale = browser.new_context(base_url=site_url)
    try:
        stale_page = stale.new_page()
        dedicated_worker(stale_page)
        stale_page.set_default_timeout(30000)
        errors: list[str] = []
        stale_page.on("pageerror", lambda e: errors.append(str(e)))
        fallback_requests = _record_bundle_requests(stale_page)
        stale_page.route("**/builder-data/vocab.json*", _stale_vocab)
        got = _click_reasoning(stale_page)
        assert [url.split("/static/", 1)[1] for url in fallback_requests] == [
            f"resolver.zip?v={STALE_HASH[:16]}"]
        assert got == expected
        assert errors == []
    finally:
        stale.close()
    assert page.js_errors == []
