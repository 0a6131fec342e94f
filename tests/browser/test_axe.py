"""axe-core scan: no serious or critical violations on key pages, light and dark."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.axe_scan import AXE, need_axe, serious_violations

PAGES = ["/", "/browse", "/does-not-exist/at-all", "/MiniMaxAI/MiniMax-M3", "/inclusionAI/Ring-1T-FP8",
         "/MiniMaxAI"]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_no_serious_violations(chromium: Any, server: str, scheme: str) -> None:
    need_axe()
    ctx = chromium.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(15_000)
    ctx.add_init_script(path=str(AXE))  # in every page as it loads (nothing sent per page)
    page = ctx.new_page()
    problems: list[str] = []
    try:
        for path in PAGES:
            page.goto(server + path)
            page.wait_for_load_state("load")
            assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == scheme
            problems += serious_violations(page, f"{scheme} {path}")
    finally:
        ctx.close()
    assert not problems, "\n".join(problems)
