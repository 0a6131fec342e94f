"""axe-core scan: no serious or critical violations on key pages, light and dark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PAGES = ["/", "/browse", "/does-not-exist/at-all", "/MiniMaxAI/MiniMax-M3", "/inclusionAI/Ring-1T-FP8",
         "/MiniMaxAI"]


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` at the project root")
    return AXE.read_text(encoding="utf-8")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_no_serious_violations(chromium: Any, server: str, axe_source: str, scheme: str) -> None:
    ctx = chromium.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    ctx.set_default_timeout(15_000)
    page = ctx.new_page()
    problems: list[str] = []
    try:
        for path in PAGES:
            page.goto(server + path)
            page.wait_for_load_state("load")
            assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == scheme
            page.add_script_tag(content=axe_source)
            result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
            for v in result["violations"]:
                if v["impact"] in ("serious", "critical"):
                    targets = [n["target"] for n in v["nodes"][:3]]
                    problems.append(f"{scheme} {path}: {v['id']} ({v['impact']}) {targets}")
    finally:
        ctx.close()
    assert not problems, "\n".join(problems)
