"""Strategy support, GPU floors, recommendation and PD pool modes (cluster spec §2-§4, §10-§11)."""

from __future__ import annotations

import math
import re
from typing import Any

from .hardware import fits_single_node, hardware_lookup, is_scalable, node_vram_gb, profile_of, variant_of
from .types import Vocab
from .values import MAX_NODES, as_dict, as_list, get_key, is_num


def strategy_catalogue(vocab: Vocab) -> dict[str, Any]:
    return as_dict(vocab.get("strategies"))


def deploy_type_of(strategy: Any) -> str:
    return get_key(strategy, "deploy_type") or "single_node"


def kv_store_ids(vocab: Vocab) -> list[str]:
    """Mooncake deployment ids in catalogue order."""
    return [k for k, s in strategy_catalogue(vocab).items() if deploy_type_of(s) == "kv_store_lb"]


def effective_compatible_strategies(recipe: dict[str, Any]) -> list[str]:
    """Cluster §2.3: ``compatible_strategies`` + opt-in ``strategy_hardware`` entries."""
    out = list(as_list(recipe.get("compatible_strategies")))
    for sid, table in as_dict(recipe.get("strategy_hardware")).items():
        if sid not in out and isinstance(table, dict) and "supported" in table.values():
            out.append(sid)
    return out


def strategy_supported(recipe: dict[str, Any], strategy_id: str, profile: dict[str, Any],
                       hw: str | None) -> bool:
    """Cluster §2.2."""
    value = hardware_lookup(as_dict(recipe.get("strategy_hardware")).get(strategy_id), profile, hw)
    if value is not None:
        return bool(value != "unsupported")
    return strategy_id in as_list(recipe.get("compatible_strategies"))


def _floor_from(block: Any, key: str) -> Any:
    if is_num(block):
        return block
    if isinstance(block, dict):
        for k in (key, f"multi_node_{key}", f"single_node_{key}"):
            if block.get(k) is not None:
                return block[k]
    return 0


def min_gpus(recipe: dict[str, Any], key: str, hw: str | None) -> int | float:
    """Cluster §3.3 GPU floor for a strategy id or PD pool mode."""
    table = recipe.get("strategy_min_gpus")
    if table is None:
        return 0
    if is_num(table):
        return table
    if not isinstance(table, dict):
        return 0
    top = _floor_from(table, key)
    exact = _floor_from(table.get(hw), key) if hw else 0
    return max(top if is_num(top) else 0, exact if is_num(exact) else 0)


def nodes_for_strategy(recipe: dict[str, Any], key: str, gpus_per_node: Any, hw: str | None) -> int:
    """Cluster §3.4: ``ceil(minGpus / gpusPerNode)`` (missing GPUs = 8), at least 1."""
    per = gpus_per_node if is_num(gpus_per_node) and gpus_per_node else 8
    return max(1, math.ceil(min_gpus(recipe, key, hw) / per))


def reachable(recipe: dict[str, Any], key: str, deploy_type: str, gpus_per_node: Any, hw: str | None) -> bool:
    """Cluster §3.5."""
    per = gpus_per_node if is_num(gpus_per_node) and gpus_per_node else 8
    max_nodes = MAX_NODES if deploy_type in ("multi_node", "pd_cluster") else 1
    return bool(max_nodes * per >= min_gpus(recipe, key, hw))


def pd_fits_single_node(profile: dict[str, Any], variant: dict[str, Any]) -> bool:
    """Cluster §3.6 ``pdFitsSingleNode``."""
    if not profile or not is_num(profile.get("gpu_count")) or profile["gpu_count"] < 2:
        return False
    need = variant.get("vram_minimum_gb")
    return node_vram_gb(profile) >= 2 * (need if is_num(need) and need else 0)


def recommend_strategy(recipe: dict[str, Any], node_count: int) -> str:
    """Cluster §4.1 ``recommendStrategy`` (hardware is not consulted)."""
    comp = effective_compatible_strategies(recipe)
    default = recipe.get("default_strategy")
    if default is not None and default in comp:
        if not (node_count > 1 and isinstance(default, str) and default.startswith("single_node_")):
            authored: str = default
            return authored
        sibling = "multi_node_" + default[len("single_node_"):]
        if sibling in comp:
            return sibling
    if node_count > 1:
        for sid in ("multi_node_tp", "multi_node_dep", "multi_node_tep"):
            if sid in comp:
                return sid
    if "single_node_tp" in comp:
        return "single_node_tp"
    return comp[0] if comp else "single_node_tp"


def pd_pool_modes(recipe: dict[str, Any]) -> list[str]:
    """Cluster §4.2 parallelism vocabulary of PD pools (order tp, tep, dep)."""
    found = set()
    for sid in effective_compatible_strategies(recipe):
        if sid == "pd_cluster" or not isinstance(sid, str):
            continue
        if re.search(r"(?:^|_)dep$", sid):
            found.add("dep")
        elif re.search(r"(?:^|_)tep$", sid):
            found.add("tep")
        elif re.search(r"(?:^|_)(?:tp|tp_pp|tp_dp)$", sid):
            found.add("tp")
    modes: list[str] = [m for m in ("tp", "tep", "dep") if m in found] or ["tp"]
    limit = get_key(as_dict(recipe.get("strategy_overrides")).get("pd_cluster"), "pool_modes")
    if isinstance(limit, list) and limit:
        kept = [m for m in modes if m in limit]
        if kept:
            return kept
    return modes


def offered_strategies(recipe: dict[str, Any], vocab: Vocab, variant_key: str, hw: str) -> list[str]:
    """Cluster §10.2: ordered strategy ids offered on ``hw`` (kv_store ids included)."""
    profile = profile_of(vocab.get("taxonomy") or {}, hw)
    strategies = strategy_catalogue(vocab)
    scalable = is_scalable(profile)
    kv_opt_out = as_dict(recipe.get("kv_cache_strategy_hardware"))
    kv_ids = kv_store_ids(vocab)
    out: list[str] = []
    for sid in effective_compatible_strategies(recipe) + kv_ids:
        if sid in out:
            continue
        if sid in kv_ids:
            ok = (scalable and profile.get("brand") in ("NVIDIA", "AMD")
                  and get_key(kv_opt_out.get(sid), hw) != "unsupported")
        else:
            dt = deploy_type_of(strategies.get(sid)) if sid in strategies else "unknown"
            ok = (strategy_supported(recipe, sid, profile, hw)
                  and reachable(recipe, sid, dt, profile.get("gpu_count"), hw)
                  and (scalable or not (sid.startswith("multi_node_") or sid == "pd_cluster")))
        if ok:
            out.append(sid)
    return out


def is_multi_node(vocab: Vocab, sid: str) -> bool:
    return deploy_type_of(strategy_catalogue(vocab).get(sid)) == "multi_node"


def nodes_for(recipe: dict[str, Any], vocab: Vocab, sid: str, profile: dict[str, Any], hw: str) -> int:
    """Cluster §10.3 step 4 ``nodesFor``: multi-node minimum 2, raised to the GPU floor."""
    return max(2 if is_multi_node(vocab, sid) else 1,
               nodes_for_strategy(recipe, sid, profile.get("gpu_count"), hw))


def recommended_strategy(recipe: dict[str, Any], vocab: Vocab, variant_key: str, hw: str,
                         offered: list[str] | None = None) -> tuple[str, int]:
    """Cluster §10.3: (recommended strategy id, node count) for a used variant on ``hw``; ``offered``: the
    :func:`offered_strategies` on ``hw`` when the caller has them already."""
    profile = profile_of(vocab.get("taxonomy") or {}, hw)
    if offered is None:
        offered = offered_strategies(recipe, vocab, variant_key, hw)
    return recommend_from(recipe, vocab, offered, profile, hw, variant_of(recipe, variant_key))


def recommend_from(recipe: dict[str, Any], vocab: Vocab, offered: list[str], profile: dict[str, Any], hw: str,
                    variant: dict[str, Any]) -> tuple[str, int]:
    scalable = is_scalable(profile)
    multi = scalable and any(s.startswith("multi_node_") for s in offered)
    base = 2 if (not fits_single_node(profile, variant) and multi) else 1
    rec = recommend_strategy(recipe, base)
    if rec not in offered:
        kv_ids = kv_store_ids(vocab)
        plain = [s for s in offered if s not in kv_ids and s != "pd_cluster"]
        non_kv = [s for s in offered if s not in kv_ids]
        rec = plain[0] if plain else non_kv[0] if non_kv else rec
    return rec, max(base, nodes_for(recipe, vocab, rec, profile, hw))


def pick_pd_nodes(recipe: dict[str, Any], vocab: Vocab, profile: dict[str, Any], variant: dict[str, Any],
                  hw: str) -> dict[str, Any] | str | None:
    """Cluster §10.4 ``pickPdNodes``: None (co-located), ``"skip"`` or per-role node counts."""
    if pd_fits_single_node(profile, variant):
        return None
    node, need = node_vram_gb(profile), variant.get("vram_minimum_gb")
    if node <= 0 or not is_num(need) or need <= 0:
        return None
    per_role = math.ceil(need / node)
    if per_role > 4:
        return "skip"
    so = as_dict(as_dict(recipe.get("strategy_overrides")).get("pd_cluster"))
    st = as_dict(strategy_catalogue(vocab).get("pd_cluster"))
    out = {}
    for role in ("prefill", "decode"):
        par = get_key(so.get(role), "parallelism") or get_key(st.get(role), "parallelism") or "tp"
        out[role] = max(per_role, nodes_for_strategy(recipe, par, profile.get("gpu_count"), hw))
    return out


def node_pills(recipe: dict[str, Any], vocab: Vocab, hw: str) -> list[int]:
    """Cluster §11: node-count pills ``[1, 2]`` plus the largest floor in (2, 16]."""
    profile = profile_of(as_dict(vocab.get("taxonomy")), hw)
    floors = [nodes_for_strategy(recipe, s, profile.get("gpu_count"), hw)
              for s in effective_compatible_strategies(recipe)]
    top = max(floors, default=1)
    return [1, 2, top] if 2 < top <= MAX_NODES else [1, 2]


def builder_strategies(recipe: dict[str, Any], vocab: Vocab, hw: str, nodes: int) -> list[str]:
    """Cluster §11 strategy row: hides kv_store ids, unreachable ids and the wrong node shape."""
    profile = profile_of(as_dict(vocab.get("taxonomy")), hw)
    strategies = strategy_catalogue(vocab)
    out = []
    for sid in effective_compatible_strategies(recipe):
        dt = deploy_type_of(strategies.get(sid)) if sid in strategies else "unknown"
        if dt == "kv_store_lb" or not reachable(recipe, sid, dt, profile.get("gpu_count"), hw):
            continue
        if dt == "pd_cluster" or (dt == "multi_node") == (nodes > 1):
            out.append(sid)
    return out


def initial_node_count(recipe: dict[str, Any], vocab: Vocab, variant_key: str, hw: str) -> int:
    """Cluster §11: 2 when a multi-node/PD strategy exists, hardware scales and the variant does not fit."""
    profile = profile_of(as_dict(vocab.get("taxonomy")), hw)
    multi = any(deploy_type_of(strategy_catalogue(vocab).get(s)) in ("multi_node", "pd_cluster")
                for s in effective_compatible_strategies(recipe))
    return 2 if multi and is_scalable(profile) and not fits_single_node(
        profile, variant_of(recipe, variant_key)) else 1


def pd_pool_defaults(recipe: dict[str, Any], vocab: Vocab, variant_key: str, hw: str) -> dict[str, Any]:
    """Cluster §11 builder PD pool defaults ``{role: {nodes, rank, parallelism}}`` (never co-located)."""
    profile = profile_of(as_dict(vocab.get("taxonomy")), hw)
    so = as_dict(as_dict(recipe.get("strategy_overrides")).get("pd_cluster"))
    st = as_dict(strategy_catalogue(vocab).get("pd_cluster"))
    need, node = variant_of(recipe, variant_key).get("vram_minimum_gb"), node_vram_gb(profile)
    by_vram = max(1, math.ceil(need / node)) if is_num(need) and need > 0 and node > 0 else 1
    modes = [m for m in pd_pool_modes(recipe)
             if reachable(recipe, m, "multi_node", profile.get("gpu_count"), hw)] or ["tp"]
    out = {}
    for role in ("prefill", "decode"):
        sr = as_dict(so.get(role))
        authored = sr.get("nodes")
        if isinstance(authored, dict):
            authored = authored.get(hw) if authored.get(hw) is not None else authored.get("default")
        nodes = authored if is_num(authored) and authored >= 1 else by_vram
        par = sr.get("parallelism") or get_key(st.get(role), "parallelism") or "tp"
        par = par if par in modes else modes[0]
        nodes = max(nodes, nodes_for_strategy(recipe, par, profile.get("gpu_count"), hw))
        out[role] = {"nodes": nodes, "rank": 0, "parallelism": par}
    return out
