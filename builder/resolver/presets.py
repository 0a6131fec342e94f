"""Advanced argument bundles and json-api §11.7 presets."""

from __future__ import annotations

import json
from typing import Any, TypedDict, cast

from .context import RenderContext
from .docker import docker_image
from .features import declared_features, default_enabled_features
from .hardware import hardware_profiles, profile_of
from .layering import serve_argv
from .records import build_record, failure_warning, resolve_core
from .resolve import node_count_value
from .shell import arg_units, flatten_units, format_command
from .strategies import deploy_type_of, nodes_for, strategy_catalogue
from .types import JSON, PresetError, PresetSelection, ResolveError, Vocab
from .values import as_dict, as_list, get_key, js_json, merge_env

ADVANCED_PRESETS: tuple[tuple[str, ...], ...] = (
    ("--max-num-batched-tokens", "8192"),
    ("--max-num-seqs", "256"),
    ("--gpu-memory-utilization", "0.95"),
    ("--max-model-len", "auto"),
)


def advanced_presets(recipe: dict[str, Any], strategy_id: str) -> list[list[str]]:
    """Single-node §8.2: argument bundles the builder offers at pipeline step 8."""
    model = as_dict(recipe.get("model"))
    out = [list(p) for p in ADVANCED_PRESETS]
    if model.get("supports_dcp") is True:
        out.append(["--decode-context-parallel-size", "8"])
    if model.get("flashinfer_autotune") is True:
        out.append(["--no-enable-flashinfer-autotune"])
    if isinstance(strategy_id, str) and strategy_id.endswith(("tep", "dep")):
        out.append(["--enable-ep-weight-filter"])
    for extra in as_list(recipe.get("advanced_options")):
        args = extra.get("args") if isinstance(extra, dict) else extra
        if isinstance(args, list) and args:
            out.append(list(args))
    return out


def _deep_merge(base: dict[str, Any], patch: dict[str, Any], drop_nulls: bool) -> dict[str, Any]:
    """Merge ``patch`` into a copy of ``base``: nested dicts merge; ``None`` deletes when ``drop_nulls``."""
    out = dict(base)
    for key, value in patch.items():
        if value is None and drop_nulls:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value, drop_nulls)
        elif isinstance(value, dict) and drop_nulls:
            out[key] = _deep_merge({}, value, drop_nulls)
        else:
            out[key] = value
    return out


def _postprocess_tokens(tokens: list[Any], remove: list[Any], patches: dict[str, Any]) -> list[Any]:
    """json-api §11.7 step 9: drop ``remove_args`` units, then apply ``json_args`` patches."""
    units = [u for u in arg_units(tokens) if u[0] is None or u[0] not in remove]
    for flag, patch in patches.items():
        if not isinstance(patch, dict):
            raise PresetError(f"json_args[{flag!r}] must be a mapping")
        index = next((i for i, u in enumerate(units) if u[0] == flag), None)
        if index is not None and len(units[index]) == 2:
            try:
                current = json.loads(units[index][1])
            except (TypeError, ValueError) as err:
                raise PresetError(f"value of {flag} is not a JSON object: {err}") from err
            if not isinstance(current, dict):
                raise PresetError(f"value of {flag} is not a JSON object")
            units[index] = (flag, js_json(_deep_merge(current, patch, True), None))
            continue
        if index is not None:
            del units[index]
        units.append((flag, js_json(_deep_merge({}, patch, True), None)))
    return flatten_units(units)


def preset_point_selection(recipe: JSON, preset: JSON, point: JSON) -> PresetSelection:
    """json-api §11.7 steps 1-7 as a :func:`resolve` selection."""
    variants = as_list(preset.get("variants"))
    v = variants[0] if variants else "default"
    hw = cast(str, preset.get("hardware"))  # validate_presets reports any but a known profile
    sid = cast(str, preset.get("strategy"))  # ... and any but a known serving strategy
    chosen = dict(as_dict(get_key(preset.get("select"), "features")))
    chosen.update(as_dict(get_key(point.get("select"), "features")))
    def pick_value(key: str) -> Any:
        psel, rsel = as_dict(point.get("select")), as_dict(preset.get("select"))
        return psel[key] if key in psel else rsel.get(key)

    enabled = set(default_enabled_features(recipe, hw, v))
    modes: dict[str, str] = {}
    for key, value in chosen.items():
        if value is False:
            enabled.discard(key)
        elif value is True:
            enabled.add(key)
        elif isinstance(value, str):
            enabled.add(key)
            modes[key] = value
    features = [f for f in declared_features(recipe) if f in enabled]
    tp = point["tp"] if "tp" in point else preset.get("tp")
    kv = pick_value("kv_offload")
    return {"hardware": hw, "variant": v, "substitute": False, "strategy": sid, "features": features,
            "modes": modes, "advanced_args": as_list(preset.get("args")) + as_list(point.get("args")),
            "nodes": pick_value("nodes"), "kv_offload": None if kv == "off" else kv, "tp": tp}


def preset_image(preset: dict[str, Any]) -> Any:
    image = preset.get("image")
    return image if isinstance(image, str) else get_key(image, "vllm")


def _render_point(recipe: dict[str, Any], vocab: Vocab, preset: dict[str, Any],
                  point: dict[str, Any]) -> dict[str, Any]:
    """json-api §11.7 steps 1-11 for one point: the §5.1 record."""
    sel = preset_point_selection(recipe, preset, point)
    taxonomy = as_dict(vocab.get("taxonomy"))
    hw, sid, v = sel["hardware"], sel["strategy"], sel["variant"]
    profile = profile_of(taxonomy, hw)
    ctx = RenderContext(recipe, vocab, v, hw, sel["features"], sel["modes"], sel["advanced_args"], sel["tp"])
    nodes = node_count_value(sel["nodes"]) or nodes_for(recipe, vocab, sid, profile, hw)
    result = resolve_core(ctx, sid, nodes, None, sel["kv_offload"], None)
    remove = as_list(preset.get("remove_args")) + as_list(point.get("remove_args"))
    if any(src.get("json_args") is not None and not isinstance(src["json_args"], dict)
           for src in (preset, point)):
        raise PresetError("json_args must be a mapping")
    patches = _deep_merge(as_dict(preset.get("json_args")), as_dict(point.get("json_args")), False)

    def fix(argv: list[Any]) -> list[Any]:
        return serve_argv(ctx, _postprocess_tokens(argv[3:], remove, patches))

    if "head_argv" in result:
        result["head_argv"] = fix(result["head_argv"])
        result["worker_argvs"] = [fix(a) for a in result["worker_argvs"]]
        result["worker_argv"] = result["worker_argvs"][0]
        result["head_command"] = format_command(ctx.model_id, result["head_argv"][3:])
        result["worker_commands"] = [format_command(ctx.model_id, a[3:]) for a in result["worker_argvs"]]
        result["worker_command"] = result["worker_commands"][0]
    elif "argv" in result:
        result["argv"] = fix(result["argv"])
        result["command"] = format_command(ctx.model_id, result["argv"][3:])
    else:
        raise PresetError(f"strategy {sid!r} cannot be used by a preset")
    result.pop("companions", None)
    env = result["env"]
    merge_env(env, preset.get("env"))
    merge_env(env, point.get("env"))
    image = preset_image(preset) or docker_image(recipe, ctx.variant, profile, hw)
    return build_record(ctx, sid, nodes, result, image)


class ResolvedPreset(TypedDict):
    """json-api §11.7 body parts of one preset: its rendered points and the failures as warnings."""

    points: dict[str, Any]
    warnings: list[str]


class PresetCheck(TypedDict):
    """:func:`check_presets`: the validation problems and every preset rendered on the way."""

    problems: list[tuple[str, str]]
    resolved: dict[str, ResolvedPreset]  # the presets without a structural problem, each point rendered once


def _resolve_points(recipe: dict[str, Any], vocab: Vocab, preset_key: str, preset: dict[str, Any],
                    problems: list[tuple[str, str]]) -> ResolvedPreset:
    """Render every point of one preset; a :class:`PresetError` is also a validation problem."""
    points: dict[str, Any] = {}
    warnings: list[str] = []
    for key, point in as_dict(preset.get("points")).items():
        point = as_dict(point)
        try:
            record = _render_point(recipe, vocab, preset, point)
        except ResolveError as err:  # json-api §11.7: a failing point becomes a warning
            if isinstance(err, PresetError):
                problems.append((f"presets.{preset_key}.points.{key}.json_args", str(err)))
            variants = as_list(preset.get("variants"))
            warnings.append(
                failure_warning(recipe, recipe.get("hf_id") or "", variants[0] if variants else "default",
                         f"{preset.get('strategy')} (preset {preset_key}.{key})", err))
            continue
        points[key] = {"label": point.get("label"), "concurrency": point.get("concurrency"), **record}
    return {"points": points, "warnings": warnings}


def resolve_preset(recipe: dict[str, Any], vocab: Vocab, preset_key: str) -> ResolvedPreset:
    """json-api §11.7: ``{"points": {key: {label, concurrency, <record>}}, "warnings": [...]}``."""
    preset = as_dict(as_dict(recipe.get("presets")).get(preset_key))
    return _resolve_points(recipe, vocab, preset_key, preset, [])


def _structure_problems(recipe: dict[str, Any], vocab: Vocab, pkey: str,
                        preset: Any) -> list[tuple[str, str]]:
    """json-api §11.7 "Preset validation" of one preset before any point is rendered."""
    problems: list[tuple[str, str]] = []
    profiles = hardware_profiles(as_dict(vocab.get("taxonomy")))
    strategies = strategy_catalogue(vocab)
    variants = as_dict(recipe.get("variants"))
    features = declared_features(recipe)
    base = f"presets.{pkey}"
    if not isinstance(preset, dict):
        return [(base, f"preset {pkey!r} must be a mapping")]
    hw, sid = preset.get("hardware"), preset.get("strategy")
    if hw not in profiles:
        problems.append((f"{base}.hardware", f"unknown hardware profile {hw!r}"))
    if sid not in strategies or deploy_type_of(strategies[sid]) not in ("single_node", "multi_node"):
        problems.append((f"{base}.strategy",
                         f"strategy {sid!r} is not a known single_node or multi_node serving strategy"))
    for i, v in enumerate(as_list(preset.get("variants"))):
        if v not in variants:
            problems.append((f"{base}.variants[{i}]", f"unknown variant {v!r}"))
    points = preset.get("points")
    if not isinstance(points, dict) or not points:
        problems.append((f"{base}.points", "points must be a non-empty mapping"))
        points = {}
    scopes = [(base, preset)] + [(f"{base}.points.{k}", as_dict(p)) for k, p in points.items()]
    for path, src in scopes:
        for fkey, value in as_dict(get_key(src.get("select"), "features")).items():
            feature = features.get(fkey)
            if not isinstance(feature, dict):
                problems.append((f"{path}.select.features.{fkey}", f"unknown feature {fkey!r}"))
            elif isinstance(value, str) and value not in as_dict(feature.get("modes")):
                problems.append(
                    (f"{path}.select.features.{fkey}", f"unknown mode {value!r} of feature {fkey!r}"))
        for flag, patch in as_dict(src.get("json_args")).items():
            if not isinstance(patch, dict):
                problems.append((f"{path}.json_args.{flag}", f"json_args value for {flag} must be a mapping"))
        if src.get("json_args") is not None and not isinstance(src.get("json_args"), dict):
            problems.append((f"{path}.json_args", "json_args must be a mapping"))
    return problems


def check_presets(recipe: dict[str, Any], vocab: Vocab) -> PresetCheck:
    """json-api §11.7 "Preset validation", rendering each point of a well-formed preset once.

    The rendered presets are kept so the build publishes them without rendering them again.
    """
    problems: list[tuple[str, str]] = []
    resolved: dict[str, ResolvedPreset] = {}
    for pkey, preset in as_dict(recipe.get("presets")).items():
        found = _structure_problems(recipe, vocab, pkey, preset)
        problems.extend(found)
        if not found:
            resolved[pkey] = _resolve_points(recipe, vocab, pkey, preset, problems)
    return {"problems": problems, "resolved": resolved}


def validate_presets(recipe: dict[str, Any], vocab: Vocab) -> list[tuple[str, str]]:
    """json-api §11.7 "Preset validation": ``[(dotted.field.path, message)]`` (empty = valid)."""
    return check_presets(recipe, vocab)["problems"]
