"""The shapes of measured results: a line of ``models/<org>/<repo>.benchmarks.json`` (written by
``vllm-recipes add-benchmark``) and a point of a record's ``performance.measured`` (:mod:`.results` joins
them). Standard library only."""

from __future__ import annotations

import json
from typing import Literal, TypedDict

SUFFIX = ".benchmarks.json"
FORMATS = ("vllm-bench-serve", "inferencex-row")


class Provenance(TypedDict):
    """Where a result comes from: its format, the source file's name and sha256, what ran it."""

    format: Literal["vllm-bench-serve", "inferencex-row"]
    file: str
    sha256: str
    vllm_version: str | None
    image: str | None
    gpu: str
    date: str | None
    source: str | None


class Figures(TypedDict):
    """One measured point: workload, concurrency and the figures a prediction also gives."""

    workload: str
    input_tokens: int
    output_tokens: int
    concurrency: int
    ttft_ms: float
    tpot_ms: float
    tokens_per_s_per_user: float
    tokens_per_s_per_gpu: float


class StoredResult(Figures):
    """One line of a ``.benchmarks.json``: the selection it measured, its figures and provenance."""

    hardware: str
    variant: str
    strategy: str
    provenance: Provenance


class ResultsFile(TypedDict):
    """A recipe's ``.benchmarks.json``."""

    results: list[StoredResult]


class Measured(Figures):
    """A measured point as a record's ``performance.measured`` publishes it."""

    measured_over_predicted: float | None
    provenance: Provenance


FIGURE_KEYS = tuple(Figures.__annotations__)


def results_path(hf_id: str) -> str:
    """Where a recipe's measured results live, relative to the content root (hf ids are validated paths)."""
    return f"models/{hf_id}{SUFFIX}"


def dump_results(results: list[StoredResult]) -> str:
    """The results file's text: one line per result, so an added run reads as a one-line diff."""
    rows = ",\n".join(f"  {json.dumps(result, ensure_ascii=False)}" for result in results)
    return "{\n \"results\": [\n" + rows + "\n ]\n}\n"
