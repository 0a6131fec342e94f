"""The Performance panel's keys of the builder state (kept in the URL but ``perf_pick``)."""

from __future__ import annotations

from typing import Any

from ..performance.workloads import WORKLOADS
from ..values import as_dict, js_str

DEFAULT_WORKLOAD = "1k/1k"
PRICE_MAX = 100_000.0
PERF_DEFAULTS: dict[str, Any] = {"perf_workload": DEFAULT_WORKLOAD, "perf_concurrency": None,
                                 "perf_price": None, "perf_pick": None}


def perf_state(raw: dict[str, Any]) -> dict[str, Any]:
    """The panel's state keys from a URL query (strings) or a previous state: ``perf_workload`` (1k/1k),
    ``perf_concurrency`` (None: the default point), ``perf_price`` (None: the hardware's default) and
    ``perf_pick`` (the last "Pick for me" answer: ``{"target", "text", "ok"}``, never in the URL)."""
    workload = raw.get("perf_workload")
    concurrency = number(raw.get("perf_concurrency"))
    price = number(raw.get("perf_price"))
    pick = raw.get("perf_pick")
    return {"perf_workload": workload if workload in WORKLOADS else DEFAULT_WORKLOAD,
            "perf_concurrency": int(concurrency) if concurrency and concurrency.is_integer() else None,
            "perf_price": round(price, 4) if price and price <= PRICE_MAX else None,
            "perf_pick": pick_note(pick) if isinstance(pick, dict) else None}


def number(value: Any) -> float | None:
    """A positive finite number from a number or its text, else None."""
    if value is None or isinstance(value, bool):  # None: the common case, without an exception
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if 0 < number < 1e9 else None


def pick_note(value: dict[str, Any]) -> dict[str, Any]:
    """A "Pick for me" answer as the state keeps it (texts and numbers only)."""
    target = {k: number(v) for k, v in as_dict(value.get("target")).items()
              if k in ("ttft", "tps_user", "gpus") and number(v) is not None}
    return {"target": target, "text": js_str(value.get("text"))[:400], "ok": value.get("ok") is True}
