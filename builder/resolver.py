"""Pure, stdlib-only recipe resolver: recipe + selection -> ``vllm serve`` / docker commands.

This module is the single implementation of the resolver specifications
(``resolver-single-node.md``, ``resolver-cluster.md`` and the rendering parts of
``json-api.md``).  It imports only the Python standard library and nothing from
``builder`` so that the very same file can run in the browser under Pyodide.  All
inputs and outputs are plain JSON-like data (dict, list, str, int, float, bool, None).

Vocabulary
----------
``vocab = {"taxonomy": <taxonomy.yaml mapping>, "strategies": <mapping>}`` where
``strategies`` holds the serving strategies keyed by ``name`` (sorted file order)
followed by the Mooncake kv_store deployments keyed by ``name``.

Selection keys accepted by :func:`resolve` (every key is optional)
------------------------------------------------------------------
``hardware``        hardware profile id; default: :func:`default_hardware` for the variant.
``variant``         variant key; default ``"default"``.
``substitute``      bool, default True: when the variant does not *run on* the hardware
                    (precision, allowlist, non-scalable VRAM) switch to
                    :func:`pick_fitting_variant` (single-node spec §4.4/§4.5).
``strategy``        strategy id (a serving strategy, ``pd_cluster`` or a kv_store id);
                    default: the recommended strategy of cluster spec §10.3.
``nodes``           node count N (nodes per instance under Mooncake); default: the
                    recommended node count of §10.3 (alternatives rule for an explicit
                    strategy: ``nodes_for``).
``features``        ordered list of enabled feature keys; default
                    :func:`default_enabled_features`.
``modes``           ``{feature: mode}`` selected feature modes; default ``{}``.
``advanced_args``   list of extra serve arguments (pipeline step 8); default ``[]``.
``pd_nodes``        ``{"prefill": R, "decode": R}`` with ``R`` an int or
                    ``{"nodes", "rank", "parallelism"}``; default for ``pd_cluster``: the
                    builder pool defaults of cluster §11 (:func:`pd_pool_defaults`); pass
                    ``{}`` for co-located pools or :func:`pick_pd_nodes` for the API sizing.
``kv_offload``      taxonomy ``kv_offload`` key or kv_store id; ``None``/``"off"`` = none.
                    When ``strategy`` itself is a kv_store id it is used as the kv id and the
                    serving strategy is chosen as in §10.5 unless ``serving_strategy`` is given.
``serving_strategy`` serving strategy for a kv_store id given as ``strategy``.
``kv_instances``    int or ``{"count", "current"}`` (Mooncake instances); default: deployment's.
``tp``              int: render as if ``variants.<v>.tp`` were this number (presets).
``image``           docker image override (presets).
``cuda``            ``"default"`` or ``"cu129"`` (builder CUDA toggle, §12.7).
``task``            omni task key or id (omni recipes only).
``docker``          bool, default True: include docker forms in the result.

The result of :func:`resolve` is a rendering record in the json-api §5.1 shape plus
builder-only extras (``companions``, ``current_instance``, ``mooncake``, ``install``, ...).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

__all__ = [
    "MAX_NODES",
    "OMNI_TASKS",
    "PresetError",
    "active_omni_task",
    "advanced_presets",
    "applicable_notes",
    "available_modes",
    "builder_state",
    "builder_strategies",
    "builder_tabs",
    "copy_all_installs",
    "dedupe_args",
    "default_enabled_features",
    "default_hardware",
    "docker_argv",
    "docker_image",
    "docker_run",
    "effective_compatible_strategies",
    "effective_mode",
    "extra_installs",
    "fits_single_node",
    "format_command",
    "hardware_lookup",
    "initial_hardware",
    "initial_node_count",
    "install_block",
    "interactive_install",
    "is_omni",
    "js_str",
    "kv_store_ids",
    "min_gpus",
    "mooncake_config_script",
    "node_pills",
    "nodes_for",
    "nodes_for_strategy",
    "offered_hardware",
    "offered_strategies",
    "omni_example",
    "omni_task_for_hardware",
    "omni_tasks",
    "pd_fits_single_node",
    "pd_pool_defaults",
    "pd_pool_modes",
    "pick_fitting_variant",
    "pick_pd_nodes",
    "pip_view",
    "quote_value",
    "recommend_strategy",
    "recommended_strategy",
    "render_matrix",
    "resolve",
    "resolve_omni",
    "resolve_preset",
    "runs_on",
    "strategy_supported",
    "validate_presets",
]

MAX_NODES = 16
HF_CACHE_MOUNT = "~/.cache/huggingface:/root/.cache/huggingface"

# ---------------------------------------------------------------------------
# §0 Conventions: presence tests and JavaScript-style stringification
# ---------------------------------------------------------------------------


def _is_num(v: Any) -> bool:
    """True for int/float but not bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _truthy(v: Any) -> bool:
    """JavaScript truthiness: ``{}`` and ``[]`` are truthy; None/False/0/"" are not."""
    if v is None or v is False or v == "":
        return False
    if _is_num(v):
        return v != 0 and not (isinstance(v, float) and math.isnan(v))
    return True


def _dict(v: Any) -> dict:
    return v if isinstance(v, dict) else {}


def _list(v: Any) -> list:
    return v if isinstance(v, list) else []


def _get(block: Any, key: str) -> Any:
    return block.get(key) if isinstance(block, dict) else None


def js_str(v: Any) -> str:
    """Stringify like JavaScript ``String(v)`` (``True`` -> ``"true"``, ``8.0`` -> ``"8"``)."""
    if isinstance(v, str):
        return v
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _int_if_integral(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _merge(env: dict, block: Any) -> None:
    """§0.5: later writes overwrite values, keys keep their first position."""
    if isinstance(block, dict):
        env.update(block)


# ---------------------------------------------------------------------------
# §1-§2 Hardware profiles and key-matching disciplines
# ---------------------------------------------------------------------------


def _profiles(taxonomy: dict) -> dict:
    return _dict(_get(taxonomy, "hardware_profiles"))


def _profile(taxonomy: dict, hw: str | None) -> dict:
    return _dict(_profiles(taxonomy).get(hw)) if hw is not None else {}


def _raw_generation(profile: dict) -> Any:
    gen = profile.get("generation")
    return gen if _truthy(gen) else profile.get("gpu_generation")


def _gen_key(profile: dict) -> Any:
    """§2.1: generation used for override look-ups (first element of a list)."""
    gen = _raw_generation(profile)
    if isinstance(gen, list):
        return gen[0] if gen else None
    return gen


def _gpus(profile: dict) -> int:
    g = profile.get("gpu_count")
    return _int_if_integral(g) if _is_num(g) else 1


def _vram(profile: dict) -> float:
    v = profile.get("vram_gb")
    return v if _is_num(v) else 0


def _scalable(profile: dict) -> bool:
    return profile.get("scalable") is not False


def _is_nvidia(profile: dict) -> bool:
    return profile.get("brand") == "NVIDIA"


def hardware_lookup(mapping: Any, profile: dict, hw: str | None) -> Any:
    """Discipline H: ``map[hw]``, ``map[generation]``, ``map[brand]``, ``map["default"]``."""
    if not isinstance(mapping, dict):
        return None
    brand = profile.get("brand")
    for key in (hw, _gen_key(profile), brand.lower() if isinstance(brand, str) else None, "default"):
        if key is not None and mapping.get(key) is not None:
            return mapping[key]
    return None


def _lookup_gen(mapping: Any, profile: dict) -> Any:
    """Discipline G: ``map[generation]`` if truthy, else ``map["nvidia"]`` on NVIDIA."""
    if not isinstance(mapping, dict):
        return None
    gen = _gen_key(profile)
    if gen is not None and _truthy(mapping.get(gen)):
        return mapping[gen]
    if _is_nvidia(profile) and _truthy(mapping.get("nvidia")):
        return mapping["nvidia"]
    return None


def _lookup_exact(mapping: Any, hw: str | None) -> Any:
    """Discipline X: exact hardware id only."""
    return mapping.get(hw) if isinstance(mapping, dict) and hw is not None else None


def _mode_gated(mode: dict, profile: dict, hw: str | None) -> bool:
    """Discipline M: True when the mode is ``unsupported`` on this generation or id."""
    table = _dict(mode.get("hardware"))
    gen = _gen_key(profile)
    return (gen is not None and table.get(gen) == "unsupported") or (
        hw is not None and table.get(hw) == "unsupported"
    )


# ---------------------------------------------------------------------------
# §3 Which hardware a recipe offers; §4 variants and fit
# ---------------------------------------------------------------------------


def _variant(recipe: dict, key: str | None) -> dict:
    """§4.1: ``variants[key]``, else ``variants["default"]``, else ``{}``."""
    variants = _dict(recipe.get("variants"))
    if key in variants:
        return _dict(variants[key])
    return _dict(variants.get("default"))


def _model_id(recipe: dict, variant: dict) -> str:
    """§4.2 served model id."""
    for v in (variant.get("model_id"), _dict(recipe.get("model")).get("model_id")):
        if _truthy(v):
            return v
    return "unknown"


def _precision_constraint(variant: dict) -> dict | None:
    """§3.1: ``precision_hardware`` or the nvfp4/fp4 Blackwell default."""
    ph = variant.get("precision_hardware")
    if _truthy(ph):
        return ph if isinstance(ph, dict) else None
    if variant.get("precision") in ("nvfp4", "fp4"):
        return {"brand": "NVIDIA", "generation": "blackwell"}
    return None


def _precision_ok(variant: dict, profile: dict) -> bool:
    c = _precision_constraint(variant)
    if c is None:
        return True
    if c.get("brand") is not None and c.get("brand") != profile.get("brand"):
        return False
    if c.get("generation") is not None:
        gen = _raw_generation(profile)
        gens = gen if isinstance(gen, list) else [gen]
        return c["generation"] in gens
    return True


def _allowlisted(variant: dict, hw: str | None) -> bool:
    allow = variant.get("supported_hardware")
    return not (isinstance(allow, list) and allow) or hw in allow


def _meta_hardware(recipe: dict) -> dict:
    return _dict(_dict(recipe.get("meta")).get("hardware"))


def _candidates(recipe: dict, taxonomy: dict, variant: dict) -> list[str]:
    """Profiles (taxonomy order) passing §3.1-§3.4."""
    declared = _meta_hardware(recipe)
    out = []
    for hw, prof in _profiles(taxonomy).items():
        prof = _dict(prof)
        if declared.get(hw) == "unsupported":
            continue
        if prof.get("restricted") is True and hw not in declared:
            continue
        if _precision_ok(variant, prof) and _allowlisted(variant, hw):
            out.append(hw)
    return out


_BRAND_RANK = {"NVIDIA": 0, "AMD": 1}


def _default_from(recipe: dict, taxonomy: dict, variant: dict, cands: list[str]) -> str:
    authored = _dict(recipe.get("meta")).get("default_hardware")
    if authored is not None and authored in cands:
        return authored
    c = _precision_constraint(variant)
    if c is not None and c.get("generation") == "blackwell":
        for hw in ("b200", "gb200"):
            if hw in cands:
                return hw
    if "h200" in cands:
        return "h200"
    if cands:
        profiles = _profiles(taxonomy)
        return sorted(cands, key=lambda h: (_BRAND_RANK.get(_dict(profiles[h]).get("brand"), 9), h))[0]
    return "h200"


def default_hardware(recipe: dict, taxonomy: dict, variant_key: str) -> str:
    """Single-node spec §3.6: default hardware of (recipe, variant)."""
    variant = _variant(recipe, variant_key)
    return _default_from(recipe, taxonomy, variant, _candidates(recipe, taxonomy, variant))


def initial_hardware(recipe: dict, taxonomy: dict, variant_key: str, query: str | None = None,
                     preference: str | None = None) -> str:
    """§3.7 builder landing hardware: query parameter, stored NVIDIA preference, else §3.6."""
    variant = _variant(recipe, variant_key)
    declared = _meta_hardware(recipe)

    def usable(hw: str | None) -> bool:
        prof = _profiles(taxonomy).get(hw)
        return (isinstance(prof, dict) and declared.get(hw) != "unsupported" and _precision_ok(variant, prof)
                and _allowlisted(variant, hw))

    if usable(query):
        return query
    prof = _profile(taxonomy, preference)
    if usable(preference) and _is_nvidia(prof) and (prof.get("restricted") is not True or preference in declared):
        return preference
    return default_hardware(recipe, taxonomy, variant_key)


def offered_hardware(recipe: dict, taxonomy: dict, variant_key: str) -> list[str]:
    """§3.5 / json-api §4.3: default hardware first, then offered profiles in taxonomy order."""
    variant = _variant(recipe, variant_key)
    cands = _candidates(recipe, taxonomy, variant)
    first = _default_from(recipe, taxonomy, variant, cands)
    return [first] + [hw for hw in cands if hw != first]


def fits_single_node(profile: dict, variant: dict) -> bool:
    """§4.3: the variant's ``vram_minimum_gb`` fits one node (missing figures fit)."""
    node, need = _vram(profile), variant.get("vram_minimum_gb")
    need = need if _is_num(need) else 0
    return node <= 0 or need <= 0 or need <= node


def runs_on(profile: dict, variant: dict, hw: str | None = None) -> bool:
    """§4.3 *runs on*: precision, allowlist (when ``hw`` given), scalable-or-fits."""
    if not _precision_ok(variant, profile):
        return False
    if hw is not None and not _allowlisted(variant, hw):
        return False
    return _scalable(profile) or fits_single_node(profile, variant)


def pick_fitting_variant(recipe: dict, profile: dict, hw: str | None = None) -> str | None:
    """§4.3: the running variant with the largest ``vram_minimum_gb`` (stable order)."""
    best, best_need = None, None
    for key, variant in _dict(recipe.get("variants")).items():
        variant = _dict(variant)
        if not runs_on(profile, variant, hw):
            continue
        need = variant.get("vram_minimum_gb")
        need = need if _is_num(need) else 0
        if best is None or need > best_need:
            best, best_need = key, need
    return best


def _used_variant(recipe: dict, profile: dict, hw: str, variant_key: str) -> str | None:
    """§4.4: substitute on non-scalable hardware when the variant does not fit."""
    variant = _variant(recipe, variant_key)
    if _scalable(profile) or fits_single_node(profile, variant):
        return variant_key
    return pick_fitting_variant(recipe, profile, hw)


# ---------------------------------------------------------------------------
# §6 Features and modes
# ---------------------------------------------------------------------------


def _features(recipe: dict) -> dict:
    return _dict(recipe.get("features"))


def default_enabled_features(recipe: dict, hw: str, variant_key: str) -> list[str]:
    """§6.2: features in declaration order, minus opt-in ones unless forced by default_modes."""
    forced = _dict(_variant(recipe, variant_key).get("default_modes"))
    opt_in = set(_list(recipe.get("opt_in_features")))
    opt_in.update(_list(_lookup_exact(recipe.get("hardware_opt_in_features"), hw)))
    return [f for f in _features(recipe) if f in forced or f not in opt_in]


def available_modes(feature: dict, variant_key: str, profile: dict, hw: str | None) -> list[str]:
    """§6.5 available modes of a modal feature, in declaration order."""
    out = []
    for name, mode in _dict(feature.get("modes")).items():
        mode = _dict(mode)
        allowed = mode.get("variants")
        if isinstance(allowed, list) and allowed and variant_key not in allowed:
            continue
        if not _mode_gated(mode, profile, hw):
            out.append(name)
    return out


def effective_mode(
    recipe: dict, feature_key: str, variant_key: str, profile: dict, hw: str | None, selected: str | None = None
) -> str | None:
    """§6.5 effective mode: selected, variant default_modes, default_mode, first available."""
    feature = _dict(_features(recipe).get(feature_key))
    avail = available_modes(feature, variant_key, profile, hw)
    if not avail:
        return None
    defaults = _dict(_variant(recipe, variant_key).get("default_modes"))
    for choice in (selected, defaults.get(feature_key), feature.get("default_mode")):
        if choice in avail:
            return choice
    return avail[0]


def _feature_allowed(feature: dict, strategy_id: str) -> bool:
    allow = feature.get("strategies")
    return not (isinstance(allow, list) and allow) or strategy_id in allow


def _has_companion(feature: dict) -> bool:
    return _truthy(_get(feature.get("companion"), "command"))


def _feature_args(c: _Ctx, strategy_id: str, skip_companions: bool) -> list:
    """§6.3-§6.5: arguments of the enabled features, in the caller's order."""
    out: list = []
    features = _features(c.recipe)
    for key in c.enabled:
        feature = features.get(key)
        if not isinstance(feature, dict) or not _feature_allowed(feature, strategy_id):
            continue
        if skip_companions and _has_companion(feature):
            continue
        if "modes" in feature and feature.get("modes") is not None:
            mode_key = effective_mode(c.recipe, key, c.variant_key, c.profile, c.hw, c.modes.get(key))
            if mode_key is None:
                continue
            mode = _dict(_dict(feature["modes"]).get(mode_key))
            block = hardware_lookup(mode.get("hardware_overrides"), c.profile, c.hw)
            args = _get(block, "args")
            out += _list(args if args is not None else mode.get("args"))
        else:
            block = _lookup_gen(feature.get("hardware_overrides"), c.profile)
            args = _get(block, "args")
            out += _list(args if args is not None else feature.get("args"))
    return out


def _companions(c: _Ctx, strategy_id: str, kv_opt: tuple[str, dict] | None) -> list[dict]:
    """§6.6 / cluster §8.4 companion processes of a single-node result."""
    out = []
    features = _features(c.recipe)
    for key in c.enabled:
        feature = features.get(key)
        if isinstance(feature, dict) and _has_companion(feature) and _feature_allowed(feature, strategy_id):
            comp = feature["companion"]
            out.append({
                "feature": key,
                "label": comp.get("label") or key,
                "description": comp.get("description") or "",
                "command": js_str(comp["command"]).rstrip(),
            })
    if kv_opt is not None:
        key, opt = kv_opt
        comp = _dict(opt.get("companion"))
        if _truthy(comp.get("command")):
            parts = [comp.get("description") or ""]
            if _truthy(opt.get("install")):
                parts.append(f"Requires: {opt['install']}")
            out.append({
                "feature": f"kv_offload:{key}",
                "label": comp.get("label") or key,
                "description": " ".join(p for p in parts if p),
                "command": js_str(comp["command"]).rstrip(),
            })
    return out


# ---------------------------------------------------------------------------
# §9 Dedupe, §10 quoting and command rendering
# ---------------------------------------------------------------------------


def _is_flag(tok: Any) -> bool:
    return isinstance(tok, str) and tok.startswith("-")


def _units(tokens: list) -> list[tuple]:
    """§9.1: ``(flag, value)``, ``(flag,)`` or ``(None, positional)`` units."""
    units, i, n = [], 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if _is_flag(tok):
            if i + 1 < n and not _is_flag(tokens[i + 1]):
                units.append((tok, tokens[i + 1]))
                i += 2
                continue
            units.append((tok,))
        else:
            units.append((None, tok))
        i += 1
    return units


def _flatten(units: list[tuple]) -> list:
    return [t for u in units for t in (u[1:] if u[0] is None else u)]


def dedupe_args(tokens: list) -> list:
    """§9: drop falsy items, then keep the last occurrence of every flag."""
    units = _units([t for t in tokens if _truthy(t)])
    seen: set = set()
    kept = []
    for unit in reversed(units):
        if unit[0] is not None:
            if unit[0] in seen:
                continue
            seen.add(unit[0])
        kept.append(unit)
    kept.reverse()
    return _flatten(kept)


_SHELL_VAR = re.compile(r"\$[A-Z_][A-Z0-9_]*")
_SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=:@,+%-]+")


def quote_value(value: Any) -> str:
    """§10.4 value quoting (single quotes unless shell-safe or a bare ``$VAR``)."""
    if not isinstance(value, str) or value == "":
        return js_str(value)
    if _SHELL_VAR.fullmatch(value) or _SHELL_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _lines(tokens: list) -> list[str]:
    """§10.2 line grouping: ``flag value`` pairs, everything else on its own line."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if _is_flag(tok) and i + 1 < n and not _is_flag(tokens[i + 1]):
            out.append(f"{tok} {quote_value(tokens[i + 1])}")
            i += 2
        else:
            out.append(js_str(tok))
            i += 1
    return out


def format_command(model_id: str, tokens: list, binary: str = "vllm serve") -> str:
    """§10.3: ``<binary> <model>`` then one continuation line per flag unit."""
    return " \\\n  ".join([f"{binary} {model_id}", *_lines(tokens)])


# §10.6 (project rule, README "Safe content"): what the renderers print without quotes.
# Each check returns None or the message of a build error; ``builder.shell_safety``
# applies them to the YAML, the paste test proves the result on every published command.

SAFE_CHARS = "letters, digits and _ . / = : @ , + % -"
_HIDDEN = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]")
_FLAG_WITH_VALUE = re.compile(r"(-[A-Za-z0-9_./=:@,+%-]*) ([A-Za-z0-9_./=:@,+%-]+)")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MODEL_ID = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+|(?:/[A-Za-z0-9_.+-]+)+")
_IMAGE_REF = re.compile(
    r"(?:[A-Za-z0-9.-]+(?::[0-9]+)?/)?[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
    r"(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
    r"(?:@sha256:[0-9a-f]{64})?")
_VAR_REF = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})")
_CAT_SUBST = re.compile(r"\$\(cat [A-Za-z0-9_][A-Za-z0-9_./-]*\)")  # a relative file
_UNQUOTED_BAD = set(";()`{}*?[]!~^\\")
_PIPE_INTO = re.compile(r"\|[ ]*(?:jq|base64)[ ]")  # decoding a JSON answer, as our omni examples do
_REDIRECT_TO = re.compile(r">[ ]*[A-Za-z0-9_][A-Za-z0-9_.-]*(?=[ \n]|$)")  # a file in the current folder


def hidden_char_problem(text: str) -> str | None:
    """A control, zero-width or bidi character (other than a newline) anywhere in ``text``."""
    m = _HIDDEN.search(text)
    return None if m is None else f"contains the control/invisible character U+{ord(m.group()):04X}"


def shell_flag_problem(token: str) -> str | None:
    """A flag item (``--x``, ``--x=v``) is printed unquoted: safe characters only.

    One space between a flag and a value (``--max-model-len auto``, in the upstream corpus)
    is tolerated: bash splits it into those two words and runs nothing else.
    """
    if _SHELL_SAFE.fullmatch(token) or _FLAG_WITH_VALUE.fullmatch(token):
        return None
    return (f"flag {token!r} is printed unquoted: only {SAFE_CHARS} are allowed "
            f"(give a value as the next list item: values are quoted)")


def shell_positional_problem(token: str) -> str | None:
    """A positional argument (a non-flag item not after a flag) is printed unquoted."""
    if _SHELL_SAFE.fullmatch(token):
        return None
    return f"positional argument {token!r} is printed unquoted: only {SAFE_CHARS} are allowed"


def shell_value_problem(token: str) -> str | None:
    """A flag value is quoted (§10.4); only invisible characters are refused."""
    problem = hidden_char_problem(token)
    return None if problem is None else f"value {token!r} {problem}"


def env_name_problem(name: Any) -> str | None:
    """Env names are printed as ``export NAME=`` / ``-e NAME=``."""
    if isinstance(name, str) and _ENV_NAME.fullmatch(name):
        return None
    return f"env name {name!r} must match [A-Za-z_][A-Za-z0-9_]*"


def env_value_problem(value: Any) -> str | None:
    """Env values are printed unquoted (``export K=V``, ``-e K=V``, ``-v V:V:ro`` mounts).

    Allowed: numbers, booleans, null, the empty string, safe characters, or one bare
    upper-case ``$VAR`` (expanded by the reader's shell, like a §10.4 placeholder).
    """
    if value is None or isinstance(value, (bool, int, float)):
        return None
    if isinstance(value, str) and (value == "" or _SHELL_SAFE.fullmatch(value) or _SHELL_VAR.fullmatch(value)):
        return None
    return (f"env value {value!r} is printed unquoted: only {SAFE_CHARS} or one $UPPER_CASE "
            f"variable are allowed")


def model_id_problem(model_id: Any) -> str | None:
    """Model ids are printed unquoted (``vllm serve <id>``, docker mounts)."""
    if isinstance(model_id, str) and _MODEL_ID.fullmatch(model_id):
        return None
    return (f"model id {model_id!r} must be org/repo (letters, digits, _ . -) or an absolute "
            f"path of letters, digits and _ . + - /")


def image_problem(image: Any) -> str | None:
    """Docker images are printed unquoted: a docker reference (``docker pull <ref>`` tolerated)."""
    if isinstance(image, str):
        ref = image[len("docker pull "):] if image.startswith("docker pull ") else image
        if _IMAGE_REF.fullmatch(ref):
            return None
    return f"docker image {image!r} must be a docker image reference ([registry/]name[:tag][@sha256:digest])"


def shell_words_problem(text: Any, what: str) -> str | None:
    """Values interpolated into generated commands (serve binary, router policy, endpoint...)."""
    words = js_str(text).split(" ")
    if all(_SHELL_SAFE.fullmatch(w) for w in words):
        return None
    return f"{what} {text!r} is printed unquoted: only {SAFE_CHARS} (and single spaces) are allowed"


def shell_script_problem(text: Any) -> str | None:
    """Authored shell (install commands, companion/master commands, curl examples).

    The rule is as strict as the upstream corpus and our recipes allow: commands are joined by
    newlines or ``&&`` only; outside quotes no ``; & < ( ) ` { } * ? [ ] ! ~ ^`` nor backslashes
    except a line continuation; ``|`` only into ``jq`` or ``base64``; ``>`` only to a file name
    of the current folder; ``$`` only as ``$NAME`` / ``${NAME}``; inside double quotes the same
    expansions plus ``$(cat <path>)``; single quotes hold anything; ``#`` comments; every
    quote closed; no control or invisible character.
    """
    if not isinstance(text, str):
        return f"shell command {text!r} must be a string"
    problem = hidden_char_problem(text)
    if problem:
        return f"shell command {problem}"
    i, n, quote, word_start = 0, len(text), "", True

    def where(k: int) -> str:
        line = text.count("\n", 0, k) + 1
        return f"line {line}, column {k - (text.rfind(chr(10), 0, k) + 1) + 1}"

    while i < n:
        ch = text[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
            i += 1
            continue
        if quote == '"':
            if ch == '"':
                quote, i = "", i + 1
            elif ch == "\\":
                i += 2
            elif ch in "`!":
                return f"shell command: {ch!r} inside double quotes at {where(i)} is not allowed"
            elif ch == "$":
                m = _CAT_SUBST.match(text, i) or _VAR_REF.match(text, i)
                if m is None:
                    return (f"shell command: '$' at {where(i)} must start $NAME, ${{NAME}} or "
                            f"$(cat <path>)")
                i = m.end()
            else:
                i += 1
            continue
        if ch in "'\"":
            quote, word_start, i = ch, False, i + 1
        elif ch == "#" and word_start:
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif ch == "\\" and text[i + 1:i + 2] == "\n":
            i += 2
        elif ch == "&" and text[i + 1:i + 2] == "&":
            word_start, i = True, i + 2
        elif ch == "$":
            m = _VAR_REF.match(text, i)
            if m is None:
                return f"shell command: '$' at {where(i)} must start $NAME or ${{NAME}}"
            word_start, i = False, m.end()
        elif ch == "|" and _PIPE_INTO.match(text, i):
            word_start, i = True, i + 1
        elif ch == ">" and _REDIRECT_TO.match(text, i):
            word_start, i = False, _REDIRECT_TO.match(text, i).end()
        elif ch in _UNQUOTED_BAD or ch in "&|<>":
            return (f"shell command: {ch!r} outside quotes at {where(i)} is not allowed "
                    f"(join commands with a newline or &&)")
        else:
            word_start, i = ch in " \n", i + 1
    return f"shell command: unterminated {quote} quote" if quote else None


def heredoc_text_problem(text: str) -> str | None:
    """Strings written into the unquoted Mooncake ``<<EOF`` heredocs (only ``$NAME`` expands)."""
    for m in re.finditer(r"[`\\$]", text):
        if m.group() != "$" or not _VAR_REF.match(text, m.start()):
            return (f"{text!r} is written into an unquoted heredoc: no backtick or backslash, "
                    f"'$' only as $NAME or ${{NAME}}")
    return None


# ---------------------------------------------------------------------------
# §12 Docker
# ---------------------------------------------------------------------------


def _brand_key(profile: dict) -> str:
    """§12.1 docker brand key."""
    gen = _raw_generation(profile)
    if gen == "tpu":
        return "tpu"
    if profile.get("brand") == "AMD":
        return "amd"
    if gen in ("cpu", "xpu") or profile.get("brand") == "Intel":
        return "intel"
    return "nvidia"


_LATEST = {
    "nvidia": "vllm/vllm-openai:latest",
    "amd": "vllm/vllm-openai-rocm:latest",
    "tpu": "vllm/vllm-tpu:latest",
    "intel": "vllm/vllm-openai-cpu:latest-x86_64",
}
_NIGHTLY = {
    "nvidia": "vllm/vllm-openai:nightly",
    "amd": "vllm/vllm-openai-rocm:nightly",
    "tpu": "vllm/vllm-tpu:nightly",
}
_BRAND_KEYS = ("nvidia", "amd", "tpu", "intel")


def _is_cuda_map(v: Any) -> bool:
    return isinstance(v, dict) and ("cu129" in v or "cu130" in v)


def _pick_cuda(cuda_map: dict, cuda: str = "default") -> Any:
    if cuda != "default" and cuda_map.get(cuda) is not None:
        return cuda_map[cuda]
    return cuda_map.get("cu130") or cuda_map.get("cu129")


def _cuda_suffix(image: str) -> str:
    """§12.7 cu129 form of a plain image tag."""
    m = re.fullmatch(r"(vllm/vllm-(?:openai|openai-rocm|tpu)):nightly", image)
    return f"{m.group(1)}:cu129-nightly" if m else f"{image}-cu129"


def _image_sources(recipe: dict, variant: dict, profile: dict, hw: str | None) -> tuple[Any, dict | None]:
    """§12.2: (pinned image, CUDA map) from the variant exact override, variant, then model."""
    brand = _brand_key(profile)
    exact = _get(_lookup_exact(variant.get("hardware_overrides"), hw), "docker_image")
    pinned = exact if isinstance(exact, str) else None
    cuda_map: dict | None = None
    for src in (variant.get("docker_image"), _dict(recipe.get("model")).get("docker_image")):
        if not _truthy(src) or pinned is not None or cuda_map is not None:
            continue
        if isinstance(src, str):
            if brand == "nvidia":
                pinned = src
        elif isinstance(src, dict) and any(k in src for k in _BRAND_KEYS):
            entry = src.get(brand)
            if isinstance(entry, str):
                pinned = entry
            elif brand == "nvidia" and _is_cuda_map(entry):
                cuda_map = entry
        elif brand == "nvidia" and _is_cuda_map(src):
            cuda_map = src
    return pinned, cuda_map


def docker_image(recipe: dict, variant: dict, profile: dict, hw: str | None, cuda: str = "default") -> str | None:
    """§12.2 image (None only in the §12.6 Intel-CPU nightly edge); ``cuda`` is the §12.7 toggle."""
    pinned, cuda_map = _image_sources(recipe, variant, profile, hw)
    if _raw_generation(profile) == "xpu" and pinned is None:
        return "vllm/vllm-openai-xpu:latest"
    if pinned is None and cuda_map is not None:
        return _pick_cuda(cuda_map, cuda)
    if pinned is None:
        nightly = _dict(recipe.get("model")).get("nightly_required") is True
        pinned = (_NIGHTLY if nightly else _LATEST).get(_brand_key(profile))
    if cuda == "cu129" and isinstance(pinned, str):
        return _cuda_suffix(pinned)
    return pinned


def _device_flags(profile: dict) -> tuple[str, list[str]]:
    """§12.3 device flags: (shell-string form, argv form)."""
    gen = _raw_generation(profile)
    if gen == "tpu":
        return "--privileged --network host \\\n  -v /dev/shm:/dev/shm", [
            "--privileged", "--network", "host", "-v", "/dev/shm:/dev/shm"]
    if profile.get("brand") == "AMD":
        return "--device=/dev/kfd --device=/dev/dri \\\n  --security-opt seccomp=unconfined --group-add video", [
            "--device=/dev/kfd", "--device=/dev/dri", "--security-opt", "seccomp=unconfined",
            "--group-add", "video"]
    if gen == "xpu":
        return "--device /dev/dri \\\n  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g", [
            "--device", "/dev/dri", "-v", "/dev/dri/by-path:/dev/dri/by-path", "--shm-size", "16g"]
    if gen == "cpu" or profile.get("brand") == "Intel":
        return "--shm-size=16g", ["--shm-size", "16g"]
    return "--gpus all", ["--gpus", "all"]


def _mounts(model_id: Any, env: dict) -> list[str]:
    out = []
    if isinstance(model_id, str) and model_id.startswith("/"):
        out.append(f"{model_id}:{model_id}:ro")
    for key, value in env.items():
        if key.endswith("_CONFIG_PATH"):
            v = js_str(value)
            out.append(f"{v}:{v}:ro")
    return out


_SERVE_HEAD = re.compile(r"vllm serve (\S+)\s*\\?\n?\s*")


def docker_run(command: str, env: dict, image: str | None, profile: dict, port: int = 8000) -> str:
    """§12.4 ``docker run`` shell string wrapping a ``vllm serve`` command."""
    m = _SERVE_HEAD.match(command)
    model, body = (m.group(1), command[m.end():]) if m else ("MODEL", command)
    lines = [
        f"docker run {_device_flags(profile)[0]}",
        f"--privileged --ipc=host -p {port}:{port}",
        f"-v {HF_CACHE_MOUNT}",
        *(f"-v {mount}" for mount in _mounts(model, env)),
        *(f"-e {k}={js_str(v)}" for k, v in env.items()),
        f"{image if image is not None else 'undefined'} {model}",
    ]
    text = " \\\n  ".join(lines)
    if body:
        text += " \\\n  " + body
    if isinstance(model, str) and model.startswith("/"):
        text = f"# {model} must already exist on the host — bind-mounted read-only below.\n" + text
    return text


def docker_argv(argv: list, env: dict, image: str | None, profile: dict, port: int = 8000) -> list:
    """§12.5 ``docker run`` argv form."""
    rest = argv[2:] if argv[:2] == ["vllm", "serve"] else list(argv)
    out: list = ["docker", "run", *_device_flags(profile)[1], "--privileged", "--ipc=host",
                 "-p", f"{port}:{port}", "-v", HF_CACHE_MOUNT]
    for mount in _mounts(rest[0] if rest else None, env):
        out += ["-v", mount]
    for k, v in env.items():
        out += ["-e", f"{k}={js_str(v)}"]
    return out + [image, *rest]


# ---------------------------------------------------------------------------
# §13 Install block (JSON)
# ---------------------------------------------------------------------------

PIP_RELEASE = "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"
PIP_NIGHTLY = (
    "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/{tag} \\\n"
    "  --extra-index-url https://download.pytorch.org/whl/{tag} \\\n"
    "  --index-strategy unsafe-best-match"
)


def _nightly_note(version: Any) -> str:
    return f"vLLM {'' if version is None else js_str(version)} isn't released yet — nightly required."


def _install_image(model: dict) -> str:
    """§13.1: the NVIDIA image from ``model.docker_image`` alone."""
    src = model.get("docker_image")
    if isinstance(src, str) and src:
        return src
    if isinstance(src, dict):
        entry = src.get("nvidia") if any(k in src for k in _BRAND_KEYS) else src
        if isinstance(entry, str) and entry:
            return entry
        if _is_cuda_map(entry) and _pick_cuda(entry):
            return _pick_cuda(entry)
    return _LATEST["nvidia"]


def install_block(recipe: dict) -> dict | None:
    """§13.1: the synthesised ``model.install`` (None when it would be empty)."""
    model = _dict(recipe.get("model"))
    install = _dict(model.get("install"))
    nightly = model.get("nightly_required") is True
    out: dict = {}
    pip = install.get("pip")
    if pip is not False:
        pip = _dict(pip)
        entry = {"command": pip.get("command") if _truthy(pip.get("command")) else (
            PIP_NIGHTLY.format(tag="cu130") if nightly else PIP_RELEASE)}
        note = pip.get("note") if _truthy(pip.get("note")) else (
            _nightly_note(model.get("min_vllm_version")) if nightly else None)
        if note is not None:
            entry["note"] = note
        out["pip"] = entry
    dock = install.get("docker")
    if dock is not False:
        dock = _dict(dock)
        entry = {"command": dock.get("command") if _truthy(dock.get("command"))
                 else f"docker pull {_install_image(model)}"}
        if _truthy(dock.get("note")):
            entry["note"] = dock["note"]
        out["docker"] = entry
    deps = recipe.get("dependencies")
    if isinstance(deps, list) and deps:
        out["extras"] = deps
    return out or None


# ---------------------------------------------------------------------------
# Cluster §2-§4: strategy support, floors, recommendation, PD pool modes
# ---------------------------------------------------------------------------


def _strategies(vocab: dict) -> dict:
    return _dict(vocab.get("strategies"))


def _deploy_type(strategy: Any) -> str:
    return _get(strategy, "deploy_type") or "single_node"


def kv_store_ids(vocab: dict) -> list[str]:
    """Mooncake deployment ids in catalogue order."""
    return [k for k, s in _strategies(vocab).items() if _deploy_type(s) == "kv_store_lb"]


def effective_compatible_strategies(recipe: dict) -> list[str]:
    """Cluster §2.3: ``compatible_strategies`` + opt-in ``strategy_hardware`` entries."""
    out = list(_list(recipe.get("compatible_strategies")))
    for sid, table in _dict(recipe.get("strategy_hardware")).items():
        if sid not in out and isinstance(table, dict) and "supported" in table.values():
            out.append(sid)
    return out


def strategy_supported(recipe: dict, strategy_id: str, profile: dict, hw: str | None) -> bool:
    """Cluster §2.2."""
    value = hardware_lookup(_dict(recipe.get("strategy_hardware")).get(strategy_id), profile, hw)
    if value is not None:
        return value != "unsupported"
    return strategy_id in _list(recipe.get("compatible_strategies"))


def _floor_from(block: Any, key: str) -> Any:
    if _is_num(block):
        return block
    if isinstance(block, dict):
        for k in (key, f"multi_node_{key}", f"single_node_{key}"):
            if block.get(k) is not None:
                return block[k]
    return 0


def min_gpus(recipe: dict, key: str, hw: str | None) -> Any:
    """Cluster §3.3 GPU floor for a strategy id or PD pool mode."""
    table = recipe.get("strategy_min_gpus")
    if table is None:
        return 0
    if _is_num(table):
        return table
    if not isinstance(table, dict):
        return 0
    top = _floor_from(table, key)
    exact = _floor_from(table.get(hw), key) if hw else 0
    return max(top if _is_num(top) else 0, exact if _is_num(exact) else 0)


def nodes_for_strategy(recipe: dict, key: str, gpus_per_node: Any, hw: str | None) -> int:
    """Cluster §3.4: ``ceil(minGpus / gpusPerNode)`` (missing GPUs = 8), at least 1."""
    per = gpus_per_node if _is_num(gpus_per_node) and gpus_per_node else 8
    return max(1, math.ceil(min_gpus(recipe, key, hw) / per))


def _reachable(recipe: dict, key: str, deploy_type: str, gpus_per_node: Any, hw: str | None) -> bool:
    """Cluster §3.5."""
    per = gpus_per_node if _is_num(gpus_per_node) and gpus_per_node else 8
    max_nodes = MAX_NODES if deploy_type in ("multi_node", "pd_cluster") else 1
    return max_nodes * per >= min_gpus(recipe, key, hw)


def pd_fits_single_node(profile: dict, variant: dict) -> bool:
    """Cluster §3.6 ``pdFitsSingleNode``."""
    if not profile or not _is_num(profile.get("gpu_count")) or profile["gpu_count"] < 2:
        return False
    need = variant.get("vram_minimum_gb")
    return _vram(profile) >= 2 * (need if _is_num(need) and need else 0)


def recommend_strategy(recipe: dict, node_count: int) -> str:
    """Cluster §4.1 ``recommendStrategy`` (hardware is not consulted)."""
    comp = effective_compatible_strategies(recipe)
    default = recipe.get("default_strategy")
    if default is not None and default in comp:
        if not (node_count > 1 and isinstance(default, str) and default.startswith("single_node_")):
            return default
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


def pd_pool_modes(recipe: dict) -> list[str]:
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
    modes = [m for m in ("tp", "tep", "dep") if m in found] or ["tp"]
    limit = _get(_dict(recipe.get("strategy_overrides")).get("pd_cluster"), "pool_modes")
    if isinstance(limit, list) and limit:
        kept = [m for m in modes if m in limit]
        if kept:
            return kept
    return modes


def offered_strategies(recipe: dict, vocab: dict, variant_key: str, hw: str) -> list[str]:
    """Cluster §10.2: ordered strategy ids offered on ``hw`` (kv_store ids included)."""
    profile = _profile(vocab.get("taxonomy") or {}, hw)
    strategies = _strategies(vocab)
    scalable = _scalable(profile)
    kv_opt_out = _dict(recipe.get("kv_cache_strategy_hardware"))
    kv_ids = kv_store_ids(vocab)
    out: list[str] = []
    for sid in effective_compatible_strategies(recipe) + kv_ids:
        if sid in out:
            continue
        if sid in kv_ids:
            ok = (scalable and profile.get("brand") in ("NVIDIA", "AMD")
                  and _get(kv_opt_out.get(sid), hw) != "unsupported")
        else:
            dt = _deploy_type(strategies.get(sid)) if sid in strategies else "unknown"
            ok = (strategy_supported(recipe, sid, profile, hw)
                  and _reachable(recipe, sid, dt, profile.get("gpu_count"), hw)
                  and (scalable or not (sid.startswith("multi_node_") or sid == "pd_cluster")))
        if ok:
            out.append(sid)
    return out


def _is_multi(vocab: dict, sid: str) -> bool:
    return _deploy_type(_strategies(vocab).get(sid)) == "multi_node"


def nodes_for(recipe: dict, vocab: dict, sid: str, profile: dict, hw: str) -> int:
    """Cluster §10.3 step 4 ``nodesFor``: multi-node minimum 2, raised to the GPU floor."""
    return max(2 if _is_multi(vocab, sid) else 1, nodes_for_strategy(recipe, sid, profile.get("gpu_count"), hw))


def recommended_strategy(recipe: dict, vocab: dict, variant_key: str, hw: str) -> tuple[str, int]:
    """Cluster §10.3: (recommended strategy id, node count) for a used variant on ``hw``."""
    profile = _profile(vocab.get("taxonomy") or {}, hw)
    offered = offered_strategies(recipe, vocab, variant_key, hw)
    return _recommend_from(recipe, vocab, offered, profile, hw, _variant(recipe, variant_key))


def _recommend_from(recipe: dict, vocab: dict, offered: list[str], profile: dict, hw: str,
                    variant: dict) -> tuple[str, int]:
    scalable = _scalable(profile)
    multi = scalable and any(s.startswith("multi_node_") for s in offered)
    base = 2 if (not fits_single_node(profile, variant) and multi) else 1
    rec = recommend_strategy(recipe, base)
    if rec not in offered:
        kv_ids = kv_store_ids(vocab)
        plain = [s for s in offered if s not in kv_ids and s != "pd_cluster"]
        non_kv = [s for s in offered if s not in kv_ids]
        rec = plain[0] if plain else non_kv[0] if non_kv else rec
    return rec, max(base, nodes_for(recipe, vocab, rec, profile, hw))


def pick_pd_nodes(recipe: dict, vocab: dict, profile: dict, variant: dict, hw: str) -> dict | str | None:
    """Cluster §10.4 ``pickPdNodes``: None (co-located), ``"skip"`` or per-role node counts."""
    if pd_fits_single_node(profile, variant):
        return None
    node, need = _vram(profile), variant.get("vram_minimum_gb")
    if node <= 0 or not _is_num(need) or need <= 0:
        return None
    per_role = math.ceil(need / node)
    if per_role > 4:
        return "skip"
    so = _dict(_dict(recipe.get("strategy_overrides")).get("pd_cluster"))
    st = _dict(_strategies(vocab).get("pd_cluster"))
    out = {}
    for role in ("prefill", "decode"):
        par = _get(so.get(role), "parallelism") or _get(st.get(role), "parallelism") or "tp"
        out[role] = max(per_role, nodes_for_strategy(recipe, par, profile.get("gpu_count"), hw))
    return out


# ---------------------------------------------------------------------------
# Resolver context and the argument / env pipeline (single-node §8, §11)
# ---------------------------------------------------------------------------


class _Ctx:
    """Per-call derived values (cluster §5.1)."""

    __slots__ = ("recipe", "taxonomy", "strategies", "hw", "profile", "variant_key", "variant",
                 "model_id", "gpus", "enabled", "modes", "advanced", "tp_override")

    def __init__(self, recipe: dict, vocab: dict, variant_key: str, hw: str, enabled: list[str],
                 modes: dict | None = None, advanced: list | None = None, tp_override: Any = None):
        self.recipe = recipe
        self.taxonomy = _dict(vocab.get("taxonomy"))
        self.strategies = _strategies(vocab)
        self.hw = hw
        self.profile = _profile(self.taxonomy, hw)
        self.variant_key = variant_key
        self.variant = _variant(recipe, variant_key)
        self.model_id = _model_id(recipe, self.variant)
        self.gpus = _gpus(self.profile)
        self.enabled = list(enabled)
        self.modes = _dict(modes)
        self.advanced = list(advanced or [])
        self.tp_override = tp_override

    def so(self, strategy_id: str) -> dict:
        return _dict(_dict(self.recipe.get("strategy_overrides")).get(strategy_id))


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


# ---------------------------------------------------------------------------
# Cluster §8 KV-offload options and §9 Mooncake helpers
# ---------------------------------------------------------------------------


def _kv_option(c: _Ctx, key: Any, strategy_id: str, strategy: dict) -> tuple[str, dict] | None:
    """Cluster §8.2 gates; returns (key, option) or None."""
    if not isinstance(key, str):
        return None
    opt = _dict(c.taxonomy.get("kv_offload")).get(key)
    if not isinstance(opt, dict):
        return None
    if _deploy_type(strategy) in ("pd_cluster", "kv_store_lb"):
        return None
    allow = opt.get("strategies")
    if isinstance(allow, list) and allow and strategy_id not in allow:
        return None
    support = _dict(c.recipe.get("kv_offload_support")).get(key)
    if support == "unsupported" or (opt.get("requires_opt_in") is True and support != "verified"):
        return None
    brands = opt.get("brands")
    if isinstance(brands, list) and brands and c.profile.get("brand") not in brands:
        return None
    return key, opt


def _kv_install(deployment: dict, profile: dict) -> Any:
    """Cluster §9.5 brand-keyed install command."""
    inst = _get(deployment.get("vllm"), "install")
    if isinstance(inst, dict):
        brand = profile.get("brand")
        key = "amd" if brand == "AMD" else "nvidia" if brand == "NVIDIA" else None
        return inst.get(key) if key else None
    return inst if isinstance(inst, str) else None


def _kv_instances(deployment: dict, spec: Any) -> tuple[int, Any]:
    """Cluster §9.2: (count, current)."""
    count_in = spec.get("count") if isinstance(spec, dict) else spec
    if _is_num(count_in) and count_in >= 1:
        count = int(math.floor(count_in))
    else:
        default = deployment.get("default_instances")
        count = default if default is not None else 2
    current = spec.get("current") if isinstance(spec, dict) else None
    current = current if _is_num(current) else 0
    return count, min(max(current, 0), count - 1)


def _mooncake_parts(deployment: dict) -> dict:
    master = _dict(deployment.get("mooncake_master"))
    store_src = deployment.get("mooncake_store_config")
    store = None
    if isinstance(store_src, dict):
        store = {"command": store_src.get("command"), "description": store_src.get("description") or "",
                 "config": store_src.get("config") or None, "note": store_src.get("note") or ""}
    cfg = _dict(deployment.get("mooncake_vllm_config"))
    return {
        "master": {"command": master.get("command") or "mooncake_master",
                   "description": master.get("description") or ""},
        "store": store,
        "config": cfg.get("template") or {},
        "config_note": cfg.get("note") or "",
    }


# ---------------------------------------------------------------------------
# Cluster §6 multi-node, §7 pd_cluster, §9 kv-store results
# ---------------------------------------------------------------------------


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


def _multi_block(c: _Ctx, strategy: dict, nodes: int, rank: int, master: str) -> list:
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


def _serve(c: _Ctx, strategy_id: str, strategy: dict, nodes: int, kv_opt: tuple[str, dict] | None,
           mooncake: dict | None, master: str) -> dict:
    """Single-node (§5.3 step 4) or multi-node (§6) serving result, optionally with Mooncake."""
    tail = _list(_get(kv_opt[1], "args")) if kv_opt else []
    extra_env = [_get(kv_opt[1], "env")] if kv_opt else []
    if mooncake is not None:
        tail = tail + _list(_get(mooncake.get("vllm"), "vllm_args"))
        extra_env.append(_get(mooncake.get("vllm"), "env"))
    skip = mooncake is not None
    env = _pipeline_env(c, strategy_id, strategy.get("env"), extra_env, None)
    vllm_args = _list(strategy.get("vllm_args"))
    if _deploy_type(strategy) == "multi_node" and nodes > 1:
        argvs = [_argv(c, _pipeline_args(c, strategy_id, vllm_args + _multi_block(c, strategy, nodes, r, master),
                                         None, tail, skip)) for r in range(nodes)]
        commands = [format_command(c.model_id, a[3:]) for a in argvs]
        return {"deploy_type": "multi_node", "node_count": nodes,
                "head_command": commands[0], "worker_command": commands[1], "worker_commands": commands[1:],
                "head_argv": argvs[0], "worker_argv": argvs[1], "worker_argvs": argvs[1:], "env": env}
    flag = strategy.get("parallel_flag") or "--tensor-parallel-size"
    block = vllm_args + [flag, js_str(_single_parallel_size(c, strategy_id))]
    tokens = _pipeline_args(c, strategy_id, block, None, tail, skip)
    out = {"deploy_type": _deploy_type(strategy), "command": format_command(c.model_id, tokens),
           "argv": _argv(c, tokens), "env": env}
    if mooncake is None:
        comps = _companions(c, strategy_id, kv_opt)
        if comps:
            out["companions"] = comps
    return out


_NVL4_KEYS = ("VLLM_USE_NCCL_SYMM_MEM", "NCCL_CUMEM_ENABLE", "NCCL_MNNVL_ENABLE", "NCCL_NVLS_ENABLE",
              "UCX_NET_DEVICES")


def _pd_role(c: _Ctx, strategy: dict, role: str, request: Any, nodes: int, mooncake: dict | None) -> dict:
    """Cluster §7.1-§7.7: one PD role (command, argv, env and pool metadata)."""
    req = {"nodes": request} if _is_num(request) else _dict(request)
    so = c.so("pd_cluster")
    sr, st = _dict(so.get(role)), _dict(strategy.get(role))
    g, up = c.gpus, role.upper()
    pool_nodes = req["nodes"] if _is_num(req.get("nodes")) else (1 if nodes > 1 else 0)
    pool_gpus = g // 2 if pool_nodes == 0 else pool_nodes * g
    par = req.get("parallelism") or sr.get("parallelism") or st.get("parallelism") or "tp"
    modes = pd_pool_modes(c.recipe)
    arg_par = par if par in modes else modes[0]
    rank_req = req.get("rank") if req.get("rank") is not None else 0
    current = min(max(rank_req, 0), max(1, pool_nodes) - 1)
    head = f"${up}_NODE_1"
    block = list(_list(st.get("vllm_args")))
    if arg_par == "dep":
        tp_x = sr.get("tp") if sr.get("tp") is not None else st.get("tp")
        tp = tp_x if tp_x is not None else 1
        local = max(1, g // tp)
        in_pool = max(1, pool_nodes)
        if tp_x is not None:
            block += ["--tensor-parallel-size", js_str(tp)]
        block += ["--data-parallel-size", js_str(in_pool * local), "--data-parallel-size-local", js_str(local),
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
    tail = _list(_get(_get(_get(mooncake, "pd"), role), "args")) if mooncake else []
    tokens = _pipeline_args(c, "pd_cluster", block, role, tail)
    pin: dict = {}
    if pool_nodes >= 1:
        pin["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in range(g))
        if pool_nodes >= 2:
            pin["GLOO_SOCKET_IFNAME"] = "$IFACE_NAME"
            pin["NCCL_SOCKET_IFNAME"] = "$IFACE_NAME"
    elif g // 2 > 0:
        half = g // 2
        ids = range(half) if role == "prefill" else range(half, g)
        pin["CUDA_VISIBLE_DEVICES"] = ",".join(str(i) for i in ids)
    layers = [_get(mooncake.get("vllm"), "env")] if mooncake else []
    env = _pipeline_env(c, "pd_cluster", st.get("env"), layers, role, pin)
    if c.hw not in ("gb200", "gb300"):
        for key in _NVL4_KEYS:
            env.pop(key, None)
    if _is_num(rank_req) and rank_req > 0 and par == "dep":
        for key, value in env.items():
            if value == head:
                env[key] = f"${up}_NODE_{js_str(rank_req + 1)}"
    if par == "dep":
        meta_tp = sr.get("tp") or st.get("tp") or 1
        local_meta = max(1, g // meta_tp)
        dp_size = max(1, pool_nodes) * local_meta
    else:
        meta_tp, local_meta, dp_size = pool_gpus, 0, 1
    return {"command": format_command(c.model_id, tokens), "argv": _argv(c, tokens), "env": env,
            "nodes": pool_nodes, "parallelism": par, "tp": meta_tp, "dpLocal": local_meta, "dpSize": dp_size,
            "poolGpus": pool_gpus, "currentNode": current, "startRank": current * local_meta}


def _pd_router(c: _Ctx, strategy: dict, roles: dict) -> str:
    """Cluster §7.8 ``vllm-router`` command for PD."""
    policy = _get(strategy.get("router"), "policy") or "round_robin"
    lines = [f"vllm-router --policy {policy}", "--vllm-pd-disaggregation"]
    for role, port in (("prefill", 8001), ("decode", 8002)):
        meta = roles[role]
        count = max(1, meta["nodes"] or 1) if meta["parallelism"] == "dep" else 1
        lines += [f"--{role} http://${role.upper()}_NODE_{i}:{port}" for i in range(1, count + 1)]
    intra = _get(c.so("pd_cluster").get("router"), "intra_node_data_parallel_size")
    if intra is None:
        intra = max(roles["prefill"]["dpLocal"], roles["decode"]["dpLocal"], 1)
    lines += ["--host $ROUTER_HOST", "--port $ROUTER_PORT", f"--intra-node-data-parallel-size {js_str(intra)}"]
    return " \\\n    ".join(lines)


def _pd_result(c: _Ctx, strategy: dict, nodes: int, pd_nodes: Any, mooncake: dict | None) -> dict:
    """Cluster §7.9 PD result (+ §9.7 Mooncake)."""
    pools = _dict(pd_nodes)
    out: dict = {"deploy_type": "pd_cluster", "node_count": nodes}
    if mooncake is not None:
        parts = _mooncake_parts(mooncake)
        out["mooncake"] = {"master": parts["master"], "store": parts["store"], "config": parts["config"],
                           "configNote": parts["config_note"], "install": _kv_install(mooncake, c.profile)}
    roles = {role: _pd_role(c, strategy, role, pools.get(role), nodes, mooncake) for role in ("prefill", "decode")}
    out.update(roles)
    out["router"] = {"command": _pd_router(c, strategy, roles), "install": "uv pip install vllm-router"}
    out["router_config"] = strategy.get("router") or {"policy": "round_robin"}
    return out


def _kv_router(deployment: dict, count: int) -> dict | None:
    """Cluster §9.4 cache-aware router (only with more than one instance)."""
    if count <= 1:
        return None
    router = _dict(deployment.get("router"))
    port = _get(deployment.get("vllm"), "port") or 8000
    lines = [f"vllm-router --policy {router.get('policy') or 'cache_aware'}"]
    lines += [f"--backend-url http://$VLLM_INSTANCE_{i}:{js_str(port)}" for i in range(1, count + 1)]
    lines += ["--host $ROUTER_HOST", "--port $ROUTER_PORT", "--cache-threshold 0.5",
              "--balance-abs-threshold 4", "--balance-rel-threshold 1.1"]
    return {"command": " \\\n    ".join(lines), "install": router.get("install") or "uv pip install vllm-router",
            "port": router.get("port") or 30080}


def _kv_result(c: _Ctx, serving_id: str, strategy: dict, nodes: int, kv_opt: tuple[str, dict] | None,
               deployment: dict, instances: Any) -> dict:
    """Cluster §9.3-§9.6 kv-store result."""
    count, current = _kv_instances(deployment, instances)
    master = f"$VLLM_INSTANCE_{js_str(current + 1)}" if count > 1 else "$HEAD_IP"
    served = _serve(c, serving_id, strategy, nodes, kv_opt, deployment, master)
    vllm: dict = {}
    if served["deploy_type"] == "multi_node" and "head_command" in served:
        vllm.update(command=served["head_command"], argv=served["head_argv"],
                    workerCommand=served["worker_command"], workerArgv=served["worker_argv"],
                    workerCommands=served["worker_commands"], workerArgvs=served["worker_argvs"])
    else:
        vllm.update(command=served["command"], argv=served["argv"])
    vllm.update(env=served["env"], install=_kv_install(deployment, c.profile))
    parts = _mooncake_parts(deployment)
    return {"deploy_type": "kv_store_lb", "serving_strategy": serving_id, "node_count": nodes,
            "instances": count, "current_instance": current, "master": parts["master"], "store": parts["store"],
            "vllm": vllm, "router": _kv_router(deployment, count), "mooncake_config": parts["config"],
            "mooncake_config_note": parts["config_note"]}


def _resolve_core(c: _Ctx, strategy_id: str, nodes: int = 1, pd_nodes: Any = None, kv_offload: Any = None,
                  kv_instances: Any = None) -> dict:
    """Cluster §5 dispatch: PD, Mooncake composition, multi-node, or single-node."""
    strategy = _dict(c.strategies.get(strategy_id))
    nodes = nodes if _is_num(nodes) else 1
    kv_store = c.strategies.get(kv_offload) if isinstance(kv_offload, str) else None
    kv_store = kv_store if _deploy_type(kv_store) == "kv_store_lb" and isinstance(kv_store, dict) else None
    kv_opt = _kv_option(c, kv_offload, strategy_id, strategy)
    if _deploy_type(strategy) == "pd_cluster":
        return _pd_result(c, strategy, nodes, pd_nodes, kv_store)
    if kv_store is not None:
        return _kv_result(c, strategy_id, strategy, nodes, kv_opt, kv_store, kv_instances)
    return _serve(c, strategy_id, strategy, nodes, kv_opt, None, "$HEAD_IP")


# ---------------------------------------------------------------------------
# json-api §5.1 rendering records
# ---------------------------------------------------------------------------


def _docker_pair(command: str, argv: list, env: dict, image: str | None, profile: dict,
                 port: int = 8000) -> tuple[str, list]:
    return docker_run(command, env, image, profile, port), docker_argv(argv, env, image, profile, port)


def _record(c: _Ctx, strategy_id: str, node_count: int, result: dict, image: str | None) -> dict:
    """Build the §5.1 record (key order matters) from a resolver result."""
    deploy = result["deploy_type"]
    rec: dict = {"hardware": c.hw, "strategy": strategy_id, "variant": c.variant_key, "node_count": node_count,
                 "deploy_type": deploy, "env": {}}
    if image is not None:
        rec["docker_image"] = image
    p = c.profile
    if deploy == "multi_node" and "head_command" in result:
        env = result["env"]
        rec["env"] = env
        head = _docker_pair(result["head_command"], result["head_argv"], env, image, p)
        workers = [_docker_pair(cmd, a, env, image, p)
                   for cmd, a in zip(result["worker_commands"], result["worker_argvs"], strict=True)]
        rec.update(head_command=result["head_command"], worker_command=result["worker_command"],
                   worker_commands=result["worker_commands"], head_argv=result["head_argv"],
                   worker_argv=result["worker_argv"], worker_argvs=result["worker_argvs"],
                   head_docker_command=head[0], worker_docker_command=workers[0][0],
                   worker_docker_commands=[w[0] for w in workers], head_docker_argv=head[1],
                   worker_docker_argv=workers[0][1], worker_docker_argvs=[w[1] for w in workers])
    elif deploy == "pd_cluster":
        for role, port in (("prefill", 8001), ("decode", 8002)):
            role_rec = dict(result[role])
            dc, da = _docker_pair(role_rec["command"], role_rec["argv"], role_rec["env"], image, p, port)
            role_rec.update(docker_command=dc, docker_argv=da)
            rec[role] = role_rec
        rec["router"] = result["router"]
        rec["router_config"] = result["router_config"]
    elif deploy == "kv_store_lb":
        vllm = result["vllm"]
        env = vllm["env"]
        rec.update(strategy=result.get("kv_id", strategy_id), node_count=result["node_count"], env=env)
        main = _docker_pair(vllm["command"], vllm["argv"], env, image, p)
        multi = "workerCommands" in vllm
        workers = [_docker_pair(cmd, a, env, image, p)
                   for cmd, a in zip(vllm.get("workerCommands", []), vllm.get("workerArgvs", []), strict=True)]
        rec.update(
            serving_strategy=result["serving_strategy"], kv_min_vllm_version=result.get("kv_min_vllm_version"),
            instances=result["instances"], vllm_command=vllm["command"], vllm_argv=vllm["argv"],
            vllm_worker_command=vllm.get("workerCommand"), vllm_worker_commands=vllm.get("workerCommands"),
            vllm_worker_argv=vllm.get("workerArgv"), vllm_worker_argvs=vllm.get("workerArgvs"),
            vllm_worker_docker_command=workers[0][0] if multi else None,
            vllm_worker_docker_argv=workers[0][1] if multi else None,
            vllm_worker_docker_commands=[w[0] for w in workers] if multi else None,
            vllm_worker_docker_argvs=[w[1] for w in workers] if multi else None,
            vllm_install=vllm.get("install"), vllm_docker_command=main[0], vllm_docker_argv=main[1],
            master=result["master"], store=result["store"], router=result["router"],
            mooncake_config=result["mooncake_config"], mooncake_config_note=result["mooncake_config_note"])
    else:
        env = result["env"]
        rec["env"] = env
        dc, da = _docker_pair(result["command"], result["argv"], env, image, p)
        rec.update(command=result["command"], argv=result["argv"], docker_command=dc, docker_argv=da)
        if result.get("companions"):
            rec["companions"] = result["companions"]
    return rec


def _render(c: _Ctx, strategy_id: str, nodes: int, pd_nodes: Any = None, kv_id: str | None = None,
            kv_instances: Any = None, image: str | None = None, extras: bool = False) -> dict:
    """Resolve one combination and build its record.

    ``kv_id`` is a taxonomy KV-offload key or a Mooncake id (then a kv_store record is built).
    ``extras`` keeps builder-only result keys (``current_instance``, ``mooncake``).
    """
    if image is None:
        image = docker_image(c.recipe, c.variant, c.profile, c.hw)
    result = _resolve_core(c, strategy_id, nodes, pd_nodes, kv_id, kv_instances)
    if result["deploy_type"] == "kv_store_lb":
        result["kv_id"] = kv_id
        result["kv_min_vllm_version"] = _dict(c.strategies.get(kv_id)).get("min_vllm_version")
    record = _record(c, strategy_id, nodes, result, image)
    if extras:
        for key in ("current_instance", "mooncake"):
            if key in result:
                record[key] = result[key]
    return record


def _serving_for(recipe: dict, vocab: dict, nc: int) -> str | None:
    """Cluster §10.5 ``servingFor``."""
    strategies = _strategies(vocab)

    def ok(sid: str) -> bool:
        dt = _deploy_type(strategies.get(sid)) if sid in strategies else None
        return dt is not None and dt not in ("pd_cluster", "kv_store_lb") and (dt == "multi_node") == (nc > 1)

    rec = recommend_strategy(recipe, nc)
    if ok(rec):
        return rec
    return next((s for s in effective_compatible_strategies(recipe) if ok(s)), None)


def _kv_serving(recipe: dict, vocab: dict, profile: dict, variant: dict, hw: str) -> tuple[str, int] | None:
    """Cluster §10.5 steps 1-4: (serving strategy, nodes per instance) for a kv-store id."""
    nc = 1 if fits_single_node(profile, variant) else 2
    serving = _serving_for(recipe, vocab, nc)
    if serving is None and nc == 2:
        nc = 1
        serving = _serving_for(recipe, vocab, nc)
    if serving is None:
        return None
    if _is_multi(vocab, serving):
        nc = max(nc, nodes_for_strategy(recipe, serving, profile.get("gpu_count"), hw))
    return serving, nc


def _render_alternative(c: _Ctx, vocab: dict, sid: str) -> dict | None:
    """Cluster §10.5 rendering of one non-recommended offered id (None = skipped)."""
    if sid == "pd_cluster":
        pools = pick_pd_nodes(c.recipe, vocab, c.profile, c.variant, c.hw)
        return None if pools == "skip" else _render(c, sid, 1, pools)
    if sid in kv_store_ids(vocab):
        pick = _kv_serving(c.recipe, vocab, c.profile, c.variant, c.hw)
        return None if pick is None else _render(c, pick[0], pick[1], kv_id=sid)
    return _render(c, sid, nodes_for(c.recipe, vocab, sid, c.profile, c.hw))


def _failure(recipe: dict, hf_id: str, variant_key: str, sid: str, err: Exception) -> str:
    name = recipe.get("hf_id") or hf_id
    return f"resolver failed for {name} variant {variant_key!r} strategy {sid!r}: {err}"


def is_omni(recipe: dict) -> bool:
    """Cluster §12.1: ``meta.tasks`` contains ``omni``."""
    return "omni" in _list(_dict(recipe.get("meta")).get("tasks"))


def render_matrix(recipe: dict, vocab: dict, variant_key: str, hf_id: str) -> dict:
    """json-api §4.3-§4.5: recommended + alternative records per hardware of one base."""
    warnings: list[str] = []
    out: dict = {"hardware": [], "warnings": warnings}
    if variant_key not in _dict(recipe.get("variants")) or is_omni(recipe):
        return out
    taxonomy = _dict(vocab.get("taxonomy"))
    hardware = offered_hardware(recipe, taxonomy, variant_key)
    for index, hw in enumerate(hardware):
        entry = _render_hardware(recipe, vocab, taxonomy, variant_key, hw, hf_id, warnings)
        if entry is None:
            if index == 0:
                out["hardware"] = []
                return out
            continue
        out["hardware"].append(entry)
    return out


def _render_hardware(recipe: dict, vocab: dict, taxonomy: dict, variant_key: str, hw: str, hf_id: str,
                     warnings: list[str]) -> dict | None:
    """json-api §4.4 for one hardware; None when it yields no rendering."""
    profile = _profile(taxonomy, hw)
    used = _used_variant(recipe, profile, hw, variant_key)
    if used is None:
        return None
    c = _Ctx(recipe, vocab, used, hw, default_enabled_features(recipe, hw, used))
    offered = offered_strategies(recipe, vocab, used, hw)
    rec, nodes = _recommend_from(recipe, vocab, offered, profile, hw, c.variant)
    try:
        if rec == "pd_cluster":
            pools = pick_pd_nodes(recipe, vocab, profile, c.variant, hw)
            if pools == "skip":
                return None
            record = _render(c, rec, 1, pools)
        else:
            record = _render(c, rec, nodes)
    except Exception as err:  # noqa: BLE001 - json-api §9.2: any resolver failure is a warning
        warnings.append(_failure(recipe, hf_id, used, rec, err))
        return None
    alternatives = []
    for sid in offered:
        if sid == rec:
            continue
        try:
            alt = _render_alternative(c, vocab, sid)
        except Exception as err:  # noqa: BLE001
            warnings.append(_failure(recipe, hf_id, used, sid, err))
            continue
        if alt is not None:
            alternatives.append([sid, alt])
    return {"hardware": hw, "recommended": record, "alternatives": alternatives}


# ---------------------------------------------------------------------------
# Builder-only helpers (single-node §8.2, §11.3, §13.2-§13.3; cluster §9.10, §11)
# ---------------------------------------------------------------------------

ADVANCED_PRESETS: tuple[tuple[str, ...], ...] = (
    ("--max-num-batched-tokens", "8192"),
    ("--max-num-seqs", "256"),
    ("--gpu-memory-utilization", "0.95"),
    ("--max-model-len", "auto"),
)


def advanced_presets(recipe: dict, strategy_id: str) -> list[list[str]]:
    """Single-node §8.2: argument bundles the builder offers at pipeline step 8."""
    model = _dict(recipe.get("model"))
    out = [list(p) for p in ADVANCED_PRESETS]
    if model.get("supports_dcp") is True:
        out.append(["--decode-context-parallel-size", "8"])
    if model.get("flashinfer_autotune") is True:
        out.append(["--no-enable-flashinfer-autotune"])
    if isinstance(strategy_id, str) and strategy_id.endswith(("tep", "dep")):
        out.append(["--enable-ep-weight-filter"])
    for extra in _list(recipe.get("advanced_options")):
        args = extra.get("args") if isinstance(extra, dict) else extra
        if isinstance(args, list) and args:
            out.append(list(args))
    return out


def pip_view(command: str, env: dict, profile: dict) -> str:
    """Single-node §11.3 pip view: ``export`` lines, a blank line, then the command."""
    lines = ["source /opt/intel/oneapi/setvars.sh"] if _raw_generation(profile) == "xpu" else []
    lines += [f"export {k}={js_str(v)}" for k, v in env.items()]
    return "\n".join(lines) + "\n\n" + command if lines else command


def _version_key(version: Any) -> list[int]:
    return [int(p) if p.isdigit() else 0 for p in js_str(version).split(".")]


def _platform(profile: dict) -> str:
    gen = _raw_generation(profile)
    if gen == "tpu":
        return "TPU"
    if gen == "xpu":
        return "XPU"
    if profile.get("brand") == "AMD":
        return "ROCm"
    if profile.get("brand") == "Intel" or gen == "cpu":
        return "CPU"
    return "CUDA"


_CUDA_LABEL = {"cu130": "CUDA 13 (cu130)", "cu129": "CUDA 12.9 (cu129)"}
PIP_AMD = "uv venv --python 3.12\nsource .venv/bin/activate\nuv pip install vllm --extra-index-url https://wheels.vllm.ai/rocm"
PIP_CPU_NIGHTLY = (
    "uv venv --python 3.12 --seed --managed-python\nsource .venv/bin/activate\nuv pip install vllm \\\n"
    "  --extra-index-url https://wheels.vllm.ai/nightly/cpu \\\n  --index-strategy first-index \\\n"
    "  --torch-backend cpu"
)
PIP_CPU_RELEASE = (
    "uv venv --python 3.12 --seed --managed-python\nsource .venv/bin/activate\n"
    "export VLLM_VERSION=$(curl -s https://api.github.com/repos/vllm-project/vllm/releases/latest"
    " | jq -r .tag_name | sed 's/^v//')\n"
    "uv pip install https://github.com/vllm-project/vllm/releases/download/v$VLLM_VERSION/"
    "vllm-$VLLM_VERSION+cpu-cp38-abi3-manylinux_2_34_x86_64.whl \\\n  --torch-backend cpu"
)


def interactive_install(recipe: dict, vocab: dict, hw: str, variant_key: str, cuda: str = "default",
                        kv_offload: Any = None) -> dict:
    """Single-node §13.2/§13.3: the builder's install block for the current selection.

    Returns ``{min_version, nightly, header, pip, docker, initial_tab, extras}`` where
    ``pip``/``docker`` are ``{command, note}`` or None (tab hidden) and ``extras`` lists the
    dependency entries with ``tabs`` (where each is shown) after the brand filter.
    """
    model, variant = _dict(recipe.get("model")), _variant(recipe, variant_key)
    profile = _profile(_dict(vocab.get("taxonomy")), hw)
    kv_dep = _strategies(vocab).get(kv_offload) if isinstance(kv_offload, str) else None
    kv_dep = kv_dep if _deploy_type(kv_dep) == "kv_store_lb" else None
    versions = [v for v in (model.get("min_vllm_version"), variant.get("min_vllm_version"),
                            _get(kv_dep, "min_vllm_version")) if v is not None]
    minimum = None
    for v in versions:
        if minimum is None or _version_key(v) > _version_key(minimum):
            minimum = v
    nightly = model.get("nightly_required") is True or variant.get("nightly_required") is True
    platform = _platform(profile)
    header = f"vLLM {js_str(minimum)}+" if minimum is not None else "vLLM"
    if is_omni(recipe):
        header += " · vLLM-Omni nightly"
    header += f" · {platform}"
    install = _dict(model.get("install"))
    _, cuda_map = _image_sources(recipe, variant, profile, hw)
    single = next(iter(cuda_map)) if isinstance(cuda_map, dict) and len(cuda_map) == 1 else None
    pip_cfg, dock_cfg = install.get("pip"), install.get("docker")
    pip = None
    if pip_cfg is not False and platform not in ("TPU", "XPU"):
        pip_cfg = _dict(pip_cfg)
        if platform == "ROCm":
            command, note = PIP_AMD, None
        elif platform == "CPU":
            command = PIP_CPU_NIGHTLY if nightly else PIP_CPU_RELEASE
            note = ("Intel/AMD x86 CPU nightly wheels use the dedicated /nightly/cpu index and PyTorch CPU backend."
                    if nightly else "Intel/AMD x86 CPU release wheels are published separately from CUDA wheels;"
                    " the command follows the official vLLM CPU pre-built-wheel flow.")
        elif nightly:
            tag = single or ("cu130" if cuda == "default" else cuda)
            command = PIP_NIGHTLY.format(tag=tag)
            note = _nightly_note(minimum) + (f" This recipe publishes {_CUDA_LABEL.get(single, single)} builds only."
                                             if single else " For CUDA 12.9, switch the toggle to cu129.")
        else:
            command, note = PIP_RELEASE, None
        pip = {"command": pip_cfg["command"] if _truthy(pip_cfg.get("command")) else command,
               "note": pip_cfg["note"] if _truthy(pip_cfg.get("note")) else note}
    docker = None
    if dock_cfg is not False:
        dock_cfg = _dict(dock_cfg)
        if platform == "TPU":
            note = ("TPU builds are published by vllm-project/tpu-inference. See the Trillium and Ironwood "
                    "tpu-recipes for pinned image tags and exact deployment flags.")
        elif platform == "XPU":
            note = "Intel XPU image. The entrypoint initializes oneAPI automatically."
        elif platform == "ROCm":
            note = None
        elif platform == "CPU":
            note = "Intel/AMD x86 CPU image; no CUDA runtime is required."
        elif single:
            note = f"This tag is published as a {_CUDA_LABEL.get(single, single)} build only" + (
                " — the host needs an r580+ NVIDIA driver" if single == "cu130" else "") + "."
        elif cuda_map is not None:
            note = ("This recipe ships paired CUDA-tagged images. Pick `cu129` for CUDA 12.9 hosts or `cu130` "
                    "for CUDA 13.")
        elif nightly:
            note = ("Nightly image ships CUDA 13. Switch to cu129 for the `cu129-nightly` variant if your host "
                    "is on CUDA 12.9.")
        else:
            note = ("Default tag ships CUDA 13. Switch to cu129 for the -cu129 variant if your host is on "
                    "CUDA 12.9.")
        image = docker_image(recipe, variant, profile, hw, cuda)
        docker = {"command": dock_cfg["command"] if _truthy(dock_cfg.get("command"))
                  else f"docker pull {js_str(image)}",
                  "note": dock_cfg["note"] if _truthy(dock_cfg.get("note")) else note}
    if install.get("docker") is False:
        tab = "pip"
    elif install.get("pip") is False:
        tab = "docker"
    else:
        first = next((k for k in install if k in ("pip", "docker")), None)
        tab = "docker" if first == "docker" else "pip"
    return {"min_version": minimum, "nightly": nightly, "header": header, "pip": pip, "docker": docker,
            "initial_tab": tab, "extras": extra_installs(recipe, vocab, hw, kv_offload)}


def extra_installs(recipe: dict, vocab: dict, hw: str, kv_offload: Any = None) -> list[dict]:
    """Single-node §13.3: dependency entries for ``hw`` as ``{command, note, optional, tabs}``.

    ``tabs`` lists the install tabs (``pip``/``docker``) the entry is shown on; the active
    KV option's ``install`` or the Mooncake ``vllm.install`` is appended as a required entry.
    """
    taxonomy = _dict(vocab.get("taxonomy"))
    profile = _profile(taxonomy, hw)
    out = []
    for dep in _list(recipe.get("dependencies")):
        dep = _dict(dep)
        brands = dep.get("brand")
        if brands is not None and profile.get("brand") not in (brands if isinstance(brands, list) else [brands]):
            continue
        modes = dep.get("install_modes")
        out.append({"command": dep.get("command"), "note": dep.get("note"), "optional": dep.get("optional") is True,
                    "tabs": list(modes) if isinstance(modes, list) and modes else ["pip"]})
    extra = None
    if isinstance(kv_offload, str):
        opt = _dict(taxonomy.get("kv_offload")).get(kv_offload)
        dep = _strategies(vocab).get(kv_offload)
        if isinstance(opt, dict):
            extra = opt.get("install")
        elif _deploy_type(dep) == "kv_store_lb":
            extra = _kv_install(dep, profile)
    if _truthy(extra):
        out.append({"command": extra, "note": None, "optional": False, "tabs": ["pip", "docker"]})
    return out


def copy_all_installs(entries: list[dict], tab: str) -> str:
    """Single-node §13.3 "copy all": required commands shown on ``tab``, newline-joined."""
    return "\n".join(js_str(e["command"]) for e in entries if not e["optional"] and tab in e["tabs"])


def mooncake_config_script(deployment: dict) -> str:
    """Cluster §9.10 "Mooncake Config" tab script."""
    parts = _mooncake_parts(deployment)
    store = parts["store"]
    has_store = store is not None and store.get("config") is not None
    exports = ["export MOONCAKE_CONFIG_PATH=${MOONCAKE_CONFIG_PATH:-/etc/mooncake/mooncake_vllm_config.json}"]
    if has_store:
        exports.append("export MOONCAKE_STORE_CONFIG_PATH="
                       "${MOONCAKE_STORE_CONFIG_PATH:-/etc/mooncake/mooncake_store_config.json}")

    def heredoc(note: str, path: str, config: Any) -> str:
        notes = [f"# {line}" for line in note.rstrip().split("\n")] if note.rstrip() else []
        body = json.dumps(config, indent=2, ensure_ascii=False)
        return "\n".join([*notes, f"cat > {path} <<EOF", body, "EOF"])

    blocks = ["\n".join(exports), heredoc(parts["config_note"], "$MOONCAKE_CONFIG_PATH", parts["config"])]
    if has_store:
        blocks.append(heredoc(store["note"], "$MOONCAKE_STORE_CONFIG_PATH", store["config"]))
    return "\n\n".join(blocks)


def node_pills(recipe: dict, vocab: dict, hw: str) -> list[int]:
    """Cluster §11: node-count pills ``[1, 2]`` plus the largest floor in (2, 16]."""
    profile = _profile(_dict(vocab.get("taxonomy")), hw)
    floors = [nodes_for_strategy(recipe, s, profile.get("gpu_count"), hw) for s in effective_compatible_strategies(recipe)]
    top = max(floors, default=1)
    return [1, 2, top] if 2 < top <= MAX_NODES else [1, 2]


def builder_strategies(recipe: dict, vocab: dict, hw: str, nodes: int) -> list[str]:
    """Cluster §11 strategy row: hides kv_store ids, unreachable ids and the wrong node shape."""
    profile = _profile(_dict(vocab.get("taxonomy")), hw)
    strategies = _strategies(vocab)
    out = []
    for sid in effective_compatible_strategies(recipe):
        dt = _deploy_type(strategies.get(sid)) if sid in strategies else "unknown"
        if dt == "kv_store_lb" or not _reachable(recipe, sid, dt, profile.get("gpu_count"), hw):
            continue
        if dt == "pd_cluster" or (dt == "multi_node") == (nodes > 1):
            out.append(sid)
    return out


def initial_node_count(recipe: dict, vocab: dict, variant_key: str, hw: str) -> int:
    """Cluster §11: 2 when a multi-node/PD strategy exists, hardware scales and the variant does not fit."""
    profile = _profile(_dict(vocab.get("taxonomy")), hw)
    multi = any(_deploy_type(_strategies(vocab).get(s)) in ("multi_node", "pd_cluster")
                for s in effective_compatible_strategies(recipe))
    return 2 if multi and _scalable(profile) and not fits_single_node(profile, _variant(recipe, variant_key)) else 1


def pd_pool_defaults(recipe: dict, vocab: dict, variant_key: str, hw: str) -> dict:
    """Cluster §11 builder PD pool defaults ``{role: {nodes, rank, parallelism}}`` (never co-located)."""
    profile = _profile(_dict(vocab.get("taxonomy")), hw)
    so = _dict(_dict(recipe.get("strategy_overrides")).get("pd_cluster"))
    st = _dict(_strategies(vocab).get("pd_cluster"))
    need, node = _variant(recipe, variant_key).get("vram_minimum_gb"), _vram(profile)
    by_vram = max(1, math.ceil(need / node)) if _is_num(need) and need > 0 and node > 0 else 1
    modes = [m for m in pd_pool_modes(recipe)
             if _reachable(recipe, m, "multi_node", profile.get("gpu_count"), hw)] or ["tp"]
    out = {}
    for role in ("prefill", "decode"):
        sr = _dict(so.get(role))
        authored = sr.get("nodes")
        if isinstance(authored, dict):
            authored = authored.get(hw) if authored.get(hw) is not None else authored.get("default")
        nodes = authored if _is_num(authored) and authored >= 1 else by_vram
        par = sr.get("parallelism") or _get(st.get(role), "parallelism") or "tp"
        par = par if par in modes else modes[0]
        nodes = max(nodes, nodes_for_strategy(recipe, par, profile.get("gpu_count"), hw))
        out[role] = {"nodes": nodes, "rank": 0, "parallelism": par}
    return out


def _tab(label: str, command: str, env: dict | None, profile: dict, image: Any = None, argv: list | None = None,
         port: int = 8000) -> dict:
    tab = {"label": label, "command": command, "env": env or {},
           "pip": pip_view(command, env or {}, profile) if env is not None else command}
    if argv is not None:
        tab["docker"] = docker_run(command, env or {}, image, profile, port)
    return tab


def builder_tabs(record: dict, vocab: dict, kv_id: str | None = None) -> list[dict]:
    """Cluster §9.10 / single-node §11.3: the builder's command tabs for a resolved record.

    Each tab is ``{label, command, env, pip}`` plus ``docker`` for ``vllm serve`` commands.
    """
    profile = _profile(_dict(vocab.get("taxonomy")), record.get("hardware"))
    image, deploy = record.get("docker_image"), record["deploy_type"]
    tabs: list[dict] = []
    dep = _strategies(vocab).get(kv_id) if kv_id else None
    if deploy in ("kv_store_lb", "pd_cluster") and _deploy_type(dep) == "kv_store_lb":
        parts = _mooncake_parts(dep)
        tabs.append(_tab("Mooncake Config", mooncake_config_script(dep), None, profile))
        tabs.append(_tab("Mooncake Master", parts["master"]["command"], None, profile))
        if parts["store"] is not None:
            tabs.append(_tab("Mooncake Store", parts["store"]["command"], None, profile))
    if deploy == "multi_node" and "head_command" in record:
        env = record["env"]
        tabs.append(_tab("Head", record["head_command"], env, profile, image, record["head_argv"]))
        for i, (cmd, argv) in enumerate(zip(record["worker_commands"], record["worker_argvs"], strict=True), 1):
            tabs.append(_tab(f"Node {i}", cmd, env, profile, image, argv))
    elif deploy == "pd_cluster":
        for role, port in (("prefill", 8001), ("decode", 8002)):
            r = record[role]
            tabs.append(_tab(role.capitalize(), r["command"], r["env"], profile, image, r["argv"], port))
        tabs.append(_tab("Router", record["router"]["command"], None, profile))
    elif deploy == "kv_store_lb":
        env = record["env"]
        multi = record.get("vllm_worker_commands") is not None
        tabs.append(_tab("Head" if multi else "vLLM Serve", record["vllm_command"], env, profile, image,
                         record["vllm_argv"]))
        for i, (cmd, argv) in enumerate(zip(record.get("vllm_worker_commands") or [],
                                            record.get("vllm_worker_argvs") or [], strict=True), 1):
            tabs.append(_tab(f"Node {i}", cmd, env, profile, image, argv))
        if record.get("router"):
            tabs.append(_tab("Router", record["router"]["command"], None, profile))
    else:
        tabs.append(_tab("vLLM Serve", record["command"], record["env"], profile, image, record["argv"]))
        for comp in record.get("companions") or []:
            tabs.append(_tab(comp["label"], comp["command"], None, profile))
    return tabs


# ---------------------------------------------------------------------------
# Cluster §12 omni recipes
# ---------------------------------------------------------------------------

OMNI_TASKS: dict[str, dict] = {
    "t2i": {"label": "Text → Image", "endpoint": "/v1/images/generations",
            "prompt": "a dragon flying over the Green Mountains at sunset"},
    "i2i": {"label": "Image → Image", "endpoint": "/v1/chat/completions",
            "prompt": "Convert this image to a watercolor painting with soft pastel tones"},
    "t2v": {"label": "Text → Video", "endpoint": "/v1/videos",
            "prompt": "A cinematic view of a futuristic city at sunset, smooth camera pan"},
    "i2v": {"label": "Image → Video", "endpoint": "/v1/videos", "prompt": "A bear playing with yarn, smooth motion"},
    "ti2v": {"label": "Text+Image → Video", "endpoint": "/v1/videos",
             "prompt": "A bear playing with yarn, smooth motion"},
    "t2a": {"label": "Text → Audio", "endpoint": "/v1/audio/generate", "prompt": "The sound of a cat purring softly"},
}


def omni_tasks(recipe: dict) -> list[dict]:
    """Cluster §12.4: resolved task list of an omni recipe (``curl`` kept when authored)."""
    out = []
    for entry in _list(_dict(recipe.get("omni")).get("tasks")):
        entry = {"id": entry} if isinstance(entry, str) else _dict(entry)
        tid = entry.get("id")
        if tid not in OMNI_TASKS:
            continue
        cat = OMNI_TASKS[tid]
        task = {"id": tid, "key": entry.get("key") or tid, "label": entry.get("label") or cat["label"],
                "endpoint": entry.get("endpoint") or cat["endpoint"], "method": "POST",
                "modelId": entry.get("model_id"), "vramMinimumGb": entry.get("vram_minimum_gb"),
                "description": entry.get("description"), "axes": entry.get("axes") or {},
                "extraArgs": list(_list(entry.get("extra_args"))),
                "hardwareOverrides": entry.get("hardware_overrides") or {}}
        if entry.get("curl") is not None:
            task["curl"] = entry["curl"]
        out.append(task)
    return out


def omni_task_for_hardware(task: dict, hw: str) -> dict:
    """Cluster §12.5: apply ``task.hardwareOverrides[hw]``."""
    over = _dict(task.get("hardwareOverrides")).get(hw)
    if not isinstance(over, dict):
        return task
    out = dict(task)
    for key, src in (("label", "label"), ("endpoint", "endpoint"), ("modelId", "model_id"),
                     ("description", "description")):
        if _truthy(over.get(src)):
            out[key] = over[src]
    if over.get("vram_minimum_gb") is not None:
        out["vramMinimumGb"] = over["vram_minimum_gb"]
    out["extraArgs"] = list(task.get("extraArgs") or []) + _list(over.get("extra_args"))
    if over.get("curl") is not None:
        out["curl"] = over["curl"]
    return out


def active_omni_task(recipe: dict, task_param: str | None, hw: str) -> dict | None:
    """Cluster §12.7: task by ``key``, else by ``id``, else the first; hardware override applied."""
    tasks = omni_tasks(recipe)
    task = next((t for t in tasks if t["key"] == task_param), None) or next(
        (t for t in tasks if t["id"] == task_param), None) or (tasks[0] if tasks else None)
    return omni_task_for_hardware(task, hw) if task else None


def _js_json(value: Any, indent: int | None = 2) -> str:
    def clean(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return _int_if_integral(v)
    if indent is None:
        return json.dumps(clean(value), separators=(",", ":"), ensure_ascii=False)
    return json.dumps(clean(value), indent=indent, ensure_ascii=False)


def omni_example(task: dict, host: str = "localhost", port: Any = 8000, model_id: str | None = None,
                 prompt: str | None = None) -> str:
    """Cluster §12.3: the task's curl example (authored ``curl`` verbatim, else the catalogue form)."""
    if task.get("curl") is not None:
        return task["curl"]
    tid = task["id"]
    prompt = prompt or OMNI_TASKS[tid]["prompt"]
    base = f"http://{host}:{js_str(port)}"
    if tid in ("t2v", "i2v", "ti2v"):
        fields: list[tuple[str, Any]] = [("prompt", prompt)]
        if tid != "t2v":
            fields.append(("input_reference", "@/path/to/input.png"))
        fields += [("width", 832), ("height", 480), ("num_frames", 81), ("fps", 16), ("num_inference_steps", 40),
                   ("guidance_scale", 4 if tid == "t2v" else 5), ("seed", 42)]
        lines = [f"curl -X POST {base}/v1/videos/sync", *(f'  -F "{k}={js_str(v)}"' for k, v in fields),
                 "  --output output.mp4"]
        return " \\\n".join(lines)
    if tid == "t2i":
        body: dict = {"prompt": prompt, "size": "1024x1024", "seed": 42}
        after = " \\\n  | jq -r '.data[0].b64_json' | base64 -d > output.png"
    elif tid == "i2i":
        body = {"model": model_id, "messages": [{"role": "user", "content": [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,<BASE64_IMAGE>"}}]}],
            "extra_body": {"height": 1024, "width": 1024, "num_inference_steps": 50, "guidance_scale": 4.5,
                           "seed": 42}}
        after = ""
    else:
        body = {"input": prompt, "audio_length": 10, "negative_prompt": "Low quality", "guidance_scale": 7,
                "num_inference_steps": 100, "seed": 42}
        after = " --output output.wav"
    text = _js_json(body).replace("\n", "\n    ")
    return "\n".join([f"curl -X POST {base}{task['endpoint']} \\", '  -H "Content-Type: application/json" \\',
                      f"  -d '{text}'{after}"])


def resolve_omni(recipe: dict, taxonomy: dict, variant_key: str, task: dict | None, hw: str) -> dict:
    """Cluster §12.6 ``resolveOmniCommand`` -> ``{command, env, model_id}`` (§12.7 fallback without task)."""
    variant = _variant(recipe, variant_key)
    model = _dict(recipe.get("model"))
    omni = _dict(recipe.get("omni"))
    binary = omni.get("serve_binary") or "vllm serve"
    if task is None:
        mid = variant.get("model_id") or model.get("model_id") or "model"
        return {"command": f"{binary} {mid} --omni", "env": {}, "model_id": mid}
    profile = _profile(taxonomy, hw)
    mid = task.get("modelId") or variant.get("model_id") or model.get("model_id") or "unknown"
    gen_recipe = _get(_lookup_gen(recipe.get("hardware_overrides"), profile), "extra_env"), _get(
        _lookup_gen(recipe.get("hardware_overrides"), profile), "extra_args")
    vgen = _lookup_gen(variant.get("hardware_overrides"), profile)
    vexact = _lookup_exact(variant.get("hardware_overrides"), hw)
    own = variant_key != "default"
    env: dict = {}
    for layer in (model.get("base_env"), variant.get("extra_env") if own else None, gen_recipe[0],
                  _get(vgen, "extra_env"), _get(vexact, "extra_env")):
        _merge(env, layer)
    raw = list(_list(model.get("base_args")))
    raw += _list(variant.get("extra_args")) if own else []
    raw += _list(task.get("extraArgs")) + _list(gen_recipe[1])
    raw += _list(_get(vgen, "extra_args")) + _list(_get(vexact, "extra_args"))
    if _truthy(omni.get("port")):
        raw += ["--port", js_str(omni["port"])]
    raw.append("--omni")
    return {"command": format_command(mid, dedupe_args(raw), binary), "env": env, "model_id": mid}


# ---------------------------------------------------------------------------
# The interactive resolver call (cluster §5 entry point for the builder and CLI)
# ---------------------------------------------------------------------------


def _nodes_value(v: Any) -> int | None:
    return int(v) if _is_num(v) and v >= 1 and float(v).is_integer() else None


def resolve(recipe: dict, vocab: dict, selection: dict | None = None) -> dict:
    """Resolve one builder selection (keys documented in the module docstring).

    Returns the json-api §5.1 record for the selection plus builder extras: ``kv_offload``
    (effective key or None), ``companions`` (single node), ``current_instance`` (Mooncake),
    ``mooncake`` (Mooncake x PD), ``install`` (§13.2) and ``tabs`` (§9.10 / §11.3).
    Omni recipes return ``{deploy_type: "omni", hardware, variant, task, command, env,
    model_id, example, tasks, install}``.
    """
    sel = _dict(selection)
    taxonomy = _dict(vocab.get("taxonomy"))
    variant_key = sel.get("variant") or "default"
    hw = sel.get("hardware") or default_hardware(recipe, taxonomy, variant_key)
    profile = _profile(taxonomy, hw)
    if sel.get("substitute", True) and not runs_on(profile, _variant(recipe, variant_key), hw):
        variant_key = pick_fitting_variant(recipe, profile, hw) or variant_key
    cuda = sel.get("cuda") or "default"
    if is_omni(recipe):
        task = active_omni_task(recipe, sel.get("task"), hw)
        out = resolve_omni(recipe, taxonomy, variant_key, task, hw)
        return {"deploy_type": "omni", "hardware": hw, "variant": variant_key, "task": task,
                **out, "example": omni_example(task, model_id=out["model_id"]) if task else None,
                "tasks": omni_tasks(recipe), "install": interactive_install(recipe, vocab, hw, variant_key, cuda)}
    features = sel.get("features")
    features = default_enabled_features(recipe, hw, variant_key) if features is None else list(features)
    kv = sel.get("kv_offload")
    kv = None if kv in (None, "off") else kv
    strategy = sel.get("strategy")
    nodes = _nodes_value(sel.get("nodes"))
    c = _Ctx(recipe, vocab, variant_key, hw, features, sel.get("modes"), sel.get("advanced_args"), sel.get("tp"))
    if strategy is None:
        offered = offered_strategies(recipe, vocab, variant_key, hw)
        strategy, rec_nodes = _recommend_from(recipe, vocab, offered, profile, hw, c.variant)
        nodes = nodes or rec_nodes
    serving = strategy
    if strategy in kv_store_ids(vocab):
        kv = strategy
        pick = _kv_serving(recipe, vocab, profile, c.variant, hw)
        serving = sel.get("serving_strategy") or (pick[0] if pick else "single_node_tp")
        nodes = nodes or (pick[1] if pick else 1)
    nodes = nodes or nodes_for(recipe, vocab, serving, profile, hw)
    pd_nodes = sel.get("pd_nodes")
    if serving == "pd_cluster" and pd_nodes is None:
        pd_nodes = pd_pool_defaults(recipe, vocab, variant_key, hw)
    image = sel.get("image") or docker_image(recipe, c.variant, profile, hw, cuda)
    record = _render(c, serving, nodes, pd_nodes, kv, sel.get("kv_instances"), image, extras=True)
    if sel.get("docker") is False:
        for key in [k for k in record if "docker" in k and k != "docker_image"]:
            del record[key]
        for role in ("prefill", "decode"):
            if role in record:
                record[role] = {k: v for k, v in record[role].items() if "docker" not in k}
    mooncake_active = record["deploy_type"] == "kv_store_lb" or "mooncake" in record
    option_active = _kv_option(c, kv, serving, _dict(c.strategies.get(serving))) is not None
    record["kv_offload"] = kv if mooncake_active or option_active else None
    record["install"] = interactive_install(recipe, vocab, hw, variant_key, cuda, record["kv_offload"])
    if sel.get("docker") is not False:
        record["tabs"] = builder_tabs(record, vocab, kv if record["kv_offload"] == kv else None)
    return record


# ---------------------------------------------------------------------------
# json-api §11.2 notes and §11.7 presets
# ---------------------------------------------------------------------------


def applicable_notes(recipe: dict, selection: dict) -> list[dict]:
    """json-api §11.2: notes whose ``when`` lists (hardware, variant, strategy) all match.

    A ``when`` list for a key absent from ``selection`` does not match; a note without
    ``when`` always applies.
    """
    out = []
    for note in _list(recipe.get("notes")):
        when = _dict(_get(note, "when"))
        if all(not isinstance(when.get(k), list) or selection.get(k) in when[k]
               for k in ("hardware", "variant", "strategy")):
            out.append(note)
    return out


class PresetError(ValueError):
    """A preset point cannot be rendered (bad ``json_args`` target)."""


def _deep_merge(base: dict, patch: dict, drop_nulls: bool) -> dict:
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


def _postprocess_tokens(tokens: list, remove: list, patches: dict) -> list:
    """json-api §11.7 step 9: drop ``remove_args`` units, then apply ``json_args`` patches."""
    units = [u for u in _units(tokens) if u[0] is None or u[0] not in remove]
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
            units[index] = (flag, _js_json(_deep_merge(current, patch, True), None))
            continue
        if index is not None:
            del units[index]
        units.append((flag, _js_json(_deep_merge({}, patch, True), None)))
    return _flatten(units)


def _preset_point_selection(recipe: dict, preset: dict, point: dict) -> dict:
    """json-api §11.7 steps 1-7 as a :func:`resolve` selection."""
    variants = _list(preset.get("variants"))
    v = variants[0] if variants else "default"
    hw, sid = preset.get("hardware"), preset.get("strategy")
    chosen = dict(_dict(_get(preset.get("select"), "features")))
    chosen.update(_dict(_get(point.get("select"), "features")))
    def pick_value(key: str) -> Any:
        psel, rsel = _dict(point.get("select")), _dict(preset.get("select"))
        return psel[key] if key in psel else rsel.get(key)

    enabled = set(default_enabled_features(recipe, hw, v))
    modes = {}
    for key, value in chosen.items():
        if value is False:
            enabled.discard(key)
        elif value is True:
            enabled.add(key)
        elif isinstance(value, str):
            enabled.add(key)
            modes[key] = value
    features = [f for f in _features(recipe) if f in enabled]
    tp = point["tp"] if "tp" in point else preset.get("tp")
    kv = pick_value("kv_offload")
    return {"hardware": hw, "variant": v, "substitute": False, "strategy": sid, "features": features,
            "modes": modes, "advanced_args": _list(preset.get("args")) + _list(point.get("args")),
            "nodes": pick_value("nodes"), "kv_offload": None if kv == "off" else kv, "tp": tp}


def _preset_image(preset: dict) -> Any:
    image = preset.get("image")
    return image if isinstance(image, str) else _get(image, "vllm")


def _render_point(recipe: dict, vocab: dict, preset: dict, point: dict) -> dict:
    """json-api §11.7 steps 1-11 for one point: the §5.1 record."""
    sel = _preset_point_selection(recipe, preset, point)
    taxonomy = _dict(vocab.get("taxonomy"))
    hw, sid, v = sel["hardware"], sel["strategy"], sel["variant"]
    profile = _profile(taxonomy, hw)
    c = _Ctx(recipe, vocab, v, hw, sel["features"], sel["modes"], sel["advanced_args"], sel["tp"])
    nodes = _nodes_value(sel["nodes"]) or nodes_for(recipe, vocab, sid, profile, hw)
    result = _resolve_core(c, sid, nodes, None, sel["kv_offload"], None)
    remove = _list(preset.get("remove_args")) + _list(point.get("remove_args"))
    if any(src.get("json_args") is not None and not isinstance(src["json_args"], dict) for src in (preset, point)):
        raise PresetError("json_args must be a mapping")
    patches = _deep_merge(_dict(preset.get("json_args")), _dict(point.get("json_args")), False)

    def fix(argv: list) -> list:
        return _argv(c, _postprocess_tokens(argv[3:], remove, patches))

    if "head_argv" in result:
        result["head_argv"] = fix(result["head_argv"])
        result["worker_argvs"] = [fix(a) for a in result["worker_argvs"]]
        result["worker_argv"] = result["worker_argvs"][0]
        result["head_command"] = format_command(c.model_id, result["head_argv"][3:])
        result["worker_commands"] = [format_command(c.model_id, a[3:]) for a in result["worker_argvs"]]
        result["worker_command"] = result["worker_commands"][0]
    elif "argv" in result:
        result["argv"] = fix(result["argv"])
        result["command"] = format_command(c.model_id, result["argv"][3:])
    else:
        raise PresetError(f"strategy {sid!r} cannot be used by a preset")
    result.pop("companions", None)
    env = result["env"]
    _merge(env, preset.get("env"))
    _merge(env, point.get("env"))
    image = _preset_image(preset) or docker_image(recipe, c.variant, profile, hw)
    return _record(c, sid, nodes, result, image)


def resolve_preset(recipe: dict, vocab: dict, preset_key: str) -> dict:
    """json-api §11.7: ``{"points": {key: {label, concurrency, <record>}}, "warnings": [...]}``."""
    preset = _dict(_dict(recipe.get("presets")).get(preset_key))
    points: dict = {}
    warnings: list[str] = []
    for key, point in _dict(preset.get("points")).items():
        point = _dict(point)
        try:
            record = _render_point(recipe, vocab, preset, point)
        except Exception as err:  # noqa: BLE001 - json-api §11.7: a failing point becomes a warning
            variants = _list(preset.get("variants"))
            warnings.append(_failure(recipe, recipe.get("hf_id") or "", variants[0] if variants else "default",
                                     f"{preset.get('strategy')} (preset {preset_key}.{key})", err))
            continue
        points[key] = {"label": point.get("label"), "concurrency": point.get("concurrency"), **record}
    return {"points": points, "warnings": warnings}


def validate_presets(recipe: dict, vocab: dict) -> list[tuple[str, str]]:
    """json-api §11.7 "Preset validation": ``[(dotted.field.path, message)]`` (empty = valid)."""
    problems: list[tuple[str, str]] = []
    profiles = _profiles(_dict(vocab.get("taxonomy")))
    strategies = _strategies(vocab)
    variants = _dict(recipe.get("variants"))
    features = _features(recipe)
    for pkey, preset in _dict(recipe.get("presets")).items():
        base = f"presets.{pkey}"
        if not isinstance(preset, dict):
            problems.append((base, f"preset {pkey!r} must be a mapping"))
            continue
        hw, sid = preset.get("hardware"), preset.get("strategy")
        if hw not in profiles:
            problems.append((f"{base}.hardware", f"unknown hardware profile {hw!r}"))
        if sid not in strategies or _deploy_type(strategies[sid]) not in ("single_node", "multi_node"):
            problems.append((f"{base}.strategy",
                             f"strategy {sid!r} is not a known single_node or multi_node serving strategy"))
        for i, v in enumerate(_list(preset.get("variants"))):
            if v not in variants:
                problems.append((f"{base}.variants[{i}]", f"unknown variant {v!r}"))
        points = preset.get("points")
        if not isinstance(points, dict) or not points:
            problems.append((f"{base}.points", "points must be a non-empty mapping"))
            points = {}
        scopes = [(base, preset)] + [(f"{base}.points.{k}", _dict(p)) for k, p in points.items()]
        for path, src in scopes:
            for fkey, value in _dict(_get(src.get("select"), "features")).items():
                feature = features.get(fkey)
                if not isinstance(feature, dict):
                    problems.append((f"{path}.select.features.{fkey}", f"unknown feature {fkey!r}"))
                elif isinstance(value, str) and value not in _dict(feature.get("modes")):
                    problems.append((f"{path}.select.features.{fkey}", f"unknown mode {value!r} of feature {fkey!r}"))
            for flag, patch in _dict(src.get("json_args")).items():
                if not isinstance(patch, dict):
                    problems.append((f"{path}.json_args.{flag}", f"json_args value for {flag} must be a mapping"))
            if src.get("json_args") is not None and not isinstance(src.get("json_args"), dict):
                problems.append((f"{path}.json_args", "json_args must be a mapping"))
        if problems and any(p[0].startswith(base) for p in problems):
            continue
        for pk, point in points.items():
            try:
                _render_point(recipe, vocab, preset, _dict(point))
            except PresetError as err:
                problems.append((f"{base}.points.{pk}.json_args", str(err)))
    return problems


# ---------------------------------------------------------------------------
# Interactive builder view model (site-features §6-§7): one call per click
# ---------------------------------------------------------------------------

BUILDER_PARAMS = ("variant", "hardware", "strategy", "nodes", "features", "fmode", "advanced", "kv_offload",
                  "kv_instances", "kv_instance", "prefill_nodes", "decode_nodes", "prefill_mode", "decode_mode",
                  "prefill_rank", "decode_rank", "task", "install", "cuda", "preset", "point")
"""URL query parameters of a recipe page, in canonical order (§7.1 + install/cuda/preset/point)."""

BUILDER_ADVANCED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("max_batched_8k", ("--max-num-batched-tokens", "8192"),
     "Larger prefill chunks: better throughput for long prompts, slightly higher latency."),
    ("max_num_seqs_256", ("--max-num-seqs", "256"), "Cap concurrent sequences per engine at 256."),
    ("gpu_mem_095", ("--gpu-memory-utilization", "0.95"), "Give 95% of GPU memory to weights and KV cache."),
    ("max_model_len_auto", ("--max-model-len", "auto"), "Let vLLM pick the longest context that fits in memory."),
    ("dcp_8", ("--decode-context-parallel-size", "8"), "Shard the KV cache across 8 ranks during decode."),
    ("no_flashinfer_autotune", ("--no-enable-flashinfer-autotune",), "Skip FlashInfer autotuning at start-up."),
    ("ep_weight_filter", ("--enable-ep-weight-filter",), "Load only the expert weights this rank serves."),
)
_HW_ORDER = ("h100", "h200", "b200", "gb200", "b300", "gb300", "rtx_pro_5000", "rtx_pro_5000_4x", "rtx_pro_6000",
             "rtx_pro_6000_2x", "rtx_pro_6000_8x", "dgx_spark_gb10", "rtx_4090_2x", "rtx_5090", "rtx_5090_2x",
             "dgx_station_gb300", "mi300x", "mi325x", "mi350x", "mi355x")
_ORIENTATION = {"latency": "Latency oriented", "balanced": "Balanced", "production": "Production deployment",
                "throughput": "Throughput oriented"}
_FEATURE_ICONS = {"spec_decoding": "bolt", "tool_calling": "wrench", "reasoning": "brain"}
_EXCLUSIVE = {"text_only": "encoder_parallel", "encoder_parallel": "text_only"}
_POOL_MODE_TIPS = {"tp": "Tensor parallel across the pool's GPUs.",
                   "tep": "Tensor parallel with expert parallelism for MoE layers.",
                   "dep": "Data parallel attention with expert parallelism: one engine rank per GPU."}
_MAX_INSTANCES = 16


def _int_or(value: Any, default: Any = None) -> Any:
    """Parse an int from a URL value (``"2"``) or a number; ``default`` when not an integer."""
    if isinstance(value, bool):
        return default
    if _is_num(value):
        return int(value) if float(value).is_integer() else default
    if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
        return int(value)
    return default


def _csv(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return [js_str(v) for v in value if js_str(v)]
    return [p for p in (s.strip() for s in js_str(value).split(",")) if p]


def _title_key(key: str) -> str:
    return " ".join("KV" if w.lower() == "kv" else w[:1].upper() + w[1:] for w in key.split("_"))


def _feature_label(key: str, feature: dict) -> str:
    return js_str(feature.get("label")) if _truthy(feature.get("label")) else _title_key(key)


def _variant_label(key: str, variant: dict) -> str:
    return js_str(variant.get("label") or variant.get("precision") or key).upper()


def _hw_name(taxonomy: dict, hw: str) -> str:
    return js_str(_profile(taxonomy, hw).get("display_name") or hw)


def _per_gpu(profile: dict) -> str:
    unit = "CPU" if _raw_generation(profile) == "cpu" else "GPU"
    return f"{round(_vram(profile) / max(1, _gpus(profile)))}G/{unit}"


def _is_xpu(profile: dict) -> bool:
    return _raw_generation(profile) == "xpu"


def _pill(value: Any, label: str, selected: bool = False, reason: str | None = None, tooltip: str = "",
          **extra: Any) -> dict:
    pill = {"value": value, "label": label, "selected": bool(selected) and reason is None,
            "disabled": reason is not None, "reason": reason, "tooltip": reason or tooltip}
    pill.update({k: v for k, v in extra.items() if v is not None})
    return pill


class _B:
    """Everything derived from one (recipe, vocab) pair, shared by the state steps."""

    def __init__(self, recipe: dict, vocab: dict):
        self.recipe, self.vocab = recipe, vocab
        self.taxonomy = _dict(vocab.get("taxonomy"))
        self.strategies = _strategies(vocab)
        self.profiles = _profiles(self.taxonomy)
        self.variants = _dict(recipe.get("variants")) or {"default": {}}
        self.features = _features(recipe)
        self.declared = _meta_hardware(recipe)
        self.omni = is_omni(recipe)
        self.kv_ids = sorted(kv_store_ids(vocab), key=lambda k: _dict(self.strategies.get(k)).get("order") or 0)
        self.comp = effective_compatible_strategies(recipe)

    def profile(self, hw: str) -> dict:
        return _profile(self.taxonomy, hw)

    def listed(self) -> list[str]:
        """Hardware pills: restricted profiles only when declared (CB-HW-02), in CB-HW-01 order."""
        out = [hw for hw, p in self.profiles.items() if not (_dict(p).get("restricted") is True
                                                             and hw not in self.declared)]
        def key(hw: str) -> tuple:
            p = self.profile(hw)
            brand = js_str(p.get("brand"))
            group = 0 if brand == "NVIDIA" else 1 if brand == "AMD" else 2
            rank = _HW_ORDER.index(hw) if hw in _HW_ORDER else len(_HW_ORDER)
            return (group, brand if group == 2 else "", rank, _vram(p) if group == 0 else 0,
                    list(self.profiles).index(hw))
        return sorted(out, key=key)

    def usable(self, hw: Any, vkey: str) -> bool:
        """Precision-compatible, not unsupported, allowed by the variant allowlist (§3.7)."""
        v = _variant(self.recipe, vkey)
        return (isinstance(hw, str) and isinstance(self.profiles.get(hw), dict)
                and self.declared.get(hw) != "unsupported" and _precision_ok(v, self.profile(hw))
                and _allowlisted(v, hw))

    def runs(self, hw: str, vkey: str) -> bool:
        return self.declared.get(hw) != "unsupported" and runs_on(self.profile(hw), _variant(self.recipe, vkey), hw)

    def any_variant_runs(self, hw: str) -> bool:
        return any(self.runs(hw, k) for k in self.variants)

    def multi_capable(self) -> bool:
        return any(_deploy_type(self.strategies.get(s)) in ("multi_node", "pd_cluster") for s in self.comp)

    def clusterable(self, hw: str) -> bool:
        p = self.profile(hw)
        return _scalable(p) and not _is_xpu(p)

    def vkey(self, key: Any) -> str:
        return key if isinstance(key, str) and key in self.variants else (
            "default" if "default" in self.variants else next(iter(self.variants)))

    def forced(self, vkey: str) -> set:
        return set(_dict(_variant(self.recipe, vkey).get("default_modes")))

    def defaults(self, hw: str, vkey: str) -> list[str]:
        return default_enabled_features(self.recipe, hw, vkey)

    def row_strategies(self, hw: str, nodes: int) -> list[str]:
        return builder_strategies(self.recipe, self.vocab, hw, nodes)

    def recommended(self, hw: str, nodes: int) -> str | None:
        row = self.row_strategies(hw, nodes)
        rec = recommend_strategy(self.recipe, nodes)
        return rec if rec in row else (row[0] if row else None)

    def active_strategy(self, hw: str, nodes: int, pick: Any) -> str | None:
        row = self.row_strategies(hw, nodes)
        p = self.profile(hw)
        ok = [s for s in row if strategy_supported(self.recipe, s, p, hw)]
        rec = self.recommended(hw, nodes)
        for choice in (pick, rec):
            if choice in ok:
                return choice
        return ok[0] if ok else rec

    def floor_nodes(self, sid: str | None, hw: str) -> int:
        if not sid or sid == "pd_cluster":
            return 1
        return nodes_for_strategy(self.recipe, sid, self.profile(hw).get("gpu_count"), hw)

    def kv_reason(self, key: str, hw: str, sid: str | None) -> str | None:
        """CB-KV-04: first reason a taxonomy KV option is unavailable (None = selectable)."""
        opt = _dict(_dict(self.taxonomy.get("kv_offload")).get(key))
        p = self.profile(hw)
        name = js_str(opt.get("label") or opt.get("display_name") or key)
        support = _dict(self.recipe.get("kv_offload_support")).get(key)
        brands = opt.get("brands")
        allow = opt.get("strategies")
        if _is_xpu(p):
            return "KV offload is not available on Intel XPU."
        if support == "unsupported":
            return f"{name} is not supported for this model."
        if opt.get("requires_opt_in") is True and support != "verified":
            return f"{name} has not been verified for this model yet."
        if isinstance(brands, list) and brands and p.get("brand") not in brands:
            return f"{name} needs {' or '.join(js_str(b) for b in brands)} hardware."
        if _deploy_type(self.strategies.get(sid)) == "pd_cluster":
            return "Prefill/Decode owns the KV transfer config; use Mooncake to add a shared store under PD."
        if isinstance(allow, list) and allow and sid not in allow:
            names = ", ".join(js_str(_dict(self.strategies.get(s)).get("display_name") or s) for s in allow)
            return f"{name} only works with: {names}."
        return None

    def mooncake_reason(self, hw: str, topo: str | None = None) -> str | None:
        """CB-KV-06 / CB-KV-08: why Mooncake (or one topology) is unavailable."""
        p = self.profile(hw)
        if _is_xpu(p):
            return "KV offload is not available on Intel XPU."
        if p.get("brand") not in ("NVIDIA", "AMD"):
            return "Mooncake needs NVIDIA or AMD hardware."
        if not _scalable(p):
            return "Mooncake needs clusterable hardware."
        opt_out = _dict(self.recipe.get("kv_cache_strategy_hardware"))
        topos = [topo] if topo else self.kv_ids
        if all(_get(opt_out.get(t), hw) == "unsupported" for t in topos):
            return f"Not supported on {_hw_name(self.taxonomy, hw)} for this model."
        return None


# -- state parsing and reconciliation ---------------------------------------------------------------

def _fresh_state() -> dict:
    return {"variant": "default", "hardware": None, "strategy": None, "nodes": 1, "features": None, "fmode": {},
            "advanced": [], "kv_offload": None, "kv_instances": None, "kv_instance": 0,
            "prefill_nodes": None, "decode_nodes": None, "prefill_mode": None, "decode_mode": None,
            "prefill_rank": 0, "decode_rank": 0, "task": None, "install": None, "cuda": "default",
            "preset": None, "point": None}


def _parse_fmode(value: Any) -> dict:
    if isinstance(value, dict):
        return {js_str(k): js_str(v) for k, v in value.items()}
    out = {}
    for item in _csv(value) or []:
        if ":" in item:
            k, _, m = item.partition(":")
            out[k] = m
    return out


def _parse(b: _B, raw: dict) -> dict:
    """Raw URL parameters (strings) or a previous canonical state -> typed state."""
    s = _fresh_state()
    s["variant"] = raw.get("variant") if isinstance(raw.get("variant"), str) else "default"
    s["hardware"] = raw.get("hardware") if isinstance(raw.get("hardware"), str) else None
    s["strategy"] = raw.get("strategy") if isinstance(raw.get("strategy"), str) and raw.get("strategy") else None
    s["nodes"] = _int_or(raw.get("nodes"), 1)
    feats = raw.get("features")
    if feats is not None:
        lst = _csv(feats)
        s["features"] = [] if lst == ["none"] else lst
    s["fmode"] = _parse_fmode(raw.get("fmode"))
    s["advanced"] = _csv(raw.get("advanced")) or []
    kv = raw.get("kv_offload")
    s["kv_offload"] = kv if isinstance(kv, str) and kv not in ("", "off") else None
    s["kv_instances"] = _int_or(raw.get("kv_instances"), 1 if raw.get("kv_instances") not in (None, "") else None)
    s["kv_instance"] = _int_or(raw.get("kv_instance"), 0)
    for role in ("prefill", "decode"):
        n = raw.get(f"{role}_nodes")
        s[f"{role}_nodes"] = _int_or(n, 1) if n not in (None, "") else None
        m = raw.get(f"{role}_mode")
        s[f"{role}_mode"] = m if m in ("tp", "tep", "dep") else None
        s[f"{role}_rank"] = _int_or(raw.get(f"{role}_rank"), 0)
    s["task"] = raw.get("task") if isinstance(raw.get("task"), str) and raw.get("task") else None
    s["install"] = raw.get("install") if raw.get("install") in ("pip", "docker") else None
    s["cuda"] = "cu129" if raw.get("cuda") == "cu129" else "default"
    for key in ("preset", "point"):
        s[key] = raw.get(key) if isinstance(raw.get(key), str) and raw.get(key) else None
    return s


def _clamp(n: Any, lo: int, hi: int, default: int) -> int:
    n = _int_or(n, default)
    return min(max(n, lo), hi)


def _init(b: _B, raw: dict, prefs: dict, stored: dict) -> dict:
    """CB-INIT-01..10: the state a page opens on."""
    s = _parse(b, raw)
    explicit_variant = isinstance(raw.get("variant"), str) and raw.get("variant") in b.variants
    s["variant"] = b.vkey(s["variant"])
    query_hw = s["hardware"]
    pref = prefs.get("hardware") if isinstance(prefs.get("hardware"), str) else None
    s["hardware"] = initial_hardware(b.recipe, b.taxonomy, s["variant"], query_hw, pref)
    hw, p = s["hardware"], b.profile(s["hardware"])
    if not explicit_variant and not _scalable(p) and not fits_single_node(p, _variant(b.recipe, s["variant"])):
        s["variant"] = pick_fitting_variant(b.recipe, p, hw) or s["variant"]
    if b.omni:
        return s
    # nodes (CB-INIT-05)
    if not b.multi_capable() or not b.clusterable(hw):
        s["nodes"] = 1
    elif raw.get("nodes") not in (None, ""):
        s["nodes"] = s["nodes"] if s["nodes"] in (1, 2) else 1
    elif _int_or(stored.get("nodes")) in (1, 2):
        s["nodes"] = _int_or(stored.get("nodes"))
    else:
        s["nodes"] = initial_node_count(b.recipe, b.vocab, s["variant"], hw)
    # strategy (CB-INIT-06): Mooncake ids are ignored here
    if s["strategy"] in b.kv_ids:
        s["strategy"] = None
    if s["strategy"] is None and isinstance(stored.get("strategy"), str) and stored["strategy"] in b.comp:
        s["strategy"] = stored["strategy"]
    # features / modes (CB-INIT-07/08)
    if raw.get("features") is None and isinstance(stored.get("features"), list):
        s["features"] = [f for f in stored["features"] if f in b.features]
    if isinstance(stored.get("featureModes"), dict):
        s["fmode"] = {**{js_str(k): js_str(v) for k, v in stored["featureModes"].items()}, **s["fmode"]}
    # KV (CB-INIT-09)
    if s["kv_offload"] is None and isinstance(stored.get("kvOffload"), str):
        s["kv_offload"] = stored["kvOffload"]
        s["_kv_from_storage"] = True
    if raw.get("kv_instances") in (None, "") and _int_or(stored.get("kvInstances")) is not None:
        s["kv_instances"] = _int_or(stored.get("kvInstances"))
    return s


def _kv_valid(b: _B, s: dict, sid: str | None) -> bool:
    kv = s["kv_offload"]
    if kv is None:
        return True
    if kv in b.kv_ids:
        return b.mooncake_reason(s["hardware"], kv) is None
    return isinstance(_dict(b.taxonomy.get("kv_offload")).get(kv), dict)


def _reconcile(b: _B, s: dict) -> dict:
    """Correct an arbitrary state into a valid one (the rules of CB-*, §7.1 "invalid values ignored")."""
    s["variant"] = b.vkey(s["variant"])
    if not b.usable(s["hardware"], s["variant"]):
        s["hardware"] = default_hardware(b.recipe, b.taxonomy, s["variant"])
    hw, p = s["hardware"], b.profile(s["hardware"])
    s["cuda"] = s["cuda"] if s["cuda"] == "cu129" and _is_nvidia(p) else "default"
    if s["features"] is not None:
        s["features"] = [f for f in b.features if f in s["features"]]
    s["fmode"] = {k: m for k, m in s["fmode"].items() if k in b.features and m in _dict(b.features[k].get("modes"))}
    adv_ids = [a["id"] for a in _advanced_options(b, None)]
    s["advanced"] = [a for a in adv_ids if a in s["advanced"]]
    if b.omni:
        tasks = omni_tasks(b.recipe)
        task = active_omni_task(b.recipe, s["task"], hw)
        s["task"] = task["key"] if task and tasks and task["key"] != tasks[0]["key"] else None
        for key in ("strategy", "kv_offload", "kv_instances", "prefill_nodes", "decode_nodes", "prefill_mode",
                    "decode_mode", "preset", "point"):
            s[key] = None
        s.update(nodes=1, features=None, fmode={}, advanced=[], kv_instance=0, prefill_rank=0, decode_rank=0)
        return s
    s["task"] = None
    if not b.multi_capable() or not b.clusterable(hw):
        s["nodes"] = 1
    s["nodes"] = _clamp(s["nodes"], 1, MAX_NODES, 1)
    sid = b.active_strategy(hw, s["nodes"], s["strategy"])
    if sid != "pd_cluster" and b.clusterable(hw):  # CB-NODE-07 floor reconciliation
        floor = b.floor_nodes(sid, hw)
        pills = node_pills(b.recipe, b.vocab, hw)
        if s["nodes"] < floor:
            s["nodes"] = floor
        elif s["nodes"] > 2 and s["nodes"] not in pills:
            s["nodes"] = min(MAX_NODES, max(2, floor))
        sid = b.active_strategy(hw, s["nodes"], s["strategy"])
    if s["strategy"] is not None and s["strategy"] not in b.row_strategies(hw, s["nodes"]) + b.comp:
        s["strategy"] = None
    if not _kv_valid(b, s, sid):
        s["kv_offload"] = None
    if s["kv_offload"] not in b.kv_ids:
        s["kv_instances"], s["kv_instance"] = None, 0
    else:
        if s["kv_instances"] is not None:
            s["kv_instances"] = _clamp(s["kv_instances"], 1, _MAX_INSTANCES, 1)
        count = s["kv_instances"] or _dict(b.strategies.get(s["kv_offload"])).get("default_instances") or 1
        s["kv_instance"] = _clamp(s["kv_instance"], 0, count - 1, 0)
    s.pop("_kv_from_storage", None)
    if sid == "pd_cluster":
        pools = _pools(b, s)
        for role in ("prefill", "decode"):
            if s[f"{role}_nodes"] is not None:
                s[f"{role}_nodes"] = pools[role]["nodes"]
            if s[f"{role}_mode"] is not None and s[f"{role}_mode"] not in pools[role]["modes"]:
                s[f"{role}_mode"] = None
            s[f"{role}_rank"] = _clamp(s[f"{role}_rank"], 0, pools[role]["nodes"] - 1, 0)
    else:
        for role in ("prefill", "decode"):
            s[f"{role}_mode"], s[f"{role}_rank"] = None, 0
    presets = _dict(b.recipe.get("presets"))
    if s["preset"] not in presets:
        s["preset"] = s["point"] = None
    elif s["point"] not in _dict(_dict(presets[s["preset"]]).get("points")):
        s["point"] = next(iter(_dict(_dict(presets[s["preset"]]).get("points"))), None)
    return s


def _pools(b: _B, s: dict) -> dict:
    """CB-NODE-08/09: effective PD pools ``{role: {nodes, rank, parallelism, modes}}``."""
    hw = s["hardware"]
    p = b.profile(hw)
    defaults = pd_pool_defaults(b.recipe, b.vocab, s["variant"], hw)
    modes = [m for m in pd_pool_modes(b.recipe)
             if _reachable(b.recipe, m, "multi_node", p.get("gpu_count"), hw)] or ["tp"]
    out = {}
    for role in ("prefill", "decode"):
        mode = s[f"{role}_mode"] if s[f"{role}_mode"] in modes else defaults[role]["parallelism"]
        floor = nodes_for_strategy(b.recipe, mode, p.get("gpu_count"), hw)
        nodes = s[f"{role}_nodes"] if s[f"{role}_nodes"] is not None else defaults[role]["nodes"]
        nodes = max(_clamp(nodes, 1, MAX_NODES, 1), floor)
        out[role] = {"nodes": nodes, "rank": _clamp(s[f"{role}_rank"], 0, nodes - 1, 0), "parallelism": mode,
                     "modes": modes}
    return out


def _enabled(b: _B, s: dict) -> list[str]:
    """The user's feature set (remembered, possibly including disallowed ones)."""
    if s["features"] is None:
        return b.defaults(s["hardware"], s["variant"])
    return list(s["features"])


# -- events (clicks) ------------------------------------------------------------------------------------

def _on_hardware(b: _B, s: dict, hw: str, out: dict) -> None:
    """CB-HW-06."""
    if hw not in b.profiles or hw not in b.listed() or b.declared.get(hw) == "unsupported":
        return
    if not b.any_variant_runs(hw) and not b.omni:
        return
    if b.omni and not b.usable(hw, s["variant"]):
        return
    old = s["hardware"]
    out["prefs"] = {"hardware": hw}
    s["hardware"] = hw
    if b.omni:
        return
    p = b.profile(hw)
    if s["features"] is not None:
        hoi = b.recipe.get("hardware_opt_in_features")
        new_out = set(_list(_lookup_exact(hoi, hw)))
        old_out = set(_list(_lookup_exact(hoi, old)))
        recipe_opt_in = set(_list(b.recipe.get("opt_in_features")))
        feats = [f for f in s["features"] if f not in new_out or f in b.forced(s["variant"])]
        feats += [f for f in old_out - new_out if f not in recipe_opt_in and f not in feats]
        s["features"] = feats
    for fkey, mode in list(s["fmode"].items()):
        avail = available_modes(_dict(b.features.get(fkey)), s["variant"], p, hw)
        if mode not in avail:
            if avail:
                s["fmode"][fkey] = avail[0]
            else:
                del s["fmode"][fkey]
    if s["kv_offload"] in b.kv_ids and b.mooncake_reason(hw, s["kv_offload"]) is not None:
        s["kv_offload"], s["kv_instances"], s["kv_instance"] = None, None, 0
    if not b.runs(hw, s["variant"]):
        s["variant"] = pick_fitting_variant(b.recipe, p, hw) or s["variant"]
    s["strategy"] = None
    variant = _variant(b.recipe, s["variant"])
    if not b.clusterable(hw):
        s["nodes"] = 1
    elif not fits_single_node(p, variant) and b.multi_capable():
        s["nodes"] = max(2, s["nodes"])
    elif _deploy_type(b.strategies.get(b.recipe.get("default_strategy"))) == "single_node":
        s["nodes"] = 1


def _on_variant(b: _B, s: dict, vkey: str) -> None:
    """CB-VAR-05."""
    if vkey not in b.variants or not any(b.runs(hw, vkey) for hw in b.listed()):
        return
    old = s["variant"]
    s["variant"] = vkey
    if not b.usable(s["hardware"], vkey):
        s["hardware"] = default_hardware(b.recipe, b.taxonomy, vkey)
    s["fmode"] = {}
    if s["features"] is not None:
        normal = set(b.defaults(s["hardware"], "default")) - b.forced("default")
        feats = [f for f in s["features"] if not (f in b.forced(old) - b.forced(vkey) and f not in normal)]
        feats += [f for f in b.forced(vkey) if f not in feats]
        s["features"] = [f for f in b.features if f in feats]


def _apply_preset(b: _B, s: dict, pkey: Any, point: Any) -> None:
    preset = _dict(_dict(b.recipe.get("presets")).get(pkey))
    if not preset:
        s["preset"] = s["point"] = None
        return
    points = _dict(preset.get("points"))
    point = point if point in points else next(iter(points), None)
    sel = _preset_point_selection(b.recipe, preset, _dict(points.get(point)))
    fresh = _fresh_state()
    fresh.update(install=s["install"], cuda=s["cuda"], preset=pkey, point=point, variant=sel["variant"],
                 hardware=sel["hardware"], strategy=sel["strategy"], features=sel["features"],
                 fmode=dict(sel["modes"]), kv_offload=sel["kv_offload"])
    nodes = _nodes_value(sel["nodes"])
    fresh["nodes"] = nodes or nodes_for(b.recipe, b.vocab, sel["strategy"], b.profile(sel["hardware"]),
                                        sel["hardware"])
    s.clear()
    s.update(fresh)


def _event(b: _B, s: dict, ev: dict, out: dict) -> None:
    """Apply one click (``{"type": ..., "value": ..., ...}``) to the state."""
    kind, value = ev.get("type"), ev.get("value")
    if kind not in ("install", "cuda", "point", "preset", "kv_instance", "pool_rank", "refresh"):
        s["preset"] = s["point"] = None
    hw = s["hardware"]
    sid = None if b.omni else b.active_strategy(hw, s["nodes"], s["strategy"])
    if kind == "hardware":
        _on_hardware(b, s, js_str(value), out)
    elif kind == "variant":
        _on_variant(b, s, js_str(value))
    elif kind == "strategy":
        row = b.row_strategies(hw, s["nodes"])
        if value in row and strategy_supported(b.recipe, value, b.profile(hw), hw):
            s["strategy"] = value
            if value != "pd_cluster" and b.clusterable(hw):
                s["nodes"] = max(s["nodes"], b.floor_nodes(value, hw))
    elif kind == "nodes":
        n = _int_or(value)
        if n in node_pills(b.recipe, b.vocab, hw) and _node_reason(b, s, n) is None:
            s["nodes"], s["strategy"] = n, None
    elif kind in ("kv_offload", "kv_member", "topology"):
        _on_kv(b, s, js_str(value) if value is not None else "off", sid)
    elif kind == "kv_instances":
        n = _int_or(value, None)
        s["kv_instances"] = 1 if n is None else min(max(n, 1), _MAX_INSTANCES)
    elif kind == "kv_instance":
        s["kv_instance"] = _int_or(value, 1) - 1
    elif kind == "feature":
        key = js_str(value)
        if key in b.features and _feature_reason(b, s, key, sid) is None:
            feats = _enabled(b, s)
            if key in feats:
                feats.remove(key)
            else:
                feats.append(key)
                if _EXCLUSIVE.get(key) in feats:
                    feats.remove(_EXCLUSIVE[key])
            s["features"] = [f for f in b.features if f in feats]
    elif kind == "mode":
        fkey = js_str(ev.get("feature"))
        if js_str(value) in available_modes(_dict(b.features.get(fkey)), s["variant"], b.profile(hw), hw):
            s["fmode"][fkey] = js_str(value)
    elif kind == "advanced":
        key = js_str(value)
        s["advanced"] = [a for a in s["advanced"] if a != key] if key in s["advanced"] else s["advanced"] + [key]
    elif kind in ("pool_nodes", "pool_mode", "pool_rank"):
        role = ev.get("role")
        if role in ("prefill", "decode"):
            pools = _pools(b, s)
            if kind == "pool_nodes":
                s[f"{role}_nodes"] = _clamp(value, 1, MAX_NODES, 1)
                s[f"{role}_rank"] = 0
            elif kind == "pool_mode" and value in pools[role]["modes"]:
                s[f"{role}_mode"] = value
                s[f"{role}_rank"] = 0
                floor = nodes_for_strategy(b.recipe, value, b.profile(hw).get("gpu_count"), hw)
                s[f"{role}_nodes"] = max(pools[role]["nodes"], floor)
            elif kind == "pool_rank":
                s[f"{role}_rank"] = _int_or(value, 1) - 1
    elif kind == "task":
        s["task"] = js_str(value)
    elif kind == "axis":
        _on_axis(b, s, js_str(ev.get("axis")), js_str(value))
    elif kind == "install" and value in ("pip", "docker"):
        s["install"] = value
    elif kind == "cuda":
        s["cuda"] = "cu129" if value == "cu129" else "default"
    elif kind == "preset":
        _apply_preset(b, s, value, None)
    elif kind == "point":
        _apply_preset(b, s, s["preset"], value)
    elif kind == "reset":
        keep = {k: s[k] for k in ("install", "cuda")}
        s.clear()
        s.update(_fresh_state(), **keep)
        s["hardware"] = default_hardware(b.recipe, b.taxonomy, "default")
        s["nodes"] = initial_node_count(b.recipe, b.vocab, "default", s["hardware"])


def _on_kv(b: _B, s: dict, value: str, sid: str | None) -> None:
    """CB-KV-05/06/08/10."""
    hw = s["hardware"]
    options = _dict(b.taxonomy.get("kv_offload"))
    if value == "off":
        s["kv_offload"], s["kv_instances"], s["kv_instance"] = None, None, 0
    elif value == "mooncake":
        if b.mooncake_reason(hw) is None:
            first = next((t for t in b.kv_ids if b.mooncake_reason(hw, t) is None), None)
            if s["kv_offload"] not in b.kv_ids:
                s["kv_offload"], s["kv_instance"] = first, 0
    elif value in b.kv_ids:
        if b.mooncake_reason(hw, value) is None:
            s["kv_offload"] = value
    elif value in _dict(b.taxonomy.get("kv_offload_groups")):
        members = sorted((k for k, o in options.items() if _get(o, "group") == value),
                         key=lambda k: _dict(options[k]).get("order") or 0)
        pick = next((m for m in members if b.kv_reason(m, hw, sid) is None), None)
        if pick is not None:
            s["kv_offload"], s["kv_instances"], s["kv_instance"] = pick, None, 0
    elif value in options and b.kv_reason(value, hw, sid) is None:
        s["kv_offload"], s["kv_instances"], s["kv_instance"] = value, None, 0


def _on_axis(b: _B, s: dict, axis: str, option: str) -> None:
    tasks = [omni_task_for_hardware(t, s["hardware"]) for t in omni_tasks(b.recipe)]
    cur = active_omni_task(b.recipe, s["task"], s["hardware"])
    want = dict(_dict(cur.get("axes")) if cur else {})
    want[axis] = option
    match = next((t for t in tasks if _dict(t.get("axes")) == want), None) or next(
        (t for t in tasks if _dict(t.get("axes")).get(axis) == option), None)
    if match is not None:
        s["task"] = match["key"]


# -- rows ------------------------------------------------------------------------------------------------

def _node_reason(b: _B, s: dict, n: int) -> str | None:
    hw = s["hardware"]
    p = b.profile(hw)
    name = _hw_name(b.taxonomy, hw)
    variant = _variant(b.recipe, s["variant"])
    if n == 1:
        if not fits_single_node(p, variant):
            return (f"{_variant_label(s['variant'], variant)} needs {js_str(variant.get('vram_minimum_gb'))} GB; "
                    f"one {name} node has {js_str(_int_if_integral(_vram(p)))} GB. Use multi-node.")
        return None
    if not b.multi_capable():
        return "This model fits in one node; the recipe has no multi-node strategy."
    if _is_xpu(p):
        return "Multi-node is not validated on Intel XPU."
    if not _scalable(p):
        return f"{name} is a workstation and can't be clustered."
    return None


def _feature_reason(b: _B, s: dict, key: str, sid: str | None) -> str | None:
    feature = _dict(b.features.get(key))
    if sid and not _feature_allowed(feature, sid):
        return "Not available with this strategy."
    if _has_companion(feature) and s["kv_offload"] in b.kv_ids and sid != "pd_cluster":
        return "Needs a companion process, which Mooncake does not run: set KV Offload to Off."
    return None


def _advanced_options(b: _B, sid: str | None) -> list[dict]:
    """CB-ADV-02: ``{id, label, description, args, shown}`` (shown = its gate passes now)."""
    model = _dict(b.recipe.get("model"))
    out = []
    for oid, args, desc in BUILDER_ADVANCED:
        if oid == "dcp_8" and model.get("supports_dcp") is not True:
            continue
        if oid == "no_flashinfer_autotune" and model.get("flashinfer_autotune") is not True:
            continue
        shown = oid != "ep_weight_filter" or (isinstance(sid, str) and sid.endswith(("tep", "dep")))
        label = args[0][2:] + (f" = {args[1]}" if len(args) > 1 else "")
        out.append({"id": oid, "label": label, "description": desc, "args": list(args), "shown": shown})
    for i, extra in enumerate(_list(b.recipe.get("advanced_options"))):
        args = extra.get("args") if isinstance(extra, dict) else extra
        if not (isinstance(args, list) and args):
            continue
        ed = _dict(extra)
        oid = js_str(ed.get("id") or f"option_{i + 1}")
        label = js_str(ed.get("label") or " ".join(js_str(a) for a in args).lstrip("-"))
        out.append({"id": oid, "label": label, "description": js_str(ed.get("description") or ""),
                    "args": [js_str(a) for a in args], "shown": True})
    return out


def _row(rid: str, label: str, pills: list, kind: str = "radio", **extra: Any) -> dict:
    row = {"id": rid, "label": label, "kind": kind, "pills": pills}
    row.update({k: v for k, v in extra.items() if v is not None})
    return row


def _hardware_row(b: _B, s: dict) -> dict:
    groups: list[dict] = []
    cur_v = _variant(b.recipe, s["variant"])
    for hw in b.listed():
        p = b.profile(hw)
        mark = b.declared.get(hw)
        reason = None
        if mark == "unsupported":
            reason = f"{_hw_name(b.taxonomy, hw)} is not yet supported for this model; it may be enabled later."
        elif b.omni:
            c = _precision_constraint(cur_v)
            if not _precision_ok(cur_v, p):
                reason = (f"{_variant_label(s['variant'], cur_v)} needs "
                          f"{'NVIDIA Blackwell' if _get(c, 'generation') == 'blackwell' else js_str(_get(c, 'brand'))}"
                          " hardware.")
            elif not _allowlisted(cur_v, hw):
                names = ", ".join(_hw_name(b.taxonomy, h) for h in _list(cur_v.get("supported_hardware")))
                reason = f"This variant runs only on: {names}."
        elif not b.any_variant_runs(hw):
            reason = f"No variant of this model runs on {_hw_name(b.taxonomy, hw)}."
        tip = [js_str(p.get("description") or _hw_name(b.taxonomy, hw))]
        if mark == "verified":
            tip.append("Verified end-to-end by the recipe author.")
        if reason is None and not b.omni and not b.runs(hw, s["variant"]):
            alt = pick_fitting_variant(b.recipe, p, hw)
            if alt:
                tip.append(f"Choosing it also switches Variant to {_variant_label(alt, _variant(b.recipe, alt))}.")
        brand = js_str(p.get("brand") or "Other")
        if not groups or groups[-1]["label"] != brand:
            groups.append({"label": brand, "pills": []})
        groups[-1]["pills"].append(_pill(hw, _hw_name(b.taxonomy, hw), hw == s["hardware"], reason,
                                         "\n\n".join(tip), sub=_per_gpu(p), verified=mark == "verified"))
    pills = [pill for g in groups for pill in g["pills"]]
    return _row("hardware", "Hardware", pills, groups=groups)


def _variant_row(b: _B, s: dict) -> dict | None:
    if b.omni and len(b.variants) <= 1:
        return None
    pills = []
    hw = s["hardware"]
    for key, v in b.variants.items():
        v = _dict(v)
        reason = None
        if b.omni:
            if not b.usable(hw, key):
                reason = f"{_variant_label(key, v)} can't run on {_hw_name(b.taxonomy, hw)}."
        elif not any(b.runs(h, key) for h in b.listed()):
            reason = "No supported hardware can run this variant."
        need = v.get("vram_minimum_gb")
        tip = [js_str(v.get("description") or "")] if v.get("description") else []
        if _is_num(need):
            tip.append(f"Needs at least {js_str(need)} GB to load the weights; the KV cache needs more. "
                       "Multi-node can scale out.")
        if reason is None and not b.omni and not b.usable(hw, key):
            target = default_hardware(b.recipe, b.taxonomy, key)
            tip.append(f"Choosing it also switches Hardware to {_hw_name(b.taxonomy, target)}.")
        pills.append(_pill(key, _variant_label(key, v), key == s["variant"], reason, "\n\n".join(tip),
                           sub=f"{js_str(need)} GB" if _is_num(need) else None))
    v = _variant(b.recipe, s["variant"])
    omni = _dict(b.recipe.get("omni"))
    hint = ("The GB figure is the minimum to load the weights (about params × bytes × 1.2), not a serving "
            "budget: long contexts and big batches need roughly 1.5-2× more for the KV cache.")
    return _row("variant", js_str(omni.get("variant_label") or "Variant") if b.omni else "Variant", pills,
                hint=js_str(omni.get("variant_hint")) if b.omni and omni.get("variant_hint") else hint,
                below=js_str(v.get("description")) if v.get("description") else None,
                link=f"https://huggingface.co/{_model_id(b.recipe, v)}" if _model_id(b.recipe, v) != "unknown"
                else None)


def _strategy_row(b: _B, s: dict, sid: str | None) -> dict:
    hw = s["hardware"]
    p = b.profile(hw)
    rec = b.recommended(hw, s["nodes"])
    pills = []
    for x in b.row_strategies(hw, s["nodes"]):
        st = _dict(b.strategies.get(x))
        reason = None if strategy_supported(b.recipe, x, p, hw) else \
            f"Not supported on {_hw_name(b.taxonomy, hw)} for this model."
        pills.append(_pill(x, js_str(st.get("display_name") or x), x == sid, reason,
                           js_str(st.get("description") or "").strip(), recommended=x == rec))
    st = _dict(b.strategies.get(sid))
    below = js_str(st.get("description") or "").strip().split("\n")[0]
    suffix = None
    if s["kv_offload"] in b.kv_ids and sid != "pd_cluster":
        suffix = "Every Mooncake instance runs this strategy."
    orient = st.get("orientation")
    return _row("strategy", "Strategy", pills, below=below or None, suffix=suffix,
                badge={"value": orient, "label": _ORIENTATION.get(orient, js_str(orient))} if orient else None)


def _kv_rows(b: _B, s: dict, sid: str | None, effective: str | None) -> list[dict]:
    hw = s["hardware"]
    options = _dict(b.taxonomy.get("kv_offload"))
    groups = _dict(b.taxonomy.get("kv_offload_groups"))
    entries: list[tuple[Any, str, str]] = []
    seen_groups = set()
    for key, opt in options.items():
        g = _get(opt, "group")
        if g in groups:
            if g not in seen_groups:
                seen_groups.add(g)
                entries.append((_dict(groups[g]).get("order") or 0, "group", g))
        else:
            entries.append((_dict(opt).get("order") or 0, "option", key))
    entries.append((3, "mooncake", "mooncake"))
    entries.sort(key=lambda e: e[0] if _is_num(e[0]) else 0)
    pills = [_pill("off", "Off", effective is None, None, "KV cache stays in GPU memory.")]
    sub_rows: list[dict] = []
    below, docs = None, None
    for _, kind, key in entries:
        if kind == "option":
            opt = _dict(options[key])
            reason = b.kv_reason(key, hw, sid)
            pills.append(_pill(key, js_str(opt.get("label") or opt.get("display_name") or key), effective == key,
                               reason, js_str(opt.get("description") or "")))
            if effective == key:
                below, docs = opt.get("description"), opt.get("docs_url")
        elif kind == "group":
            grp = _dict(groups[key])
            members = sorted((k for k, o in options.items() if _get(o, "group") == key),
                             key=lambda k: _dict(options[k]).get("order") or 0)
            reasons = {m: b.kv_reason(m, hw, sid) for m in members}
            reason = None if any(r is None for r in reasons.values()) else next(iter(reasons.values()), None)
            active = effective in members
            pills.append(_pill(key, js_str(grp.get("label") or key), active, reason,
                               js_str(grp.get("tooltip") or grp.get("description") or "")))
            if active:
                below, docs = grp.get("description"), grp.get("docs_url")
                mpills = [_pill(m, js_str(_dict(options[m]).get("label") or m), m == effective, reasons[m],
                                js_str(_dict(options[m]).get("description") or "")) for m in members]
                sub_rows.append(_row("kv_member", js_str(grp.get("sub_row_label") or "Offload Tiers"), mpills,
                                     nested=True, below=js_str(_dict(options[effective]).get("description") or "")))
        else:
            reason = b.mooncake_reason(hw)
            active = effective in b.kv_ids
            pills.append(_pill("mooncake", "Mooncake", active, reason,
                               "Mooncake distributed KV store: a shared CPU-DRAM cache pool across vLLM instances."))
            if active:
                below = ("Mooncake pools CPU DRAM across instances as a shared KV cache; a master process "
                         "coordinates it and a cache-aware router shares it between instances.")
                docs = "https://docs.vllm.ai/en/latest/features/mooncake_connector_usage.html"
                tpills = []
                for t in b.kv_ids:
                    dep = _dict(b.strategies.get(t))
                    tpills.append(_pill(t, js_str(dep.get("label") or dep.get("display_name") or t), t == effective,
                                        b.mooncake_reason(hw, t), js_str(dep.get("description") or "").strip()))
                sub_rows.append(_row("topology", "Store Topology", tpills, nested=True,
                                     below=js_str(_dict(b.strategies.get(effective)).get("description") or "")
                                     .strip()))
                if sid != "pd_cluster":
                    dep = _dict(b.strategies.get(effective))
                    count = s["kv_instances"] or dep.get("default_instances") or 1
                    g = _gpus(b.profile(hw))
                    n = s["nodes"]
                    sub_rows.append(_row(
                        "instances", "Instances", [], kind="number", nested=True, value=count, min=1,
                        max=_MAX_INSTANCES, input_label="Number of vLLM instances",
                        text=f"× {n} node{'s' if n > 1 else ''} × {g} GPUs = {count * n * g} GPUs total",
                        hint="At 2 or more instances a cache-aware router appears in front of them."))
    row = _row("kv_offload", "KV Offload", pills, below=js_str(below).strip() if below else None, docs=docs)
    return [row, *sub_rows]


def _nodes_rows(b: _B, s: dict, sid: str | None) -> list[dict]:
    hw = s["hardware"]
    p = b.profile(hw)
    g = _gpus(p)
    mooncake = s["kv_offload"] in b.kv_ids
    if sid == "pd_cluster":
        pools = _pools(b, s)
        rows = []
        total_gpus = total_nodes = 0
        for role in ("prefill", "decode"):
            pool = pools[role]
            mpills = [_pill(m, m.upper(), m == pool["parallelism"], None, _POOL_MODE_TIPS[m]) for m in pool["modes"]]
            rows.append(_row(f"{role}_pool", role.capitalize(), mpills if len(mpills) > 1 else [], kind="pool",
                             nested=True, role=role, value=pool["nodes"], min=1, max=MAX_NODES,
                             input_label=f"{role.capitalize()} node count",
                             text=f"× {g} = {pool['nodes'] * g} GPUs"))
            total_gpus += pool["nodes"] * g
            total_nodes += pool["nodes"]
        rows[-1]["after"] = f"total {total_gpus} GPUs · {total_nodes} nodes"
        rows[0]["hint"] = "Prefill and decode run as independent pools, each sized on its own."
        return rows
    count = (s["kv_instances"] or _dict(b.strategies.get(s["kv_offload"])).get("default_instances") or 1) \
        if mooncake else 1
    pills = []
    for n in node_pills(b.recipe, b.vocab, hw):
        reason = _node_reason(b, s, n)
        if n == 1:
            label, tip = "Single-node", f"One {_hw_name(b.taxonomy, hw)} node ({g} GPUs)."
            sub = None
        else:
            label = f"Multi-node (example: {n})"
            tip = (f"{n} nodes × {g} GPUs = {n * g} GPUs" + (f" per instance, × {count} instances" if mooncake else "")
                   + ". To go further, replicate the worker command with higher node / DP ranks.")
            sub = f"{n * g * count}×GPU" if reason is None else None
        pills.append(_pill(n, label, n == s["nodes"], reason, tip, sub=sub))
    return [_row("nodes", "Nodes / Instance" if mooncake else "Nodes", pills)]


def _features_rows(b: _B, s: dict, sid: str | None) -> list[dict]:
    if not b.features:
        return []
    hw, p = s["hardware"], b.profile(s["hardware"])
    enabled = _enabled(b, s)
    pills, rows, notes = [], [], []
    for key, f in b.features.items():
        f = _dict(f)
        reason = _feature_reason(b, s, key, sid)
        label = _feature_label(key, f)
        if key == "spec_decoding":
            label += " (for low latency & small batch size)"
        pills.append(_pill(key, label, key in enabled, reason, js_str(f.get("description") or ""),
                           icon=_FEATURE_ICONS.get(key)))
        if key in enabled and reason is None and f.get("modes"):
            avail = available_modes(f, s["variant"], p, hw)
            mode = effective_mode(b.recipe, key, s["variant"], p, hw, s["fmode"].get(key))
            variant_modes = [m for m, md in _dict(f.get("modes")).items()
                             if not (isinstance(_dict(md).get("variants"), list) and _dict(md).get("variants")
                                     and s["variant"] not in _dict(md)["variants"])]
            if len(variant_modes) >= 2:
                mp = []
                for m in variant_modes:
                    md = _dict(_dict(f.get("modes")).get(m))
                    mp.append(_pill(m, js_str(md.get("label") or _title_key(m)), m == mode,
                                    None if m in avail else "Not supported on this hardware.",
                                    js_str(md.get("description") or "")))
                rows.append(_row(f"mode_{key}", "Spec method" if key == "spec_decoding" else f"{label} method", mp,
                                 nested=True, feature=key))
            note = _get(_dict(f.get("modes")).get(mode), "note")
            if _truthy(note):
                notes.append(js_str(note))
    return [_row("features", "Features", pills, kind="toggle", below="\n".join(notes) or None), *rows]


def _omni_rows(b: _B, s: dict, task: dict | None) -> list[dict]:
    omni = _dict(b.recipe.get("omni"))
    tasks = [omni_task_for_hardware(t, s["hardware"]) for t in omni_tasks(b.recipe)]
    axes = _list(omni.get("task_axes"))
    if axes and task is not None:
        rows = []
        cur = _dict(task.get("axes"))
        for i, axis in enumerate(axes):
            axis = _dict(axis)
            aid = axis.get("id")
            pills = []
            for opt in _list(axis.get("options")):
                opt = _dict(opt)
                want = {**cur, aid: opt.get("id")}
                ok = any(all(_dict(t.get("axes")).get(k) == v for k, v in want.items()) for t in tasks)
                pills.append(_pill(opt.get("id"), js_str(opt.get("label") or opt.get("id")), cur.get(aid) == opt.get("id"),
                                   None if ok else "This combination is not available.", ""))
            extra = {}
            if i == len(axes) - 1:
                need = task.get("vramMinimumGb")
                extra["below"] = js_str(task.get("description") or "") + (f" · {js_str(need)} GB minimum"
                                                                          if need is not None else "")
            rows.append(_row(f"axis_{aid}", js_str(axis.get("label") or aid), pills, axis=aid,
                             hint=js_str(omni.get("task_hint")) if i == 0 and omni.get("task_hint") else None, **extra))
        return rows
    if len(tasks) <= 1:
        return []
    pills = []
    for t in tasks:
        need = t.get("vramMinimumGb")
        pills.append(_pill(t["key"], js_str(t["label"]), task is not None and t["key"] == task["key"], None,
                           (js_str(t.get("description") or "") + f"\n\n{t['endpoint']}").strip(),
                           sub=f"{js_str(need)} GB" if need is not None else None))
    return [_row("task", js_str(omni.get("task_label") or "Task"), pills,
                 hint=js_str(omni.get("task_hint")) if omni.get("task_hint") else None,
                 below=js_str(task.get("description")) if task and task.get("description") else None)]


# -- output ----------------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"\$([A-Z_][A-Z0-9_]*)")


def _substitute(text: Any, values: dict) -> Any:
    """POP-07: replace ``$NAME`` (whole identifiers only) by saved non-empty values."""
    if not isinstance(text, str) or not values:
        return text
    return _PLACEHOLDER.sub(lambda m: js_str(values[m.group(1)]) if _truthy(values.get(m.group(1)))
                            else m.group(0), text)


def _install_view(b: _B, s: dict, kv: str | None, preset: dict | None) -> dict:
    hw, p = s["hardware"], b.profile(s["hardware"])
    info = interactive_install(b.recipe, b.vocab, hw, s["variant"], s["cuda"], kv)
    platform = _platform(p)
    suffix = {"ROCm": " (ROCm)", "CPU": " (CPU)"}.get(platform, "")
    image = docker_image(b.recipe, _variant(b.recipe, s["variant"]), p, hw, s["cuda"])
    if preset is not None and _preset_image(preset):
        image = _preset_image(preset)
        if info["docker"] is not None:
            info["docker"] = {**info["docker"], "command": f"docker pull {image}"}
    install_cfg = _dict(_dict(b.recipe.get("model")).get("install"))
    docker_override = _truthy(_get(install_cfg.get("docker"), "command"))
    if image is None and not docker_override:
        info["docker"] = None
    tabs = []
    if info["pip"] is not None:
        tabs.append({"id": "pip", "label": f"pip / uv{suffix}", **info["pip"]})
    if info["docker"] is not None:
        dsuffix = {"ROCm": " (ROCm)", "TPU": " (TPU)", "XPU": " (XPU)", "CPU": " (CPU)"}.get(platform, "")
        tabs.append({"id": "docker", "label": f"Docker{dsuffix}", **info["docker"]})
    ids = [t["id"] for t in tabs]
    active = s["install"] if s["install"] in ids else info["initial_tab"] if info["initial_tab"] in ids else (
        ids[0] if ids else "pip")
    _, cuda_map = _image_sources(b.recipe, _variant(b.recipe, s["variant"]), p, hw)
    single = isinstance(cuda_map, dict) and len(cuda_map) == 1
    pip_override = _truthy(_get(install_cfg.get("pip"), "command"))
    toggle = (_is_nvidia(p) and not single and not docker_override and preset is None
              and (active == "docker" or (active == "pip" and info["nightly"] and not pip_override)))
    entries = [e for e in info["extras"] if active in e["tabs"]]
    extras = {"entries": [{k: e[k] for k in ("command", "note", "optional")} for e in entries],
              "required": sum(1 for e in entries if not e["optional"]),
              "optional": sum(1 for e in entries if e["optional"]),
              "copy_all": copy_all_installs(entries, active)}
    return {"header": info["header"], "min_version": info["min_version"], "nightly": info["nightly"],
            "tabs": tabs, "active": active, "summary": " / ".join(t["label"].split(" (")[0] for t in tabs),
            "cuda_toggle": toggle, "cuda": s["cuda"], "image": image, "extras": extras}


def _summary(b: _B, s: dict, sid: str | None, kv: str | None, c: _Ctx | None, task: dict | None) -> dict:
    hw, p = s["hardware"], b.profile(s["hardware"])
    name = _hw_name(b.taxonomy, hw)
    precision = js_str(_variant(b.recipe, s["variant"]).get("precision") or s["variant"]).upper()
    if b.omni:
        parts = [name, js_str(task["label"]) if task else "Omni", precision]
        return {"verified": False, "text": " · ".join(parts)}
    if b.declared.get(hw) == "verified" and kv is None and s["preset"] is None:
        return {"verified": True, "text": f"Verified on {js_str(p.get('brand'))} {name}".strip()}
    count = 1
    if kv in b.kv_ids:
        count = s["kv_instances"] or _dict(b.strategies.get(kv)).get("default_instances") or 1
    total = s["nodes"] * count if sid != "pd_cluster" else 1
    hw_part = f"{total}× {name}" if total > 1 else name
    st = _dict(b.strategies.get(sid))
    if sid == "pd_cluster":
        strat = "PD cluster"
    elif _deploy_type(st) == "multi_node" or sid != "single_node_tp":
        strat = js_str(st.get("display_name") or sid)
    else:
        strat = f"TP={js_str(_single_parallel_size(c, sid))}" if c else "TP"
    parts = [hw_part, strat, precision]
    if kv in b.kv_ids:
        dep = _dict(b.strategies.get(kv))
        parts.append(f"Mooncake ({js_str(dep.get('label') or kv).split(' ')[0]})")
    elif kv is not None:
        opt = _dict(_dict(b.taxonomy.get("kv_offload")).get(kv))
        grp = _dict(_dict(b.taxonomy.get("kv_offload_groups")).get(opt.get("group")))
        if grp:
            parts.append(f"{js_str(grp.get('label'))} ({js_str(opt.get('label') or kv)})")
        else:
            parts.append(js_str(opt.get("display_name") or opt.get("label") or kv))
    return {"verified": False, "text": " · ".join(parts)}


def _target(b: _B, s: dict, record: dict | None) -> dict:
    """POP-03: curl / bench host and port variables, with their defaults."""
    deploy = _get(record, "deploy_type")
    if deploy == "pd_cluster":
        port = _get(_dict(b.strategies.get("pd_cluster")).get("router"), "port") or 30000
        return {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": port}
    if deploy == "kv_store_lb" and _get(record, "router"):
        return {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": record["router"].get("port") or 30080}
    if deploy == "multi_node" or (deploy == "kv_store_lb" and _get(record, "vllm_worker_commands")):
        return {"host_var": "HEAD_IP", "port_var": "VLLM_PORT", "port": 8000}
    return {"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000}


def _curl(host: str, port: Any, model: str) -> str:
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": "Hello"}], "max_tokens": 32},
                      ensure_ascii=False)
    return (f"curl -X POST http://{host}:{js_str(port)}/v1/chat/completions \\\n"
            f"  -H \"Content-Type: application/json\" \\\n  -d {quote_value(body)}")


def _bench(host: str, port: Any, model: str) -> str:
    return " \\\n  ".join([f"vllm bench serve --model {quote_value(model)}", f"--host {host} --port {js_str(port)}",
                          "--dataset-name random --random-input-len 1024 --random-output-len 1024",
                          "--num-prompts 100 --max-concurrency 32"])


def _pool_comment(role: dict, g: int) -> str:
    n = max(1, role.get("nodes") or 1)
    mode = js_str(role.get("parallelism")).upper()
    text = f"# {n} node{'s' if n > 1 else ''} × {g} GPU = {n * g} GPU · {mode}"
    if role.get("parallelism") == "dep":
        text += f" (DP size {js_str(role.get('dpSize'))}, {js_str(role.get('dpLocal'))} local ranks per node)"
    if n > 1:
        cur = role.get("currentNode") or 0
        rank = (f"start rank {js_str(role.get('startRank'))}" if role.get("parallelism") == "dep"
                else f"node rank {cur}")
        text += f"\n# Node {cur + 1} of {n}: {rank}, " + ("head (serves HTTP)" if cur == 0 else "headless follower")
    return text


def _command_tabs(b: _B, s: dict, record: dict, kv: str | None, docker: bool, endpoints: dict) -> list[dict]:
    """CMD-11..15: the tab strip with displayed text and exact copy text."""
    raw = builder_tabs(record, b.vocab, kv if kv in b.kv_ids else None)
    deploy = record["deploy_type"]
    g = _gpus(b.profile(s["hardware"]))
    helpers = {"Mooncake Config", "Mooncake Master", "Mooncake Store"}
    companions = {c["label"]: c for c in record.get("companions") or []}
    serve = [t for t in raw if t["label"] not in companions]
    ordered = [t for t in raw if t["label"] in companions] + serve if companions else raw
    numbered = bool(companions) or any(t["label"] in helpers for t in raw)
    routed = any(t["label"] == "Router" for t in raw)
    out = []
    for i, t in enumerate(ordered):
        label = t["label"]
        kind = ("companion" if label in companions else "helper" if label in helpers
                else "router" if label == "Router" else "serve")
        notes: list[str] = []
        if kind == "companion" and companions[label].get("description"):
            notes.append(f"# {companions[label]['description']}")
        if kind == "helper":
            parts = _mooncake_parts(_dict(b.strategies.get(kv)))
            if label == "Mooncake Master" and parts["master"]["description"]:
                notes += [f"# {x}" for x in parts["master"]["description"].rstrip().split("\n")]
            if label == "Mooncake Store" and parts["store"] and parts["store"]["description"]:
                notes += [f"# {x}" for x in parts["store"]["description"].rstrip().split("\n")]
        if kind == "router" and deploy == "pd_cluster":
            notes.append(f"# Install: {record['router']['install']}")
        if kind == "router" and deploy == "kv_store_lb" and record.get("router"):
            notes.append(f"# Install: {record['router'].get('install')}")
        if deploy == "pd_cluster" and label in ("Prefill", "Decode"):
            notes.append(_pool_comment(record[label.lower()], g))
        if deploy == "kv_store_lb" and kind == "serve" and (record.get("instances") or 1) > 1:
            cur = (record.get("current_instance") or 0) + 1
            notes.append(f"# Instance {cur} of {record['instances']}: runs on $VLLM_INSTANCE_{cur}")
        use_docker = docker and "docker" in t
        prelude = "" if use_docker or t["env"] is None or kind != "serve" else t["pip"][: -len(t["command"])].rstrip("\n")
        body = t["docker"] if use_docker else t["command"]
        if deploy == "multi_node" or (deploy == "kv_store_lb" and record.get("vllm_worker_commands")):
            if kind == "serve":
                body += "\n# Set $HEAD_IP to the head node's address and run each tab on its own node."
        command = "\n".join([*notes, body]) if notes else body
        prelude, command = _substitute(prelude, endpoints), _substitute(command, endpoints)
        client = (kind == "router") if routed else (kind == "serve" and label in ("vLLM Serve", "Head"))
        out.append({"id": f"tab-{i}", "label": f"{i + 1}· {label}" if numbered else label, "name": label,
                    "kind": kind, "prelude": prelude, "command": command,
                    "copy": f"{prelude}\n\n{command}" if prelude else command, "client": client})
    return out


def _query(b: _B, s: dict, sid: str | None, initial_tab: str | None) -> str:
    """§7.1 canonical query string (defaults omitted; install/cuda/preset/point added)."""
    q: list[tuple[str, str]] = []
    if s["preset"]:
        q += [("preset", s["preset"]), ("point", s["point"] or "")]
    else:
        if s["variant"] != "default":
            q.append(("variant", s["variant"]))
        if s.get("hw_pinned") or s["hardware"] != default_hardware(b.recipe, b.taxonomy, s["variant"]):
            q.append(("hardware", s["hardware"]))
        if not b.omni:
            if s["strategy"] and s["strategy"] == sid and sid != b.recommended(s["hardware"], s["nodes"]):
                q.append(("strategy", sid))
            if s["nodes"] != 1:
                q.append(("nodes", str(s["nodes"])))
            if s["features"] is not None and set(s["features"]) != set(b.defaults(s["hardware"], s["variant"])):
                q.append(("features", ",".join(s["features"]) or "none"))
            p = b.profile(s["hardware"])
            fm = [f"{k}:{m}" for k, m in s["fmode"].items()
                  if m != effective_mode(b.recipe, k, s["variant"], p, s["hardware"])]
            if fm:
                q.append(("fmode", ",".join(fm)))
            if s["advanced"]:
                q.append(("advanced", ",".join(s["advanced"])))
            if s["kv_offload"]:
                q.append(("kv_offload", s["kv_offload"]))
            if s["kv_instances"] is not None:
                q.append(("kv_instances", str(s["kv_instances"])))
            if s["kv_instance"]:
                q.append(("kv_instance", str(s["kv_instance"])))
            for role in ("prefill", "decode"):
                if s[f"{role}_nodes"] is not None:
                    q.append((f"{role}_nodes", str(s[f"{role}_nodes"])))
            for role in ("prefill", "decode"):
                if s[f"{role}_mode"]:
                    q.append((f"{role}_mode", s[f"{role}_mode"]))
            for role in ("prefill", "decode"):
                if s[f"{role}_rank"]:
                    q.append((f"{role}_rank", str(s[f"{role}_rank"])))
        if s["task"]:
            q.append(("task", s["task"]))
    if s["install"] and s["install"] != initial_tab:
        q.append(("install", s["install"]))
    if s["cuda"] == "cu129":
        q.append(("cuda", "cu129"))

    def enc(v: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.~:,-]", lambda m: "".join(f"%{x:02X}" for x in m.group(0).encode()), v)
    return "&".join(f"{k}={enc(v)}" for k, v in q)


def _stored(b: _B, s: dict) -> dict:
    """§7.4 per-recipe storage object (empty values pruned)."""
    out: dict = {}
    if s["strategy"]:
        out["strategy"] = s["strategy"]
    if s["nodes"] != 1:
        out["nodes"] = s["nodes"]
    if s["features"]:
        out["features"] = list(s["features"])
    if s["fmode"]:
        out["featureModes"] = dict(s["fmode"])
    if s["kv_offload"]:
        out["kvOffload"] = s["kv_offload"]
    if s["kv_instances"] is not None:
        out["kvInstances"] = s["kv_instances"]
    return out


def builder_state(recipe: dict, vocab: dict, state: dict | None = None, event: dict | None = None) -> dict:
    """The interactive builder's complete view for one UI state (site-features §6-§7).

    ``event`` None = page load: ``state`` holds the URL query parameters (strings, §7.1 names plus
    ``install``, ``cuda``, ``preset``, ``point``) and optionally ``_prefs`` (the stored global
    preference ``{"hardware": id}``), ``_stored`` (this recipe's stored choices) and ``_endpoints``
    (saved Env values).  Otherwise ``state`` is the ``state`` of the previous result (plus
    ``_endpoints``) and ``event`` one click: ``{"type": "hardware"|"variant"|"strategy"|"nodes"|
    "kv_offload"|"kv_member"|"topology"|"kv_instances"|"kv_instance"|"feature"|"mode"|"advanced"|
    "pool_nodes"|"pool_mode"|"pool_rank"|"task"|"axis"|"install"|"cuda"|"preset"|"point"|"reset"|
    "refresh", "value": ..., "feature"/"role"/"axis": ...}``.

    Returns ``{state, query, storage, rows, install, summary, tabs, curl, bench, target, notes,
    hardware_note, vram_warning, tp_hint, presets, preset, placeholders, omni}``.
    """
    b = _B(recipe, vocab)
    raw = _dict(state)
    endpoints = {k: v for k, v in _dict(raw.get("_endpoints")).items() if isinstance(k, str)}
    storage: dict = {"prefs": None, "recipe": None}
    if event is None:
        s = _init(b, raw, _dict(raw.get("_prefs")), _dict(raw.get("_stored")))
        s["hw_pinned"] = isinstance(raw.get("hardware"), str) and bool(raw.get("hardware"))
        if not b.omni and raw.get("strategy") in b.comp and s["nodes"] == 1 and \
                _is_multi(b.vocab, raw["strategy"]) and b.clusterable(s["hardware"]):
            s["nodes"] = max(2, b.floor_nodes(raw["strategy"], s["hardware"]))
        if raw.get("nodes") not in (None, "") and _int_or(raw.get("nodes"), 1) in node_pills(
                recipe, vocab, s["hardware"]) and not b.omni:
            s["nodes"] = _int_or(raw.get("nodes"), 1) if b.clusterable(s["hardware"]) and b.multi_capable() else 1
        if s["preset"]:
            _apply_preset(b, s, s["preset"], s["point"])
            s["install"] = raw.get("install") if raw.get("install") in ("pip", "docker") else None
            s["cuda"] = "cu129" if raw.get("cuda") == "cu129" else "default"
    else:
        s = _parse(b, raw)
        s["hw_pinned"] = raw.get("hw_pinned") is True
        out: dict = {}
        _event(b, s, _dict(event), out)
        if out.get("prefs"):
            s["hw_pinned"] = True
            storage["prefs"] = out["prefs"]
        if _dict(event).get("type") == "reset":
            s["hw_pinned"] = False
    pinned = s.pop("hw_pinned", False)
    s = _reconcile(b, s)
    s["hw_pinned"] = pinned
    if event is not None and _dict(event).get("type") not in ("refresh", "install", "cuda", "kv_instance",
                                                                "pool_rank", "task", "axis"):
        storage["recipe"] = _stored(b, s)
    return _view(b, s, storage, endpoints)


def _view(b: _B, s: dict, storage: dict, endpoints: dict) -> dict:
    hw, p = s["hardware"], b.profile(s["hardware"])
    rows: list[dict] = [_hardware_row(b, s)]
    view: dict = {"omni": b.omni, "hardware_note": None, "vram_warning": None, "tp_hint": None, "notes": [],
                  "preset": None, "presets": [], "curl": None, "bench": None, "target": None}
    presets = _dict(b.recipe.get("presets"))
    preset = _dict(presets.get(s["preset"])) if s["preset"] else None
    if b.omni:
        task = active_omni_task(b.recipe, s["task"], hw)
        rows += _omni_rows(b, s, task)
        vrow = _variant_row(b, s)
        if vrow:
            rows.append(vrow)
        res = resolve_omni(b.recipe, b.taxonomy, s["variant"], task, hw)
        install = _install_view(b, s, None, None)
        prelude = pip_view(res["command"], res["env"], p)[: -len(res["command"])].rstrip("\n") if res["env"] else ""
        command = res["command"]
        prelude, command = _substitute(prelude, endpoints), _substitute(command, endpoints)
        tabs = [{"id": "tab-0", "label": "vLLM Serve", "name": "vLLM Serve", "kind": "serve", "prelude": prelude,
                 "command": command, "copy": f"{prelude}\n\n{command}" if prelude else command, "client": True}]
        host = js_str(endpoints.get("VLLM_HOST") or "localhost")
        port = endpoints.get("VLLM_PORT") or 8000
        view.update(curl=omni_example(task, host, port, res["model_id"]) if task else None,
                    target={"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000})
        summary = _summary(b, s, None, None, None, task)
        sid, kv = None, None
    else:
        vrow = _variant_row(b, s)
        rows.append(vrow)
        sid = b.active_strategy(hw, s["nodes"], s["strategy"])
        rows.append(_strategy_row(b, s, sid))
        kv = s["kv_offload"]
        if kv is not None and kv not in b.kv_ids and b.kv_reason(kv, hw, sid) is not None:
            kv = None  # CB-KV-11: remembered but inactive
        rows += _kv_rows(b, s, sid, kv)
        rows += _nodes_rows(b, s, sid)
        rows += _features_rows(b, s, sid)
        adv = _advanced_options(b, sid)
        rows.append(_row("advanced", "Advanced", [
            _pill(a["id"], a["label"], a["id"] in s["advanced"], None, a["description"], shown=a["shown"])
            for a in adv], kind="checkbox", count=sum(1 for a in adv if a["id"] in s["advanced"] and a["shown"])))
        enabled = [f for f in _enabled(b, s) if _feature_reason(b, s, f, sid) is None]
        modes = {k: effective_mode(b.recipe, k, s["variant"], p, hw, s["fmode"].get(k)) for k in b.features}
        modes = {k: m for k, m in modes.items() if m is not None}
        advanced_args = [a for o in adv if o["id"] in s["advanced"] and o["shown"] for a in o["args"]]
        if preset is not None:
            resolved = resolve_preset(b.recipe, b.vocab, s["preset"])
            point = resolved["points"].get(s["point"])
            record = dict(point) if point else None
            if record is None:
                view["warnings"] = resolved["warnings"]
        else:
            record = None
        if record is None:
            selection = {"hardware": hw, "variant": s["variant"], "substitute": False, "strategy": sid,
                         "nodes": s["nodes"], "features": enabled, "modes": modes, "advanced_args": advanced_args,
                         "kv_offload": kv, "cuda": s["cuda"]}
            if sid == "pd_cluster":
                selection["pd_nodes"] = {r: {k: v for k, v in pool.items() if k != "modes"}
                                         for r, pool in _pools(b, s).items()}
            if kv in b.kv_ids:
                count = s["kv_instances"] or _dict(b.strategies.get(kv)).get("default_instances") or 1
                selection["kv_instances"] = {"count": count, "current": s["kv_instance"]}
            record = resolve(b.recipe, b.vocab, selection)
            kv = record.get("kv_offload")
        install = _install_view(b, s, kv if preset is None else None, preset)
        docker = install["active"] == "docker"
        tabs = _command_tabs(b, s, record, kv, docker, endpoints)
        tp = None
        if preset is not None:
            point_cfg = _dict(_dict(preset.get("points")).get(s["point"]))
            tp = point_cfg["tp"] if "tp" in point_cfg else preset.get("tp")
        c = _Ctx(b.recipe, b.vocab, s["variant"], hw, enabled, modes, advanced_args, tp)
        summary = _summary(b, s, sid, kv, c, None)
        target = _target(b, s, record)
        host = js_str(endpoints.get(target["host_var"]) or "localhost")
        port = endpoints.get(target["port_var"]) or target["port"]
        model = _model_id(b.recipe, _variant(b.recipe, s["variant"]))
        view.update(curl=_curl(host, port, model), bench=_bench(host, port, model), target=target)
        variant = _variant(b.recipe, s["variant"])
        need = variant.get("vram_minimum_gb")
        if s["nodes"] == 1 and _deploy_type(b.strategies.get(sid)) == "single_node" and not fits_single_node(p, variant):
            view["vram_warning"] = (
                f"{_hw_name(b.taxonomy, hw)} provides {_gpus(p)} × {round(_vram(p) / max(1, _gpus(p)))} GB = "
                f"{js_str(_int_if_integral(_vram(p)))} GB, but {_variant_label(s['variant'], variant)} needs at least "
                f"{js_str(need)} GB for the weights alone (more for the KV cache). Pick a bigger GPU, multi-node "
                "Tensor Parallel, or a lower --max-model-len.")
        if s["nodes"] == 1 and sid == "single_node_tp" and preset is None:
            tp = _single_parallel_size(c, sid)
            cpu = _raw_generation(p) == "cpu"
            if cpu or (_is_num(tp) and tp < _gpus(p)):
                unit = "NUMA nodes" if cpu else "GPUs"
                view["tp_hint"] = (f"This command uses {js_str(tp)} of the node's {_gpus(p)} {unit}. Raise "
                                   "--tensor-parallel-size in the command to use more.")
    hn = _dict(_dict(b.recipe.get("hardware_notes")).get(hw))
    if hn.get("body"):
        view["hardware_note"] = {"title": js_str(hn.get("title") or "Hardware note"), "body": js_str(hn["body"]),
                                 "link": hn.get("link") or hn.get("url"),
                                 "link_text": js_str(hn.get("link_text") or "Read guide")}
    sel = {"hardware": hw, "variant": s["variant"], "strategy": sid}
    all_notes = _list(b.recipe.get("notes"))
    view["notes"] = [{"index": i, "title": js_str(_get(n, "title") or "Note"), "body": js_str(_get(n, "body") or "")}
                     for i, n in enumerate(all_notes) if n in applicable_notes(b.recipe, sel)]
    for key, pr in presets.items():
        pr = _dict(pr)
        view["presets"].append({"key": key, "label": js_str(pr.get("label") or key),
                                "hardware": _hw_name(b.taxonomy, js_str(pr.get("hardware"))),
                                "selected": key == s["preset"],
                                "points": [{"key": k, "label": js_str(_get(pt, "label") or k),
                                            "concurrency": _get(pt, "concurrency"),
                                            "selected": key == s["preset"] and k == s["point"]}
                                           for k, pt in _dict(pr.get("points")).items()]})
    if preset is not None:
        view["preset"] = {"key": s["preset"], "point": s["point"], "label": js_str(preset.get("label") or s["preset"]),
                          "description": js_str(preset.get("description") or ""),
                          "workload": js_str(preset.get("workload") or ""), "anchor": f"preset-{s['preset']}"}
    texts = [t["prelude"] + "\n" + t["command"] for t in tabs]
    names: list[str] = []
    for text in texts:
        for m in _PLACEHOLDER.finditer(text):
            if m.group(1) not in names:
                names.append(m.group(1))
    target = view["target"] or {}
    for name in (target.get("host_var"), target.get("port_var")):
        if name and name not in names:
            names.append(name)
    view.update(state=s, query=_query(b, s, sid, _install_initial(b, s)), storage=storage, rows=rows,
                install=install, summary=summary, tabs=tabs, placeholders=names, strategy=sid, kv_offload=kv,
                hf_id=b.recipe.get("hf_id"))
    return view


def _install_initial(b: _B, s: dict) -> str:
    """The recipe's initial install tab (CB-INIT-10) for the current hardware."""
    return interactive_install(b.recipe, b.vocab, s["hardware"], s["variant"])["initial_tab"]
