"""Measured results joined to a record: the workload a result names, the ratio to the prediction at the
same point, and which records get them."""

from __future__ import annotations

from typing import Any

from builder import resolver
from builder.resolver.performance.measured import StoredResult
from builder.resolver.performance.results import ratio, with_measured, workload_name
from builder.resolver.performance.store import Performance
from tests.resolver.test_module import project_recipe, project_vocab
from tests.resolver.test_performance_view import predictions

PROVENANCE: Any = {"format": "inferencex-row", "file": "row.json", "sha256": "0" * 64, "vllm_version": None,
                   "image": "vllm/vllm-openai:v0.33.0", "gpu": "h200", "date": None, "source": None}


def result(concurrency: int, per_gpu: float, workload: str = "1k/1k") -> StoredResult:
    return {"hardware": "h200", "variant": "default", "strategy": "single_node_tp", "workload": workload,
            "input_tokens": 1024, "output_tokens": 1024, "concurrency": concurrency, "ttft_ms": 90.0,
            "tpot_ms": 7.0, "tokens_per_s_per_user": 142.857, "tokens_per_s_per_gpu": per_gpu,
            "provenance": PROVENANCE}


PREDICTED: Performance = {
    "predictor": {"name": "aiconfigurator-core", "version": "0.12.0",
                  "database": {"system": "h200_sxm", "backend": "vllm", "version": "0.24.0"}},
    "workloads": {"1k/1k": [{"concurrency": 8, "ttft_ms": 72.9, "tpot_ms": 5.7,
                             "tokens_per_s_per_user": 175.8, "tokens_per_s_per_gpu": 1400.0}]}}
RECORD = {"hardware": "h200", "variant": "default", "strategy": "single_node_tp",
          "deploy_type": "single_node"}


def test_lengths_within_one_percent_name_the_standard_workload() -> None:
    assert workload_name(1024, 1024) == "1k/1k"
    assert workload_name(1019, 1024) == "1k/1k"  # re-tokenised random prompts drift by a few tokens
    assert workload_name(8192, 1024) == "8k/1k"
    assert workload_name(1024, 8200) == "1k/8k"
    assert workload_name(1000, 1024) == "1000/1024"
    assert workload_name(2048, 512) == "2048/512"


def test_the_ratio_is_taken_at_the_same_workload_and_concurrency_only() -> None:
    assert ratio(result(8, 1302.0), PREDICTED["workloads"]) == 0.93
    assert ratio(result(16, 1302.0), PREDICTED["workloads"]) is None
    assert ratio(result(8, 1302.0, "8k/1k"), PREDICTED["workloads"]) is None
    assert ratio(result(8, 1302.0), None) is None


def test_a_record_gets_the_results_of_its_own_selection() -> None:
    other: StoredResult = {**result(8, 999.0), "hardware": "h100"}
    block = with_measured(PREDICTED, RECORD, [result(8, 1302.0), other])
    assert block is not None and list(block) == ["predictor", "workloads", "measured"]
    figures = [(m["tokens_per_s_per_gpu"], m["measured_over_predicted"]) for m in block["measured"]]
    assert figures == [(1302.0, 0.93)]
    assert list(block["measured"][0]) == [
        "workload", "input_tokens", "output_tokens", "concurrency", "ttft_ms", "tpot_ms",
        "tokens_per_s_per_user",
        "tokens_per_s_per_gpu", "measured_over_predicted", "provenance"]
    assert with_measured(PREDICTED, {**RECORD, "strategy": "dep"}, [result(8, 1302.0)]) is PREDICTED
    alone = with_measured(None, RECORD, [result(8, 1302.0)])
    assert alone is not None and list(alone) == ["measured"]
    assert alone["measured"][0]["measured_over_predicted"] is None
    assert with_measured(None, RECORD, []) is None
    assert with_measured(None, {**RECORD, "deploy_type": "omni"}, [result(8, 1302.0)]) is None


def _section(loaded: Any) -> dict[str, Any]:
    recipe, vocab = project_recipe("Qwen/Qwen3-8B"), project_vocab()
    view = resolver.builder_state(recipe, vocab, {}, predictions=loaded)
    section: dict[str, Any] = view["performance"]
    return section


def _measured_titles(section: dict[str, Any]) -> list[str]:
    groups = [g for g in section["chart"][2] if g[0] == "g" and "perf-measured" in g[1]["class"]]
    return [child[2] for group in groups for marker in group[2] for child in marker[2] if child[0] == "title"]


def test_the_builder_draws_results_beside_predictions_and_alone() -> None:
    """The view's Performance section of Qwen3-8B's default command (h200, default, single_node_tp)."""
    stored = predictions("Qwen/Qwen3-8B")
    results = [result(8, 1302.0)]
    both = _section({**stored, "results": results})
    assert both["badge"] == "measured"
    assert _measured_titles(both) == [
        "Measured at concurrency 8: TTFT 90 ms, TPOT 7.0 ms, 142.9 tok/s per user, 1,302 tok/s per GPU "
        "(measured); 0.94x the prediction; inferencex-row, row.json, vllm/vllm-openai:v0.33.0, h200"]
    assert _section(stored)["badge"] == "not yet benchmarked"
    alone = _section({"results": results})  # a recipe with results and no predictions still gets its chart
    assert alone["status"] == "ready" and alone["badge"] == "measured"
    assert alone["source"] == "No prediction for H200; measured results only."
    assert _measured_titles(alone) == [
        "Measured at concurrency 8: TTFT 90 ms, TPOT 7.0 ms, 142.9 tok/s per user, 1,302 tok/s per GPU "
        "(measured); no prediction at this point; inferencex-row, row.json, vllm/vllm-openai:v0.33.0, h200"]
    assert [row["cells"][0] for row in alone["rows"]] == ["8 (measured)"]
