"""Issue #39 in Chromium: the Performance panel follows the builder's selection (MiniMax-M3 and the dense
Qwen3-8B): the build's panel for the default command, redrawn identically once the predictions arrive; a
strategy (or variant) click updates the chart and the table; "Pick for me" answers a target and applies it;
the GPU-hour price changes the cost and lands in the URL; axe clean; no JavaScript error."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser.axe_scan import need_axe, serious_violations
from tests.browser.helpers import click, settle

CIRCLES = re.compile(r'<circle class="([^"]*)" cx="([^"]*)" cy="([^"]*)"')


def open_with_predictions(page: Any, url: str) -> None:
    """Open a recipe page and wait until the builder drew its Performance panel from the predictions."""
    page.goto(url)
    page.wait_for_function("document.querySelector('#builder')?.dataset.builderReady === '1'", timeout=90000)
    page.wait_for_function("(window.vllmBuilder.view.performance || {status: 'loading'}).status "
                           "!== 'loading'", timeout=60000)
    settle(page)


def drawn(page: Any) -> dict[str, Any]:
    """What the panel shows: its chart's markers, its curves and its table's rows."""
    return page.evaluate("""() => {
        const box = document.querySelector('#performance');
        return {
          circles: [...box.querySelectorAll('svg circle')].map((c) =>
            [c.getAttribute('class'), c.getAttribute('cx'), c.getAttribute('cy')]),
          curves: [...box.querySelectorAll('svg g.perf-curve')].map((g) =>
            [g.dataset.curve, g.classList.contains('is-selected')]),
          rows: [...box.querySelectorAll('.perf-table:not(details .perf-table) tbody tr')].map((r) =>
            [...r.cells].map((c) => c.innerText)),
          heading: box.querySelector('.perf-for').innerText,
        };
    }""")


@pytest.fixture()
def errors(presets_page: Any) -> list[str]:
    found: list[str] = []
    presets_page.on("pageerror", lambda e: found.append(str(e)))
    presets_page.on("console", lambda m: found.append(m.text) if m.type == "error" else None)
    return found


@pytest.mark.parametrize(("path", "row", "value", "curve"), [
    ("/MiniMaxAI/MiniMax-M3", "strategy", "single_node_tep", "Tensor + Expert Parallel"),
    ("/Qwen/Qwen3-8B", "variant", "fp8", "Tensor Parallel"),
])
def test_the_panel_follows_the_selection(presets_page: Any, presets_server: str, errors: list[str], path: str,
                                         row: str, value: str, curve: str) -> None:
    html = presets_page.request.get(f"{presets_server}{path}").text()
    static = [list(m) for m in CIRCLES.findall(html.split('id="performance"')[1].split("</svg>")[0])]
    assert len(static) >= 5
    open_with_predictions(presets_page, f"{presets_server}{path}")
    first = drawn(presets_page)
    assert first["circles"] == static  # the builder draws the build's panel again for the default selection
    assert first["heading"].startswith("For this selection: H200 · Tensor Parallel")
    click(presets_page, row, value)
    settle(presets_page)
    after = drawn(presets_page)
    assert after["heading"] != first["heading"] and after["rows"] != first["rows"]
    assert after["circles"] != first["circles"]
    assert [name for name, selected in after["curves"] if selected] == [curve]
    assert errors == []


def test_pick_for_me_and_the_price(presets_page: Any, presets_server: str, errors: list[str]) -> None:
    open_with_predictions(presets_page, f"{presets_server}/MiniMaxAI/MiniMax-M3")
    presets_page.locator("#performance .perf-pick summary").click()
    presets_page.locator('#performance input[name="ttft"]').fill("2")
    presets_page.locator('#performance input[name="tps_user"]').fill("50")
    presets_page.locator('#performance [data-perf="pick"]').click()
    settle(presets_page)
    answer = presets_page.locator("#performance .perf-answer").inner_text()
    assert answer.startswith(
        "Picked GB300 NVL4 · Multi-Node Data + Expert Parallel · NVFP4 for TTFT at most 2 s")
    state = presets_page.evaluate("window.vllmBuilder.view.state")
    assert (state["hardware"], state["variant"], state["strategy"]) == ("gb300", "nvfp4", "multi_node_dep")
    gb300 = presets_page.locator('[data-row="hardware"] .cb-pill[data-value="gb300"]')
    assert gb300.get_attribute("aria-checked") == "true"
    assert "2× GB300 NVL4" in presets_page.locator(".cb-summary").inner_text()
    # a target nothing meets: said, and the selection stays
    presets_page.locator('#performance input[name="ttft"]').fill("0.001")
    presets_page.locator('#performance input[name="tps_user"]').fill("")
    presets_page.locator('#performance [data-perf="pick"]').click()
    settle(presets_page)
    assert presets_page.locator("#performance .perf-answer").inner_text().startswith(
        "No command meets TTFT at most 0.001 s at 1k/1k. Closest: ")
    assert presets_page.evaluate("window.vllmBuilder.view.state.hardware") == "gb300"
    # the price: the cost column follows it, and the URL keeps it
    cost = presets_page.locator("#performance .perf-table tbody tr").first.locator("td").nth(5).inner_text()
    price = presets_page.locator('#performance [data-perf="price"]')
    assert price.input_value() == "2.652"
    price.fill("5.304")
    price.dispatch_event("change")
    settle(presets_page)
    presets_page.wait_for_function("location.search.includes('perf_price=5.304')")
    first_row = presets_page.locator("#performance .perf-table tbody tr").first
    doubled = first_row.locator("td").nth(5).inner_text()
    assert float(doubled.strip("$")) == pytest.approx(2 * float(cost.strip("$")), rel=0.01)
    assert parse_qs(urlparse(presets_page.url).query)["perf_price"] == ["5.304"]
    assert errors == []


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_interactive_panel_is_axe_clean_on_a_phone(presets_page: Any, presets_server: str,
                                                        scheme: str) -> None:
    need_axe()
    page = presets_page
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": 390, "height": 844})
    found: list[str] = []
    page.on("pageerror", lambda e: found.append(str(e)))
    open_with_predictions(page, f"{presets_server}/MiniMaxAI/MiniMax-M3")
    page.locator("#performance .perf-pick summary").click()
    box = page.locator("#performance svg").bounding_box()
    assert box is not None and 0 < box["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert serious_violations(page, scheme, "#performance") == []
    assert found == []
