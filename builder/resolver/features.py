"""Features and modes (single-node spec §6)."""

from __future__ import annotations

from typing import Any

from .context import RenderContext
from .hardware import hardware_lookup, lookup_exact, lookup_generation, mode_gated, variant_of
from .values import as_dict, as_list, get_key, js_str, truthy


def declared_features(recipe: dict[str, Any]) -> dict[str, Any]:
    return as_dict(recipe.get("features"))


def default_enabled_features(recipe: dict[str, Any], hw: str | None, variant_key: str) -> list[str]:
    """§6.2: features in declaration order, minus opt-in ones unless forced by default_modes."""
    forced = as_dict(variant_of(recipe, variant_key).get("default_modes"))
    opt_in = set(as_list(recipe.get("opt_in_features")))
    opt_in.update(as_list(lookup_exact(recipe.get("hardware_opt_in_features"), hw)))
    return [f for f in declared_features(recipe) if f in forced or f not in opt_in]


def available_modes(feature: dict[str, Any], variant_key: str, profile: dict[str, Any],
                    hw: str | None) -> list[str]:
    """§6.5 available modes of a modal feature, in declaration order."""
    out = []
    for name, mode in as_dict(feature.get("modes")).items():
        mode = as_dict(mode)
        allowed = mode.get("variants")
        if isinstance(allowed, list) and allowed and variant_key not in allowed:
            continue
        if not mode_gated(mode, profile, hw):
            out.append(name)
    return out


def effective_mode(
    recipe: dict[str, Any], feature_key: str, variant_key: str, profile: dict[str, Any], hw: str | None,
    selected: str | None = None
) -> str | None:
    """§6.5 effective mode: selected, variant default_modes, default_mode, first available."""
    feature = as_dict(declared_features(recipe).get(feature_key))
    avail = available_modes(feature, variant_key, profile, hw)
    if not avail:
        return None
    defaults = as_dict(variant_of(recipe, variant_key).get("default_modes"))
    for choice in (selected, defaults.get(feature_key), feature.get("default_mode")):
        if choice in avail:
            return choice
    return avail[0]


def feature_allowed(feature: dict[str, Any], strategy_id: str) -> bool:
    allow = feature.get("strategies")
    return not (isinstance(allow, list) and allow) or strategy_id in allow


def has_companion(feature: dict[str, Any]) -> bool:
    return truthy(get_key(feature.get("companion"), "command"))


def feature_args(ctx: RenderContext, strategy_id: str, skip_companions: bool) -> list[Any]:
    """§6.3-§6.5: arguments of the enabled features, in the caller's order."""
    out: list[Any] = []
    features = declared_features(ctx.recipe)
    for key in ctx.enabled:
        feature = features.get(key)
        if not isinstance(feature, dict) or not feature_allowed(feature, strategy_id):
            continue
        if skip_companions and has_companion(feature):
            continue
        if "modes" in feature and feature.get("modes") is not None:
            mode_key = effective_mode(ctx.recipe, key, ctx.variant_key, ctx.profile, ctx.hw,
                                      ctx.modes.get(key))
            if mode_key is None:
                continue
            mode = as_dict(as_dict(feature["modes"]).get(mode_key))
            block = hardware_lookup(mode.get("hardware_overrides"), ctx.profile, ctx.hw)
            args = get_key(block, "args")
            out += as_list(args if args is not None else mode.get("args"))
        else:
            block = lookup_generation(feature.get("hardware_overrides"), ctx.profile)
            args = get_key(block, "args")
            out += as_list(args if args is not None else feature.get("args"))
    return out


def companion_processes(ctx: RenderContext, strategy_id: str,
                        kv_opt: tuple[str, dict[str, Any]] | None) -> list[dict[str, Any]]:
    """§6.6 / cluster §8.4 companion processes of a single-node result."""
    out = []
    features = declared_features(ctx.recipe)
    for key in ctx.enabled:
        feature = features.get(key)
        if isinstance(feature, dict) and has_companion(feature) and feature_allowed(feature, strategy_id):
            comp = feature["companion"]
            out.append({
                "feature": key,
                "label": comp.get("label") or key,
                "description": comp.get("description") or "",
                "command": js_str(comp["command"]).rstrip(),
            })
    if kv_opt is not None:
        key, opt = kv_opt
        comp = as_dict(opt.get("companion"))
        if truthy(comp.get("command")):
            parts = [comp.get("description") or ""]
            if truthy(opt.get("install")):
                parts.append(f"Requires: {opt['install']}")
            out.append({
                "feature": f"kv_offload:{key}",
                "label": comp.get("label") or key,
                "description": " ".join(p for p in parts if p),
                "command": js_str(comp["command"]).rstrip(),
            })
    return out
