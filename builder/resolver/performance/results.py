"""Measured results joined to records: a stored result names the command it measured by its selection
(hardware, variant, strategy) and one point (workload, concurrency); a record publishes the results of its
selection, each with the ratio of the measured to the predicted tokens/s per GPU at the same workload and
concurrency (null without such a prediction). Standard library only."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .measured import FIGURE_KEYS, Figures, Measured, StoredResult
from .store import Performance, Point
from .workloads import WORKLOADS

LENGTH_TOLERANCE = 0.01  # measured mean lengths within 1 % of a standard workload's are that workload


def workload_name(input_tokens: int, output_tokens: int) -> str:
    """The standard workload these lengths are (within :data:`LENGTH_TOLERANCE`), else ``"<in>/<out>"``."""
    for name, (isl, osl) in WORKLOADS.items():
        near = abs(input_tokens - isl) <= isl * LENGTH_TOLERANCE
        if near and abs(output_tokens - osl) <= osl * LENGTH_TOLERANCE:
            return name
    return f"{input_tokens}/{output_tokens}"


def result_order(result: Mapping[str, Any]) -> tuple[Any, ...]:
    """The order of a file and of a block: selection, standard workloads first, then concurrency."""
    standard = list(WORKLOADS)
    workload = result["workload"]
    rank = standard.index(workload) if workload in standard else len(standard)
    lengths = (result["input_tokens"], result["output_tokens"])
    return (result.get("hardware", ""), result.get("variant", ""), result.get("strategy", ""), rank, lengths,
            result["concurrency"])


def point_key(result: Mapping[str, Any]) -> tuple[str, str, str, str, int]:
    """The one point a result measures: a newer result at the same point replaces it."""
    return (result["hardware"], result["variant"], result["strategy"], result["workload"],
            result["concurrency"])


def ratio(figures: Figures, workloads: Mapping[str, Sequence[Point]] | None) -> float | None:
    """Measured over predicted tokens/s per GPU at the same workload and concurrency (None without one)."""
    for point in (workloads or {}).get(figures["workload"], ()):
        if point["concurrency"] == figures["concurrency"] and point["tokens_per_s_per_gpu"] > 0:
            return round(figures["tokens_per_s_per_gpu"] / point["tokens_per_s_per_gpu"], 4)
    return None


def measured_points(record: Mapping[str, Any], results: Sequence[StoredResult],
                    workloads: Mapping[str, Sequence[Point]] | None) -> list[Measured]:
    """The results of the record's selection, in file order, each with its ratio to the prediction."""
    selection = (record.get("hardware"), record.get("variant"), record.get("strategy"))
    out: list[Measured] = []
    for result in results:
        if (result["hardware"], result["variant"], result["strategy"]) != selection:
            continue
        point: dict[str, Any] = {key: result[key] for key in FIGURE_KEYS}  # type: ignore[literal-required]
        point["measured_over_predicted"] = ratio(result, workloads)
        point["provenance"] = result["provenance"]
        out.append(point)  # type: ignore[arg-type]
    return out


def with_measured(block: Performance | None, record: Mapping[str, Any],
                  results: Sequence[StoredResult]) -> Performance | None:
    """``block`` with the record's measured points (a block of its own when there is no prediction)."""
    if not results or record.get("deploy_type") == "omni":
        return block
    points = measured_points(record, results, (block or {}).get("workloads"))
    if not points:
        return block
    return {**(block or {}), "measured": points}
