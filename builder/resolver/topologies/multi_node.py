"""Single-node and multi-node serving results (single-node §5; cluster spec §6)."""

from __future__ import annotations

from typing import Any

from ..context import RenderContext
from ..features import companion_processes
from ..hardware import lookup_exact, lookup_generation
from ..layering import Layering, layered_args, layered_env, serve_argv, single_parallel_size
from ..shell import format_command
from ..strategies import deploy_type_of
from ..values import as_list, get_key, int_if_integral, js_str


def _dep_stride(ctx: RenderContext) -> int | float:
    """Cluster §6.2: ``--data-parallel-size-local`` last mentioned by the DEP override."""
    so = ctx.so("multi_node_dep")
    scan = as_list(so.get("vllm_args")) + as_list(so.get("extra_args"))
    scan += as_list(get_key(lookup_generation(so.get("hardware_overrides"), ctx.profile), "extra_args"))
    scan += as_list(get_key(lookup_exact(so.get("hardware_overrides"), ctx.hw), "extra_args"))
    stride: int | float = ctx.gpus
    for i, tok in enumerate(scan[:-1]):
        if tok == "--data-parallel-size-local":
            try:
                stride = int_if_integral(float(scan[i + 1]))
            except (TypeError, ValueError):
                stride = float("nan")
    return stride


def _multi_block(ctx: RenderContext, strategy: dict[str, Any], nodes: int, rank: int,
                 master: str) -> list[Any]:
    """Cluster §6.2 parallelism block for one rank (0 = head)."""
    g, par = ctx.gpus, strategy.get("parallelism")
    worker = rank > 0
    if strategy.get("parallel_flag") == "--data-parallel-size":
        out = ["--data-parallel-size", js_str(g * max(1, nodes)), "--data-parallel-size-local", js_str(g),
               "--data-parallel-address", master]
        if worker:
            out += ["--data-parallel-start-rank", js_str(int_if_integral(max(1, rank) * _dep_stride(ctx)))]
        return out
    if par == "tp_pp":
        out = ["--tensor-parallel-size", js_str(g), "--pipeline-parallel-size", js_str(nodes),
               "--nnodes", js_str(nodes), "--node-rank", js_str(rank), "--master-addr", master]
        return out + (["--headless"] if worker else [])
    if par == "tp_dp":
        out = ["--tensor-parallel-size", js_str(g), "--data-parallel-size", js_str(nodes),
               "--data-parallel-size-local", "1", "--data-parallel-address", master]
        return out + (["--data-parallel-start-rank", js_str(max(1, rank))] if worker else [])
    out = ["--tensor-parallel-size", js_str(g * max(1, nodes)), "--nnodes", js_str(nodes),
           "--node-rank", js_str(rank), "--master-addr", master]
    return out + (["--headless"] if worker else [])


def serve_result(ctx: RenderContext, strategy_id: str, strategy: dict[str, Any], nodes: int,
                 kv_opt: tuple[str, dict[str, Any]] | None,
           mooncake: dict[str, Any] | None, master: str) -> dict[str, Any]:
    """Single-node (§5.3 step 4) or multi-node (§6) serving result, optionally with Mooncake."""
    tail = as_list(get_key(kv_opt[1], "args")) if kv_opt else []
    extra_env = [get_key(kv_opt[1], "env")] if kv_opt else []
    if mooncake is not None:
        tail = tail + as_list(get_key(mooncake.get("vllm"), "vllm_args"))
        extra_env.append(get_key(mooncake.get("vllm"), "env"))
    skip = mooncake is not None
    env = layered_env(Layering(ctx, strategy_id, None, strategy_env=strategy.get("env"), extra_env=extra_env))
    vllm_args = as_list(strategy.get("vllm_args"))
    if deploy_type_of(strategy) == "multi_node" and nodes > 1:
        argvs = [
            serve_argv(ctx, layered_args(Layering(ctx, strategy_id, None, tail=tail, skip_companions=skip,
                                           block=vllm_args + _multi_block(ctx, strategy, nodes, r, master))))
            for r in range(nodes)]
        commands = [format_command(ctx.model_id, a[3:]) for a in argvs]
        return {"deploy_type": "multi_node", "node_count": nodes,
                "head_command": commands[0], "worker_command": commands[1], "worker_commands": commands[1:],
                "head_argv": argvs[0], "worker_argv": argvs[1], "worker_argvs": argvs[1:], "env": env}
    flag = strategy.get("parallel_flag") or "--tensor-parallel-size"
    block = vllm_args + [flag, js_str(single_parallel_size(ctx, strategy_id))]
    tokens = layered_args(Layering(ctx, strategy_id, None, block=block, tail=tail, skip_companions=skip))
    out = {"deploy_type": deploy_type_of(strategy), "command": format_command(ctx.model_id, tokens),
           "argv": serve_argv(ctx, tokens), "env": env}
    if mooncake is None:
        comps = companion_processes(ctx, strategy_id, kv_opt)
        if comps:
            out["companions"] = comps
    return out
