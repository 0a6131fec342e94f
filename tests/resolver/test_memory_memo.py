"""The estimate's memoisation: keyed by the inputs' content and types, answers that callers cannot share."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from builder.resolver.memory import estimate_memory
from builder.resolver.memory.memo import copied, frozen, memoised
from tests.support.memory_cases import LLAMA, config

SETTINGS = {"gpu_memory_gib": 79.19, "gpu_memory_utilization": 0.9, "max_model_len": 8192}


def test_keys_tell_types_signs_and_order_apart() -> None:
    assert frozen([1]) != frozen([1.0]) != frozen([True])
    assert frozen(0.0) != frozen(-0.0)
    assert frozen([1, 2]) != frozen((1, 2))
    assert frozen([1, 1]) != frozen([1, True]) != frozen([1, 1.0])
    assert frozen(["a", "b"]) != frozen([["a"], "b"]) and frozen({"a": 1}) != frozen({1: 1})
    assert frozen({"a": 1, "b": 2}) != frozen({"b": 2, "a": 1})
    assert frozen({"a": [1, {"b": None}]}) == frozen({"a": [1, {"b": None}]})


def test_a_repeated_call_is_answered_from_the_cache_with_a_fresh_copy() -> None:
    calls: list[tuple[Any, ...]] = []

    @memoised
    def parts(facts: dict[str, Any], scale: int) -> dict[str, Any]:
        calls.append((facts, scale))
        return {"sizes": [facts["n"] * scale], "nested": {"kept": True}}

    first = parts({"n": 2}, 3)
    first["sizes"].append(99)
    first["nested"]["kept"] = False
    again = parts({"n": 2}, 3)
    assert again == {"sizes": [6], "nested": {"kept": True}}
    assert len(calls) == 1
    assert parts({"n": 2}, 4) == {"sizes": [8], "nested": {"kept": True}}
    assert parts({"n": 2.0}, 3) == {"sizes": [6.0], "nested": {"kept": True}}
    assert len(calls) == 3


def test_inputs_that_are_not_plain_data_are_computed_every_time() -> None:
    calls: list[object] = []

    @memoised
    def size(facts: Any) -> int:
        calls.append(facts)
        return len(facts)

    assert size(OrderedDict(n=1)) == 1
    assert size(OrderedDict(n=1)) == 1
    assert size({1, 2}) == 2
    assert len(calls) == 3
    assert size([1]) == 1
    assert size([1]) == 1
    assert len(calls) == 4


def test_copies_are_deep_for_dicts_and_lists_and_share_what_cannot_change() -> None:
    value = {"a": [{"b": 1}], "t": (1, 2)}
    copy = copied(value)
    assert copy == value
    assert copy["a"] is not value["a"] and copy["a"][0] is not value["a"][0]
    assert copy["t"] is value["t"]


def test_an_estimate_changed_by_its_caller_leaves_the_next_one_whole() -> None:
    facts = config(LLAMA.name)
    first = estimate_memory(facts, SETTINGS)
    expected = copied(first)
    first["stages"][0]["kv_tokens"] = -1
    first["estimated"].append("changed")
    first["settings"]["tp"] = 99
    assert estimate_memory(facts, SETTINGS) == expected
