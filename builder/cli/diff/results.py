"""Measured results in a diff: the results a record gained or lost, and any measured figure that moved by more
than :data:`CHANGE` (a rerun that agrees with the stored result within that is not news)."""

from __future__ import annotations

from typing import Any, TypedDict

CHANGE = 0.10  # relative change of a measured figure worth a reviewer's eye
FIGURES = {"ttft_ms": "TTFT (ms)", "tpot_ms": "TPOT (ms)", "tokens_per_s_per_user": "tokens/s per user",
           "tokens_per_s_per_gpu": "tokens/s per GPU"}


class ResultChange(TypedDict):
    """One measured result added, removed, or with a figure changed by more than :data:`CHANGE`."""

    change: str  # "added", "removed", "changed"
    point: str  # "h200 default single_node_tp, 1k/1k at concurrency 8"
    source: str  # "vllm-bench-serve run.json"
    figures: list[str]  # a changed result's figures: "tokens/s per GPU 1,298.2 → 1,500 (+15.5%)"


def _measured(record: Any) -> dict[tuple[Any, Any], dict[str, Any]]:
    """A record's measured results by (workload, concurrency)."""
    block = record.get("performance") if isinstance(record, dict) else None
    points = block.get("measured") if isinstance(block, dict) else None
    if not isinstance(points, list):
        return {}
    return {(p.get("workload"), p.get("concurrency")): p for p in points if isinstance(p, dict)}


def _point(record: dict[str, Any], result: dict[str, Any]) -> str:
    selection = " ".join(str(record.get(key)) for key in ("hardware", "variant", "strategy"))
    return f"{selection}, {result.get('workload')} at concurrency {result.get('concurrency')}"


def _source(result: dict[str, Any]) -> str:
    provenance = result.get("provenance")
    provenance = provenance if isinstance(provenance, dict) else {}
    return f"{provenance.get('format')} {provenance.get('file')}"


def _moved(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The figures that changed by more than :data:`CHANGE`, each as "label old → new (+x%)"."""
    out = []
    for key, label in FIGURES.items():
        old, new = before.get(key), after.get(key)
        if not isinstance(old, int | float) or not isinstance(new, int | float) or old <= 0:
            continue
        relative = (new - old) / old
        if abs(relative) > CHANGE:
            out.append(f"{label} {old:,.6g} → {new:,.6g} ({relative:+.1%})")
    return out


def result_changes(before: Any, after: Any) -> list[ResultChange]:
    """What changed in one record's measured results (``before``/``after``: the record on each side)."""
    was, now = _measured(before), _measured(after)
    record = after if isinstance(after, dict) else before
    out: list[ResultChange] = []
    for key in [*was, *(k for k in now if k not in was)]:
        old, new = was.get(key), now.get(key)
        shown = new if new is not None else old
        assert shown is not None
        change = "added" if old is None else "removed" if new is None else "changed"
        moved = _moved(old, new) if old is not None and new is not None else []
        if change != "changed" or moved:
            out.append({"change": change, "point": _point(record, shown), "source": _source(shown),
                        "figures": moved})
    return out
