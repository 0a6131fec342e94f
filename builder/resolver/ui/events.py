"""Builder events: one click applied to the state."""

from __future__ import annotations

from typing import Any

from ..features import available_modes
from ..hardware import _lookup_exact, _variant, default_hardware, fits_single_node, pick_fitting_variant
from ..omni import active_omni_task, omni_task_for_hardware, omni_tasks
from ..presets import _preset_point_selection
from ..resolve import _nodes_value
from ..strategies import (
    _deploy_type,
    initial_node_count,
    node_pills,
    nodes_for,
    nodes_for_strategy,
    strategy_supported,
)
from ..values import MAX_NODES, _dict, _get, _list, js_str
from .facts import _B, _EXCLUSIVE, _MAX_INSTANCES, _int_or
from .rows import _feature_reason, _node_reason
from .state import _clamp, _enabled, _fresh_state, _pools


def _on_hardware(b: _B, s: dict[str, Any], hw: str, out: dict[str, Any]) -> None:
    """CB-HW-06."""
    if hw not in b.profiles or hw not in b.listed() or b.declared.get(hw) == "unsupported":
        return
    if not b.any_variant_runs(hw) and not b.omni:
        return
    if b.omni and not b.usable(hw, s["variant"]):
        return
    old = s["hardware"]
    out["prefs"] = {"hardware": hw}
    s["hardware"] = hw
    if b.omni:
        return
    p = b.profile(hw)
    if s["features"] is not None:
        hoi = b.recipe.get("hardware_opt_in_features")
        new_out = set(_list(_lookup_exact(hoi, hw)))
        old_out = set(_list(_lookup_exact(hoi, old)))
        recipe_opt_in = set(_list(b.recipe.get("opt_in_features")))
        feats = [f for f in s["features"] if f not in new_out or f in b.forced(s["variant"])]
        feats += [f for f in old_out - new_out if f not in recipe_opt_in and f not in feats]
        s["features"] = feats
    for fkey, mode in list(s["fmode"].items()):
        avail = available_modes(_dict(b.features.get(fkey)), s["variant"], p, hw)
        if mode not in avail:
            if avail:
                s["fmode"][fkey] = avail[0]
            else:
                del s["fmode"][fkey]
    if s["kv_offload"] in b.kv_ids and b.mooncake_reason(hw, s["kv_offload"]) is not None:
        s["kv_offload"], s["kv_instances"], s["kv_instance"] = None, None, 0
    if not b.runs(hw, s["variant"]):
        s["variant"] = pick_fitting_variant(b.recipe, p, hw) or s["variant"]
    s["strategy"] = None
    variant = _variant(b.recipe, s["variant"])
    if not b.clusterable(hw):
        s["nodes"] = 1
    elif not fits_single_node(p, variant) and b.multi_capable():
        s["nodes"] = max(2, s["nodes"])
    elif _deploy_type(b.strategies.get(b.recipe.get("default_strategy"))) == "single_node":
        s["nodes"] = 1


def _on_variant(b: _B, s: dict[str, Any], vkey: str) -> None:
    """CB-VAR-05."""
    if vkey not in b.variants or not any(b.runs(hw, vkey) for hw in b.listed()):
        return
    old = s["variant"]
    s["variant"] = vkey
    if not b.usable(s["hardware"], vkey):
        s["hardware"] = default_hardware(b.recipe, b.taxonomy, vkey)
    s["fmode"] = {}
    if s["features"] is not None:
        normal = set(b.defaults(s["hardware"], "default")) - b.forced("default")
        feats = [f for f in s["features"] if not (f in b.forced(old) - b.forced(vkey) and f not in normal)]
        feats += [f for f in b.forced(vkey) if f not in feats]
        s["features"] = [f for f in b.features if f in feats]


def _apply_preset(b: _B, s: dict[str, Any], pkey: Any, point: Any) -> None:
    preset = _dict(_dict(b.recipe.get("presets")).get(pkey))
    if not preset:
        s["preset"] = s["point"] = None
        return
    points = _dict(preset.get("points"))
    point = point if point in points else next(iter(points), None)
    sel = _preset_point_selection(b.recipe, preset, _dict(points.get(point)))
    fresh = _fresh_state()
    fresh.update(install=s["install"], cuda=s["cuda"], preset=pkey, point=point, variant=sel["variant"],
                 hardware=sel["hardware"], strategy=sel["strategy"], features=sel["features"],
                 fmode=dict(sel["modes"]), kv_offload=sel["kv_offload"])
    nodes = _nodes_value(sel["nodes"])
    fresh["nodes"] = nodes or nodes_for(b.recipe, b.vocab, sel["strategy"], b.profile(sel["hardware"]),
                                        sel["hardware"])
    s.clear()
    s.update(fresh)


def _event(b: _B, s: dict[str, Any], ev: dict[str, Any], out: dict[str, Any]) -> None:
    """Apply one click (``{"type": ..., "value": ..., ...}``) to the state."""
    kind, value = ev.get("type"), ev.get("value")
    if kind not in ("install", "cuda", "point", "preset", "kv_instance", "pool_rank", "refresh"):
        s["preset"] = s["point"] = None
    hw = s["hardware"]
    sid = None if b.omni else b.active_strategy(hw, s["nodes"], s["strategy"])
    if kind == "hardware":
        _on_hardware(b, s, js_str(value), out)
    elif kind == "variant":
        _on_variant(b, s, js_str(value))
    elif kind == "strategy":
        row = b.row_strategies(hw, s["nodes"])
        if value in row and strategy_supported(b.recipe, value, b.profile(hw), hw):
            s["strategy"] = value
            if value != "pd_cluster" and b.clusterable(hw):
                s["nodes"] = max(s["nodes"], b.floor_nodes(value, hw))
    elif kind == "nodes":
        n = _int_or(value)
        if n in node_pills(b.recipe, b.vocab, hw) and _node_reason(b, s, n) is None:
            s["nodes"], s["strategy"] = n, None
    elif kind in ("kv_offload", "kv_member", "topology"):
        _on_kv(b, s, js_str(value) if value is not None else "off", sid)
    elif kind == "kv_instances":
        n = _int_or(value, None)
        s["kv_instances"] = 1 if n is None else min(max(n, 1), _MAX_INSTANCES)
    elif kind == "kv_instance":
        s["kv_instance"] = _int_or(value, 1) - 1
    elif kind == "feature":
        key = js_str(value)
        if key in b.features and _feature_reason(b, s, key, sid) is None:
            feats = _enabled(b, s)
            if key in feats:
                feats.remove(key)
            else:
                feats.append(key)
                if _EXCLUSIVE.get(key) in feats:
                    feats.remove(_EXCLUSIVE[key])
            s["features"] = [f for f in b.features if f in feats]
    elif kind == "mode":
        fkey = js_str(ev.get("feature"))
        if js_str(value) in available_modes(_dict(b.features.get(fkey)), s["variant"], b.profile(hw), hw):
            s["fmode"][fkey] = js_str(value)
    elif kind == "advanced":
        key = js_str(value)
        s["advanced"] = [a for a in s["advanced"] if a != key] if key in s["advanced"] else s["advanced"] + [key]
    elif kind in ("pool_nodes", "pool_mode", "pool_rank"):
        role = ev.get("role")
        if role in ("prefill", "decode"):
            pools = _pools(b, s)
            if kind == "pool_nodes":
                s[f"{role}_nodes"] = _clamp(value, 1, MAX_NODES, 1)
                s[f"{role}_rank"] = 0
            elif kind == "pool_mode" and value in pools[role]["modes"]:
                s[f"{role}_mode"] = value
                s[f"{role}_rank"] = 0
                floor = nodes_for_strategy(b.recipe, value, b.profile(hw).get("gpu_count"), hw)
                s[f"{role}_nodes"] = max(pools[role]["nodes"], floor)
            elif kind == "pool_rank":
                s[f"{role}_rank"] = _int_or(value, 1) - 1
    elif kind == "task":
        s["task"] = js_str(value)
    elif kind == "axis":
        _on_axis(b, s, js_str(ev.get("axis")), js_str(value))
    elif kind == "install" and value in ("pip", "docker"):
        s["install"] = value
    elif kind == "cuda":
        s["cuda"] = "cu129" if value == "cu129" else "default"
    elif kind == "preset":
        _apply_preset(b, s, value, None)
    elif kind == "point":
        _apply_preset(b, s, s["preset"], value)
    elif kind == "reset":
        keep = {k: s[k] for k in ("install", "cuda")}
        s.clear()
        s.update(_fresh_state(), **keep)
        s["hardware"] = default_hardware(b.recipe, b.taxonomy, "default")
        s["nodes"] = initial_node_count(b.recipe, b.vocab, "default", s["hardware"])


def _on_kv(b: _B, s: dict[str, Any], value: str, sid: str | None) -> None:
    """CB-KV-05/06/08/10."""
    hw = s["hardware"]
    options = _dict(b.taxonomy.get("kv_offload"))
    if value == "off":
        s["kv_offload"], s["kv_instances"], s["kv_instance"] = None, None, 0
    elif value == "mooncake":
        if b.mooncake_reason(hw) is None:
            first = next((t for t in b.kv_ids if b.mooncake_reason(hw, t) is None), None)
            if s["kv_offload"] not in b.kv_ids:
                s["kv_offload"], s["kv_instance"] = first, 0
    elif value in b.kv_ids:
        if b.mooncake_reason(hw, value) is None:
            s["kv_offload"] = value
    elif value in _dict(b.taxonomy.get("kv_offload_groups")):
        members = sorted((k for k, o in options.items() if _get(o, "group") == value),
                         key=lambda k: _dict(options[k]).get("order") or 0)
        pick = next((m for m in members if b.kv_reason(m, hw, sid) is None), None)
        if pick is not None:
            s["kv_offload"], s["kv_instances"], s["kv_instance"] = pick, None, 0
    elif value in options and b.kv_reason(value, hw, sid) is None:
        s["kv_offload"], s["kv_instances"], s["kv_instance"] = value, None, 0


def _on_axis(b: _B, s: dict[str, Any], axis: str, option: str) -> None:
    tasks = [omni_task_for_hardware(t, s["hardware"]) for t in omni_tasks(b.recipe)]
    cur = active_omni_task(b.recipe, s["task"], s["hardware"])
    want = dict(_dict(cur.get("axes")) if cur else {})
    want[axis] = option
    match = next((t for t in tasks if _dict(t.get("axes")) == want), None) or next(
        (t for t in tasks if _dict(t.get("axes")).get(axis) == option), None)
    if match is not None:
        s["task"] = match["key"]
