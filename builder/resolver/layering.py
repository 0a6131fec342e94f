"""The argument and env layering of one serve command (single-node spec §8, §11; cluster §7.5-§7.6)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .context import RenderContext
from .features import feature_args
from .hardware import hardware_lookup, lookup_exact, node_vram_gb, raw_generation
from .shell import dedupe_args
from .values import as_dict, as_list, get_key, int_if_integral, is_num, merge_env


class Layering:
    """The sources one serve command is layered from: the common recipe layers plus the caller's."""

    __slots__ = ("context", "strategy_id", "role", "overrides", "role_overrides", "variant_hardware",
                 "block", "tail", "skip_companions", "strategy_env", "extra_env", "pin")

    def __init__(self, context: RenderContext, strategy_id: str, role: str | None, *,
                 block: list[Any] | None = None,
                 tail: list[Any] | None = None, skip_companions: bool = False, strategy_env: Any = None,
                 extra_env: list[Any] | None = None, pin: dict[str, Any] | None = None) -> None:
        self.context, self.strategy_id, self.role = context, strategy_id, role
        self.overrides = context.so(strategy_id)
        self.role_overrides = as_dict(self.overrides.get(role)) if role else {}
        self.variant_hardware = context.variant.get("hardware_overrides")
        self.block, self.tail, self.skip_companions = block or [], tail or [], skip_companions
        self.strategy_env, self.extra_env, self.pin = strategy_env, extra_env or [], pin

    def generation(self, key: str) -> list[Any]:
        """Discipline G overrides: the strategy's when it has one, else the recipe's then the variant's."""
        return [get_key(block, key)
                for block in self.context.generation_blocks(self.strategy_id, self.overrides)]

    def exact(self, overrides: Any, key: str) -> list[Any]:
        return [get_key(lookup_exact(get_key(overrides, "hardware_overrides"), self.context.hw), key)]


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
    ("model", lambda layering: [as_dict(layering.context.recipe.get("model")).get("base_args")],
     lambda layering: [as_dict(layering.context.recipe.get("model")).get("base_env")]),
    ("variant", lambda layering: [layering.context.variant.get("extra_args")],
     lambda layering: [layering.context.variant.get("extra_env")]),
    ("variant hardware", lambda layering: layering.exact(layering.context.variant, "extra_args"),
     lambda layering: layering.exact(layering.context.variant, "extra_env")),
    ("strategy", lambda layering: [layering.block],
     lambda layering: [layering.strategy_env, *layering.extra_env, layering.pin]),
    ("strategy override", _strategy_override_args, _strategy_override_env),
    ("generation", lambda layering: layering.generation("extra_args"),
     lambda layering: layering.generation("extra_env")),
    ("strategy hardware", lambda layering: layering.exact(layering.overrides, "extra_args"),
     lambda layering: layering.exact(layering.overrides, "extra_env")),
    ("role hardware",
     lambda layering: layering.exact(layering.role_overrides, "extra_args") if layering.role else [],
     lambda layering: layering.exact(layering.role_overrides, "extra_env") if layering.role else []),
    ("advanced", lambda layering: [layering.context.advanced], _NONE),
    ("features", lambda layering: [
        feature_args(layering.context, layering.strategy_id, layering.skip_companions)], _NONE),
    ("tail", lambda layering: [layering.tail], _NONE),
)
"""The 11 layers of one serve command, driving both :func:`layered_args` and :func:`layered_env`."""


def layered_args(layering: Layering) -> list[Any]:
    """Single-node §8 argument order, with the role layers of cluster §7.5; deduped."""
    raw: list[Any] = []
    for _, arg_sources, _ in LAYERS:
        for source in arg_sources(layering):
            raw += as_list(source)
    return dedupe_args(raw)


def layered_env(layering: Layering) -> dict[str, Any]:
    """Single-node §11 env layering (cluster §7.6 steps 1-4 for PD roles): later layers overwrite."""
    env: dict[str, Any] = {}
    for _, _, env_sources in LAYERS:
        for source in env_sources(layering):
            merge_env(env, source)
    return env


def single_parallel_size(ctx: RenderContext, strategy_id: str) -> Any:
    """Single-node §5.2/§5.3 parallel size."""
    if strategy_id != "single_node_tp":
        return ctx.gpus
    cpu = raw_generation(ctx.profile) == "cpu"
    tp_sources = (ctx.tp_override if ctx.tp_override is not None else ctx.variant.get("tp"),
                  ctx.so("single_node_tp").get("tp"))
    for src in tp_sources:
        value = hardware_lookup(src, ctx.profile, ctx.hw) if isinstance(src, dict) else src
        if is_num(value) and value > 0:
            return int_if_integral(value if cpu else min(value, ctx.gpus))
    need = ctx.variant.get("vram_minimum_gb")
    per_gpu = node_vram_gb(ctx.profile) / ctx.gpus if node_vram_gb(ctx.profile) else 0
    if not is_num(need) or need <= 0 or per_gpu <= 0:
        return ctx.gpus
    return 1 if need <= per_gpu else ctx.gpus


def serve_argv(ctx: RenderContext, tokens: list[Any]) -> list[Any]:
    return ["vllm", "serve", ctx.model_id, *tokens]
