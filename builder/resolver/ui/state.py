"""Builder state: parsing, initial state and reconciliation (site-features §6-§7)."""

from __future__ import annotations

from typing import Any

from ..hardware import (
    fits_single_node,
    initial_hardware,
    is_nvidia,
    is_scalable,
    pick_fitting_variant,
    variant_of,
)
from ..omni import active_omni_task, omni_tasks
from ..strategies import (
    initial_node_count,
    nodes_for_strategy,
    pd_pool_defaults,
    pd_pool_modes,
    reachable,
)
from ..values import MAX_NODES, as_dict, js_str
from .advanced import advanced_options
from .deploy import INSTALL_CHOICES
from .facts import MAX_INSTANCES, BuilderFacts
from .parsing import int_or, parse_csv
from .perf_state import PERF_DEFAULTS, perf_state


def fresh_state() -> dict[str, Any]:
    return {"variant": "default", "hardware": None, "strategy": None, "nodes": 1, "features": None,
            "fmode": {}, "advanced": [], "kv_offload": None, "kv_instances": None, "kv_instance": 0,
            "prefill_nodes": None, "decode_nodes": None, "prefill_mode": None, "decode_mode": None,
            "prefill_rank": 0, "decode_rank": 0, "task": None, "install": None, "cuda": "default",
            "preset": None, "point": None, **PERF_DEFAULTS}


def _parse_fmode(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return {js_str(k): js_str(v) for k, v in value.items()}
    out = {}
    for item in parse_csv(value) or []:
        if ":" in item:
            k, _, m = item.partition(":")
            out[k] = m
    return out


def parse_state(facts: BuilderFacts, raw: dict[str, Any]) -> dict[str, Any]:
    """Raw URL parameters (strings) or a previous canonical state -> typed state."""
    state = fresh_state()
    state["variant"] = raw.get("variant") if isinstance(raw.get("variant"), str) else "default"
    state["hardware"] = raw.get("hardware") if isinstance(raw.get("hardware"), str) else None
    state["strategy"] = (raw.get("strategy") if isinstance(raw.get("strategy"), str) and raw.get("strategy")
                         else None)
    state["nodes"] = int_or(raw.get("nodes"), 1)
    feats = raw.get("features")
    if isinstance(feats, list):  # a previous canonical state ([] = every feature off)
        state["features"] = parse_csv(feats)
    elif feats is not None:  # the URL: "none" = every feature off, "" = not given
        lst = parse_csv(feats)
        state["features"] = [] if lst == ["none"] else lst or None
    state["fmode"] = _parse_fmode(raw.get("fmode"))
    state["advanced"] = parse_csv(raw.get("advanced")) or []
    kv = raw.get("kv_offload")
    state["kv_offload"] = kv if isinstance(kv, str) and kv not in ("", "off") else None
    state["kv_instances"] = int_or(raw.get("kv_instances"),
                                   1 if raw.get("kv_instances") not in (None, "") else None)
    state["kv_instance"] = int_or(raw.get("kv_instance"), 0)
    for role in ("prefill", "decode"):
        n = raw.get(f"{role}_nodes")
        state[f"{role}_nodes"] = int_or(n, 1) if n not in (None, "") else None
        m = raw.get(f"{role}_mode")
        state[f"{role}_mode"] = m if m in ("tp", "tep", "dep") else None
        state[f"{role}_rank"] = int_or(raw.get(f"{role}_rank"), 0)
    state["task"] = raw.get("task") if isinstance(raw.get("task"), str) and raw.get("task") else None
    state["install"] = raw.get("install") if raw.get("install") in INSTALL_CHOICES else None
    state["cuda"] = "cu129" if raw.get("cuda") == "cu129" else "default"
    for key in ("preset", "point"):
        state[key] = raw.get(key) if isinstance(raw.get(key), str) and raw.get(key) else None
    state.update(perf_state(raw))
    return state


def clamp(value: object, lo: int, hi: int, default: int) -> int:
    """``value`` as an int (``default`` when not one) within ``[lo, hi]``."""
    number = int_or(value, default)
    return min(max(number, lo), hi)


def initial_state(facts: BuilderFacts, raw: dict[str, Any], prefs: dict[str, Any],
                  stored: dict[str, Any]) -> dict[str, Any]:
    """CB-INIT-01..10: the state a page opens on."""
    state = parse_state(facts, raw)
    explicit_variant = isinstance(raw.get("variant"), str) and raw.get("variant") in facts.variants
    if (not explicit_variant and isinstance(stored.get("variant"), str)
        and stored["variant"] in facts.variants):
        state["variant"], explicit_variant = stored["variant"], True  # GAP-08: remembered per recipe
    state["variant"] = facts.vkey(state["variant"])
    query_hw = state["hardware"]
    pref = prefs.get("hardware") if isinstance(prefs.get("hardware"), str) else None
    state["hardware"] = initial_hardware(facts.recipe, facts.taxonomy, state["variant"], query_hw, pref)
    hw, p = state["hardware"], facts.profile(state["hardware"])
    if (not explicit_variant and not is_scalable(p)
        and not fits_single_node(p, variant_of(facts.recipe, state["variant"]))):
        state["variant"] = pick_fitting_variant(facts.recipe, p, hw) or state["variant"]
    if facts.omni:
        return state
    # nodes (CB-INIT-05)
    if not facts.multi_capable() or not facts.clusterable(hw):
        state["nodes"] = 1
    elif raw.get("nodes") not in (None, ""):
        state["nodes"] = state["nodes"] if state["nodes"] in (1, 2) else 1
    elif int_or(stored.get("nodes")) in (1, 2):
        state["nodes"] = int_or(stored.get("nodes"))
    else:
        state["nodes"] = initial_node_count(facts.recipe, facts.vocab, state["variant"], hw)
    # strategy (CB-INIT-06): Mooncake ids are ignored here
    if state["strategy"] in facts.kv_ids:
        state["strategy"] = None
    if (state["strategy"] is None and isinstance(stored.get("strategy"), str)
        and stored["strategy"] in facts.comp):
        state["strategy"] = stored["strategy"]
    # features / modes (CB-INIT-07/08)
    if raw.get("features") is not None:
        state["features"] = known_features(facts, state["features"])
    elif isinstance(stored.get("features"), list):
        state["features"] = known_features(facts, stored["features"])
    if isinstance(stored.get("featureModes"), dict):
        state["fmode"] = {**{js_str(k): js_str(v) for k, v in stored["featureModes"].items()},
                          **state["fmode"]}
    # KV (CB-INIT-09)
    if state["kv_offload"] is None and isinstance(stored.get("kvOffload"), str):
        state["kv_offload"] = stored["kvOffload"]
        state["_kv_from_storage"] = True
    if raw.get("kv_instances") in (None, "") and int_or(stored.get("kvInstances")) is not None:
        state["kv_instances"] = int_or(stored.get("kvInstances"))
    return state


def known_features(facts: BuilderFacts, features: list[Any] | None) -> list[str] | None:
    """CB-INIT-07 / GAP-08: a feature list from the URL or storage, filtered to the recipe's features;
    None (the defaults) when nothing in it is known (stale, mistyped or empty). ``[]`` (``features=none``,
    a stored empty list) stays the explicit "all off"."""
    if features is None or features == []:
        return features
    known = [f for f in features if isinstance(f, str) and f in facts.features]
    return known or None


def _kv_valid(facts: BuilderFacts, state: dict[str, Any], sid: str | None) -> bool:
    kv = state["kv_offload"]
    if kv is None:
        return True
    if kv in facts.kv_ids:
        return facts.mooncake_reason(state["hardware"], kv) is None
    return isinstance(as_dict(facts.taxonomy.get("kv_offload")).get(kv), dict)


def reconcile(facts: BuilderFacts, state: dict[str, Any]) -> dict[str, Any]:
    """Correct an arbitrary state into a valid one (the rules of CB-*, §7.1 "invalid values ignored")."""
    state["variant"] = facts.vkey(state["variant"])
    if not facts.usable(state["hardware"], state["variant"]):
        state["hardware"] = facts.default_hw(state["variant"])
    hw, p = state["hardware"], facts.profile(state["hardware"])
    state["cuda"] = state["cuda"] if state["cuda"] == "cu129" and is_nvidia(p) else "default"
    if state["features"] is not None:
        state["features"] = [f for f in facts.features if f in state["features"]]
    state["fmode"] = {k: m for k, m in state["fmode"].items() if k in facts.features
                      and m in as_dict(facts.features[k].get("modes"))}
    adv_ids = [a["id"] for a in advanced_options(facts, None)]
    state["advanced"] = [a for a in adv_ids if a in state["advanced"]]
    if facts.omni:
        tasks = omni_tasks(facts.recipe)
        task = active_omni_task(facts.recipe, state["task"], hw)
        state["task"] = task["key"] if task and tasks and task["key"] != tasks[0]["key"] else None
        for key in ("strategy", "kv_offload", "kv_instances", "prefill_nodes", "decode_nodes", "prefill_mode",
                    "decode_mode", "preset", "point"):
            state[key] = None
        state.update(nodes=1, features=None, fmode={}, advanced=[], kv_instance=0, prefill_rank=0,
                     decode_rank=0)
        return state
    state["task"] = None
    if not facts.multi_capable() or not facts.clusterable(hw):
        state["nodes"] = 1
    state["nodes"] = clamp(state["nodes"], 1, MAX_NODES, 1)
    sid = facts.active_strategy(hw, state["nodes"], state["strategy"])
    if sid != "pd_cluster" and facts.clusterable(hw):  # CB-NODE-07 floor reconciliation
        floor = facts.floor_nodes(sid, hw)
        pills = facts.node_pills(hw)
        if state["nodes"] < floor:
            state["nodes"] = floor
        elif state["nodes"] > 2 and state["nodes"] not in pills:
            state["nodes"] = min(MAX_NODES, max(2, floor))
        sid = facts.active_strategy(hw, state["nodes"], state["strategy"])
    if (state["strategy"] is not None
        and state["strategy"] not in facts.row_strategies(hw, state["nodes"]) + facts.comp):
        state["strategy"] = None
    if not _kv_valid(facts, state, sid):
        state["kv_offload"] = None
    if state["kv_offload"] not in facts.kv_ids:
        state["kv_instances"], state["kv_instance"] = None, 0
    else:
        if state["kv_instances"] is not None:
            state["kv_instances"] = clamp(state["kv_instances"], 1, MAX_INSTANCES, 1)
        count = instance_count(facts, state, state["kv_offload"])
        state["kv_instance"] = clamp(state["kv_instance"], 0, count - 1, 0)
    state.pop("_kv_from_storage", None)
    if sid == "pd_cluster":
        pools = pd_pools(facts, state)
        for role in ("prefill", "decode"):
            if state[f"{role}_nodes"] is not None:
                state[f"{role}_nodes"] = pools[role]["nodes"]
            if state[f"{role}_mode"] is not None and state[f"{role}_mode"] not in pools[role]["modes"]:
                state[f"{role}_mode"] = None
            state[f"{role}_rank"] = clamp(state[f"{role}_rank"], 0, pools[role]["nodes"] - 1, 0)
    else:
        for role in ("prefill", "decode"):
            state[f"{role}_mode"], state[f"{role}_rank"] = None, 0
    presets = as_dict(facts.recipe.get("presets"))
    if state["preset"] not in presets:
        state["preset"] = state["point"] = None
    elif state["point"] not in as_dict(as_dict(presets[state["preset"]]).get("points")):
        state["point"] = next(iter(as_dict(as_dict(presets[state["preset"]]).get("points"))), None)
    return state


def pd_pools(facts: BuilderFacts, state: dict[str, Any]) -> dict[str, Any]:
    """CB-NODE-08/09: effective PD pools ``{role: {nodes, rank, parallelism, modes}}``."""
    hw = state["hardware"]
    p = facts.profile(hw)
    defaults = pd_pool_defaults(facts.recipe, facts.vocab, state["variant"], hw)
    modes = [m for m in pd_pool_modes(facts.recipe)
             if reachable(facts.recipe, m, "multi_node", p.get("gpu_count"), hw)] or ["tp"]
    out = {}
    for role in ("prefill", "decode"):
        mode = state[f"{role}_mode"] if state[f"{role}_mode"] in modes else defaults[role]["parallelism"]
        floor = nodes_for_strategy(facts.recipe, mode, p.get("gpu_count"), hw)
        nodes = state[f"{role}_nodes"] if state[f"{role}_nodes"] is not None else defaults[role]["nodes"]
        nodes = max(clamp(nodes, 1, MAX_NODES, 1), floor)
        out[role] = {"nodes": nodes, "rank": clamp(state[f"{role}_rank"], 0, nodes - 1, 0),
                     "parallelism": mode, "modes": modes}
    return out


def instance_count(facts: BuilderFacts, state: dict[str, Any], kv: Any) -> Any:
    """How many vLLM instances the Mooncake topology ``kv`` runs: the state's count, else the
    topology's default, else 1."""
    return state["kv_instances"] or as_dict(facts.strategies.get(kv)).get("default_instances") or 1


def enabled_features(facts: BuilderFacts, state: dict[str, Any]) -> list[str]:
    """The user's feature set (remembered, possibly including disallowed ones)."""
    if state["features"] is None:
        return facts.defaults(state["hardware"], state["variant"])
    return list(state["features"])
