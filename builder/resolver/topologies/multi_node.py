"""Single-node and multi-node serving results (single-node §5; cluster spec §6)."""

from __future__ import annotations

from typing import Any

from ..context import _Ctx
from ..features import _companions
from ..hardware import _lookup_exact, _lookup_gen
from ..pipeline import Layering, _argv, _single_parallel_size, layered_args, layered_env
from ..shell import format_command
from ..strategies import _deploy_type
from ..values import _get, _int_if_integral, _list, js_str


def _dep_stride(c: _Ctx) -> Any:
    """Cluster §6.2: ``--data-parallel-size-local`` last mentioned by the DEP override."""
    so = c.so("multi_node_dep")
    scan = _list(so.get("vllm_args")) + _list(so.get("extra_args"))
    scan += _list(_get(_lookup_gen(so.get("hardware_overrides"), c.profile), "extra_args"))
    scan += _list(_get(_lookup_exact(so.get("hardware_overrides"), c.hw), "extra_args"))
    stride = c.gpus
    for i, tok in enumerate(scan[:-1]):
        if tok == "--data-parallel-size-local":
            try:
                stride = _int_if_integral(float(scan[i + 1]))
            except (TypeError, ValueError):
                stride = float("nan")
    return stride


def _multi_block(c: _Ctx, strategy: dict[str, Any], nodes: int, rank: int, master: str) -> list[Any]:
    """Cluster §6.2 parallelism block for one rank (0 = head)."""
    g, par = c.gpus, strategy.get("parallelism")
    worker = rank > 0
    if strategy.get("parallel_flag") == "--data-parallel-size":
        out = ["--data-parallel-size", js_str(g * max(1, nodes)), "--data-parallel-size-local", js_str(g),
               "--data-parallel-address", master]
        if worker:
            out += ["--data-parallel-start-rank", js_str(_int_if_integral(max(1, rank) * _dep_stride(c)))]
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


def _serve(c: _Ctx, strategy_id: str, strategy: dict[str, Any], nodes: int, kv_opt: tuple[str, dict[str, Any]] | None,
           mooncake: dict[str, Any] | None, master: str) -> dict[str, Any]:
    """Single-node (§5.3 step 4) or multi-node (§6) serving result, optionally with Mooncake."""
    tail = _list(_get(kv_opt[1], "args")) if kv_opt else []
    extra_env = [_get(kv_opt[1], "env")] if kv_opt else []
    if mooncake is not None:
        tail = tail + _list(_get(mooncake.get("vllm"), "vllm_args"))
        extra_env.append(_get(mooncake.get("vllm"), "env"))
    skip = mooncake is not None
    env = layered_env(Layering(c, strategy_id, None, strategy_env=strategy.get("env"), extra_env=extra_env))
    vllm_args = _list(strategy.get("vllm_args"))
    if _deploy_type(strategy) == "multi_node" and nodes > 1:
        argvs = [_argv(c, layered_args(Layering(c, strategy_id, None, tail=tail, skip_companions=skip,
                                                block=vllm_args + _multi_block(c, strategy, nodes, r, master))))
                 for r in range(nodes)]
        commands = [format_command(c.model_id, a[3:]) for a in argvs]
        return {"deploy_type": "multi_node", "node_count": nodes,
                "head_command": commands[0], "worker_command": commands[1], "worker_commands": commands[1:],
                "head_argv": argvs[0], "worker_argv": argvs[1], "worker_argvs": argvs[1:], "env": env}
    flag = strategy.get("parallel_flag") or "--tensor-parallel-size"
    block = vllm_args + [flag, js_str(_single_parallel_size(c, strategy_id))]
    tokens = layered_args(Layering(c, strategy_id, None, block=block, tail=tail, skip_companions=skip))
    out = {"deploy_type": _deploy_type(strategy), "command": format_command(c.model_id, tokens),
           "argv": _argv(c, tokens), "env": env}
    if mooncake is None:
        comps = _companions(c, strategy_id, kv_opt)
        if comps:
            out["companions"] = comps
    return out
