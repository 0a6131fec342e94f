"""The KV Offload row of the builder view and its sub-rows (site-features, CB-KV-*)."""

from __future__ import annotations

from typing import Any

from ..hardware import gpu_count_of
from ..values import as_dict, get_key, is_num, js_str
from .facts import MAX_INSTANCES, BuilderFacts, counted, device_noun, make_pill
from .rows import copy_rows, make_row
from .state import instance_count


def kv_rows(facts: BuilderFacts, state: dict[str, Any], sid: str | None,
            effective: str | None) -> list[dict[str, Any]]:
    """The KV Offload row and its sub-rows: a function of the hardware, node and instance counts, the
    strategy and the effective KV choice (recalled per such tuple); while Mooncake is not the choice, a
    function of that choice and of why each option is unavailable (recalled per such pattern, kept per
    hardware and strategy: most GPUs share one)."""
    key = (state["hardware"], state["nodes"], state["kv_instances"], sid, effective)
    if effective not in facts.kv_ids and all(k is None or type(k) is str for k in (key[0], sid, effective)):
        hw = key[0]

        def pattern() -> tuple[tuple[str | None, ...], str | None]:
            options = as_dict(facts.taxonomy.get("kv_offload"))
            return tuple(facts.kv_reason(option, hw, sid) for option in options), facts.mooncake_reason(hw)

        return facts.recall(("kv_rows_off", effective, facts.kept(("kv_reasons", hw, sid), pattern)),
                            lambda: _kv_rows(facts, state, sid, effective), copy_rows)
    if all(k is None or type(k) in (str, int) for k in key):
        return facts.recall(("kv_rows", *key), lambda: _kv_rows(facts, state, sid, effective), copy_rows)
    return _kv_rows(facts, state, sid, effective)


def _entries(facts: BuilderFacts) -> tuple[list[tuple[str, str]], dict[str, list[str]]]:
    """The row's pills after Off as (kind, key) in order (taxonomy options, groups of options and
    Mooncake), and each group's members in order: the taxonomy's alone (kept per facts)."""
    options = as_dict(facts.taxonomy.get("kv_offload"))
    groups = as_dict(facts.taxonomy.get("kv_offload_groups"))
    entries: list[tuple[Any, str, str]] = []
    seen_groups = set()
    for key, opt in options.items():
        g = get_key(opt, "group")
        if g in groups:
            if g not in seen_groups:
                seen_groups.add(g)
                entries.append((as_dict(groups[g]).get("order") or 0, "group", g))
        else:
            entries.append((as_dict(opt).get("order") or 0, "option", key))
    entries.append((3, "mooncake", "mooncake"))
    entries.sort(key=lambda e: e[0] if is_num(e[0]) else 0)
    members = {key: sorted((k for k, o in options.items() if get_key(o, "group") == key),
                           key=lambda k: as_dict(options[k]).get("order") or 0)
               for _, kind, key in entries if kind == "group"}
    return [(kind, key) for _, kind, key in entries], members


def _kv_rows(facts: BuilderFacts, state: dict[str, Any], sid: str | None,
             effective: str | None) -> list[dict[str, Any]]:
    hw = state["hardware"]
    options = as_dict(facts.taxonomy.get("kv_offload"))
    groups = as_dict(facts.taxonomy.get("kv_offload_groups"))
    entries, group_members = facts.kept(("kv_entries",), lambda: _entries(facts))
    pills = [make_pill("off", "Off", effective is None, None, "KV cache stays in GPU memory.")]
    sub_rows: list[dict[str, Any]] = []
    below, docs = None, None
    for kind, key in entries:
        if kind == "option":
            opt = as_dict(options[key])
            reason = facts.kv_reason(key, hw, sid)
            pills.append(
                make_pill(key, js_str(opt.get("label") or opt.get("display_name") or key), effective == key,
                      reason, js_str(opt.get("description") or "")))
            if effective == key:
                below, docs = opt.get("description"), opt.get("docs_url")
        elif kind == "group":
            grp = as_dict(groups[key])
            members = group_members[key]
            reasons = {m: facts.kv_reason(m, hw, sid) for m in members}
            reason = None if any(r is None for r in reasons.values()) else next(iter(reasons.values()), None)
            active = effective in members
            pills.append(make_pill(key, js_str(grp.get("label") or key), active, reason,
                               js_str(grp.get("tooltip") or grp.get("description") or "")))
            if active:
                below, docs = grp.get("description"), grp.get("docs_url")
                mpills = [
                    make_pill(m, js_str(as_dict(options[m]).get("label") or m), m == effective, reasons[m],
                          js_str(as_dict(options[m]).get("description") or "")) for m in members]
                sub_rows.append(
                    make_row("kv_member", js_str(grp.get("sub_row_label") or "Offload Tiers"), mpills,
                         nested=True, event={"type": "kv_member"},
                         below=js_str(as_dict(get_key(options, effective)).get("description")
                                      or "")))
        else:
            reason = facts.mooncake_reason(hw)
            active = effective in facts.kv_ids
            pills.append(make_pill("mooncake", "Mooncake", active, reason,
                               "Mooncake distributed KV store: a shared CPU-DRAM cache pool "
                               "across vLLM instances."))
            if active:
                below = ("Mooncake pools CPU DRAM across instances as a shared KV cache; a master process "
                         "coordinates it and a cache-aware router shares it between instances.")
                docs = "https://docs.vllm.ai/en/latest/features/mooncake_connector_usage.html"
                tpills = []
                for t in facts.kv_ids:
                    dep = as_dict(facts.strategies.get(t))
                    tpills.append(
                        make_pill(t, js_str(dep.get("label") or dep.get("display_name") or t), t == effective,
                              facts.mooncake_reason(hw, t), js_str(dep.get("description") or "").strip()))
                sub_rows.append(make_row("topology", "Store Topology", tpills, nested=True,
                                     event={"type": "topology"},
                                     below=js_str(as_dict(get_key(facts.strategies, effective)).get(
                                         "description") or "")
                                     .strip()))
                if sid != "pd_cluster":
                    count = instance_count(facts, state, effective)
                    g = gpu_count_of(facts.profile(hw))
                    n = state["nodes"]
                    noun = device_noun(facts.profile(hw))
                    sub_rows.append(make_row(
                        "instances", "Instances", [], kind="number", nested=True, value=count, min=1,
                        max=MAX_INSTANCES, input_label="Number of vLLM instances",
                        input_event={"type": "kv_instances"},
                        text=f"× {counted(n, 'node')} × {counted(g, noun)} = "
                             f"{counted(count * n * g, noun)} total",
                        hint="At 2 or more instances a cache-aware router appears in front of them."))
    row = make_row("kv_offload", "KV Offload", pills, below=js_str(below).strip() if below else None,
                   docs=docs, event={"type": "kv_offload"})
    return [row, *sub_rows]
