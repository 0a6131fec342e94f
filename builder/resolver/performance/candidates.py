"""A recipe's published commands and the candidates a target is picked from (one implementation for
``predict``, ``resolve --target`` and the builder's "Pick for me").

The published commands are what the API and the builder offer: per variant and hardware the recommended
and each alternative strategy (:func:`matrix_records`), then every preset point
(:func:`published_records`). The candidates of a pick are the matrix records only: the answer is
applied as a selection (hardware, variant, strategy), which resolves to exactly those commands.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from ..hardware import profile_of
from ..memory.rendering import record_argvs
from ..presets import resolve_preset
from ..records import render_matrix
from ..types import Vocab
from ..values import as_dict, is_omni
from .mapping import record_inputs
from .pick import Candidate
from .store import StoredFile, entries_by_inputs, performance_for_record

Record = dict[str, Any]


def matrix_records(recipe: Mapping[str, Any], vocab: Vocab, hf_id: str) -> Iterator[Record]:
    """Per variant and hardware the recommended and each alternative strategy's record."""
    data = dict(recipe)
    if is_omni(data):
        return
    for variant_key in as_dict(data.get("variants")):
        for entry in render_matrix(data, vocab, variant_key, hf_id)["hardware"]:
            yield entry["recommended"]
            yield from (alt for _, alt in entry["alternatives"])


def published_records(recipe: Mapping[str, Any], vocab: Vocab, hf_id: str,
                      preset: Callable[[str], Any] | None = None) -> Iterator[Record]:
    """Every rendering record a recipe publishes or its builder offers first: the matrix records, then every
    preset point (``preset(key)``: its resolved points, default :func:`resolve_preset`); a record whose
    hardware, variant and vLLM commands equal an earlier one's is the same command (yielded once)."""
    data = dict(recipe)
    if is_omni(data):
        return
    seen: set[tuple[Any, ...]] = set()
    resolved = preset or (lambda key: resolve_preset(data, vocab, key))

    def presets() -> Iterator[Record]:
        for key in as_dict(data.get("presets")):
            yield from resolved(key)["points"].values()

    for record in (*matrix_records(data, vocab, hf_id), *presets()):
        key = (record.get("hardware"), record.get("variant"), json.dumps(record_argvs(record)))
        if key not in seen:
            seen.add(key)
            yield record


def candidates(recipe: Mapping[str, Any], vocab: Vocab, hf_id: str,
               stored: StoredFile | None) -> list[Candidate]:
    """Every matrix command of a recipe that has a prediction, with its GPU count."""
    if stored is None or "predictions" not in stored:  # measured results alone
        return []
    data, table = dict(recipe), entries_by_inputs(stored)
    taxonomy = as_dict(vocab.get("taxonomy"))
    out, seen = [], set()
    for record in matrix_records(data, vocab, hf_id):
        choice = (record.get("hardware"), record.get("variant"), record.get("strategy"))
        if choice in seen:
            continue
        seen.add(choice)
        variant = as_dict(as_dict(data.get("variants")).get(str(record.get("variant"))))
        profile = profile_of(taxonomy, record.get("hardware"))
        inputs = record_inputs(record, data, variant, profile)
        if "unavailable" in inputs:
            continue
        block = performance_for_record(record, data, variant, profile, stored, hf_id, table)
        if block is None or "predictor" not in block:
            continue
        gpus = inputs["tp"] * inputs["pp"] * inputs["attention_dp"]
        out.append(Candidate(record["hardware"], record["variant"], record["strategy"], gpus, block))
    return out
