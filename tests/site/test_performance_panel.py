"""The recipe page's Performance panel: drawn at build time from the default command's block."""

from __future__ import annotations

from typing import Any

from builder.site.performance_panel import chart, panel

POINTS = [{"concurrency": c, "ttft_ms": 50.0 + c, "tpot_ms": 5.0 + c / 10, "tokens_per_s_per_user": 200.0 - c,
           "tokens_per_s_per_gpu": 190.0 * c} for c in (1, 2, 4, 8, 16)]
BLOCK: dict[str, Any] = {
    "predictor": {"name": "aiconfigurator-core", "version": "0.12.0",
                  "database": {"system": "h200_sxm", "backend": "vllm", "version": "0.24.0"}},
    "workloads": {"1k/1k": POINTS, "8k/1k": POINTS[:2], "1k/8k": []},
}


def test_a_predicted_command_gets_a_chart_and_a_table_per_workload() -> None:
    view: Any = panel({"performance": BLOCK}, "H200")
    assert view["source"] == ("Predicted by aiconfigurator-core 0.12.0 from h200_sxm kernel measurements of vllm "
                              "0.24.0: predictions, not measurements.")
    assert [w["name"] for w in view["workloads"]] == ["1k/1k", "8k/1k"]  # no point fits 1k/8k: no empty chart
    assert view["workloads"][0]["rows"] == [(1, "51", "5.1", "199", "190"), (4, "54", "5.4", "196", "760"),
                                            (16, "66", "6.6", "184", "3,040")]
    svg = str(view["workloads"][0]["chart"])
    assert svg.startswith('<svg class="perf-chart" viewBox="0 0 320 200" role="img" aria-label="1k/1k tokens')
    assert svg.count("<circle") == 5 and ">16</text>" in svg


def test_no_prediction_is_said_not_left_empty() -> None:
    assert panel({"performance": {"unavailable": "the predictor has no AMD data"}}, "MI355X") == {
        "unavailable": "No prediction for MI355X: the predictor has no AMD data."}
    assert panel({"hardware": "h200"}, "H200") is None
    assert panel(None, "H200") is None


def test_the_chart_label_is_escaped() -> None:
    assert 'aria-label="a &lt;b&gt; &quot;c&quot;"' in str(chart(POINTS, 'a <b> "c"'))
