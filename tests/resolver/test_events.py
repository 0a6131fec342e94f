"""Issue #37: the builder's events declared once.  ``ui.events.EVENT_RULES`` lists the clicks (a
handler each, whether it keeps an applied preset, whether the page stores the recipe's choices after
it), and the view says which event every control sends (``row["event"]``, a pill's own ``event``,
``input_event``, the install strip's ``event``, a tab input's ``event``)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from builder.resolver.types import ClickEvent
from builder.resolver.ui.events import EVENT_RULES, event_rule
from builder.resolver.ui.rows import pill_event
from tests.resolver.test_module import R, project_recipe, project_vocab, recipe, vocab
from tests.resolver.test_performance_view import predictions

# Views that together show every control: (hf_id, URL query); MiniMax-M3 (presets) is read from recipes/.
CONTROL_CASES: tuple[tuple[str, dict[str, str]], ...] = (
    ("Qwen/Qwen3-8B", {"install": "docker"}),  # the CUDA choice
    ("deepseek-ai/DeepSeek-V3.2", {"strategy": "pd_cluster", "prefill_nodes": "2"}),  # pools, a node input
    ("deepseek-ai/DeepSeek-V3.2", {"kv_offload": "kv_store_distributed_mooncake", "kv_instances": "3"}),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", {"kv_offload": "offloading_cpu"}),  # a kv group's member row
    ("Lightricks/LTX-2.5-Diffusers", {}),  # omni task axes
    ("Wan-AI/Wan2.2-T2V-A14B-Diffusers", {}),  # an omni task row
)
PAGE_ACTIONS = {"reset", "refresh"}  # sent by the Reset button and the Env panel, no control of the view


@functools.cache
def preset_view() -> dict[str, Any]:
    return R.builder_state(project_recipe("MiniMaxAI/MiniMax-M3"), project_vocab(), {"preset": "b200_agentx"})


@functools.cache
def control_views() -> tuple[dict[str, Any], ...]:
    """The views of :data:`CONTROL_CASES`, MiniMax-M3 with a preset applied and Qwen3-8B with its predictions
    (the Performance panel's controls)."""
    qwen = "Qwen/Qwen3-8B"
    return (*(R.builder_state(recipe(hf), vocab(), query) for hf, query in CONTROL_CASES), preset_view(),
            R.builder_state(project_recipe(qwen), project_vocab(), {}, predictions=predictions(qwen)))


def sent_events(view: dict[str, Any]) -> list[ClickEvent]:
    """Every click a control of ``view`` sends (number inputs with the value 2)."""
    cuda = view["install"]["cuda_choices"]
    rows = [*view["rows"], *view["preset_rows"], *([cuda] if cuda else [])]
    out = [pill_event(row, pill) for row in rows for pill in row["pills"]]
    out += [{**row["input_event"], "value": 2} for row in rows if "input_event" in row]
    out += [{**i["event"], "value": 2} for tab in view["tabs"] for i in tab["inputs"]]
    out += [{**view["install"]["event"], "value": tab["id"]} for tab in view["install"]["tabs"]]
    perf = view.get("performance") or {}
    if perf.get("status") in ("ready", "unavailable"):  # the Performance panel's controls
        out += [pill_event(perf["workloads"], pill) for pill in perf["workloads"]["pills"]]
        out += [{**perf["price"]["input_event"], "value": 2}, {**perf["pick"]["event"], "value": {"ttft": 2}}]
        out += [row["event"] for row in perf.get("rows", []) if row["event"]]
    return out


def test_the_table_names_each_event_once() -> None:
    types = [rule.type for rule in EVENT_RULES]
    assert len(types) == len(set(types)) == 27


def test_every_control_sends_an_event_of_the_table_and_every_event_has_a_control() -> None:
    sent = {e["type"] for v in control_views() for e in sent_events(v)}
    assert sent == {rule.type for rule in EVENT_RULES} - PAGE_ACTIONS


def test_an_unknown_event_changes_nothing() -> None:
    """Not the state, not the applied preset, and no choices are stored: the view is the refresh's."""
    facts_args = (project_recipe("MiniMaxAI/MiniMax-M3"), project_vocab())
    shown = preset_view()
    unknown = ({"type": "nope", "value": "b200"}, {"type": ["hardware"], "value": "b200"}, {"value": "b200"})
    for event in unknown:
        after = R.builder_state(*facts_args, shown["state"], event)
        assert after == R.builder_state(*facts_args, shown["state"], {"type": "refresh"}), event
        assert after["preset"] == shown["preset"] and after["storage"] == {"prefs": None, "recipe": None}
    assert event_rule({"type": "nope"}) is None and event_rule({"type": "hardware"}) is EVENT_RULES[0]


@pytest.mark.parametrize("event", [e for e in sent_events(preset_view()) if e.get("value") is not None],
                         ids=lambda e: f"{e['type']}={e['value']}")
def test_a_click_keeps_the_applied_preset_exactly_when_its_rule_says_so(event: ClickEvent) -> None:
    shown = preset_view()
    after = R.builder_state(project_recipe("MiniMaxAI/MiniMax-M3"), project_vocab(), shown["state"],
                            dict(event))
    rule = event_rule(dict(event))
    assert rule is not None
    assert (after["state"]["preset"] is not None) is rule.keeps_preset


@pytest.mark.parametrize("rule", EVENT_RULES, ids=lambda r: r.type)
def test_the_page_stores_the_choices_exactly_after_the_clicks_whose_rule_says_so(rule: Any) -> None:
    """Any click of a storing type writes ``storage.recipe``, even one its handler refuses."""
    shown = R.builder_state(recipe("Qwen/Qwen3-8B"), vocab(), {})
    after = R.builder_state(recipe("Qwen/Qwen3-8B"), vocab(), shown["state"],
                            {"type": rule.type, "value": "zz"})
    assert (after["storage"]["recipe"] is not None) is rule.stores_choices


def test_rows_carry_the_event_their_pills_send() -> None:
    deepseek = R.builder_state(recipe("deepseek-ai/DeepSeek-V3.2"), vocab(), {"strategy": "pd_cluster"})
    events = {row["id"]: row["event"] for row in deepseek["rows"]}
    assert events == {"hardware": {"type": "hardware"}, "variant": {"type": "variant"},
                      "strategy": {"type": "strategy"}, "kv_offload": {"type": "kv_offload"},
                      "prefill_pool": {"type": "pool_mode", "role": "prefill"},
                      "decode_pool": {"type": "pool_mode", "role": "decode"}, "features": {"type": "feature"},
                      "advanced": {"type": "advanced"}}
    assert [row.get("input_event") for row in deepseek["rows"]][4:6] == [
        {"type": "pool_nodes", "role": "prefill"}, {"type": "pool_nodes", "role": "decode"}]
    ltx = R.builder_state(recipe("Lightricks/LTX-2.5-Diffusers"), vocab(), {})
    assert ltx["rows"][1]["event"] == {"type": "axis", "axis": "stage"}
    assert pill_event(ltx["rows"][1], ltx["rows"][1]["pills"][0]) == {
        "type": "axis", "axis": "stage", "value": ltx["rows"][1]["pills"][0]["value"]}


def test_the_preset_rows_and_the_none_pill() -> None:
    rows = preset_view()["preset_rows"]
    assert [(r["id"], r["label"], r["event"]) for r in rows] == [
        ("preset", "Preset", {"type": "preset"}), ("point", "Point", {"type": "point"})]
    none, *presets = rows[0]["pills"]
    assert (none["value"], none["label"], none["selected"]) == ("", "None", False)
    assert pill_event(rows[0], none) == {"type": "preset", "value": None}
    b200 = next(p for p in presets if p["value"] == "b200_agentx")
    assert b200["selected"] and b200["sub"] == "B200" and b200["tooltip"].endswith(" on B200")
    point = next(p for p in rows[1]["pills"] if p["selected"])
    assert point["sub"].startswith("c=") and point["tooltip"].startswith("concurrency ")
    plain = R.builder_state(project_recipe("MiniMaxAI/MiniMax-M3"), project_vocab(), {})
    assert [r["id"] for r in plain["preset_rows"]] == ["preset"]
    assert plain["preset_rows"][0]["pills"][0]["selected"]
    assert R.builder_state(recipe("Qwen/Qwen3-8B"), vocab(), {})["preset_rows"] == []


def test_tab_inputs_numbered_tabs_cuda_choice_and_the_tp_note() -> None:
    pd, mooncake = control_views()[1], control_views()[2]
    assert [t["inputs"] for t in pd["tabs"]] == [[{
        "prefix": "node ", "label": "Which prefill node is shown", "value": 1, "min": 1, "max": 2,
        "suffix": " of 2",
        "event": {"type": "pool_rank", "role": "prefill"}}], [], []]
    assert [t["name"] for t in mooncake["tabs"] if t["inputs"]] == ["vLLM Serve"]
    assert mooncake["tabs"][2]["inputs"][0]["suffix"] == " (1–3) on $VLLM_INSTANCE_1"
    assert (pd["tabs_numbered"], mooncake["tabs_numbered"]) == (False, True)
    cuda = control_views()[0]["install"]["cuda_choices"]
    assert [(p["value"], p["selected"], p["tooltip"]) for p in cuda["pills"]] == [
        ("default", True, "Default CUDA 13 build"), ("cu129", False, "CUDA 12.9 build for older drivers")]
    assert R.builder_state(recipe("Qwen/Qwen3-8B"), vocab(), {})["install"]["cuda_choices"] is None
    qwen = R.builder_state(recipe("Qwen/Qwen3-8B"), vocab(), {})
    assert qwen["rows"][0]["note"] == qwen["tp_hint"] and qwen["tp_hint"].startswith("This command uses 1 of")
    assert all("note" not in row for row in pd["rows"])
