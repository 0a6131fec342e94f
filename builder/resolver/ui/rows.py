"""Builder control rows (pills) of the view."""

from __future__ import annotations

from typing import Any, cast

from ..features import available_modes, feature_allowed, has_companion
from ..hardware import (
    allowlisted,
    fits_single_node,
    gpu_count_of,
    is_scalable,
    node_vram_gb,
    pick_fitting_variant,
    precision_hardware_name,
    precision_ok,
    served_model_id,
    variant_of,
)
from ..omni import omni_task_for_hardware, omni_tasks
from ..types import ClickEvent
from ..values import MAX_NODES, as_dict, as_list, get_key, int_if_integral, is_num, js_str, truthy
from .facts import (
    FEATURE_ICONS,
    ORIENTATION_LABELS,
    POOL_MODE_TIPS,
    BuilderFacts,
    counted,
    device_noun,
    feature_label,
    hardware_name,
    is_xpu,
    make_pill,
    per_gpu_label,
    title_key,
    variant_label,
)
from .state import enabled_features, instance_count, pd_pools


def node_reason(facts: BuilderFacts, state: dict[str, Any], n: int) -> str | None:
    hw = state["hardware"]
    p = facts.profile(hw)
    name = hardware_name(facts.taxonomy, hw)
    variant = variant_of(facts.recipe, state["variant"])
    if n == 1:
        if not fits_single_node(p, variant):
            return (f"{variant_label(state['variant'], variant)} needs "
                    f"{js_str(variant.get('vram_minimum_gb'))} GB; one {name} node has "
                    f"{js_str(int_if_integral(node_vram_gb(p)))} GB. Use multi-node.")
        return None
    if not facts.multi_capable():
        return "This model fits in one node; the recipe has no multi-node strategy."
    if is_xpu(p):
        return "Multi-node is not validated on Intel XPU."
    if not is_scalable(p):
        return f"{name} is a workstation and can't be clustered."
    return None


def feature_reason(facts: BuilderFacts, state: dict[str, Any], key: str, sid: str | None) -> str | None:
    feature = as_dict(facts.features.get(key))
    if sid and not feature_allowed(feature, sid):
        return "Not available with this strategy."
    if has_companion(feature) and state["kv_offload"] in facts.kv_ids and sid != "pd_cluster":
        return "Needs a companion process, which Mooncake does not run: set KV Offload to Off."
    return None


def make_row(rid: str, label: str, pills: list[Any], kind: str = "radio", **extra: Any) -> dict[str, Any]:
    """A control row of the view: ``event`` is the click its pills send (each adds its ``value``, unless
    the pill carries an ``event`` of its own), ``input_event`` that of its number input (kinds number
    and pool)."""
    row = {"id": rid, "label": label, "kind": kind, "pills": pills}
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


def copy_row(row: dict[str, Any]) -> dict[str, Any]:
    """A copy of a row its caller may change: the row, its pills, its groups and its dict values (``event``,
    ``badge``) are new objects, the texts and numbers shared (for rows whose pills hold no dict or list,
    as :func:`hardware_row`'s, :func:`variant_row`'s and ``kv_rows``')."""
    out = {key: dict(value) if type(value) is dict else value for key, value in row.items()}
    pills = out["pills"] = [dict(pill) for pill in row["pills"]]
    if "groups" in row:  # the groups hold the row's pills themselves
        new = {id(old): pill for old, pill in zip(row["pills"], pills, strict=True)}
        out["groups"] = [{**group, "pills": [new[id(pill)] for pill in group["pills"]]}
                         for group in row["groups"]]
    return out


def copy_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [copy_row(row) for row in rows]


def _copy_optional_row(row: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if row is None else copy_row(row)


def pill_event(row: dict[str, Any], pill: dict[str, Any]) -> ClickEvent:
    """The click a pill of ``row`` sends (static/builder.js ``pillEvent`` is the same rule)."""
    own = pill.get("event")
    return cast(ClickEvent, own if own is not None else {**row["event"], "value": pill["value"]})


def hardware_row(facts: BuilderFacts, state: dict[str, Any]) -> dict[str, Any]:
    """The Hardware row: a function of the state's variant and hardware only. The row of the variant
    with no pill selected is recalled per variant; the state's hardware pill is then selected (unless
    disabled), so a click on another GPU recomputes no pill."""
    variant, hw = state["variant"], state["hardware"]
    if not isinstance(variant, str):
        return _hardware_row(facts, variant, hw)
    row = facts.recall(("hardware_row", variant), lambda: _hardware_row(facts, variant, None), copy_row)
    for pill in row["pills"]:  # the same pill objects as the groups
        if pill["value"] == hw and not pill["disabled"]:
            pill["selected"] = True
    return row


def _hardware_row(facts: BuilderFacts, variant: str, selected: str | None) -> dict[str, Any]:
    groups: list[dict[str, Any]] = []
    cur_v = variant_of(facts.recipe, variant)
    for hw in facts.listed():
        p = facts.profile(hw)
        mark = facts.declared.get(hw)
        reason = None
        if mark == "unsupported":
            reason = (f"{hardware_name(facts.taxonomy, hw)} is not yet supported for this model; it may "
                      "be enabled later.")
        elif facts.omni:
            if not precision_ok(cur_v, p):
                reason = (f"{variant_label(variant, cur_v)} needs "
                          f"{precision_hardware_name(cur_v)} hardware.")
            elif not allowlisted(cur_v, hw):
                names = ", ".join(hardware_name(facts.taxonomy, h)
                                  for h in as_list(cur_v.get("supported_hardware")))
                reason = f"This variant runs only on: {names}."
        elif not facts.any_variant_runs(hw):
            reason = f"No variant of this model runs on {hardware_name(facts.taxonomy, hw)}."
        tip = [js_str(p.get("description") or hardware_name(facts.taxonomy, hw))]
        if mark == "verified":
            tip.append("Verified end-to-end by the recipe author.")
        if reason is None and not facts.omni and not facts.runs(hw, variant):
            alt = pick_fitting_variant(facts.recipe, p, hw)
            if alt:
                tip.append("Choosing it also switches Variant to "
                           f"{variant_label(alt, variant_of(facts.recipe, alt))}.")
        brand = js_str(p.get("brand") or "Other")
        if not groups or groups[-1]["label"] != brand:
            groups.append({"label": brand, "pills": []})
        groups[-1]["pills"].append(
            make_pill(hw, hardware_name(facts.taxonomy, hw), hw == selected, reason,
                  "\n\n".join(tip), sub=per_gpu_label(p), verified=mark == "verified"))
    pills = [pill for g in groups for pill in g["pills"]]
    return make_row("hardware", "Hardware", pills, groups=groups, event={"type": "hardware"})


def variant_row(facts: BuilderFacts, state: dict[str, Any]) -> dict[str, Any] | None:
    """The Variant row (None: none shown): a function of the state's variant and hardware only, and
    outside omni of the hardware only through which variants it can use (recalled per such pattern:
    most GPUs share one)."""
    variant, hw = state["variant"], state["hardware"]
    if not isinstance(hw, str):
        return _variant_row(facts, variant, hw)
    usable = hw if facts.omni else tuple(facts.usable(hw, key) for key in facts.variants)
    return facts.recall(("variant_row", variant, usable), lambda: _variant_row(facts, variant, hw),
                        _copy_optional_row)


def _variant_row(facts: BuilderFacts, variant: str, hw: str) -> dict[str, Any] | None:
    if facts.omni and len(facts.variants) <= 1:
        return None
    pills = []
    for key, v in facts.variants.items():
        v = as_dict(v)
        reason = None
        if facts.omni:
            if not facts.usable(hw, key):
                reason = f"{variant_label(key, v)} can't run on {hardware_name(facts.taxonomy, hw)}."
        elif not facts.runs_somewhere(key):
            reason = "No supported hardware can run this variant."
        need = v.get("vram_minimum_gb")
        tip = [js_str(v.get("description") or "")] if v.get("description") else []
        if is_num(need):
            tip.append(f"Needs at least {js_str(need)} GB to load the weights; the KV cache needs more. "
                       "Multi-node can scale out.")
        if reason is None and not facts.omni and not facts.usable(hw, key):
            target = facts.default_hw(key)
            tip.append(f"Choosing it also switches Hardware to {hardware_name(facts.taxonomy, target)}.")
        pills.append(make_pill(key, variant_label(key, v), key == variant, reason, "\n\n".join(tip),
                           sub=f"{js_str(need)} GB" if is_num(need) else None))
    v = variant_of(facts.recipe, variant)
    omni = as_dict(facts.recipe.get("omni"))
    hint = ("The GB figure is the minimum to load the weights (about params × bytes × 1.2), not a serving "
            "budget: long contexts and big batches need roughly 1.5-2× more for the KV cache.")
    return make_row("variant", js_str(omni.get("variant_label") or "Variant") if facts.omni else "Variant",
                    pills, event={"type": "variant"},
                hint=js_str(omni.get("variant_hint")) if facts.omni and omni.get("variant_hint") else hint,
                below=js_str(v.get("description")) if v.get("description") else None,
                link=f"https://huggingface.co/{served_model_id(facts.recipe, v)}"
                    if served_model_id(facts.recipe, v) != "unknown"
                else None)


def strategy_row(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> dict[str, Any]:
    """The Strategy row: a function of the hardware, the node count, the strategy in effect and whether
    Mooncake runs it (recalled per such tuple)."""
    hw, nodes = state["hardware"], state["nodes"]
    if isinstance(hw, str) and type(nodes) is int and (sid is None or isinstance(sid, str)):
        key = ("strategy_row", hw, nodes, sid, state["kv_offload"] in facts.kv_ids)
        return facts.recall(key, lambda: _strategy_row(facts, state, sid), copy_row)
    return _strategy_row(facts, state, sid)


def _strategy_row(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> dict[str, Any]:
    hw = state["hardware"]
    rec = facts.recommended(hw, state["nodes"])
    pills = []
    for x in facts.row_strategies(hw, state["nodes"]):
        st = as_dict(facts.strategies.get(x))
        reason = None if facts.supported(x, hw) else \
            f"Not supported on {hardware_name(facts.taxonomy, hw)} for this model."
        pills.append(make_pill(x, js_str(st.get("display_name") or x), x == sid, reason,
                           js_str(st.get("description") or "").strip(), recommended=x == rec))
    st = as_dict(get_key(facts.strategies, sid))
    below = js_str(st.get("description") or "").strip().split("\n")[0]
    suffix = None
    if state["kv_offload"] in facts.kv_ids and sid != "pd_cluster":
        suffix = "Every Mooncake instance runs this strategy."
    orient = st.get("orientation")
    return make_row("strategy", "Strategy", pills, below=below or None, suffix=suffix,
                    event={"type": "strategy"},
                badge={"value": orient, "label": ORIENTATION_LABELS.get(orient, js_str(orient))} if orient
                    else None)


def nodes_rows(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> list[dict[str, Any]]:
    """The Nodes row (the PD pools' rows under PD): outside PD a function of the hardware, the variant,
    the node count and Mooncake's instance count (recalled per such tuple)."""
    hw, variant, nodes = state["hardware"], state["variant"], state["nodes"]
    kv = state["kv_offload"]
    count = instance_count(facts, state, kv) if kv in facts.kv_ids else None
    if sid != "pd_cluster" and isinstance(hw, str) and isinstance(variant, str) and type(nodes) is int and (
            count is None or type(count) is int):
        return facts.recall(("nodes_rows", hw, variant, nodes, count),
                            lambda: _nodes_rows(facts, state, sid), copy_rows)
    return _nodes_rows(facts, state, sid)


def _nodes_rows(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> list[dict[str, Any]]:
    hw = state["hardware"]
    p = facts.profile(hw)
    g = gpu_count_of(p)
    noun = device_noun(p)
    mooncake = state["kv_offload"] in facts.kv_ids
    if sid == "pd_cluster":
        pools = pd_pools(facts, state)
        rows = []
        total_gpus = total_nodes = 0
        for role in ("prefill", "decode"):
            pool = pools[role]
            mpills = [make_pill(m, m.upper(), m == pool["parallelism"], None, POOL_MODE_TIPS[m])
                      for m in pool["modes"]]
            rows.append(
                make_row(f"{role}_pool", role.capitalize(), mpills if len(mpills) > 1 else [], kind="pool",
                     nested=True, role=role, value=pool["nodes"], min=1, max=MAX_NODES,
                     input_label=f"{role.capitalize()} node count",
                     event={"type": "pool_mode", "role": role},
                     input_event={"type": "pool_nodes", "role": role},
                     text=f"× {g} = {counted(pool['nodes'] * g, noun)}"))
            total_gpus += pool["nodes"] * g
            total_nodes += pool["nodes"]
        rows[-1]["after"] = f"total {counted(total_gpus, noun)} · {counted(total_nodes, 'node')}"
        rows[0]["hint"] = "Prefill and decode run as independent pools, each sized on its own."
        return rows
    count = instance_count(facts, state, state["kv_offload"]) if mooncake else 1
    pills = []
    for n in facts.node_pills(hw):
        reason = node_reason(facts, state, n)
        if n == 1:
            label, tip = "Single-node", f"One {hardware_name(facts.taxonomy, hw)} node ({counted(g, noun)})."
            sub = None
        else:
            label = f"Multi-node (example: {n})"
            tip = (f"{n} nodes × {counted(g, noun)} = {counted(n * g, noun)}"
                   + (f" per instance, × {counted(count, 'instance')}" if mooncake else "")
                   + ". To go further, replicate the worker command with higher node / DP ranks.")
            sub = f"{n * g * count}×{noun}" if reason is None else None
        pills.append(make_pill(n, label, n == state["nodes"], reason, tip, sub=sub))
    return [make_row("nodes", "Nodes / Instance" if mooncake else "Nodes", pills, event={"type": "nodes"})]


def features_rows(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> list[dict[str, Any]]:
    """The Features row and its method rows: a function of the hardware, the variant, the strategy, the
    enabled features, their modes and whether Mooncake is on (recalled per such tuple)."""
    if not facts.features:
        return []
    hw, variant, fmode = state["hardware"], state["variant"], state["fmode"]
    enabled = tuple(enabled_features(facts, state))
    if all(type(k) is str for k in (hw, variant, *enabled, *fmode, *fmode.values())) and (
            sid is None or isinstance(sid, str)):
        key = ("features_rows", hw, variant, sid, enabled, tuple(fmode.items()),
               state["kv_offload"] in facts.kv_ids)
        return facts.recall(key, lambda: _features_rows(facts, state, sid), copy_rows)
    return _features_rows(facts, state, sid)


def _features_rows(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> list[dict[str, Any]]:
    hw, p = state["hardware"], facts.profile(state["hardware"])
    enabled = enabled_features(facts, state)
    pills, rows, notes = [], [], []
    for key, f in facts.features.items():
        f = as_dict(f)
        reason = feature_reason(facts, state, key, sid)
        label = feature_label(key, f)
        if key == "spec_decoding":
            label += " (for low latency & small batch size)"
        pills.append(make_pill(key, label, key in enabled, reason, js_str(f.get("description") or ""),
                           icon=FEATURE_ICONS.get(key)))
        if key in enabled and reason is None and f.get("modes"):
            avail = available_modes(f, state["variant"], p, hw)
            mode = facts.mode(key, state["variant"], hw, state["fmode"].get(key))
            variant_modes = [m for m, md in as_dict(f.get("modes")).items()
                             if not (isinstance(as_dict(md).get("variants"), list)
                                     and as_dict(md).get("variants")
                                     and state["variant"] not in as_dict(md)["variants"])]
            if len(variant_modes) >= 2:
                mp = []
                for m in variant_modes:
                    md = as_dict(as_dict(f.get("modes")).get(m))
                    mp.append(make_pill(m, js_str(md.get("label") or title_key(m)), m == mode,
                                    None if m in avail else "Not supported on this hardware.",
                                    js_str(md.get("description") or "")))
                rows.append(make_row(f"mode_{key}",
                                     "Spec method" if key == "spec_decoding" else f"{label} method", mp,
                                 nested=True, feature=key, event={"type": "mode", "feature": key}))
            note = get_key(get_key(as_dict(f.get("modes")), mode), "note")
            if truthy(note):
                notes.append(js_str(note))
    return [make_row("features", "Features", pills, kind="toggle", below="\n".join(notes) or None,
                     event={"type": "feature"}), *rows]


def omni_rows(facts: BuilderFacts, state: dict[str, Any],
              task: dict[str, Any] | None) -> list[dict[str, Any]]:
    omni = as_dict(facts.recipe.get("omni"))
    tasks = [omni_task_for_hardware(t, state["hardware"]) for t in omni_tasks(facts.recipe)]
    axes = as_list(omni.get("task_axes"))
    if axes and task is not None:
        rows = []
        cur = as_dict(task.get("axes"))
        for i, axis in enumerate(axes):
            axis = as_dict(axis)
            aid = axis.get("id")
            pills = []
            for opt in as_list(axis.get("options")):
                opt = as_dict(opt)
                want: dict[Any, Any] = {**cur, aid: opt.get("id")}
                ok = any(all(as_dict(t.get("axes")).get(k) == v for k, v in want.items()) for t in tasks)
                pills.append(make_pill(opt.get("id"), js_str(opt.get("label") or opt.get("id")),
                                       get_key(cur, aid) == opt.get("id"),
                                   None if ok else "This combination is not available.", ""))
            extra = {}
            if i == len(axes) - 1:
                need = task.get("vramMinimumGb")
                extra["below"] = js_str(task.get("description") or "") + (f" · {js_str(need)} GB minimum"
                                                                          if need is not None else "")
            rows.append(make_row(f"axis_{aid}", js_str(axis.get("label") or aid), pills, axis=aid,
                                 event={"type": "axis", "axis": aid},
                             hint=js_str(omni.get("task_hint")) if i == 0 and omni.get("task_hint") else None,
                                 **extra))
        return rows
    if len(tasks) <= 1:
        return []
    pills = []
    for t in tasks:
        need = t.get("vramMinimumGb")
        pills.append(
            make_pill(t["key"], js_str(t["label"]), task is not None and t["key"] == task["key"], None,
                  (js_str(t.get("description") or "") + f"\n\n{t['endpoint']}").strip(),
                  sub=f"{js_str(need)} GB" if need is not None else None))
    return [make_row("task", js_str(omni.get("task_label") or "Task"), pills, event={"type": "task"},
                 hint=js_str(omni.get("task_hint")) if omni.get("task_hint") else None,
                 below=js_str(task.get("description")) if task and task.get("description") else None)]
