"""The builder view's summary line, and the single-node TP size it and the TP hint show."""

from __future__ import annotations

from typing import Any

from ..context import RenderContext
from ..hardware import variant_of
from ..layering import single_parallel_size
from ..strategies import deploy_type_of
from ..values import as_dict, get_key, js_str
from .facts import BuilderFacts, hardware_name
from .state import instance_count


def single_node_tp(facts: BuilderFacts, variant: str, hw: str, tp: Any) -> Any:
    """The tensor-parallel size of single-node TP for the recipe's ``variant`` on ``hw`` (``tp``: a
    preset point's override, else None), recalled per those."""
    def compute() -> Any:
        context = RenderContext(facts.recipe, facts.vocab, variant, hw, [], None, None, tp)
        return single_parallel_size(context, "single_node_tp")

    if type(variant) is str and type(hw) is str and (tp is None or type(tp) is int):
        return facts.recall(("single_node_tp", variant, hw, tp), compute)
    return compute()


def summary_line(facts: BuilderFacts, state: dict[str, Any], sid: str | None, kv: str | None, tp: Any,
                 task: dict[str, Any] | None) -> dict[str, Any]:
    """The view's summary: what the command runs on (``tp``: a preset point's TP override, else None),
    or "Verified on" the hardware the author verified its single-node command on."""
    hw, p = state["hardware"], facts.profile(state["hardware"])
    name = hardware_name(facts.taxonomy, hw)
    precision = js_str(variant_of(facts.recipe, state["variant"]).get("precision")
                       or state["variant"]).upper()
    verified = {"verified": True, "text": f"Verified on {js_str(p.get('brand'))} {name}".strip()}
    if facts.omni:  # CMD-01: an omni command runs on one node, with no KV offload
        parts = [name, js_str(task["label"]) if task else "Omni", precision]
        return (verified if facts.declared.get(hw) == "verified"
                else {"verified": False, "text": " · ".join(parts)})
    single = state["nodes"] == 1 and deploy_type_of(get_key(facts.strategies, sid)) == "single_node"
    if facts.declared.get(hw) == "verified" and kv is None and state["preset"] is None and single:
        # the author verified the hardware's single-node command, not a cluster of it
        return verified
    count = 1
    if kv in facts.kv_ids:
        count = instance_count(facts, state, kv)
    total = state["nodes"] * count if sid != "pd_cluster" else 1
    hw_part = f"{total}× {name}" if total > 1 else name
    st = as_dict(get_key(facts.strategies, sid))
    if sid == "pd_cluster":
        strat = "PD cluster"
    elif deploy_type_of(st) == "multi_node" or sid != "single_node_tp":
        strat = js_str(st.get("display_name") or sid)
    else:
        strat = f"TP={js_str(single_node_tp(facts, state['variant'], hw, tp))}"
    parts = [hw_part, strat, precision]
    if kv in facts.kv_ids:
        dep = as_dict(facts.strategies.get(kv))
        parts.append(f"Mooncake ({js_str(dep.get('label') or kv).split(' ')[0]})")
    elif kv is not None:
        opt = as_dict(as_dict(facts.taxonomy.get("kv_offload")).get(kv))
        grp = as_dict(get_key(facts.taxonomy.get("kv_offload_groups"), opt.get("group")))
        if grp:
            parts.append(f"{js_str(grp.get('label'))} ({js_str(opt.get('label') or kv)})")
        else:
            parts.append(js_str(opt.get("display_name") or opt.get("label") or kv))
    return {"verified": False, "text": " · ".join(parts)}
