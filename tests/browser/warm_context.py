"""A browser context whose builder worker stays booted between tests, and its reset.

The site's recipe pages share one worker per origin (Pyodide booted once, its interpreter snapshot in
Cache Storage): a reader's second recipe page finds Python running. The builder tests open their pages
beside a keeper page left on a recipe, so that each finds the worker booted, as that second page does.
What the product keeps across pages anyway stays: the booted worker, its snapshot cache
(``vllm-recipes-snapshots``) and the HTTP cache. What a test could leak to the next is reset before
each: local and session storage (the builder's preferences and per-recipe choices), IndexedDB, every
other Cache Storage cache, cookies and granted permissions.
"""

from __future__ import annotations

from typing import Any

from tests.browser.helpers import open_builder

BUILDER_PERMISSIONS = ["clipboard-read", "clipboard-write"]  # the builder's Copy buttons are read back
KEEPER_RECIPE = "/Qwen/Qwen3-8B"
SNAPSHOTS = "vllm-recipes-snapshots"  # static/builder-worker.js: the worker's interpreter snapshot

# Clears the origin's storage from the keeper page, all but the worker's snapshot cache; returns the
# Cache Storage caches left.
CLEAR = """async (keep) => {
    localStorage.clear();
    sessionStorage.clear();
    for (const { name } of await indexedDB.databases()) {
      await new Promise((done, fail) => {
        const request = indexedDB.deleteDatabase(name);
        request.onsuccess = done;
        request.onerror = () => fail(request.error);
      });
    }
    for (const name of await caches.keys()) if (name !== keep) await caches.delete(name);
    return caches.keys();
}"""


class WarmContext:
    """A builder-site context and its keeper page, left on a recipe once its builder is ready."""

    def __init__(self, context: Any, site_url: str) -> None:
        self.context = context
        self.site_url = site_url
        self.keeper = context.new_page()
        self.keeper.set_default_timeout(30000)
        open_builder(self.keeper, KEEPER_RECIPE)

    def reset(self) -> None:
        """Nothing stored, no cookies, only the builder's permissions; checked through Playwright's own
        view of the context's storage."""
        left = self.keeper.evaluate(CLEAR, SNAPSHOTS)
        self.context.clear_cookies()
        self.context.clear_permissions()
        self.context.grant_permissions(BUILDER_PERMISSIONS, origin=self.site_url)
        state = self.context.storage_state(indexed_db=True)
        stored = [o for o in state["origins"] if o.get("localStorage") or o.get("indexedDB")]
        assert (state["cookies"], stored, set(left) - {SNAPSHOTS}) == ([], [], set()), "storage left"


WarmContexts = dict[tuple[Any, str], WarmContext]  # by browser and site URL
