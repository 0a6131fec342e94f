"""The recipe page's Performance panel: drawn at build time from the view's performance section of the
builder's default view (the figures builder.js draws for it), every workload readable without JavaScript."""

from __future__ import annotations

from typing import Any

from builder.site.browser.data import builder_recipe
from builder.site.performance_panel import panel, svg_markup
from tests.resolver.test_module import project_recipe, project_vocab
from tests.resolver.test_performance_view import predictions, view


def test_the_default_views_section_is_the_panel() -> None:
    hf_id = "Qwen/Qwen3-8B"
    got: Any = panel(builder_recipe(hf_id, project_recipe(hf_id)), project_vocab(), predictions(hf_id))
    want = view(hf_id, {})
    assert got["query"] == want["query"] == ""
    assert got["section"] == want["performance"]
    assert str(got["chart"]).startswith(
        '<svg class="perf-chart" viewBox="0 0 360 220" role="img" aria-label="1k/1k')
    assert got["chart"] == svg_markup(want["performance"]["chart"])
    rows = [r for r in want["performance"]["rows"] if not r["measured"]]
    assert str(got["chart"]).count("<circle") == 9
    assert [r["cells"][0] for r in rows] == ["1", "4", "16", "64", "256"]
    assert [o["caption"] for o in got["others"]] == [
        "Predicted speed at 8k/1k tokens (input/output), by concurrency",
        "Predicted speed at 1k/8k tokens (input/output), by concurrency"]


def test_no_predictions_no_panel() -> None:
    hf_id = "Qwen/Qwen3-8B"
    assert panel(builder_recipe(hf_id, project_recipe(hf_id)), project_vocab(), None) is None


def test_svg_text_and_attributes_are_escaped() -> None:
    element = ["svg", {"aria-label": 'a <b> "c"'}, [["title", {}, "x < y & z"]]]
    assert str(svg_markup(element)) == (
        '<svg aria-label="a &lt;b&gt; &quot;c&quot;"><title>x &lt; y &amp; z</title></svg>')
