"""Builder control rows (pills) of the view."""

from __future__ import annotations

from typing import Any

from ..features import _feature_allowed, _has_companion, available_modes, effective_mode
from ..hardware import (
    _allowlisted,
    _gpus,
    _model_id,
    _precision_constraint,
    _precision_ok,
    _scalable,
    _variant,
    _vram,
    default_hardware,
    fits_single_node,
    pick_fitting_variant,
)
from ..omni import omni_task_for_hardware, omni_tasks
from ..strategies import node_pills, strategy_supported
from ..values import MAX_NODES, _dict, _get, _int_if_integral, _is_num, _list, _truthy, js_str
from .facts import (
    _B,
    _FEATURE_ICONS,
    _MAX_INSTANCES,
    _ORIENTATION,
    _POOL_MODE_TIPS,
    _feature_label,
    _hw_name,
    _is_xpu,
    _per_gpu,
    _pill,
    _title_key,
    _variant_label,
)
from .state import _enabled, _pools


def _node_reason(b: _B, s: dict[str, Any], n: int) -> str | None:
    hw = s["hardware"]
    p = b.profile(hw)
    name = _hw_name(b.taxonomy, hw)
    variant = _variant(b.recipe, s["variant"])
    if n == 1:
        if not fits_single_node(p, variant):
            return (f"{_variant_label(s['variant'], variant)} needs {js_str(variant.get('vram_minimum_gb'))} GB; "
                    f"one {name} node has {js_str(_int_if_integral(_vram(p)))} GB. Use multi-node.")
        return None
    if not b.multi_capable():
        return "This model fits in one node; the recipe has no multi-node strategy."
    if _is_xpu(p):
        return "Multi-node is not validated on Intel XPU."
    if not _scalable(p):
        return f"{name} is a workstation and can't be clustered."
    return None


def _feature_reason(b: _B, s: dict[str, Any], key: str, sid: str | None) -> str | None:
    feature = _dict(b.features.get(key))
    if sid and not _feature_allowed(feature, sid):
        return "Not available with this strategy."
    if _has_companion(feature) and s["kv_offload"] in b.kv_ids and sid != "pd_cluster":
        return "Needs a companion process, which Mooncake does not run: set KV Offload to Off."
    return None


def _row(rid: str, label: str, pills: list[Any], kind: str = "radio", **extra: Any) -> dict[str, Any]:
    row = {"id": rid, "label": label, "kind": kind, "pills": pills}
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


def _hardware_row(b: _B, s: dict[str, Any]) -> dict[str, Any]:
    groups: list[dict[str, Any]] = []
    cur_v = _variant(b.recipe, s["variant"])
    for hw in b.listed():
        p = b.profile(hw)
        mark = b.declared.get(hw)
        reason = None
        if mark == "unsupported":
            reason = f"{_hw_name(b.taxonomy, hw)} is not yet supported for this model; it may be enabled later."
        elif b.omni:
            c = _precision_constraint(cur_v)
            if not _precision_ok(cur_v, p):
                reason = (f"{_variant_label(s['variant'], cur_v)} needs "
                          f"{'NVIDIA Blackwell' if _get(c, 'generation') == 'blackwell' else js_str(_get(c, 'brand'))}"
                          " hardware.")
            elif not _allowlisted(cur_v, hw):
                names = ", ".join(_hw_name(b.taxonomy, h) for h in _list(cur_v.get("supported_hardware")))
                reason = f"This variant runs only on: {names}."
        elif not b.any_variant_runs(hw):
            reason = f"No variant of this model runs on {_hw_name(b.taxonomy, hw)}."
        tip = [js_str(p.get("description") or _hw_name(b.taxonomy, hw))]
        if mark == "verified":
            tip.append("Verified end-to-end by the recipe author.")
        if reason is None and not b.omni and not b.runs(hw, s["variant"]):
            alt = pick_fitting_variant(b.recipe, p, hw)
            if alt:
                tip.append(f"Choosing it also switches Variant to {_variant_label(alt, _variant(b.recipe, alt))}.")
        brand = js_str(p.get("brand") or "Other")
        if not groups or groups[-1]["label"] != brand:
            groups.append({"label": brand, "pills": []})
        groups[-1]["pills"].append(_pill(hw, _hw_name(b.taxonomy, hw), hw == s["hardware"], reason,
                                         "\n\n".join(tip), sub=_per_gpu(p), verified=mark == "verified"))
    pills = [pill for g in groups for pill in g["pills"]]
    return _row("hardware", "Hardware", pills, groups=groups)


def _variant_row(b: _B, s: dict[str, Any]) -> dict[str, Any] | None:
    if b.omni and len(b.variants) <= 1:
        return None
    pills = []
    hw = s["hardware"]
    for key, v in b.variants.items():
        v = _dict(v)
        reason = None
        if b.omni:
            if not b.usable(hw, key):
                reason = f"{_variant_label(key, v)} can't run on {_hw_name(b.taxonomy, hw)}."
        elif not any(b.runs(h, key) for h in b.listed()):
            reason = "No supported hardware can run this variant."
        need = v.get("vram_minimum_gb")
        tip = [js_str(v.get("description") or "")] if v.get("description") else []
        if _is_num(need):
            tip.append(f"Needs at least {js_str(need)} GB to load the weights; the KV cache needs more. "
                       "Multi-node can scale out.")
        if reason is None and not b.omni and not b.usable(hw, key):
            target = default_hardware(b.recipe, b.taxonomy, key)
            tip.append(f"Choosing it also switches Hardware to {_hw_name(b.taxonomy, target)}.")
        pills.append(_pill(key, _variant_label(key, v), key == s["variant"], reason, "\n\n".join(tip),
                           sub=f"{js_str(need)} GB" if _is_num(need) else None))
    v = _variant(b.recipe, s["variant"])
    omni = _dict(b.recipe.get("omni"))
    hint = ("The GB figure is the minimum to load the weights (about params × bytes × 1.2), not a serving "
            "budget: long contexts and big batches need roughly 1.5-2× more for the KV cache.")
    return _row("variant", js_str(omni.get("variant_label") or "Variant") if b.omni else "Variant", pills,
                hint=js_str(omni.get("variant_hint")) if b.omni and omni.get("variant_hint") else hint,
                below=js_str(v.get("description")) if v.get("description") else None,
                link=f"https://huggingface.co/{_model_id(b.recipe, v)}" if _model_id(b.recipe, v) != "unknown"
                else None)


def _strategy_row(b: _B, s: dict[str, Any], sid: str | None) -> dict[str, Any]:
    hw = s["hardware"]
    p = b.profile(hw)
    rec = b.recommended(hw, s["nodes"])
    pills = []
    for x in b.row_strategies(hw, s["nodes"]):
        st = _dict(b.strategies.get(x))
        reason = None if strategy_supported(b.recipe, x, p, hw) else \
            f"Not supported on {_hw_name(b.taxonomy, hw)} for this model."
        pills.append(_pill(x, js_str(st.get("display_name") or x), x == sid, reason,
                           js_str(st.get("description") or "").strip(), recommended=x == rec))
    st = _dict(b.strategies.get(sid))
    below = js_str(st.get("description") or "").strip().split("\n")[0]
    suffix = None
    if s["kv_offload"] in b.kv_ids and sid != "pd_cluster":
        suffix = "Every Mooncake instance runs this strategy."
    orient = st.get("orientation")
    return _row("strategy", "Strategy", pills, below=below or None, suffix=suffix,
                badge={"value": orient, "label": _ORIENTATION.get(orient, js_str(orient))} if orient else None)


def _kv_rows(b: _B, s: dict[str, Any], sid: str | None, effective: str | None) -> list[dict[str, Any]]:
    hw = s["hardware"]
    options = _dict(b.taxonomy.get("kv_offload"))
    groups = _dict(b.taxonomy.get("kv_offload_groups"))
    entries: list[tuple[Any, str, str]] = []
    seen_groups = set()
    for key, opt in options.items():
        g = _get(opt, "group")
        if g in groups:
            if g not in seen_groups:
                seen_groups.add(g)
                entries.append((_dict(groups[g]).get("order") or 0, "group", g))
        else:
            entries.append((_dict(opt).get("order") or 0, "option", key))
    entries.append((3, "mooncake", "mooncake"))
    entries.sort(key=lambda e: e[0] if _is_num(e[0]) else 0)
    pills = [_pill("off", "Off", effective is None, None, "KV cache stays in GPU memory.")]
    sub_rows: list[dict[str, Any]] = []
    below, docs = None, None
    for _, kind, key in entries:
        if kind == "option":
            opt = _dict(options[key])
            reason = b.kv_reason(key, hw, sid)
            pills.append(_pill(key, js_str(opt.get("label") or opt.get("display_name") or key), effective == key,
                               reason, js_str(opt.get("description") or "")))
            if effective == key:
                below, docs = opt.get("description"), opt.get("docs_url")
        elif kind == "group":
            grp = _dict(groups[key])
            members = sorted((k for k, o in options.items() if _get(o, "group") == key),
                             key=lambda k: _dict(options[k]).get("order") or 0)
            reasons = {m: b.kv_reason(m, hw, sid) for m in members}
            reason = None if any(r is None for r in reasons.values()) else next(iter(reasons.values()), None)
            active = effective in members
            pills.append(_pill(key, js_str(grp.get("label") or key), active, reason,
                               js_str(grp.get("tooltip") or grp.get("description") or "")))
            if active:
                below, docs = grp.get("description"), grp.get("docs_url")
                mpills = [_pill(m, js_str(_dict(options[m]).get("label") or m), m == effective, reasons[m],
                                js_str(_dict(options[m]).get("description") or "")) for m in members]
                sub_rows.append(_row("kv_member", js_str(grp.get("sub_row_label") or "Offload Tiers"), mpills,
                                     nested=True, below=js_str(_dict(options[effective]).get("description") or "")))
        else:
            reason = b.mooncake_reason(hw)
            active = effective in b.kv_ids
            pills.append(_pill("mooncake", "Mooncake", active, reason,
                               "Mooncake distributed KV store: a shared CPU-DRAM cache pool across vLLM instances."))
            if active:
                below = ("Mooncake pools CPU DRAM across instances as a shared KV cache; a master process "
                         "coordinates it and a cache-aware router shares it between instances.")
                docs = "https://docs.vllm.ai/en/latest/features/mooncake_connector_usage.html"
                tpills = []
                for t in b.kv_ids:
                    dep = _dict(b.strategies.get(t))
                    tpills.append(_pill(t, js_str(dep.get("label") or dep.get("display_name") or t), t == effective,
                                        b.mooncake_reason(hw, t), js_str(dep.get("description") or "").strip()))
                sub_rows.append(_row("topology", "Store Topology", tpills, nested=True,
                                     below=js_str(_dict(b.strategies.get(effective)).get("description") or "")
                                     .strip()))
                if sid != "pd_cluster":
                    dep = _dict(b.strategies.get(effective))
                    count = s["kv_instances"] or dep.get("default_instances") or 1
                    g = _gpus(b.profile(hw))
                    n = s["nodes"]
                    sub_rows.append(_row(
                        "instances", "Instances", [], kind="number", nested=True, value=count, min=1,
                        max=_MAX_INSTANCES, input_label="Number of vLLM instances",
                        text=f"× {n} node{'s' if n > 1 else ''} × {g} GPUs = {count * n * g} GPUs total",
                        hint="At 2 or more instances a cache-aware router appears in front of them."))
    row = _row("kv_offload", "KV Offload", pills, below=js_str(below).strip() if below else None, docs=docs)
    return [row, *sub_rows]


def _nodes_rows(b: _B, s: dict[str, Any], sid: str | None) -> list[dict[str, Any]]:
    hw = s["hardware"]
    p = b.profile(hw)
    g = _gpus(p)
    mooncake = s["kv_offload"] in b.kv_ids
    if sid == "pd_cluster":
        pools = _pools(b, s)
        rows = []
        total_gpus = total_nodes = 0
        for role in ("prefill", "decode"):
            pool = pools[role]
            mpills = [_pill(m, m.upper(), m == pool["parallelism"], None, _POOL_MODE_TIPS[m]) for m in pool["modes"]]
            rows.append(_row(f"{role}_pool", role.capitalize(), mpills if len(mpills) > 1 else [], kind="pool",
                             nested=True, role=role, value=pool["nodes"], min=1, max=MAX_NODES,
                             input_label=f"{role.capitalize()} node count",
                             text=f"× {g} = {pool['nodes'] * g} GPUs"))
            total_gpus += pool["nodes"] * g
            total_nodes += pool["nodes"]
        rows[-1]["after"] = f"total {total_gpus} GPUs · {total_nodes} nodes"
        rows[0]["hint"] = "Prefill and decode run as independent pools, each sized on its own."
        return rows
    count = (s["kv_instances"] or _dict(b.strategies.get(s["kv_offload"])).get("default_instances") or 1) \
        if mooncake else 1
    pills = []
    for n in node_pills(b.recipe, b.vocab, hw):
        reason = _node_reason(b, s, n)
        if n == 1:
            label, tip = "Single-node", f"One {_hw_name(b.taxonomy, hw)} node ({g} GPUs)."
            sub = None
        else:
            label = f"Multi-node (example: {n})"
            tip = (f"{n} nodes × {g} GPUs = {n * g} GPUs" + (f" per instance, × {count} instances" if mooncake else "")
                   + ". To go further, replicate the worker command with higher node / DP ranks.")
            sub = f"{n * g * count}×GPU" if reason is None else None
        pills.append(_pill(n, label, n == s["nodes"], reason, tip, sub=sub))
    return [_row("nodes", "Nodes / Instance" if mooncake else "Nodes", pills)]


def _features_rows(b: _B, s: dict[str, Any], sid: str | None) -> list[dict[str, Any]]:
    if not b.features:
        return []
    hw, p = s["hardware"], b.profile(s["hardware"])
    enabled = _enabled(b, s)
    pills, rows, notes = [], [], []
    for key, f in b.features.items():
        f = _dict(f)
        reason = _feature_reason(b, s, key, sid)
        label = _feature_label(key, f)
        if key == "spec_decoding":
            label += " (for low latency & small batch size)"
        pills.append(_pill(key, label, key in enabled, reason, js_str(f.get("description") or ""),
                           icon=_FEATURE_ICONS.get(key)))
        if key in enabled and reason is None and f.get("modes"):
            avail = available_modes(f, s["variant"], p, hw)
            mode = effective_mode(b.recipe, key, s["variant"], p, hw, s["fmode"].get(key))
            variant_modes = [m for m, md in _dict(f.get("modes")).items()
                             if not (isinstance(_dict(md).get("variants"), list) and _dict(md).get("variants")
                                     and s["variant"] not in _dict(md)["variants"])]
            if len(variant_modes) >= 2:
                mp = []
                for m in variant_modes:
                    md = _dict(_dict(f.get("modes")).get(m))
                    mp.append(_pill(m, js_str(md.get("label") or _title_key(m)), m == mode,
                                    None if m in avail else "Not supported on this hardware.",
                                    js_str(md.get("description") or "")))
                rows.append(_row(f"mode_{key}", "Spec method" if key == "spec_decoding" else f"{label} method", mp,
                                 nested=True, feature=key))
            note = _get(_dict(f.get("modes")).get(mode), "note")
            if _truthy(note):
                notes.append(js_str(note))
    return [_row("features", "Features", pills, kind="toggle", below="\n".join(notes) or None), *rows]


def _omni_rows(b: _B, s: dict[str, Any], task: dict[str, Any] | None) -> list[dict[str, Any]]:
    omni = _dict(b.recipe.get("omni"))
    tasks = [omni_task_for_hardware(t, s["hardware"]) for t in omni_tasks(b.recipe)]
    axes = _list(omni.get("task_axes"))
    if axes and task is not None:
        rows = []
        cur = _dict(task.get("axes"))
        for i, axis in enumerate(axes):
            axis = _dict(axis)
            aid = axis.get("id")
            pills = []
            for opt in _list(axis.get("options")):
                opt = _dict(opt)
                want = {**cur, aid: opt.get("id")}
                ok = any(all(_dict(t.get("axes")).get(k) == v for k, v in want.items()) for t in tasks)
                pills.append(_pill(opt.get("id"), js_str(opt.get("label") or opt.get("id")), cur.get(aid) == opt.get("id"),
                                   None if ok else "This combination is not available.", ""))
            extra = {}
            if i == len(axes) - 1:
                need = task.get("vramMinimumGb")
                extra["below"] = js_str(task.get("description") or "") + (f" · {js_str(need)} GB minimum"
                                                                          if need is not None else "")
            rows.append(_row(f"axis_{aid}", js_str(axis.get("label") or aid), pills, axis=aid,
                             hint=js_str(omni.get("task_hint")) if i == 0 and omni.get("task_hint") else None, **extra))
        return rows
    if len(tasks) <= 1:
        return []
    pills = []
    for t in tasks:
        need = t.get("vramMinimumGb")
        pills.append(_pill(t["key"], js_str(t["label"]), task is not None and t["key"] == task["key"], None,
                           (js_str(t.get("description") or "") + f"\n\n{t['endpoint']}").strip(),
                           sub=f"{js_str(need)} GB" if need is not None else None))
    return [_row("task", js_str(omni.get("task_label") or "Task"), pills,
                 hint=js_str(omni.get("task_hint")) if omni.get("task_hint") else None,
                 below=js_str(task.get("description")) if task and task.get("description") else None)]
