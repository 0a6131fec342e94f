"""Small things from the #16 audit, in Chromium: multi-word search ranking, hostile ``?sort=`` and
404 paths that must not throw, the Filter badge at zero."""

from __future__ import annotations

from typing import Any


def test_multi_word_query_ranks_the_whole_name_first(server_page: Any, server: str) -> None:
    server_page.goto(server + "/browse")
    server_page.locator("#search-input").fill("deepseek v3")
    server_page.wait_for_function(
        "document.querySelector('#search-results')?.textContent.includes('with q = \"deepseek v3\"')")
    first = server_page.locator("#search-results a.sr-opt").first
    assert first.get_attribute("href") == "/deepseek-ai/DeepSeek-V3"
    ranked = server_page.evaluate("""() => window.VR.loadIndex().then(idx =>
        window.VR.searchRecipes(idx, 'deepseek v3').slice(0, 2).map(x => x.r.id))""")
    assert ranked[0] == "deepseek-ai/DeepSeek-V3" and ranked[1].startswith("deepseek-ai/DeepSeek-V3.")
    assert server_page.js_errors == []


def test_browse_sort_proto_does_not_throw(server_page: Any, server: str) -> None:
    for key in ("__proto__", "constructor", "toString"):
        server_page.goto(f"{server}/browse?sort={key}")
        server_page.wait_for_load_state("load")
        assert server_page.locator("[data-sort]").input_value() == "released"
        assert server_page.locator("[data-result-list] > :not([hidden])").count() > 100
    assert server_page.js_errors == []


def test_filter_badge_hidden_at_zero(server_page: Any, server: str) -> None:
    server_page.goto(server + "/browse")
    badge = server_page.locator("[data-filter-badge]")
    assert not badge.is_visible()
    assert server_page.locator("[data-filter-toggle]").inner_text().strip() == "Filter"
    server_page.goto(server + "/browse?task=text")
    assert badge.is_visible() and badge.inner_text() == "1"


def test_404_with_a_bad_percent_escape_does_not_throw(server_page: Any, server: str) -> None:
    server_page.goto(server + "/no-such-org/%E0%A4%A")
    server_page.wait_for_load_state("load")
    assert "%E0%A4%A" in server_page.locator("[data-nf-echo]").inner_text()
    assert server_page.js_errors == []


def test_small_screens_fold_the_provider_list_behind_a_button(server_page: Any, server: str) -> None:
    """GAP-18: below 1024 px the sidebar is not dropped; its provider list opens from a "Providers" button."""
    server_page.set_viewport_size({"width": 800, "height": 900})
    server_page.goto(server + "/deepseek-ai/DeepSeek-V3")
    toggle = server_page.get_by_role("button", name="Providers", exact=True)
    providers = server_page.locator(".sidebar .nav-orgs")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert providers.is_hidden()
    toggle.click()
    assert toggle.get_attribute("aria-expanded") == "true"
    assert providers.is_visible()
    assert server_page.locator('.sidebar a[href="/deepseek-ai"]').is_visible()
    toggle.click()
    assert providers.is_hidden()
    server_page.set_viewport_size({"width": 1280, "height": 900})
    assert toggle.is_hidden() and providers.is_visible()
