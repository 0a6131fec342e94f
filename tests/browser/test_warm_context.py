"""The warm context the builder tests share (tests/browser/warm_context.py): its reset leaves a test
nothing another test stored, and keeps what the product keeps across pages (the booted worker, its
interpreter snapshot)."""

from __future__ import annotations

from typing import Any

from tests.browser.helpers import open_builder
from tests.browser.warm_context import SNAPSHOTS, WarmContexts

STORE_EVERYWHERE = """async () => {
    localStorage.setItem("vllm-recipes-prefs", JSON.stringify({hardware: "b200"}));
    await new Promise((done) => {
      const request = indexedDB.open("left-by-a-test");
      request.onupgradeneeded = () => request.result.createObjectStore("things");
      request.onsuccess = () => { request.result.close(); done(); };
    });
    await (await caches.open("left-by-a-test")).put("/left", new Response("x"));
    document.cookie = "left=1; path=/";
}"""

STORED = """async () => ({
    local: localStorage.length,
    databases: (await indexedDB.databases()).map((d) => d.name),
    caches: await caches.keys(),
    cookie: document.cookie,
    geolocation: (await navigator.permissions.query({name: "geolocation"})).state,
    clipboard: (await navigator.permissions.query({name: "clipboard-read"})).state,
})"""


def test_the_reset_leaves_only_the_workers_snapshot(page: Any, browser: Any, site_url: str,
                                                    warm_contexts: WarmContexts) -> None:
    warm = warm_contexts[browser, site_url]
    page.goto("/")
    # the keeper's worker stores its snapshot half a second after its first answer
    page.wait_for_function(f"async () => await caches.has('{SNAPSHOTS}')")
    before = page.evaluate(STORED)
    assert before == {"local": 0, "databases": [], "caches": [SNAPSHOTS], "cookie": "",
                      "geolocation": "denied", "clipboard": "granted"}  # headless Chromium denies by default
    page.evaluate(STORE_EVERYWHERE)
    warm.context.grant_permissions(["geolocation"], origin=warm.site_url)
    assert page.evaluate(STORED) == {"local": 1, "databases": ["left-by-a-test"],
                                     "caches": [SNAPSHOTS, "left-by-a-test"], "cookie": "left=1",
                                     "geolocation": "granted", "clipboard": "granted"}
    page.close()
    warm.reset()
    later = warm.context.new_page()
    open_builder(later, "/Qwen/Qwen3-8B")
    assert later.evaluate(STORED) == before
    timings = later.evaluate("window.vllmBuilder.timings")
    assert (timings["shared"], timings["reused"]) == (True, True)  # the keeper's worker, still booted
