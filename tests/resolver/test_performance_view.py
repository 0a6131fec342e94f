"""Issue #39: the builder view's ``performance`` section (the selection's predicted speed, per strategy of
the Strategy row, with the workload switch, the table, the GPU-hour price) and the "Pick for me" event, in
CPython.
The same cases run in Pyodide (tests/browser/test_parity.py imports :data:`PERF_CASES`)."""

from __future__ import annotations

import functools
import json
from typing import Any

import builder.resolver.ui.performance as perf
from builder import resolver
from builder.resolver.performance.candidates import candidates
from builder.resolver.performance.pick import pick
from tests.resolver.test_module import project_recipe, project_vocab
from tests.support.paths import ROOT

M3, QWEN = "MiniMaxAI/MiniMax-M3", "Qwen/Qwen3-8B"
# (hf_id, URL query, event): views the Pyodide parity test compares too
PERF_CASES: tuple[tuple[str, dict[str, str], dict[str, Any] | None], ...] = (
    (M3, {}, None),
    (M3, {}, {"type": "strategy", "value": "single_node_tep"}),
    (M3, {"perf_workload": "8k/1k"}, {"type": "perf_price", "value": "2.5"}),
    (M3, {}, {"type": "hardware", "value": "mi355x"}),
    (M3, {}, {"type": "pick", "value": {"ttft": "2", "tps_user": "50"}}),
    (M3, {}, {"type": "pick", "value": {"ttft": "0.001"}}),
    (QWEN, {}, None),
    (QWEN, {}, {"type": "perf_concurrency", "value": 64}),
    (QWEN, {"perf_price": "3"}, {"type": "pick", "value": {"tps_user": "100", "gpus": "1"}}),
)


@functools.cache
def predictions(hf_id: str) -> Any:
    return json.loads((ROOT / "recipes" / "models" / f"{hf_id}.performance.json").read_text(encoding="utf-8"))


def view(hf_id: str, query: dict[str, Any], event: dict[str, Any] | None = None) -> dict[str, Any]:
    """The view after ``event`` on the page opened with ``query`` (the predictions loaded)."""
    recipe, vocab = project_recipe(hf_id), project_vocab()
    first = resolver.builder_state(recipe, vocab, query, predictions=predictions(hf_id))
    if event is None:
        return first
    return resolver.builder_state(recipe, vocab, first["state"], event, predictions=predictions(hf_id))


def stored_points(hf_id: str, system: str, workload: str, **inputs: Any) -> list[dict[str, Any]]:
    """The stored points of the one entry of ``system`` whose inputs include ``inputs``."""
    [entry] = [e for e in predictions(hf_id)["predictions"]
               if e["inputs"]["system"] == system and "workloads" in e
               and all(e["inputs"][k] == v for k, v in inputs.items())]
    return entry["workloads"][workload]


def curves(section: dict[str, Any]) -> dict[str, bool]:
    """Curve name -> selected, from the chart's elements."""
    return {g[1]["data-curve"]: "is-selected" in g[1]["class"] for g in section["chart"][2] if g[0] == "g"}


def test_before_the_predictions_arrive_the_section_says_loading() -> None:
    before = resolver.builder_state(project_recipe(M3), project_vocab(), {})
    assert before["performance"] == {"status": "loading"}


def test_one_curve_per_strategy_the_row_offers_the_selected_one_emphasised() -> None:
    section = view(QWEN, {})["performance"]
    assert section["status"] == "ready"
    assert section["heading"] == "For this selection: H200 · Tensor Parallel · BF16"
    assert curves(section) == {"Tensor Parallel": True}
    assert section["source"] == ("Predicted by aiconfigurator-core 0.12.0 from h200_sxm kernel measurements "
                                 "of vllm 0.24.0: predictions, not measurements.")
    m3 = view(M3, {}, {"type": "strategy", "value": "single_node_tep"})
    assert m3["strategy"] == "single_node_tep"
    assert curves(m3["performance"]) == {"Tensor Parallel": False, "Tensor + Expert Parallel": True}


def test_the_table_shows_the_selected_strategys_points_and_their_cost() -> None:
    section = view(QWEN, {})["performance"]
    points = stored_points(QWEN, "h200_sxm", "1k/1k", gemm_quant="bfloat16", tp=1)
    assert section["columns"] == ["Concurrency", "TTFT (ms)", "TPOT (ms)", "tok/s per user", "tok/s per GPU",
                                  "$ per M output tokens"]
    sixteen = next(p for p in points if p["concurrency"] == 16)
    [current] = [row for row in section["rows"] if row["current"]]
    gpu = sixteen["tokens_per_s_per_gpu"]
    assert current["cells"] == ["16", f"{sixteen['ttft_ms']:,.0f}", f"{sixteen['tpot_ms']:.1f}",
                                f"{sixteen['tokens_per_s_per_user']:,.1f}", f"{gpu:,.0f}",
                                f"${1.41e6 / (gpu * 3600):,.3f}"]
    assert current["event"] == {"type": "perf_concurrency", "value": 16}
    assert section["price"]["value"] == "1.41" and section["price"]["note"].startswith(
        "Default $1.41 per GPU-hour for H200: InferenceX's owning-at-hyperscaler-volume cost")
    chosen = view(QWEN, {}, {"type": "perf_concurrency", "value": 64})
    assert [row["cells"][0] for row in chosen["performance"]["rows"] if row["current"]] == ["64"]
    assert "perf_concurrency=64" in chosen["query"]


def test_the_workload_switch_and_the_price_land_in_the_state_and_the_url() -> None:
    after = view(M3, {"perf_workload": "8k/1k"}, {"type": "perf_price", "value": "2.5"})
    assert after["query"] == "perf_workload=8k%2F1k&perf_price=2.5"
    section = after["performance"]
    assert [p["value"] for p in section["workloads"]["pills"] if p["selected"]] == ["8k/1k"]
    facts = resolver.BuilderFacts(project_recipe(M3), project_vocab())
    facts.predictions = predictions(M3)
    record = resolver.resolve(facts.recipe, facts.vocab, {"hardware": "h200", "variant": "default",
                                                          "strategy": after["strategy"]})
    points = perf.stored_block(facts, record)["workloads"]["8k/1k"]
    first = section["rows"][0]["cells"]
    assert first[0] == "1" and first[5] == f"${2.5e6 / (points[0]['tokens_per_s_per_gpu'] * 3600):,.3f}"
    assert section["price"]["value"] == "2.5"
    # another GPU: the price was the old one's
    moved = resolver.builder_state(project_recipe(M3), project_vocab(), after["state"],
                                   {"type": "hardware", "value": "b200"}, predictions=predictions(M3))
    assert moved["state"]["perf_price"] is None and moved["performance"]["price"]["value"] == "1.95"
    assert moved["state"]["perf_workload"] == "8k/1k"


def test_a_gpu_without_predictions_is_named_with_the_reason() -> None:
    section = view(M3, {}, {"type": "hardware", "value": "mi355x"})["performance"]
    assert section["status"] == "unavailable"
    assert section["text"] == "No prediction for MI355X: the predictor has no AMD data."
    assert "chart" not in section and section["pick"]["event"] == {"type": "pick"}


def test_pick_for_me_applies_the_command_with_the_most_tok_s_per_gpu() -> None:
    after = view(M3, {}, {"type": "pick", "value": {"ttft": "2", "tps_user": "50"}})
    recipe, vocab = project_recipe(M3), project_vocab()
    want = pick(candidates(recipe, vocab, M3, predictions(M3)), "1k/1k", {"ttft": 2.0, "tps_user": 50.0})
    assert "unmet" not in want
    state = after["state"]
    assert (state["hardware"], state["variant"], after["strategy"], state["perf_concurrency"]) == (
        want["hardware"], want["variant"], want["strategy"], want["concurrency"])
    answer = after["performance"]["pick"]["answer"]
    assert answer["ok"] is True
    assert answer["text"].startswith("Picked GB300 NVL4 · Multi-Node Data + Expert Parallel")
    [current] = [row for row in after["performance"]["rows"] if row["current"]]
    assert current["cells"][4] == f"{want['point']['tokens_per_s_per_gpu']:,.0f}"  # the picked point
    assert [f["value"] for f in after["performance"]["pick"]["fields"]] == ["2", "50", ""]
    assert after["storage"]["recipe"] is not None  # a pick stores the recipe's choices like a click
    # the answer stays for the next view only
    again = resolver.builder_state(recipe, vocab, state, {"type": "refresh"}, predictions=predictions(M3))
    assert again["performance"]["pick"]["answer"] is None


def test_pick_for_me_says_which_constraint_no_command_meets() -> None:
    before = view(M3, {})
    after = view(M3, {}, {"type": "pick", "value": {"ttft": "0.001"}})
    assert after["state"]["hardware"] == before["state"]["hardware"]
    assert after["strategy"] == before["strategy"]
    answer = after["performance"]["pick"]["answer"]
    assert answer["ok"] is False
    assert answer["text"].startswith("No command meets TTFT at most 0.001 s at 1k/1k. Closest: ")
    bad = view(M3, {}, {"type": "pick", "value": {"gpus": "8"}})["performance"]["pick"]["answer"]
    assert bad == {"text": "Give a TTFT limit or a tok/s per user floor (or both).", "ok": False,
                   "class": "perf-answer perf-miss"}
    wrong = view(M3, {}, {"type": "pick", "value": {"ttft": "-1"}})["performance"]["pick"]["answer"]
    assert wrong == {"text": "ttft: expected a positive number", "ok": False,
                     "class": "perf-answer perf-miss"}
    early = resolver.builder_state(project_recipe(M3), project_vocab(), before["state"],
                                   {"type": "pick", "value": {"ttft": "2"}})
    assert early["performance"] == {"status": "loading"} and early["state"]["perf_pick"]["text"] == (
        "The predictions are still loading: pick again in a moment.")


def test_a_gpu_budget_is_a_constraint() -> None:
    after = view(QWEN, {"perf_price": "3"}, {"type": "pick", "value": {"tps_user": "100", "gpus": "1"}})
    want = pick(candidates(project_recipe(QWEN), project_vocab(), QWEN, predictions(QWEN)), "1k/1k",
                {"tps_user": 100.0, "gpus": 1})
    assert "unmet" not in want and after["state"]["hardware"] == want["hardware"]
    assert after["performance"]["pick"]["answer"]["ok"] is True


MEASURED = {"workload": "1k/1k", "input_tokens": 1024, "output_tokens": 1024, "concurrency": 16,
            "ttft_ms": 180.0, "tpot_ms": 17.5, "tokens_per_s_per_user": 55.0, "tokens_per_s_per_gpu": 110.0,
            "measured_over_predicted": 0.9,
            "provenance": {"format": "vllm-bench-serve", "file": "bench/h200.json", "sha256": "ab" * 32,
                           "vllm_version": "0.24.0", "image": None, "gpu": "H200", "date": "2026-11-30",
                           "source": "https://example.org/run"}}


def test_measured_points_are_drawn_filled_with_their_provenance() -> None:
    """A synthetic ``measured`` list in the selection's block (the contract's Measured shape)."""
    facts = resolver.BuilderFacts(project_recipe(QWEN), project_vocab())
    facts.predictions = predictions(QWEN)
    step = resolver.builder_step(facts, {})
    record = resolver.resolve(facts.recipe, facts.vocab, {"hardware": "h200", "variant": "default"})
    block = {**perf.stored_block(facts, record), "measured": [MEASURED]}
    section = perf.performance_view(facts, step["state"], "single_node_tp", record, None, block)
    assert section is not None and section["badge"] == "measured"
    [group] = [g for g in section["chart"][2] if g[0] == "g" and "perf-measured" in g[1]["class"]]
    [dot] = group[2]
    assert dot[0] == "circle" and dot[1]["class"] == "perf-dot"
    title = dot[2][0][2]
    assert "0.90x the prediction" in title
    assert "vllm-bench-serve, bench/h200.json, 0.24.0, H200, 2026-11-30" in title
    assert title.endswith("https://example.org/run")
    [row] = [r for r in section["rows"] if r["measured"]]
    assert row["cells"][:5] == ["16 (measured)", "180", "17.5", "55.0", "110"] and row["event"] is None
    key = {"label": "Measured (filled markers)", "selected": False, "measured": True,
           "class": "perf-measured"}
    assert key in section["legend"]


def test_the_bench_popover_reproduces_the_point_the_panel_selects() -> None:
    before = resolver.builder_state(project_recipe(QWEN), project_vocab(), {})
    assert before["bench"].startswith("vllm bench serve --model Qwen/Qwen3-8B")  # no predictions yet
    assert "--save-result" not in before["bench"]
    default = view(QWEN, {})
    assert "--max-concurrency 16 " in default["bench"] and "--random-input-len 1024 " in default["bench"]
    assert "__h200__default__single_node_tp__1k-1k__c16.json" in default["bench"]
    chosen = view(QWEN, {"perf_workload": "8k/1k"}, {"type": "perf_concurrency", "value": 64})
    assert "--max-concurrency 64 " in chosen["bench"] and "--random-input-len 8192 " in chosen["bench"]
    assert "__8k-1k__c64.json" in chosen["bench"]
