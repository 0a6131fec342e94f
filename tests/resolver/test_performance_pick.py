"""Stored predictions -> a record's block, the concurrency sweep, and the pick for a target (no predictor)."""

from __future__ import annotations

from typing import Any

import pytest

from builder.resolver.performance.pick import Candidate, parse_target, pick
from builder.resolver.performance.reproducer import reproducer
from builder.resolver.performance.store import (
    Performance,
    Point,
    concurrencies,
    inputs_key,
    performance_for_record,
)
from tests.resolver.test_performance_mapping import H100, QWEN3_8B, recipe


def point(concurrency: int, ttft: float, tps_user: float, tps_gpu: float) -> Point:
    return Point(concurrency=concurrency, ttft_ms=ttft, tpot_ms=1000 / tps_user,
                 tokens_per_s_per_user=tps_user, tokens_per_s_per_gpu=tps_gpu)


def candidate(hardware: str, strategy: str, gpus: int, *points: Point) -> Candidate:
    return Candidate(hardware, "default", strategy, gpus, Performance(workloads={"1k/1k": list(points)}))


TP1 = candidate("h100", "single_node_tp", 1, point(1, 50, 150, 150), point(8, 80, 130, 1000),
                point(64, 400, 70, 4000))
TP8 = candidate("h200", "single_node_tp", 8, point(1, 30, 300, 40), point(32, 900, 120, 600))


def test_the_most_tokens_per_gpu_that_meets_the_target() -> None:
    assert pick([TP1, TP8], "1k/1k", {"ttft": 0.5, "tps_user": 60}) == {
        "hardware": "h100", "variant": "default", "strategy": "single_node_tp", "concurrency": 64,
        "point": point(64, 400, 70, 4000)}
    assert pick([TP1, TP8], "1k/1k", {"ttft": 0.5, "tps_user": 200})["concurrency"] == 1  # type: ignore[typeddict-item]
    assert pick([TP1, TP8], "1k/1k", {"tps_user": 100, "gpus": 1})["point"] == point(8, 80, 130, 1000)  # type: ignore[typeddict-item]


def test_unmet_names_the_constraint_and_the_closest_miss() -> None:
    answer: Any = pick([TP1, TP8], "1k/1k", {"ttft": 0.02})
    assert answer["unmet"]["constraint"] == "ttft" and answer["unmet"]["target"] == 0.02
    assert (answer["unmet"]["closest"]["hardware"], answer["unmet"]["closest"]["concurrency"]) == ("h200", 1)
    answer = pick([TP1, TP8], "1k/1k", {"ttft": 1, "tps_user": 400})
    assert (answer["unmet"]["constraint"] == "tps_user"
            and answer["unmet"]["closest"]["point"]["tokens_per_s_per_user"] == 300)
    assert (pick([TP1], "8k/1k", {"ttft": 1})
            == {"unmet": {"constraint": "workload", "target": 0.0, "closest": None}})


@pytest.mark.parametrize(("text", "expected"), [
    ("ttft=2,tps_user=50", {"ttft": 2.0, "tps_user": 50.0}),
    ("ttft=0.5, gpus=8", {"ttft": 0.5, "gpus": 8}),
    ("speed=3", "expected NAME=VALUE items with NAME one of ttft, tps_user, gpus, got 'speed=3'"),
    ("ttft=fast", "ttft: expected a number, got 'fast'"),
    ("gpus=0", "gpus: expected a positive number, got '0'"),
    ("ttft", "expected NAME=VALUE items with NAME one of ttft, tps_user, gpus, got 'ttft'"),
])
def test_targets(text: str, expected: Any) -> None:
    assert parse_target(text) == expected


def test_the_sweep_doubles_up_to_the_kv_cache_and_max_num_seqs() -> None:
    inputs: Any = {"max_num_seqs": 1024, "kv_tokens": 389_920}
    assert concurrencies(inputs, "1k/1k") == [1, 2, 4, 8, 16, 32, 64, 128]
    assert concurrencies(inputs, "8k/1k") == [1, 2, 4, 8, 16, 32]
    assert concurrencies({**inputs, "max_num_seqs": 10}, "1k/1k") == [1, 2, 4, 8]
    assert concurrencies({**inputs, "kv_tokens": 2047}, "1k/1k") == []


def test_a_record_finds_its_stored_prediction_by_its_inputs() -> None:
    record = {"hardware": "h100", "deploy_type": "single_node", "argv": ["vllm", "serve", "Qwen/Qwen3-8B"]}
    data = recipe(QWEN3_8B)
    tool = {"name": "aiconfigurator-core", "version": "0.12.0"}
    database = {"system": "h100_sxm", "backend": "vllm", "version": "0.24.0"}
    from builder.resolver.performance.mapping import record_inputs

    inputs: Any = record_inputs(record, data, {"precision": "bf16"}, H100)
    stored: Any = {"predictor": tool, "predictions": [
        {"inputs": {**inputs, "nextn_accepted": 0}, "database": database,
         "workloads": {"1k/1k": [point(1, 50, 150, 150)]}}]}
    assert inputs_key({**inputs, "nextn_accepted": 0}) == inputs_key(inputs)  # the file is read as YAML 1.2
    bench = reproducer("Qwen/Qwen3-8B", record, "1k/1k", 1)
    assert performance_for_record(record, data, {"precision": "bf16"}, H100, stored, "Qwen/Qwen3-8B") == {
        "predictor": {**tool, "database": database},
        "workloads": {"1k/1k": [{**point(1, 50, 150, 150), "reproducer": bench}]}}
    # the stored point is kept
    assert stored["predictions"][0]["workloads"]["1k/1k"] == [point(1, 50, 150, 150)]
    other = {**record, "argv": [*record["argv"], "--max-num-seqs", "8"]}
    assert performance_for_record(other, data, {"precision": "bf16"}, H100, stored, "Qwen/Qwen3-8B") == {
        "unavailable": "no stored prediction for this command: run vllm-recipes predict Qwen/Qwen3-8B"}
    assert performance_for_record(record, data, {"precision": "bf16"}, H100, None, "Qwen/Qwen3-8B") is None
    failed: Any = {"predictor": tool,
                   "predictions": [{"inputs": inputs, "unavailable": "the predictor failed: X"}]}
    assert performance_for_record(record, data, {"precision": "bf16"}, H100, failed, "Qwen/Qwen3-8B") == {
        "unavailable": "the predictor failed: X"}
