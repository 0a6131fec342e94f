"""The argument and env layering of one serve command (single-node spec §8, §11; cluster §7.5-§7.6)."""

from __future__ import annotations

from typing import Any

from .context import _Ctx
from .features import _feature_args
from .hardware import _lookup_exact, _lookup_gen, _raw_generation, _vram, hardware_lookup
from .shell import dedupe_args
from .values import _dict, _get, _int_if_integral, _is_num, _list, _merge


def _pipeline_args(c: _Ctx, strategy_id: str, block: list, role: str | None, tail: list,
                   skip_companions: bool = False) -> list:
    """Single-node §8 argument order, with the role layers of cluster §7.5; deduped."""
    so = c.so(strategy_id)
    sr = _dict(so.get(role)) if role else {}
    vho = c.variant.get("hardware_overrides")
    raw = list(_list(_dict(c.recipe.get("model")).get("base_args")))
    raw += _list(c.variant.get("extra_args"))
    raw += _list(_get(_lookup_exact(vho, c.hw), "extra_args"))
    raw += block
    layer = sr if role else so
    raw += _list(layer.get("extra_args")) + _list(layer.get("vllm_args"))
    gen = _lookup_gen(so.get("hardware_overrides"), c.profile)
    if gen is not None:
        raw += _list(_get(gen, "extra_args"))
    else:
        raw += _list(_get(_lookup_gen(c.recipe.get("hardware_overrides"), c.profile), "extra_args"))
        raw += _list(_get(_lookup_gen(vho, c.profile), "extra_args"))
    raw += _list(_get(_lookup_exact(so.get("hardware_overrides"), c.hw), "extra_args"))
    if role:
        raw += _list(_get(_lookup_exact(sr.get("hardware_overrides"), c.hw), "extra_args"))
    raw += c.advanced
    raw += _feature_args(c, strategy_id, skip_companions)
    raw += tail
    return dedupe_args(raw)


def _pipeline_env(c: _Ctx, strategy_id: str, strategy_env: Any, extra_layers: list, role: str | None,
                  pin: dict | None = None) -> dict:
    """Single-node §11 env layering (cluster §7.6 steps 1-4 for PD roles)."""
    so = c.so(strategy_id)
    vho = c.variant.get("hardware_overrides")
    env: dict = {}
    _merge(env, _dict(c.recipe.get("model")).get("base_env"))
    _merge(env, c.variant.get("extra_env"))
    _merge(env, _get(_lookup_exact(vho, c.hw), "extra_env"))
    _merge(env, strategy_env)
    for layer in extra_layers:
        _merge(env, layer)
    _merge(env, pin)
    _merge(env, so.get("env"))
    sr = _dict(so.get(role)) if role else {}
    _merge(env, sr.get("env") if role else so.get("extra_env"))
    gen = _lookup_gen(so.get("hardware_overrides"), c.profile)
    if gen is not None:
        _merge(env, _get(gen, "extra_env"))
    else:
        _merge(env, _get(_lookup_gen(c.recipe.get("hardware_overrides"), c.profile), "extra_env"))
        _merge(env, _get(_lookup_gen(vho, c.profile), "extra_env"))
    _merge(env, _get(_lookup_exact(so.get("hardware_overrides"), c.hw), "extra_env"))
    if role:
        _merge(env, _get(_lookup_exact(sr.get("hardware_overrides"), c.hw), "extra_env"))
    return env


def _single_parallel_size(c: _Ctx, strategy_id: str) -> Any:
    """Single-node §5.2/§5.3 parallel size."""
    if strategy_id != "single_node_tp":
        return c.gpus
    cpu = _raw_generation(c.profile) == "cpu"
    tp_sources = (c.tp_override if c.tp_override is not None else c.variant.get("tp"),
                  c.so("single_node_tp").get("tp"))
    for src in tp_sources:
        value = hardware_lookup(src, c.profile, c.hw) if isinstance(src, dict) else src
        if _is_num(value) and value > 0:
            return _int_if_integral(value if cpu else min(value, c.gpus))
    need = c.variant.get("vram_minimum_gb")
    per_gpu = _vram(c.profile) / c.gpus if _vram(c.profile) else 0
    if not _is_num(need) or need <= 0 or per_gpu <= 0:
        return c.gpus
    return 1 if need <= per_gpu else c.gpus


def _argv(c: _Ctx, tokens: list) -> list:
    return ["vllm", "serve", c.model_id, *tokens]
