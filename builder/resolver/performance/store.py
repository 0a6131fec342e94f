"""Stored predictions (``models/<org>/<repo>.performance.json``) and the ``performance`` block a
rendering record publishes from them.

A recipe's file holds one entry per distinct predictor input (records that map to the same inputs
share it), so a record finds its prediction by computing its inputs again (:mod:`.mapping`, cheap)
and looking them up: a recipe or facts change that alters a command's inputs leaves it without a
match, which ``predict --check`` reports as stale and the page as "no stored prediction".
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NotRequired, TypedDict

from .mapping import PredictorInputs, record_inputs
from .measured import Measured
from .reproducer import bench_groups, bench_target, command_text
from .workloads import WORKLOADS

SUFFIX = ".performance.json"


class Point(TypedDict):
    """One predicted operating point (a published one carries the ``vllm bench serve`` that measures it)."""

    concurrency: int
    ttft_ms: float
    tpot_ms: float
    tokens_per_s_per_user: float
    tokens_per_s_per_gpu: float
    reproducer: NotRequired[str]


class Database(TypedDict):
    """The predictor's kernel measurements: GPU system, serving backend and its version."""

    system: str
    backend: str
    version: str


class Tool(TypedDict):
    """The predictor that made a file: its distribution name and version."""

    name: str
    version: str


class Predictor(Tool):
    """The predictor of one block, with the database it read."""

    database: Database


class Entry(TypedDict, total=False):
    """One stored prediction: its inputs and either the database and workloads or why it failed."""

    inputs: PredictorInputs
    database: Database
    workloads: dict[str, list[Point]]
    unavailable: str


class StoredFile(TypedDict):
    """A recipe's ``.performance.json``."""

    predictor: Tool
    predictions: list[Entry]


class Performance(TypedDict, total=False):
    """A record's ``performance`` block: the predictor and the workloads, or why there is none; and the
    measured results of its command (:mod:`.results`)."""

    predictor: Predictor
    workloads: dict[str, list[Point]]
    unavailable: str
    measured: list[Measured]


def stored_path(hf_id: str) -> str:
    """Where a recipe's predictions live, relative to the content root (hf ids are validated paths)."""
    return f"models/{hf_id}{SUFFIX}"


def inputs_key(inputs: Mapping[str, Any]) -> str:
    """The one identity of a set of predictor inputs (2.0 and 2 are one number: YAML 1.2 reads the file)."""
    plain = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in inputs.items()}
    return json.dumps(plain, sort_keys=True, separators=(",", ":"))


def entries_by_inputs(stored: StoredFile) -> dict[str, Entry]:
    """The stored entries keyed by :func:`inputs_key`."""
    return {inputs_key(entry["inputs"]): entry for entry in stored["predictions"]}


def concurrencies(inputs: PredictorInputs, workload: str) -> list[int]:
    """1, 2, 4 ... per engine, up to what the KV cache holds at the workload's full length, capped by
    ``--max-num-seqs``."""
    isl, osl = WORKLOADS[workload]
    limit = min(inputs["max_num_seqs"], inputs["kv_tokens"] // (isl + osl))
    out, value = [], 1
    while value <= limit:
        out.append(value)
        value *= 2
    return out


def block_of(entry: Entry, tool: Tool) -> Performance:
    """The published block of a stored entry."""
    if "unavailable" in entry:
        return Performance(unavailable=entry["unavailable"])
    predictor = Predictor(name=tool["name"], version=tool["version"], database=entry["database"])
    return Performance(predictor=predictor, workloads=entry["workloads"])


def missing(hf_id: str) -> Performance:
    """The block of a command whose inputs have no stored prediction."""
    return Performance(unavailable=f"no stored prediction for this command: run vllm-recipes predict {hf_id}")


def performance_for_record(
    record: Mapping[str, Any],
    recipe: Mapping[str, Any],
    variant: Mapping[str, Any],
    profile: Mapping[str, Any],
    stored: StoredFile | None,
    hf_id: str,
    by_inputs: Mapping[str, Entry] | None = None,
    reproducers: bool = True,
) -> Performance | None:
    """A record's block; None when the recipe has no stored predictions (omni records never have one).
    ``reproducers=False`` leaves out the points' ``reproducer`` (the builder's view makes only the one its
    Bench popover shows)."""
    if stored is None or record.get("deploy_type") == "omni":
        return None
    inputs = record_inputs(record, recipe, variant, profile)
    if "unavailable" in inputs:
        return Performance(unavailable=inputs["unavailable"])  # type: ignore[typeddict-item]
    table = by_inputs if by_inputs is not None else entries_by_inputs(stored)
    entry = table.get(inputs_key(inputs))
    if entry is None:
        return missing(hf_id)
    block = block_of(entry, stored["predictor"])
    return with_reproducers(block, hf_id, record) if reproducers else block


def with_reproducers(block: Performance, hf_id: str, record: Mapping[str, Any]) -> Performance:
    """``block`` with each point's reproducer (new point objects: records share their entry's lists)."""
    if "workloads" not in block:
        return block
    target = bench_target(hf_id, record)
    workloads = {
        name: [Point(**point, reproducer=command_text(bench_groups(target, name, point["concurrency"])))
               for point in points]
        for name, points in block["workloads"].items()}
    return Performance(predictor=block["predictor"], workloads=workloads)



def block_coverage(records: Iterable[Any], recipes: int) -> str:
    """The build's coverage line: predicted and unavailable blocks among the records it keeps (each hardware's
    recommended record and the preset points; alternatives are counted by ``predict``)."""
    blocks = [r["performance"] for r in records if isinstance(r, Mapping)
              and isinstance(r.get("performance"), Mapping)]
    blocks = [b for b in blocks if "predictor" in b or "unavailable" in b]  # not results alone
    predicted = sum(1 for block in blocks if "predictor" in block)
    return (f"performance: {predicted} of {len(blocks)} records predicted, {len(blocks) - predicted} with "
            f"a named reason, in {recipes} recipes with stored predictions")


def dump_stored(stored: StoredFile) -> str:
    """The file's text: one line per point and per inputs, so a change reads as a short diff."""
    lines = ["{", f' "predictor": {json.dumps(stored["predictor"])},', ' "predictions": [']
    for index, entry in enumerate(stored["predictions"]):
        parts = [f'  {{"inputs": {json.dumps(entry["inputs"])}']
        if "unavailable" in entry:
            parts.append(f'   "unavailable": {json.dumps(entry["unavailable"])}')
        else:
            parts.append(f'   "database": {json.dumps(entry["database"])}')
            workloads = []
            for name, points in entry["workloads"].items():
                rows = ",\n".join(f"     {json.dumps(point)}" for point in points)
                workloads.append(f'    {json.dumps(name)}: [\n{rows}\n    ]' if points
                                 else f'    {json.dumps(name)}: []')
            parts.append('   "workloads": {\n' + ",\n".join(workloads) + "\n   }")
        lines.append(",\n".join(parts) + ("}," if index < len(stored["predictions"]) - 1 else "}"))
    lines += [" ]", "}", ""]
    return "\n".join(lines)
