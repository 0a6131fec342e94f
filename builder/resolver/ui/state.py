"""Builder state: parsing, initial state and reconciliation (site-features §6-§7)."""

from __future__ import annotations

from typing import Any

from ..hardware import (
    _is_nvidia,
    _scalable,
    _variant,
    default_hardware,
    fits_single_node,
    initial_hardware,
    pick_fitting_variant,
)
from ..omni import active_omni_task, omni_tasks
from ..strategies import (
    _reachable,
    initial_node_count,
    node_pills,
    nodes_for_strategy,
    pd_pool_defaults,
    pd_pool_modes,
)
from ..values import MAX_NODES, _dict, js_str
from .facts import _B, _MAX_INSTANCES, _advanced_options, _csv, _int_or


def _fresh_state() -> dict[str, Any]:
    return {"variant": "default", "hardware": None, "strategy": None, "nodes": 1, "features": None, "fmode": {},
            "advanced": [], "kv_offload": None, "kv_instances": None, "kv_instance": 0,
            "prefill_nodes": None, "decode_nodes": None, "prefill_mode": None, "decode_mode": None,
            "prefill_rank": 0, "decode_rank": 0, "task": None, "install": None, "cuda": "default",
            "preset": None, "point": None}


def _parse_fmode(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {js_str(k): js_str(v) for k, v in value.items()}
    out = {}
    for item in _csv(value) or []:
        if ":" in item:
            k, _, m = item.partition(":")
            out[k] = m
    return out


def _parse(b: _B, raw: dict[str, Any]) -> dict[str, Any]:
    """Raw URL parameters (strings) or a previous canonical state -> typed state."""
    s = _fresh_state()
    s["variant"] = raw.get("variant") if isinstance(raw.get("variant"), str) else "default"
    s["hardware"] = raw.get("hardware") if isinstance(raw.get("hardware"), str) else None
    s["strategy"] = raw.get("strategy") if isinstance(raw.get("strategy"), str) and raw.get("strategy") else None
    s["nodes"] = _int_or(raw.get("nodes"), 1)
    feats = raw.get("features")
    if feats is not None:
        lst = _csv(feats)
        s["features"] = [] if lst == ["none"] else lst
    s["fmode"] = _parse_fmode(raw.get("fmode"))
    s["advanced"] = _csv(raw.get("advanced")) or []
    kv = raw.get("kv_offload")
    s["kv_offload"] = kv if isinstance(kv, str) and kv not in ("", "off") else None
    s["kv_instances"] = _int_or(raw.get("kv_instances"), 1 if raw.get("kv_instances") not in (None, "") else None)
    s["kv_instance"] = _int_or(raw.get("kv_instance"), 0)
    for role in ("prefill", "decode"):
        n = raw.get(f"{role}_nodes")
        s[f"{role}_nodes"] = _int_or(n, 1) if n not in (None, "") else None
        m = raw.get(f"{role}_mode")
        s[f"{role}_mode"] = m if m in ("tp", "tep", "dep") else None
        s[f"{role}_rank"] = _int_or(raw.get(f"{role}_rank"), 0)
    s["task"] = raw.get("task") if isinstance(raw.get("task"), str) and raw.get("task") else None
    s["install"] = raw.get("install") if raw.get("install") in ("pip", "docker") else None
    s["cuda"] = "cu129" if raw.get("cuda") == "cu129" else "default"
    for key in ("preset", "point"):
        s[key] = raw.get(key) if isinstance(raw.get(key), str) and raw.get(key) else None
    return s


def _clamp(n: Any, lo: int, hi: int, default: int) -> int:
    n = _int_or(n, default)
    return min(max(n, lo), hi)


def _init(b: _B, raw: dict[str, Any], prefs: dict[str, Any], stored: dict[str, Any]) -> dict[str, Any]:
    """CB-INIT-01..10: the state a page opens on."""
    s = _parse(b, raw)
    explicit_variant = isinstance(raw.get("variant"), str) and raw.get("variant") in b.variants
    s["variant"] = b.vkey(s["variant"])
    query_hw = s["hardware"]
    pref = prefs.get("hardware") if isinstance(prefs.get("hardware"), str) else None
    s["hardware"] = initial_hardware(b.recipe, b.taxonomy, s["variant"], query_hw, pref)
    hw, p = s["hardware"], b.profile(s["hardware"])
    if not explicit_variant and not _scalable(p) and not fits_single_node(p, _variant(b.recipe, s["variant"])):
        s["variant"] = pick_fitting_variant(b.recipe, p, hw) or s["variant"]
    if b.omni:
        return s
    # nodes (CB-INIT-05)
    if not b.multi_capable() or not b.clusterable(hw):
        s["nodes"] = 1
    elif raw.get("nodes") not in (None, ""):
        s["nodes"] = s["nodes"] if s["nodes"] in (1, 2) else 1
    elif _int_or(stored.get("nodes")) in (1, 2):
        s["nodes"] = _int_or(stored.get("nodes"))
    else:
        s["nodes"] = initial_node_count(b.recipe, b.vocab, s["variant"], hw)
    # strategy (CB-INIT-06): Mooncake ids are ignored here
    if s["strategy"] in b.kv_ids:
        s["strategy"] = None
    if s["strategy"] is None and isinstance(stored.get("strategy"), str) and stored["strategy"] in b.comp:
        s["strategy"] = stored["strategy"]
    # features / modes (CB-INIT-07/08)
    if raw.get("features") is None and isinstance(stored.get("features"), list):
        s["features"] = [f for f in stored["features"] if f in b.features]
    if isinstance(stored.get("featureModes"), dict):
        s["fmode"] = {**{js_str(k): js_str(v) for k, v in stored["featureModes"].items()}, **s["fmode"]}
    # KV (CB-INIT-09)
    if s["kv_offload"] is None and isinstance(stored.get("kvOffload"), str):
        s["kv_offload"] = stored["kvOffload"]
        s["_kv_from_storage"] = True
    if raw.get("kv_instances") in (None, "") and _int_or(stored.get("kvInstances")) is not None:
        s["kv_instances"] = _int_or(stored.get("kvInstances"))
    return s


def _kv_valid(b: _B, s: dict[str, Any], sid: str | None) -> bool:
    kv = s["kv_offload"]
    if kv is None:
        return True
    if kv in b.kv_ids:
        return b.mooncake_reason(s["hardware"], kv) is None
    return isinstance(_dict(b.taxonomy.get("kv_offload")).get(kv), dict)


def _reconcile(b: _B, s: dict[str, Any]) -> dict[str, Any]:
    """Correct an arbitrary state into a valid one (the rules of CB-*, §7.1 "invalid values ignored")."""
    s["variant"] = b.vkey(s["variant"])
    if not b.usable(s["hardware"], s["variant"]):
        s["hardware"] = default_hardware(b.recipe, b.taxonomy, s["variant"])
    hw, p = s["hardware"], b.profile(s["hardware"])
    s["cuda"] = s["cuda"] if s["cuda"] == "cu129" and _is_nvidia(p) else "default"
    if s["features"] is not None:
        s["features"] = [f for f in b.features if f in s["features"]]
    s["fmode"] = {k: m for k, m in s["fmode"].items() if k in b.features and m in _dict(b.features[k].get("modes"))}
    adv_ids = [a["id"] for a in _advanced_options(b, None)]
    s["advanced"] = [a for a in adv_ids if a in s["advanced"]]
    if b.omni:
        tasks = omni_tasks(b.recipe)
        task = active_omni_task(b.recipe, s["task"], hw)
        s["task"] = task["key"] if task and tasks and task["key"] != tasks[0]["key"] else None
        for key in ("strategy", "kv_offload", "kv_instances", "prefill_nodes", "decode_nodes", "prefill_mode",
                    "decode_mode", "preset", "point"):
            s[key] = None
        s.update(nodes=1, features=None, fmode={}, advanced=[], kv_instance=0, prefill_rank=0, decode_rank=0)
        return s
    s["task"] = None
    if not b.multi_capable() or not b.clusterable(hw):
        s["nodes"] = 1
    s["nodes"] = _clamp(s["nodes"], 1, MAX_NODES, 1)
    sid = b.active_strategy(hw, s["nodes"], s["strategy"])
    if sid != "pd_cluster" and b.clusterable(hw):  # CB-NODE-07 floor reconciliation
        floor = b.floor_nodes(sid, hw)
        pills = node_pills(b.recipe, b.vocab, hw)
        if s["nodes"] < floor:
            s["nodes"] = floor
        elif s["nodes"] > 2 and s["nodes"] not in pills:
            s["nodes"] = min(MAX_NODES, max(2, floor))
        sid = b.active_strategy(hw, s["nodes"], s["strategy"])
    if s["strategy"] is not None and s["strategy"] not in b.row_strategies(hw, s["nodes"]) + b.comp:
        s["strategy"] = None
    if not _kv_valid(b, s, sid):
        s["kv_offload"] = None
    if s["kv_offload"] not in b.kv_ids:
        s["kv_instances"], s["kv_instance"] = None, 0
    else:
        if s["kv_instances"] is not None:
            s["kv_instances"] = _clamp(s["kv_instances"], 1, _MAX_INSTANCES, 1)
        count = s["kv_instances"] or _dict(b.strategies.get(s["kv_offload"])).get("default_instances") or 1
        s["kv_instance"] = _clamp(s["kv_instance"], 0, count - 1, 0)
    s.pop("_kv_from_storage", None)
    if sid == "pd_cluster":
        pools = _pools(b, s)
        for role in ("prefill", "decode"):
            if s[f"{role}_nodes"] is not None:
                s[f"{role}_nodes"] = pools[role]["nodes"]
            if s[f"{role}_mode"] is not None and s[f"{role}_mode"] not in pools[role]["modes"]:
                s[f"{role}_mode"] = None
            s[f"{role}_rank"] = _clamp(s[f"{role}_rank"], 0, pools[role]["nodes"] - 1, 0)
    else:
        for role in ("prefill", "decode"):
            s[f"{role}_mode"], s[f"{role}_rank"] = None, 0
    presets = _dict(b.recipe.get("presets"))
    if s["preset"] not in presets:
        s["preset"] = s["point"] = None
    elif s["point"] not in _dict(_dict(presets[s["preset"]]).get("points")):
        s["point"] = next(iter(_dict(_dict(presets[s["preset"]]).get("points"))), None)
    return s


def _pools(b: _B, s: dict[str, Any]) -> dict[str, Any]:
    """CB-NODE-08/09: effective PD pools ``{role: {nodes, rank, parallelism, modes}}``."""
    hw = s["hardware"]
    p = b.profile(hw)
    defaults = pd_pool_defaults(b.recipe, b.vocab, s["variant"], hw)
    modes = [m for m in pd_pool_modes(b.recipe)
             if _reachable(b.recipe, m, "multi_node", p.get("gpu_count"), hw)] or ["tp"]
    out = {}
    for role in ("prefill", "decode"):
        mode = s[f"{role}_mode"] if s[f"{role}_mode"] in modes else defaults[role]["parallelism"]
        floor = nodes_for_strategy(b.recipe, mode, p.get("gpu_count"), hw)
        nodes = s[f"{role}_nodes"] if s[f"{role}_nodes"] is not None else defaults[role]["nodes"]
        nodes = max(_clamp(nodes, 1, MAX_NODES, 1), floor)
        out[role] = {"nodes": nodes, "rank": _clamp(s[f"{role}_rank"], 0, nodes - 1, 0), "parallelism": mode,
                     "modes": modes}
    return out


def _enabled(b: _B, s: dict[str, Any]) -> list[str]:
    """The user's feature set (remembered, possibly including disallowed ones)."""
    if s["features"] is None:
        return b.defaults(s["hardware"], s["variant"])
    return list(s["features"])
