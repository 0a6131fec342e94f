"""The builder's address and memory: the canonical query string (§7.1) and the per-recipe
localStorage object (§7.4) of a UI state."""

from __future__ import annotations

import re
from typing import Any

from .facts import BuilderFacts
from .perf_state import DEFAULT_WORKLOAD


def _encode(value: str) -> str:
    """Percent-encode every byte outside the characters a query value keeps as they are."""
    return re.sub(r"[^A-Za-z0-9_.~:,-]", lambda m: "".join(f"%{x:02X}" for x in m.group(0).encode()), value)


def canonical_query(facts: BuilderFacts, state: dict[str, Any], sid: str | None,
                    initial_tab: str | None) -> str:
    """§7.1 canonical query string (defaults omitted; install/cuda/preset/point added)."""
    q: list[tuple[str, str]] = []
    if state["preset"]:
        q += [("preset", state["preset"]), ("point", state["point"] or "")]
    else:
        if state["variant"] != "default":
            q.append(("variant", state["variant"]))
        if (state.get("hw_pinned")
            or state["hardware"] != facts.default_hw(state["variant"])):
            q.append(("hardware", state["hardware"]))
        if not facts.omni:
            if (state["strategy"] and state["strategy"] == sid
                and sid != facts.recommended(state["hardware"], state["nodes"])):
                q.append(("strategy", state["strategy"]))
            if state["nodes"] != 1:
                q.append(("nodes", str(state["nodes"])))
            if (state["features"] is not None
                and set(state["features"]) != set(facts.defaults(state["hardware"], state["variant"]))):
                q.append(("features", ",".join(state["features"]) or "none"))
            fm = [f"{k}:{m}" for k, m in state["fmode"].items()
                  if m != facts.mode(k, state["variant"], state["hardware"])]
            if fm:
                q.append(("fmode", ",".join(fm)))
            if state["advanced"]:
                q.append(("advanced", ",".join(state["advanced"])))
            if state["kv_offload"]:
                q.append(("kv_offload", state["kv_offload"]))
            if state["kv_instances"] is not None:
                q.append(("kv_instances", str(state["kv_instances"])))
            if state["kv_instance"]:
                q.append(("kv_instance", str(state["kv_instance"])))
            for role in ("prefill", "decode"):
                if state[f"{role}_nodes"] is not None:
                    q.append((f"{role}_nodes", str(state[f"{role}_nodes"])))
            for role in ("prefill", "decode"):
                if state[f"{role}_mode"]:
                    q.append((f"{role}_mode", state[f"{role}_mode"]))
            for role in ("prefill", "decode"):
                if state[f"{role}_rank"]:
                    q.append((f"{role}_rank", str(state[f"{role}_rank"])))
        if state["task"]:
            q.append(("task", state["task"]))
    if state["install"] and state["install"] != initial_tab:
        q.append(("install", state["install"]))
    if state["cuda"] == "cu129":
        q.append(("cuda", "cu129"))
    if state["perf_workload"] != DEFAULT_WORKLOAD:
        q.append(("perf_workload", state["perf_workload"]))
    for key in ("perf_concurrency", "perf_price"):
        if state[key] is not None:
            q.append((key, f"{state[key]:g}"))
    return "&".join(f"{k}={_encode(v)}" for k, v in q)


def stored_choices(facts: BuilderFacts, state: dict[str, Any]) -> dict[str, Any]:
    """§7.4 per-recipe storage object (empty values pruned)."""
    out: dict[str, Any] = {}
    if state["strategy"]:
        out["strategy"] = state["strategy"]
    if state["nodes"] != 1:
        out["nodes"] = state["nodes"]
    if state["variant"] != facts.vkey(None):
        out["variant"] = state["variant"]
    if state["features"] is not None:  # [] too: "every feature off" survives a reload (GAP-08)
        out["features"] = list(state["features"])
    if state["fmode"]:
        out["featureModes"] = dict(state["fmode"])
    if state["kv_offload"]:
        out["kvOffload"] = state["kv_offload"]
    if state["kv_instances"] is not None:
        out["kvInstances"] = state["kv_instances"]
    return out
