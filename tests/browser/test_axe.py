"""axe-core scan: no serious or critical violations on key pages, light and dark."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.axe_scan import AXE, need_axe, serious_violations
from tests.browser.helpers import wait_ready

PAGES = ["/", "/browse", "/does-not-exist/at-all", "/MiniMaxAI/MiniMax-M3", "/inclusionAI/Ring-1T-FP8",
         "/MiniMaxAI"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_no_serious_violations(server_page: Any, server: str, scheme: str) -> None:
    need_axe()
    page = server_page
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.add_init_script(path=str(AXE))  # in every document the page loads (nothing sent per page)
    problems: list[str] = []
    for path in PAGES:
        page.goto(server + path)
        page.wait_for_load_state("load")
        if path.count("/") == 2 and path != PAGES[2]:  # a recipe page: scanned as its builder shows it
            wait_ready(page)
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == scheme
        problems += serious_violations(page, f"{scheme} {path}")
    assert not problems, "\n".join(problems)


def test_the_scan_names_each_serious_violation_and_its_targets(page_js: Any) -> None:
    """The scan's report (its first run computes no selectors; the rules it found run again for them)."""
    need_axe()
    page_js.set_content('<html><body><main><h1>x</h1><img src="a.png"><button></button>'
                        '<p style="color:#eee;background:#fff">low</p><div id="ok"><p>fine</p></div>'
                        '</main></body></html>')
    assert serious_violations(page_js, "doc") == [
        "doc: button-name (critical) [['button']]", "doc: color-contrast (serious) [['main > p']]",
        "doc: document-title (serious) [['html']]", "doc: html-has-lang (serious) [['html']]",
        "doc: image-alt (critical) [['img']]"]
    assert serious_violations(page_js, "main", "main") == [
        "main: button-name (critical) [['button']]", "main: color-contrast (serious) [['main > p']]",
        "main: image-alt (critical) [['img']]"]
    assert serious_violations(page_js, "ok", "#ok") == []
