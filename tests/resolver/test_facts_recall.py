"""BuilderFacts.recall: answers kept per (recipe, vocab) for the next clicks, each handed out as a copy."""

from __future__ import annotations

from typing import Any

from builder.resolver.ui import facts as facts_module
from builder.resolver.ui.facts import BuilderFacts

RECIPE = {"hf_id": "a/b", "model": {"model_id": "a/b"}, "variants": {"default": {}},
          "compatible_strategies": ["single_node_tp"]}
VOCAB = {"taxonomy": {"hardware_profiles": {"h200": {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 1128}}},
         "strategies": {"single_node_tp": {"deploy_type": "single_node"}}}


def counting(answer: Any) -> tuple[list[int], Any]:
    calls: list[int] = []

    def compute() -> Any:
        calls.append(1)
        return answer

    return calls, compute


def test_an_answer_is_computed_once_and_each_caller_gets_its_own_copy() -> None:
    facts = BuilderFacts(RECIPE, VOCAB)
    calls, compute = counting({"pills": [{"value": 1, "on": True}], "x": (1.0, None)})
    first = facts.recall(("row", "h200"), compute)
    first["pills"][0]["value"] = 2  # the first caller changes its answer
    second = facts.recall(("row", "h200"), compute)
    second["pills"].append("more")
    third = facts.recall(("row", "h200"), compute)
    assert calls == [1]
    assert third == {"pills": [{"value": 1, "on": True}], "x": (1.0, None)}
    assert type(third["pills"][0]["on"]) is bool and type(third["x"][0]) is float


def test_keys_are_apart_and_the_store_is_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(facts_module, "RECALLED", 2)
    facts = BuilderFacts(RECIPE, VOCAB)
    calls, compute = counting("answer")
    for key in ("a", "b", "a", "c", "a"):  # "c" finds the store full: it starts again
        facts.recall(("k", key), compute)
    assert len(calls) == 4


def test_facts_for_one_view_keep_plain_answers_only() -> None:
    facts = BuilderFacts(RECIPE, VOCAB, shared=False)
    row_calls, row = counting({"pills": []})
    text_calls, text = counting("single_node_tp")
    for _ in range(2):
        facts.recall(("row",), row)
        facts.recall(("text",), text)
    assert (len(row_calls), len(text_calls)) == (2, 1)


def test_an_answer_marshal_refuses_is_computed_every_time() -> None:
    facts = BuilderFacts(RECIPE, VOCAB)
    calls, compute = counting({"value": object()})
    facts.recall(("odd",), compute)
    facts.recall(("odd",), compute)
    assert len(calls) == 2


def test_an_answer_with_a_copy_of_its_shape_is_computed_once_and_copied_for_every_caller() -> None:
    facts = BuilderFacts(RECIPE, VOCAB)
    calls, compute = counting({"pills": [1]})
    copies: list[Any] = []

    def copy(answer: dict[str, Any]) -> dict[str, Any]:
        copies.append(answer)
        return {"pills": list(answer["pills"])}

    first = facts.recall(("row",), compute, copy)
    first["pills"].append(2)
    second = facts.recall(("row",), compute, copy)
    assert calls == [1]
    assert second == {"pills": [1]} and second is not first
    assert copies[0] is copies[1]  # the kept answer, never handed out itself


def test_facts_for_one_view_compute_an_answer_with_a_copy_every_time() -> None:
    facts = BuilderFacts(RECIPE, VOCAB, shared=False)
    calls, compute = counting({"pills": []})
    for _ in range(2):
        facts.recall(("row",), compute, dict)
    assert len(calls) == 2


def test_kept_answers_are_the_same_object_for_every_caller() -> None:
    facts = BuilderFacts(RECIPE, VOCAB, shared=False)
    calls, compute = counting({"options": []})
    assert facts.kept(("options",), compute) is facts.kept(("options",), compute)
    assert calls == [1]
