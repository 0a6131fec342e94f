"""The first two clicks answered from builder-data/<hf_id>.clicks.json before (or without) the Pyodide worker.

The stored views are the resolver's (CPython, at build time); here every one of them, patched by
the page's own applyPatch (onto the default view the page embeds, or onto the first click's view),
is compared with the same click under Pyodide, and the page is shown to use them only while its
inputs are exactly the build's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import builder_context, builder_page
from tests.browser.helpers import BOOT_PYODIDE, dedicated_worker, open_builder, pill, settle, view, wait_ready
from tests.support.builder_page import embedded_view
from tests.support.paths import need_runtime

QWEN = "/Qwen/Qwen3-8B"
PREFS_KEY = "vllm-recipes-prefs"


@pytest.fixture()
def browser(optimising_chromium: Any) -> Any:
    """These tests run thousands of clicks through Pyodide: the optimising Chromium pays off here."""
    need_runtime()
    return optimising_chromium


def _no_worker(page: Any) -> None:
    """The runtime is still on its way (its requests never answer): only the build's views can answer.

    (A runtime that *fails* makes the builder inert with Try again: test_builder_behaviour.)"""
    dedicated_worker(page)
    page.context.route("**/pyodide/**", lambda route: None)


def _other_hardware(page: Any) -> str:
    """The value of an enabled, unselected hardware pill of the shown view."""
    row = next(r for r in view(page)["rows"] if r["id"] == "hardware")
    return next(p["value"] for p in row["pills"] if not p["disabled"] and not p["selected"])


def test_stored_views_equal_the_pyodide_views_for_every_stored_click(builder_site: dict[str, Any],
                                                                     page: Any) -> None:
    """Every precomputed click of every recipe (../shared/upstream and ours), JS patch vs. the worker."""
    files = builder_site["files"]
    hf_ids = sorted(rf.hf_id for rf in builder_site["content"].recipes)
    docs = {
        h: {**json.loads(files[f"builder-data/{h}.json"]), "initial": embedded_view(files[f"{h}/index.html"])}
        for h in hf_ids}
    # the first clicks only (the second ones: test_stored_second_clicks_equal_pyodides_views)
    clicks = {h: {"views": json.loads(files[f"builder-data/{h}.clicks.json"])["views"]} for h in hf_ids}
    open_builder(page, QWEN)
    mismatches = page.evaluate(
        """async (text) => {
            const {docs, clicks} = JSON.parse(text);
            const b = window.vllmBuilder;
            const bad = [];
            let count = 0;
            for (const [hfId, doc] of Object.entries(docs)) {
              const recipe = JSON.stringify(doc.recipe);
              let sent = false;
              for (const [key, patch] of Object.entries(clicks[hfId].views)) {
                const event = JSON.parse(key);
                if (b.eventKey(event) !== key) { bad.push([hfId, key, "key"]); continue; }
                const msg = {hfId: "first:" + hfId, state: {...doc.initial.state, _endpoints: {}}, event};
                if (!sent) { msg.recipe = recipe; sent = true; }
                const live = (await b.request(msg)).view;
                const stored = JSON.stringify(b.applyPatch(doc.initial, patch));
                count++;
                if (JSON.stringify(JSON.parse(live)) !== stored) bad.push([hfId, key, "view"]);
              }
            }
            return {count, bad};
        }""",
        json.dumps({"docs": docs, "clicks": clicks}),  # one text: Playwright's per-value encoding is slow
    )
    upstream_clicks = sum(len(clicks[h]["views"]) for h in hf_ids)
    assert mismatches["count"] == upstream_clicks > 1500
    assert mismatches["bad"] == []


SECOND_CLICK_CHUNKS = 6  # the second clicks' check, split so that test processes share it


@pytest.fixture(scope="module")
def glue_page(optimising_chromium: Any, site_url: str, builder_site: dict[str, Any]) -> Iterator[Any]:
    """A recipe page whose own worker stays unstarted (its script never arrives), with Pyodide booted in
    the page and the worker's glue and resolver imported from the page's code zip as the worker imports
    them (``window.glue``): booted once per test process for every chunk of the second clicks."""
    need_runtime()
    files = builder_site["files"]
    html = files["Qwen/Qwen3-8B/index.html"].decode()
    runtime, code = (re.search(f'data-{name}="([^"]+)"', html).group(1) for name in ("pyodide", "resolver"))
    ctx = builder_context(optimising_chromium, site_url)
    page = builder_page(ctx)
    dedicated_worker(page)
    ctx.route("**/static/builder-worker.js*", lambda route: None)
    page.goto(QWEN)
    page.evaluate(
        """async ({runtime, code, vocab}) => {
            BOOT_PYODIDE
            const py = await bootPyodide(runtime, code);
            window.glue = py.pyimport("recipes_worker_glue");
            window.glue.set_vocab(vocab);
        }""".replace("BOOT_PYODIDE", BOOT_PYODIDE),
        {"runtime": runtime, "code": code, "vocab": files["builder-data/vocab.json"].decode()},
    )
    yield page
    ctx.close()


@pytest.mark.parametrize("chunk", range(SECOND_CLICK_CHUNKS))
def test_stored_second_clicks_equal_pyodides_views(builder_site: dict[str, Any], glue_page: Any,
                                                   chunk: int) -> None:
    """Every stored second click of every recipe (../shared/upstream and ours): the page's applyPatch of
    the stored view against the worker's glue and resolver under Pyodide (``glue_page``), one chunk of
    the recipes per test."""
    files = builder_site["files"]
    hf_ids = sorted(rf.hf_id for rf in builder_site["content"].recipes)[chunk::SECOND_CLICK_CHUNKS]
    recipes = {h: {"recipe": json.dumps(json.loads(files[f"builder-data/{h}.json"])["recipe"]),
                   "initial": embedded_view(files[f"{h}/index.html"]),
                   "clicks": json.loads(files[f"builder-data/{h}.clicks.json"])} for h in hf_ids}
    result = glue_page.evaluate(
        """async (text) => {
            const recipes = JSON.parse(text);
            const b = window.vllmBuilder;
            const glue = window.glue;
            // equal as JSON, whatever the key order
            const same = (a, b) => a === b || (a && b && typeof a === "object" && typeof b === "object"
              && Array.isArray(a) === Array.isArray(b) && Object.keys(a).length === Object.keys(b).length
              && Object.keys(a).every((k) => Object.hasOwn(b, k) && same(a[k], b[k])));
            const bad = [];
            let count = 0;
            for (const [hfId, doc] of Object.entries(recipes)) {
              glue.set_recipe(hfId, doc.recipe);
              const { views, next } = doc.clicks;
              for (const [key, patch] of Object.entries(views)) {
                const first = b.applyPatch(doc.initial, patch);
                const state = JSON.stringify({ ...first.state, _endpoints: {} });
                for (const [key2, patch2] of Object.entries(next[key])) {
                  if (b.eventKey(JSON.parse(key2)) !== key2) { bad.push([hfId, key, key2, "key"]); continue; }
                  const stored = "@" in patch2 ? b.applyPatch(doc.initial, views[key2])
                                               : b.applyPatch(first, patch2);
                  count++;
                  if (!same(JSON.parse(glue.view(hfId, state, key2)), stored)) bad.push([hfId, key, key2]);
                }
              }
              glue.drop_recipe(hfId);
            }
            return { count, bad: bad.slice(0, 20) };
        }""",
        json.dumps(recipes),  # one text: Playwright's per-value encoding is slow
    )
    stored = sum(len(after) for h in hf_ids for after in recipes[h]["clicks"]["next"].values())
    assert result["count"] == stored > 3000
    assert result["bad"] == []
    assert glue_page.js_errors == []


def test_first_click_is_answered_without_the_worker(cold_page: Any) -> None:
    _no_worker(cold_page)
    cold_page.goto(QWEN)
    cold_page.wait_for_function("window.vllmBuilder && window.vllmBuilder.precomputed !== null")
    target = _other_hardware(cold_page)
    pill(cold_page, "hardware", target).click()
    assert pill(cold_page, "hardware", target).get_attribute("aria-checked") == "true"
    shown = view(cold_page)
    assert shown["state"]["hardware"] == target
    cold_page.wait_for_function(f"location.search === '?hardware={target}'")  # written after the next paint
    assert json.loads(cold_page.evaluate(f"localStorage.getItem('{PREFS_KEY}')")) == {"hardware": target}
    assert cold_page.evaluate("window.vllmBuilder.ready") is False
    # a second click is stored too
    variant = next(p["value"] for r in view(cold_page)["rows"] if r["id"] == "variant" for p in r["pills"]
                   if not p["disabled"] and not p["selected"])
    pill(cold_page, "variant", variant).click()
    assert (view(cold_page)["state"]["hardware"], view(cold_page)["state"]["variant"]) == (target, variant)
    # a third is not: it waits for the worker
    third = _other_hardware(cold_page)
    waiting = cold_page.evaluate("window.vllmBuilder.queued")  # the worker's load request
    pill(cold_page, "hardware", third).click()
    assert cold_page.evaluate("window.vllmBuilder.queued") == waiting + 1
    assert view(cold_page)["state"]["hardware"] == target
    assert cold_page.locator("[data-cb-root]").get_attribute("aria-busy") == "true"


def test_stored_preference_means_waiting_for_the_worker(cold_page: Any) -> None:
    """Inputs other than the build's (here a stored hardware preference): no stored view is used."""
    cold_page.add_init_script(f"localStorage.setItem('{PREFS_KEY}', JSON.stringify({{hardware: 'b200'}}))")
    _no_worker(cold_page)
    cold_page.goto(QWEN)
    cold_page.wait_for_function("document.querySelector('[data-row=hardware] .cb-pill')")
    cold_page.wait_for_timeout(300)  # the clicks file has arrived and was refused
    assert cold_page.evaluate("window.vllmBuilder.precomputed") is None
    before = view(cold_page)["state"]
    waiting = cold_page.evaluate("window.vllmBuilder.queued")
    pill(cold_page, "hardware", _other_hardware(cold_page)).click()
    assert cold_page.evaluate("window.vllmBuilder.queued") == waiting + 1
    assert view(cold_page)["state"] == before


def test_url_query_means_waiting_for_the_worker(cold_page: Any) -> None:
    _no_worker(cold_page)
    cold_page.goto(QWEN + "?variant=default")
    cold_page.wait_for_function("document.querySelector('[data-row=hardware] .cb-pill')")
    cold_page.wait_for_timeout(300)
    assert cold_page.evaluate("window.vllmBuilder.precomputed") is None


def test_worker_takes_over_after_a_stored_first_click(cold_page: Any) -> None:
    cold_page.goto(QWEN)
    cold_page.wait_for_function(
        "window.vllmBuilder && (window.vllmBuilder.precomputed !== null || window.vllmBuilder.ready)")
    early = cold_page.evaluate("!window.vllmBuilder.ready")
    first = _other_hardware(cold_page)
    pill(cold_page, "hardware", first).click()
    wait_ready(cold_page)
    assert view(cold_page)["state"]["hardware"] == first  # the worker's load answer did not undo the click
    second = _other_hardware(cold_page)
    pill(cold_page, "hardware", second).click()
    settle(cold_page)
    assert view(cold_page)["state"]["hardware"] == second
    assert f"hardware={second}" in cold_page.url
    assert cold_page.locator(".cb-status").is_hidden()
    assert early, "the first click should have been answered before the worker was ready"
    assert not cold_page.js_errors
