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
    page_js.wait_for_function("document.querySelector('#search-results')?.textContent.includes('with q = \"deepseek v3\"')")
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
