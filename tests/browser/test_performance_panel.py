"""The Performance panel of a recipe page in Chromium: drawn at build time, readable without JavaScript,
axe clean in light and
dark on a phone, and a named reason where there is no prediction."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.browser.axe_scan import need_axe, serious_violations
from tests.browser.helpers import BUILDER_SCRIPT, without_builder
from tests.browser.test_performance_builder import open_with_predictions
from tests.support.paths import ROOT


def test_the_panel_reads_without_javascript(page_nojs: Any, presets_server: str) -> None:
    page_nojs.goto(f"{presets_server}/Qwen/Qwen3-8B")
    panel = page_nojs.locator("section.perf")
    assert panel.locator("h3").text_content() == "Performance (predicted)"
    assert panel.locator(".perf-for").inner_text() == "For this selection: H200 · Tensor Parallel · BF16"
    assert panel.locator(".perf-source").inner_text().startswith(
        "Predicted by aiconfigurator-core 0.12.0 from ")
    assert panel.locator("svg[role=img]").is_visible()
    stored = json.loads((ROOT / "recipes/models/Qwen/Qwen3-8B.performance.json").read_text())
    [h200] = [e for e in stored["predictions"]
              if e["inputs"]["system"] == "h200_sxm" and e["inputs"]["gemm_quant"] == "bfloat16"]
    one = h200["workloads"]["1k/1k"][0]
    assert panel.locator(".perf-table").first.locator("tbody tr").first.locator("td").all_inner_texts() == [
        "1", f"{one['ttft_ms']:,.0f}", f"{one['tpot_ms']:.1f}", f"{one['tokens_per_s_per_user']:,.1f}",
        f"{one['tokens_per_s_per_gpu']:,.0f}", f"${1.41e6 / (one['tokens_per_s_per_gpu'] * 3600):,.3f}"]
    assert panel.locator(".perf-price").inner_text().startswith(
        "GPU-hour price (USD) 1.41 Default $1.41 per GPU-hour")
    more = panel.locator("details.perf-more")
    assert more.locator("caption").all_text_contents() == [
        "Predicted speed at 8k/1k tokens (input/output), by concurrency",
        "Predicted speed at 1k/8k tokens (input/output), by concurrency"]
    page_nojs.goto(f"{presets_server}/Google/gemma-2-9b-it")
    assert page_nojs.locator("section.perf .perf-unavailable").inner_text() == (
        "No prediction for H200: the predictor has no model of the 'gemma2' architecture.")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_and_no_errors_on_a_phone(presets_page: Any, presets_server: str, scheme: str) -> None:
    """The panel as built (the builder held back), then as the builder redraws it."""
    need_axe()
    page = presets_page
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": 390, "height": 844})
    without_builder(page)
    page.goto(f"{presets_server}/Qwen/Qwen3-8B")
    page.wait_for_load_state("load")
    chart = page.locator("section.perf svg").first.bounding_box()
    assert chart is not None and 0 < chart["width"] <= 390
    assert serious_violations(page, scheme, "section.perf") == []
    page.unroute(BUILDER_SCRIPT)
    open_with_predictions(page, f"{presets_server}/Qwen/Qwen3-8B")
    assert serious_violations(page, f"{scheme} (builder)", "section.perf") == []
    assert page.js_errors == []
