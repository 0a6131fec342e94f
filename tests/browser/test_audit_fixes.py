"""Small things from the #16 audit, in Chromium: multi-word search ranking, hostile ``?sort=`` and
404 paths that must not throw, the Filter badge at zero."""

from __future__ import annotations

from typing import Any


def _errors(page: Any) -> list[str]:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def test_multi_word_query_ranks_the_whole_name_first(page_js: Any, server: str) -> None:
    errors = _errors(page_js)
    page_js.goto(server + "/browse")
    page_js.locator("#search-input").fill("deepseek v3")
    page_js.wait_for_function(
        "document.querySelector('#search-results')?.textContent.includes('with q = \"deepseek v3\"')")
    first = page_js.locator("#search-results a.sr-opt").first
    assert first.get_attribute("href") == "/deepseek-ai/DeepSeek-V3"
    ranked = page_js.evaluate("""() => window.VR.loadIndex().then(idx =>
        window.VR.searchRecipes(idx, 'deepseek v3').slice(0, 2).map(x => x.r.id))""")
    assert ranked[0] == "deepseek-ai/DeepSeek-V3" and ranked[1].startswith("deepseek-ai/DeepSeek-V3.")
    assert errors == []


def test_browse_sort_proto_does_not_throw(page_js: Any, server: str) -> None:
    errors = _errors(page_js)
    for key in ("__proto__", "constructor", "toString"):
        page_js.goto(f"{server}/browse?sort={key}")
        page_js.wait_for_load_state("load")
        assert page_js.locator("[data-sort]").input_value() == "released"
        assert page_js.locator("[data-result-list] > :not([hidden])").count() > 100
    assert errors == []


def test_filter_badge_hidden_at_zero(page_js: Any, server: str) -> None:
    page_js.goto(server + "/browse")
    badge = page_js.locator("[data-filter-badge]")
    assert not badge.is_visible()
    assert page_js.locator("[data-filter-toggle]").inner_text().strip() == "Filter"
    page_js.goto(server + "/browse?task=text")
    assert badge.is_visible() and badge.inner_text() == "1"


def test_404_with_a_bad_percent_escape_does_not_throw(page_js: Any, server: str) -> None:
    errors = _errors(page_js)
    page_js.goto(server + "/no-such-org/%E0%A4%A")
    page_js.wait_for_load_state("load")
    assert "%E0%A4%A" in page_js.locator("[data-nf-echo]").inner_text()
    assert errors == []


def test_small_screens_fold_the_provider_list_behind_a_button(page_js: Any, server: str) -> None:
    """GAP-18: below 1024 px the sidebar is not dropped; its provider list opens from a "Providers" button."""
    page_js.set_viewport_size({"width": 800, "height": 900})
    page_js.goto(server + "/deepseek-ai/DeepSeek-V3")
    toggle = page_js.get_by_role("button", name="Providers", exact=True)
    providers = page_js.locator(".sidebar .nav-orgs")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert providers.is_hidden()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert providers.is_visible()
    assert page_js.locator('.sidebar a[href="/deepseek-ai"]').is_visible()
    toggle.click()
    assert providers.is_hidden()
    page_js.set_viewport_size({"width": 1280, "height": 900})
    assert toggle.is_hidden() and providers.is_visible()
