"""JavaScript enhancements: search keyboard, browse filters, theme toggle, copy buttons."""

from __future__ import annotations

import re
from typing import Any

from tests.browser.helpers import wait_ready

MINIMAX = "MiniMaxAI/MiniMax-M3"


def test_search_shortcuts_and_keyboard(server: str, server_page: Any) -> None:
    page = server_page
    page.goto(f"{server}/browse")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.locator("#search-results .sr-opt").first.wait_for()
    assert page.locator("#search-results .sr-head").first.text_content() == "Latest"
    page.keyboard.press("Escape")
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("Control+k")
    assert page.evaluate("document.activeElement.id") == "search-input"
    page.keyboard.type("minimax m3")
    page.wait_for_function("document.querySelector('#search-results').innerText.includes('MiniMax-M3')")
    options = page.locator("#search-results [role=option]")
    assert options.first.get_attribute("aria-selected") == "true"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")  # clamped at the first row
    first_href = options.first.get_attribute("href")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(re.escape(first_href) + "/?$"))


def test_search_matching_ignores_separators(server: str, server_page: Any) -> None:
    page = server_page
    page.goto(f"{server}/")
    page.fill("#search-input", "minimaxm3")
    page.wait_for_function("document.querySelector('#search-results').innerText.includes('MiniMax-M3')")
    assert page.locator("#search-results [role=option]").last.inner_text().startswith("Browse")


def test_browse_filters_with_counts(built_site: dict[str, Any], server: str, server_page: Any) -> None:
    page = server_page
    total = len(built_site["content"].recipes)
    page.goto(f"{server}/browse?task=omni")
    omni = sum(1 for r in built_site["content"].recipes
               if "omni" in (r.data.get("meta") or {}).get("tasks", []))
    page.wait_for_function(f"document.querySelector('[data-count]').textContent === '{omni} of {total}'")
    assert page.locator("[data-result-list] > li:visible").count() == omni
    page.click("[data-filter-toggle]")
    assert page.locator("#filter-panel").is_visible()
    assert "panel=open" in page.url
    chip = page.locator(".fchip[data-facet=task][data-value=omni]")
    assert chip.get_attribute("aria-pressed") == "true"
    assert chip.locator("[data-fcount]").inner_text() == str(omni)
    chip.click()
    page.wait_for_function(f"document.querySelector('[data-count]').textContent === '{total}'")
    page.goto(f"{server}/browse?q=minimax")
    page.wait_for_function("document.querySelector('[data-count]').textContent.includes(' of ')")
    first = page.locator("[data-result-list] > li:visible").first.get_attribute("data-id")
    assert first.lower().startswith("minimaxai/")
    page.click("button[aria-label='Remove \"minimax\" filter']")
    page.wait_for_function(f"document.querySelector('[data-count]').textContent === '{total}'")


def test_theme_toggle_persists(server: str, server_page: Any) -> None:
    page = server_page
    page.goto(f"{server}/")
    toggle = page.locator("[data-theme-toggle]")
    assert toggle.get_attribute("aria-label") == "Switch to dark mode"
    toggle.click()
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert toggle.get_attribute("aria-label") == "Switch to light mode"
    page.goto(f"{server}/browse")
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    assert page.evaluate("localStorage.getItem('theme')") == "dark"


def test_copy_buttons_everywhere(built_site: dict[str, Any], server: str, server_page: Any) -> None:
    page = server_page
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{server}/{MINIMAX}")
    # every static code block has a copy button; the builder's own blocks carry theirs (tests/browser)
    assert page.locator("pre:not(.cb-code)").count() == page.locator("pre:not(.cb-code) + .copy-btn").count()
    # the static command blocks give way to the builder once it runs; the guide's blocks stay
    block = page.locator("#guide pre:not(.cb-code)").first
    button = page.locator("#guide pre:not(.cb-code) + .copy-btn").first
    button.click()
    page.wait_for_function("(b) => b.textContent !== 'Copy'", arg=button.element_handle())
    assert button.inner_text() == "Copied"
    assert page.evaluate("navigator.clipboard.readText()") == block.inner_text().rstrip("\n")


def test_404_suggests_and_redirects(built_site: dict[str, Any], server: str, server_page: Any) -> None:
    page = server_page
    page.goto(f"{server}/MiniMaxAI/MiniMax-M9")
    assert page.locator("h1").inner_text() == "No recipe yet for this model"
    page.locator("[data-nf-suggest] a").first.wait_for()
    assert any("MiniMax" in t for t in page.locator("[data-nf-suggest] a").all_inner_texts())
    # site.js rewrites the request link with the missing id (encodeURIComponent: %20, not +)
    assert ("?title=Recipe%20request%3A%20MiniMaxAI%2FMiniMax-M9&"
            in page.locator("[data-nf-request]").get_attribute("href"))
    page.goto(f"{server}/MINIMAXAI/minimax-m3?x=1")
    page.wait_for_url(re.compile(r"/MiniMaxAI/MiniMax-M3/?\?x=1$"))


def test_variant_alias_stub_redirects(built_site: dict[str, Any], server: str, server_page: Any) -> None:
    page = server_page
    page.goto(f"{server}/nvidia/MiniMax-M3-NVFP4")
    page.wait_for_url(re.compile(r"/MiniMaxAI/MiniMax-M3/?\?variant=nvfp4$"))


def test_no_horizontal_overflow_at_360px(server_page: Any, server: str) -> None:
    """RESP: pages fit a 360 px viewport; long commands scroll inside their blocks."""
    page = server_page
    page.set_viewport_size({"width": 360, "height": 800})
    for path in ["/", "/browse", f"/{MINIMAX}", "/MiniMaxAI", "/no/such-page"]:
        page.goto(server + path)
        if path == f"/{MINIMAX}":  # measure the interactive builder too, not only the static page
            wait_ready(page)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, path
