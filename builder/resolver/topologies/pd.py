"""Prefill/decode disaggregation results (cluster spec §7)."""

from __future__ import annotations

from typing import Any

from ..context import RenderContext
from ..hardware import nvlink_spans_nodes
from ..layering import Layering, layered_args, layered_env, serve_argv
from ..shell import format_command
from ..strategies import pd_pool_modes
from ..values import as_dict, as_list, get_key, is_num, js_str
from .mooncake import kv_install, mooncake_parts

_NVLINK_KEYS = ("VLLM_USE_NCCL_SYMM_MEM", "NCCL_CUMEM_ENABLE", "NCCL_MNNVL_ENABLE", "NCCL_NVLS_ENABLE",
              "UCX_NET_DEVICES")


def _pd_role(ctx: RenderContext, strategy: dict[str, Any], role: str, request: Any, nodes: int,
             mooncake: dict[str, Any] | None) -> dict[str, Any]:
    """Cluster §7.1-§7.7: one PD role (command, argv, env and pool metadata)."""
    req: dict[str, Any] = {"nodes": request} if is_num(request) else as_dict(request)
    so = ctx.so("pd_cluster")
    sr, st = as_dict(so.get(role)), as_dict(strategy.get(role))
    g, up = ctx.gpus, role.upper()
    requested = req.get("nodes")
    pool_nodes: int | float = requested if is_num(requested) else (1 if nodes > 1 else 0)
    pool_gpus = g // 2 if pool_nodes == 0 else pool_nodes * g
    par = req.get("parallelism") or sr.get("parallelism") or st.get("parallelism") or "tp"
    modes = pd_pool_modes(ctx.recipe)
    arg_par = par if par in modes else modes[0]
    rank_req: int = req["rank"] if req.get("rank") is not None else 0  # the builder's pool rank
    current = min(max(rank_req, 0), max(1, pool_nodes) - 1)
    head = f"${up}_NODE_1"
    block = list(as_list(st.get("vllm_args")))
    if arg_par == "dep":
        tp_x = sr.get("tp") if sr.get("tp") is not None else st.get("tp")
        tp = tp_x if tp_x is not None else 1
        local = max(1, g // tp)
        in_pool = max(1, pool_nodes)
        if tp_x is not None:
            block += ["--tensor-parallel-size", js_str(tp)]
        block += ["--data-parallel-size", js_str(in_pool * local), "--data-parallel-size-local",
                  js_str(local),
                  "--data-parallel-start-rank", js_str(current * local), "--data-parallel-address", head,
                  "--data-parallel-rpc-port", f"${up}_DP_RPC_PORT"]
        if in_pool > 1:
            block.append("--data-parallel-hybrid-lb")
        block.append("--enable-expert-parallel")
    else:
        flag = (sr.get("parallel_flag") or st.get("parallel_flag") or strategy.get("parallel_flag")
                or "--tensor-parallel-size")
        block += [flag, js_str(max(1, pool_gpus))]
        if arg_par == "tep":
            block.append("--enable-expert-parallel")
        if pool_nodes > 1:
            block += ["--nnodes", js_str(pool_nodes), "--node-rank", js_str(current), "--master-addr", head]
            if current > 0:
                block.append("--headless")
    tail = as_list(get_key(get_key(get_key(mooncake, "pd"), role), "args")) if mooncake else []
    tokens = layered_args(Layering(ctx, "pd_cluster", role, block=block, tail=tail))
    pin: dict[str, Any] = {}
    if pool_nodes >= 1:
        pin["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(g))
        if pool_nodes >= 2:
            pin["GLOO_SOCKET_IFNAME"] = "$IFACE_NAME"
            pin["NCCL_SOCKET_IFNAME"] = "$IFACE_NAME"
    elif g // 2 > 0:
        half = g // 2
        ids = range(half) if role == "prefill" else range(half, g)
        pin["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in ids)
    layers = [get_key(mooncake.get("vllm"), "env")] if mooncake else []
    env = layered_env(
        Layering(ctx, "pd_cluster", role, strategy_env=st.get("env"), extra_env=layers, pin=pin))
    if not nvlink_spans_nodes(ctx.taxonomy, ctx.hw, g):
        for key in _NVLINK_KEYS:
            env.pop(key, None)
    if is_num(rank_req) and rank_req > 0 and par == "dep":
        for key, value in env.items():
            if value == head:
                env[key] = f"${up}_NODE_{js_str(rank_req + 1)}"
    if par == "dep":
        meta_tp = sr.get("tp") or st.get("tp") or 1
        local_meta = max(1, g // meta_tp)
        dp_size = max(1, pool_nodes) * local_meta
    else:
        meta_tp, local_meta, dp_size = pool_gpus, 0, 1
    return {"command": format_command(ctx.model_id, tokens), "argv": serve_argv(ctx, tokens), "env": env,
            "nodes": pool_nodes, "parallelism": par, "tp": meta_tp, "dpLocal": local_meta, "dpSize": dp_size,
            "poolGpus": pool_gpus, "currentNode": current, "startRank": current * local_meta}


def _pd_router(ctx: RenderContext, strategy: dict[str, Any], roles: dict[str, Any]) -> str:
    """Cluster §7.8 ``vllm-router`` command for PD."""
    policy = get_key(strategy.get("router"), "policy") or "round_robin"
    lines = [f"vllm-router --policy {policy}", "--vllm-pd-disaggregation"]
    for role, port in (("prefill", 8001), ("decode", 8002)):
        meta = roles[role]
        count = max(1, meta["nodes"] or 1) if meta["parallelism"] == "dep" else 1
        lines += [f"--{role} http://${role.upper()}_NODE_{i}:{port}" for i in range(1, count + 1)]
    intra = get_key(ctx.so("pd_cluster").get("router"), "intra_node_data_parallel_size")
    if intra is None:
        intra = max(roles["prefill"]["dpLocal"], roles["decode"]["dpLocal"], 1)
    lines += ["--host $ROUTER_HOST", "--port $ROUTER_PORT",
              f"--intra-node-data-parallel-size {js_str(intra)}"]
    return " \\\n    ".join(lines)


def pd_result(ctx: RenderContext, strategy: dict[str, Any], nodes: int, pd_nodes: Any,
              mooncake: dict[str, Any] | None) -> dict[str, Any]:
    """Cluster §7.9 PD result (+ §9.7 Mooncake)."""
    pools = as_dict(pd_nodes)
    out: dict[str, Any] = {"deploy_type": "pd_cluster", "node_count": nodes}
    if mooncake is not None:
        parts = mooncake_parts(mooncake)
        out["mooncake"] = {"master": parts["master"], "store": parts["store"], "config": parts["config"],
                           "configNote": parts["config_note"], "install": kv_install(mooncake, ctx.profile)}
    roles = {role: _pd_role(ctx, strategy, role, pools.get(role), nodes, mooncake)
             for role in ("prefill", "decode")}
    out.update(roles)
    out["router"] = {"command": _pd_router(ctx, strategy, roles), "install": "uv pip install vllm-router"}
    out["router_config"] = strategy.get("router") or {"policy": "round_robin"}
    return out
