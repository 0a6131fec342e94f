"""Cross-reference checks on one recipe after its shape is validated.

Errors: broken feature/mode references (json-api §3.2), unknown strategy ids, invalid
presets. Warnings: hardware ids unknown to the taxonomy in any hardware-keyed map.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from builder import resolver
from builder.content.fieldpaths import join_path
from builder.content.model import RecipeFile, Vocabulary
from builder.content.problems import Problem
from builder.content.recipe_lints import recipe_lints
from builder.resolver.hardware import raw_generation
from builder.resolver.presets import PresetCheck, check_presets


def validate_recipe(recipe: RecipeFile, vocab: Vocabulary, cross_references: bool = True) -> list[Problem]:
    """Every cross-reference problem of one recipe, errors and warnings.

    ``cross_references=False`` (the vocabulary itself has errors) keeps only the checks
    that do not look up strategies, hardware or presets in it.
    """
    problems: list[Problem] = []

    def report(field: str, message: str, warning: bool = False) -> None:
        file, line = recipe.where(field)
        problems.append(Problem(file, line, field, message, warning=warning))

    data = recipe.data
    for field, message in feature_mode_problems(data):
        report(field, message)
    if cross_references:
        known = vocab.strategy_map
        for field, name in strategy_references(data):
            if name not in known:
                report(field, f"unknown strategy {name!r}")
        keys = hardware_keys(vocab.taxonomy)
        profiles = vocab.taxonomy.get("hardware_profiles") or {}
        for field, name, exact in hardware_references(data):
            if name not in (profiles if exact else keys):
                report(field, f"unknown hardware {name!r}", warning=True)
        renderings, tokens = rendering_count(data, vocab), argv_token_count(data)
        if renderings > MAX_RENDERINGS:
            report("", f"too many renderings ({renderings} > {MAX_RENDERINGS})")
        elif renderings * tokens > MAX_RENDERED_TOKENS:
            report("", f"too many renderings for its argument lists ({renderings} renderings × {tokens} "
                       f"argument tokens = {renderings * tokens} > {MAX_RENDERED_TOKENS})")
        else:  # validating presets renders every point, kept for the API
            check = preset_check(data, vocab)
            recipe.resolved_presets = check["resolved"]
            for field, message in check["problems"]:
                report(field, message)
    for field, message in recipe_lints(data):
        report(field, message, warning=True)
    return problems


def feature_mode_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """The feature/mode checks of json-api §3.2, in the order performed."""
    found: list[tuple[str, str]] = []
    features = data.get("features") if isinstance(data.get("features"), dict) else {}
    variants = data.get("variants") if isinstance(data.get("variants"), dict) else {}
    for fkey, feature in features.items():
        if not isinstance(feature, dict) or "modes" not in feature:
            continue
        base = f"features.{fkey}"
        modes = feature["modes"]
        if not isinstance(modes, dict) or not modes:
            found.append((f"{base}.modes", "modes must be a non-empty mapping"))
            continue
        if "args" in feature:
            found.append((base, "a feature may not declare both args and modes"))
        default = feature.get("default_mode")
        if default is not None and default not in modes:
            found.append((f"{base}.default_mode", f"unknown mode {default!r}"))
        for mkey, mode in modes.items():
            mode = mode if isinstance(mode, dict) else {}
            mbase = f"{base}.modes.{mkey}"
            if not isinstance(mode.get("args"), list):
                found.append((f"{mbase}.args", "must be a list"))
            listed = mode.get("variants")
            if "variants" in mode and not isinstance(listed, list):
                found.append((f"{mbase}.variants", "must be a list"))
            for vkey in listed if isinstance(listed, list) else []:
                if vkey not in variants:
                    found.append((f"{mbase}.variants", f"unknown variant {vkey!r}"))
        for vkey in variants:
            if not any(_mode_admits(mode, vkey) for mode in modes.values()):
                found.append((base, f"no mode is available for variant {vkey!r}"))
    for vkey, variant in variants.items():
        chosen = variant.get("default_modes") if isinstance(variant, dict) else None
        for fkey, mkey in (chosen or {}).items():
            field = f"variants.{vkey}.default_modes"
            feature = features.get(fkey)
            if not isinstance(feature, dict):
                found.append((field, f"unknown feature {fkey!r}"))
            elif not isinstance(feature.get("modes"), dict):
                found.append((field, f"feature {fkey!r} has no modes"))
            elif mkey not in feature["modes"]:
                found.append((f"{field}.{fkey}", f"unknown mode {mkey!r}"))
            elif not _mode_admits(feature["modes"][mkey], vkey):
                found.append((f"{field}.{fkey}", f"mode {mkey!r} is not available for variant {vkey!r}"))
    return found


def _mode_admits(mode: Any, variant_key: str) -> bool:
    """A mode is available to every variant unless it lists variants without this one."""
    listed = mode.get("variants") if isinstance(mode, dict) else None
    return not isinstance(listed, list) or not listed or variant_key in listed


def strategy_references(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """(field path, strategy id) for every place a recipe names a strategy."""
    for i, name in enumerate(data.get("compatible_strategies") or []):
        yield f"compatible_strategies[{i}]", name
    if isinstance(data.get("default_strategy"), str):
        yield "default_strategy", data["default_strategy"]
    for section in ("strategy_overrides", "strategy_hardware", "kv_cache_strategy_hardware"):
        for name in data.get(section) or {}:
            yield join_path(section, name), name
    for fkey, feature in (data.get("features") or {}).items():
        for i, name in enumerate((feature or {}).get("strategies") or []):
            yield f"features.{fkey}.strategies[{i}]", name
    for pkey, preset in (data.get("presets") or {}).items():
        if isinstance(preset, dict) and isinstance(preset.get("strategy"), str):
            yield f"presets.{pkey}.strategy", preset["strategy"]


def hardware_keys(taxonomy: dict[str, Any]) -> set[str]:
    """Every key a hardware-keyed map may use: ids, generations, brands, ``default``."""
    keys = {"default", "nvidia"}
    for hw_id, profile in (taxonomy.get("hardware_profiles") or {}).items():
        keys.add(hw_id)
        generation = raw_generation(profile)
        keys.update(generation if isinstance(generation, list) else [generation])
        if isinstance(profile.get("brand"), str):
            keys.add(profile["brand"].lower())
    keys.discard(None)  # type: ignore[arg-type]
    return keys


def hardware_references(data: dict[str, Any]) -> Iterator[tuple[str, str, bool]]:
    """(field path, hardware key, exact-id-only) for every hardware-keyed place."""

    def keyed(section: Any, path: str, exact: bool = False) -> Iterator[tuple[str, str, bool]]:
        if isinstance(section, dict):
            for key in section:
                yield join_path(path, key), key, exact

    meta = data.get("meta") or {}
    yield from keyed(meta.get("hardware"), "meta.hardware", exact=True)
    if isinstance(meta.get("default_hardware"), str):
        yield "meta.default_hardware", meta["default_hardware"], True
    yield from keyed(data.get("hardware_overrides"), "hardware_overrides")
    yield from keyed(data.get("hardware_opt_in_features"), "hardware_opt_in_features", exact=True)
    for vkey, variant in (data.get("variants") or {}).items():
        variant = variant or {}
        yield from keyed(variant.get("hardware_overrides"), f"variants.{vkey}.hardware_overrides")
        yield from keyed(variant.get("tp"), f"variants.{vkey}.tp")
        for i, hw in enumerate(variant.get("supported_hardware") or []):
            yield f"variants.{vkey}.supported_hardware[{i}]", hw, True
    for skey, override in (data.get("strategy_overrides") or {}).items():
        override = override or {}
        yield from keyed(override.get("hardware_overrides"), f"strategy_overrides.{skey}.hardware_overrides")
        yield from keyed(override.get("tp"), f"strategy_overrides.{skey}.tp")
    for skey, block in (data.get("strategy_hardware") or {}).items():
        yield from keyed(block, f"strategy_hardware.{skey}")
    for skey, block in (data.get("kv_cache_strategy_hardware") or {}).items():
        yield from keyed(block, f"kv_cache_strategy_hardware.{skey}", exact=True)
    for fkey, feature in (data.get("features") or {}).items():
        feature = feature or {}
        yield from keyed(feature.get("hardware_overrides"), f"features.{fkey}.hardware_overrides")
        modes = feature.get("modes") if isinstance(feature.get("modes"), dict) else {}
        for mkey, mode in modes.items():
            mode = mode if isinstance(mode, dict) else {}
            yield from keyed(mode.get("hardware"), f"features.{fkey}.modes.{mkey}.hardware")
            yield from keyed(mode.get("hardware_overrides"),
                             f"features.{fkey}.modes.{mkey}.hardware_overrides")
    for i, note in enumerate(data.get("notes") or []):
        for j, hw in enumerate(((note or {}).get("when") or {}).get("hardware") or []):
            yield f"notes[{i}].when.hardware[{j}]", hw, True


MAX_RENDERINGS = 5000
"""Commands one recipe may make the build render, counted per node (one argv each):
measured about 1.5 s of CPU for the JSON (3.5 s with pages); the largest upstream recipe needs 540."""


MAX_RENDERED_TOKENS = 500_000
"""Renderings × argument tokens (rendering and linting cost grows with both): about 3.5 s;
upstream needs at most 50,076, recipes/ 148,506 (MiniMax-M3: 467 × 318)."""
_ARG_LISTS = frozenset({"args", "base_args", "extra_args", "vllm_args"})
_ARGV_BASE_TOKENS = 32  # model id, parallelism flags and the strategy's own arguments


def argv_token_count(data: Any) -> int:
    """Every token of every argument list in the recipe plus a base: a bound on one argv's length."""
    total, stack = _ARGV_BASE_TOKENS, [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                if key in _ARG_LISTS and isinstance(value, list):
                    total += len(value)
                else:
                    stack.append(value)
        elif isinstance(node, list):
            stack.extend(node)
    return total


def rendering_count(data: dict[str, Any], vocab: Vocabulary) -> int:
    """An upper estimate of the node commands the build renders for one recipe.

    Per published base (the ``default`` variant and every variant with its own
    ``model_id``): for every offered hardware, the recommended command and one per other
    offered strategy, each counted once per node. Per preset point: two renderings per node
    (the validation renders it once and hands the record on; the margin keeps the limit where it was).
    """
    rvocab = {"taxonomy": vocab.taxonomy, "strategies": vocab.strategy_map}
    taxonomy = vocab.taxonomy
    profiles = taxonomy.get("hardware_profiles") or {}
    variants = {} if resolver.is_omni(data) else data.get("variants") or {}  # omni: no matrix
    bases = [key for key, variant in variants.items()
             if key == "default" or "/" in str((variant or {}).get("model_id") or "")]
    total = 0
    offered_on: dict[str, list[str]] = {}
    for base in bases:
        for hw in resolver.offered_hardware(data, taxonomy, base):
            profile = profiles.get(hw) or {}
            if hw not in offered_on:
                offered_on[hw] = resolver.offered_strategies(data, rvocab, base, hw)
            _, nodes = resolver.recommended_strategy(data, rvocab, base, hw, offered_on[hw])
            total += max(1, nodes)
            total += sum(resolver.nodes_for(data, rvocab, sid, profile, hw) for sid in offered_on[hw])
    for preset in (data.get("presets") or {}).values():
        hw, sid = preset.get("hardware"), preset.get("strategy")
        floor = resolver.nodes_for(data, rvocab, sid, profiles.get(hw) or {}, hw)
        preset_nodes = (preset.get("select") or {}).get("nodes")
        for point in (preset.get("points") or {}).values():
            nodes = (point.get("select") or {}).get("nodes") or preset_nodes or floor
            total += 2 * max(1, nodes)
    return total


def preset_check(data: dict[str, Any], vocab: Vocabulary) -> PresetCheck:
    """Preset validation (json-api §11.7): the resolver renders every point to check it."""
    if not data.get("presets"):
        return {"problems": [], "resolved": {}}
    return check_presets(data, vocab.resolver_vocab())
