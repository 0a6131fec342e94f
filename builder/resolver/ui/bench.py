"""The builder's "Bench" text: the reproducer of the selected predicted point, else the bare command.

The selected point is the Performance panel's (state keys ``perf_workload``, default ``1k/1k``, and
``perf_concurrency``, default the point the panel selects: the largest up to 16). The reproducer targets
the host and port of the Env panel's "Curl / bench target" when the target is the vLLM server itself;
behind a router (Mooncake instances) it measures one instance, as the prediction does, on its own port.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..performance.reproducer import bench_groups, bench_target, command_text
from ..performance.store import Point
from ..performance.workloads import WORKLOADS
from ..values import as_dict, as_list, js_str, truthy
from .commands import bench_command
from .perf_state import DEFAULT_WORKLOAD
from .performance import current_concurrency

SERVER_HOSTS = ("VLLM_HOST", "HEAD_IP")  # curl targets that are the vLLM server (not a router)


def selected_point(block: Any, state: Mapping[str, Any]) -> tuple[str, Point] | None:
    """(workload, point) of the state's selection in a ``performance`` block; None without such a point."""
    workload = state.get("perf_workload") or DEFAULT_WORKLOAD
    if workload not in WORKLOADS:
        return None
    workloads = as_dict(as_dict(block).get("workloads"))
    points = [p for p in as_list(workloads.get(workload)) if isinstance(p, dict)]
    if not points:
        return None
    shown = current_concurrency(points, state.get("perf_concurrency"))  # type: ignore[arg-type]
    return workload, next(p for p in points if p.get("concurrency") == shown)  # type: ignore[return-value]


def client_endpoint(target: Mapping[str, Any], endpoints: Mapping[str, Any]) -> tuple[str, Any]:
    """(host, port) the curl and bench commands reach: the Env panel's saved values, else the target's."""
    host = js_str(endpoints.get(target["host_var"]) or "localhost")
    return host, endpoints.get(target["port_var"]) or target["port"]


def bench_text(hf_id: str, record: Mapping[str, Any], block: Any, state: Mapping[str, Any],
               target: Mapping[str, Any], endpoints: Mapping[str, Any], model: str) -> str:
    """The Bench popover's command for ``record`` and its ``performance`` block (None: no prediction)."""
    host, port = client_endpoint(target, endpoints)
    chosen = selected_point(block, state)
    if chosen is None:
        return bench_command(host, port, model)
    workload, point = chosen
    if target["host_var"] not in SERVER_HOSTS:
        host, saved = "localhost", None
    else:
        saved = endpoints.get(target["port_var"]) if truthy(endpoints.get(target["port_var"])) else None
    groups = bench_groups(bench_target(hf_id, record), workload, point["concurrency"], host, saved)
    return command_text(groups)
