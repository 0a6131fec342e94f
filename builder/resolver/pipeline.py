"""The argument and env layering of one serve command (single-node spec §8, §11; cluster §7.5-§7.6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .context import _Ctx
from .features import _feature_args
from .hardware import _lookup_exact, _lookup_gen, _raw_generation, _vram, hardware_lookup
from .shell import dedupe_args
from .values import _dict, _get, _int_if_integral, _is_num, _list, _merge


class Layering:
    """The sources one serve command is layered from: the common recipe layers plus the caller's."""

    __slots__ = ("context", "strategy_id", "role", "overrides", "role_overrides", "variant_hardware",
                 "block", "tail", "skip_companions", "strategy_env", "extra_env", "pin")

    def __init__(self, context: _Ctx, strategy_id: str, role: str | None, *, block: list[Any] | None = None,
                 tail: list[Any] | None = None, skip_companions: bool = False, strategy_env: Any = None,
                 extra_env: list[Any] | None = None, pin: dict[str, Any] | None = None) -> None:
        self.context, self.strategy_id, self.role = context, strategy_id, role
        self.overrides = context.so(strategy_id)
        self.role_overrides = _dict(self.overrides.get(role)) if role else {}
        self.variant_hardware = context.variant.get("hardware_overrides")
        self.block, self.tail, self.skip_companions = block or [], tail or [], skip_companions
        self.strategy_env, self.extra_env, self.pin = strategy_env, extra_env or [], pin

    def generation(self, key: str) -> list[Any]:
        """Discipline G overrides: the strategy's when it has one, else the recipe's then the variant's."""
        profile = self.context.profile
        strategy_gen = _lookup_gen(self.overrides.get("hardware_overrides"), profile)
        if strategy_gen is not None:
            return [_get(strategy_gen, key)]
        return [_get(_lookup_gen(self.context.recipe.get("hardware_overrides"), profile), key),
                _get(_lookup_gen(self.variant_hardware, profile), key)]

    def exact(self, overrides: Any, key: str) -> list[Any]:
        return [_get(_lookup_exact(_get(overrides, "hardware_overrides"), self.context.hw), key)]


_Sources = Callable[[Layering], list[Any]]
_NONE: _Sources = lambda layering: []  # noqa: E731


def _strategy_override_args(layering: Layering) -> list[Any]:
    layer = layering.role_overrides if layering.role else layering.overrides
    return [layer.get("extra_args"), layer.get("vllm_args")]


def _strategy_override_env(layering: Layering) -> list[Any]:
    second = layering.role_overrides.get("env") if layering.role else layering.overrides.get("extra_env")
    return [layering.overrides.get("env"), second]


LAYERS: tuple[tuple[str, _Sources, _Sources], ...] = (
    # (layer, argument sources, env sources), in precedence order (single-node §8 / §11, cluster §7.5-§7.6)
    ("model", lambda ly: [_dict(ly.context.recipe.get("model")).get("base_args")],
     lambda ly: [_dict(ly.context.recipe.get("model")).get("base_env")]),
    ("variant", lambda ly: [ly.context.variant.get("extra_args")], lambda ly: [ly.context.variant.get("extra_env")]),
    ("variant hardware", lambda ly: ly.exact(ly.context.variant, "extra_args"),
     lambda ly: ly.exact(ly.context.variant, "extra_env")),
    ("strategy", lambda ly: [ly.block], lambda ly: [ly.strategy_env, *ly.extra_env, ly.pin]),
    ("strategy override", _strategy_override_args, _strategy_override_env),
    ("generation", lambda ly: ly.generation("extra_args"), lambda ly: ly.generation("extra_env")),
    ("strategy hardware", lambda ly: ly.exact(ly.overrides, "extra_args"),
     lambda ly: ly.exact(ly.overrides, "extra_env")),
    ("role hardware", lambda ly: ly.exact(ly.role_overrides, "extra_args") if ly.role else [],
     lambda ly: ly.exact(ly.role_overrides, "extra_env") if ly.role else []),
    ("advanced", lambda ly: [ly.context.advanced], _NONE),
    ("features", lambda ly: [_feature_args(ly.context, ly.strategy_id, ly.skip_companions)], _NONE),
    ("tail", lambda ly: [ly.tail], _NONE),
)
"""The 11 layers of one serve command, driving both :func:`layered_args` and :func:`layered_env`."""


def layered_args(layering: Layering) -> list[Any]:
    """Single-node §8 argument order, with the role layers of cluster §7.5; deduped."""
    raw: list[Any] = []
    for _, arg_sources, _ in LAYERS:
        for source in arg_sources(layering):
            raw += _list(source)
    return dedupe_args(raw)


def layered_env(layering: Layering) -> dict[str, Any]:
    """Single-node §11 env layering (cluster §7.6 steps 1-4 for PD roles): later layers overwrite."""
    env: dict[str, Any] = {}
    for _, _, env_sources in LAYERS:
        for source in env_sources(layering):
            _merge(env, source)
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


def _argv(c: _Ctx, tokens: list[Any]) -> list[Any]:
    return ["vllm", "serve", c.model_id, *tokens]
