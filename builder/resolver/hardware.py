"""Hardware profiles, key-matching disciplines, variants and fit (single-node spec §1-§4).

A profile also says where it stands among the others: the order of the hardware pills
(``display_order``), its preference as the default hardware (``default_rank``) and the NVLink domain
its node belongs to (``interconnect``). A taxonomy that declares one of these keys on none of its
profiles (the upstream one) gets the values the reference builder fixes by profile id (the
``REFERENCE_*`` tables), so its pages stay as they are; once any profile declares the key, only
declared values count. The device family (``family``) is :mod:`.families`'.
"""

from __future__ import annotations

import re
from typing import Any, cast

from .values import as_dict, get_key, int_if_integral, is_num, js_str, truthy


def hardware_profiles(taxonomy: dict[str, Any]) -> dict[str, Any]:
    return as_dict(get_key(taxonomy, "hardware_profiles"))


def profile_of(taxonomy: dict[str, Any], hw: str | None) -> dict[str, Any]:
    return as_dict(hardware_profiles(taxonomy).get(hw)) if hw is not None else {}


FACT_KEYS = ("family", "display_order", "default_rank", "interconnect")
"""Profile keys this project adds to the reference taxonomy layout (read by the resolver)."""


def published_profiles(taxonomy: dict[str, Any]) -> dict[str, Any]:
    """The profiles as records publish them (json-api §5, ``hardware_profile``): the reference layout,
    without :data:`FACT_KEYS` (``/taxonomy.json`` keeps them)."""
    return {hw: {k: v for k, v in p.items() if k not in FACT_KEYS} if isinstance(p, dict) else p
            for hw, p in hardware_profiles(taxonomy).items()}


_COUNT_MARK = re.compile(r"\b\d+\s*[x×](?![a-z])|\bNVL\d+", re.IGNORECASE)  # "2x", "4 ×", "NVL4"
_NOT_GPU_GENERATIONS = ("cpu", "tpu", "xpu", "npu")


# (taxonomy, its labels) of the last taxonomies asked about: a build or a page asks per click and
# per pill, and a loaded taxonomy is never changed in place. Holding the taxonomy keeps its id unique.
_LABELS_SEEN: list[tuple[dict[str, Any], dict[str, str]]] = []


def hardware_labels(taxonomy: dict[str, Any]) -> dict[str, str]:
    """A label per hardware profile that no other profile shares (the builder's pills, the pages).

    A workstation of several GPUs whose name carries no count reads ``2× RTX 4090``; names still
    shared after that get the profile id in brackets. The mapping is shared: read it, don't change it.
    """
    for seen, labels in _LABELS_SEEN:
        if seen is taxonomy:
            return labels
    labels = _unique_labels(taxonomy)
    _LABELS_SEEN.insert(0, (taxonomy, labels))
    del _LABELS_SEEN[4:]
    return labels


def _unique_labels(taxonomy: dict[str, Any]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for hw, raw in hardware_profiles(taxonomy).items():
        profile = as_dict(raw)
        name = js_str(profile.get("display_name") or hw)
        count = gpu_count_of(profile)
        if (count > 1 and not is_scalable(profile) and raw_generation(profile) not in _NOT_GPU_GENERATIONS
                and not _COUNT_MARK.search(name)):
            name = f"{count}× {name}"
        labels[js_str(hw)] = name
    seen: dict[str, int] = {}
    for name in labels.values():
        seen[name.casefold()] = seen.get(name.casefold(), 0) + 1
    return {hw: f"{name} ({hw})" if seen[name.casefold()] > 1 else name for hw, name in labels.items()}


def raw_generation(profile: dict[str, Any]) -> object:
    gen = profile.get("generation")
    return gen if truthy(gen) else profile.get("gpu_generation")


def _gen_key(profile: dict[str, Any]) -> Any:
    """§2.1: generation used for override look-ups (first element of a list)."""
    gen = raw_generation(profile)
    if isinstance(gen, list):
        return gen[0] if gen else None
    return gen


def gpu_count_of(profile: dict[str, Any]) -> int:
    g = profile.get("gpu_count")
    return int_if_integral(g) if is_num(g) else 1


def node_vram_gb(profile: dict[str, Any]) -> float:
    v = profile.get("vram_gb")
    return v if is_num(v) else 0


def is_scalable(profile: dict[str, Any]) -> bool:
    return profile.get("scalable") is not False


def is_nvidia(profile: dict[str, Any]) -> bool:
    return profile.get("brand") == "NVIDIA"


def hardware_lookup(mapping: Any, profile: dict[str, Any], hw: str | None) -> Any:
    """Discipline H: ``map[hw]``, ``map[generation]``, ``map[brand]``, ``map["default"]``."""
    if not isinstance(mapping, dict):
        return None
    brand = profile.get("brand")
    for key in (hw, _gen_key(profile), brand.lower() if isinstance(brand, str) else None, "default"):
        if key is not None and mapping.get(key) is not None:
            return mapping[key]
    return None


def lookup_generation(mapping: Any, profile: dict[str, Any]) -> Any:
    """Discipline G: ``map[generation]`` if truthy, else ``map["nvidia"]`` on NVIDIA."""
    if not isinstance(mapping, dict):
        return None
    gen = _gen_key(profile)
    if gen is not None and truthy(mapping.get(gen)):
        return mapping[gen]
    if is_nvidia(profile) and truthy(mapping.get("nvidia")):
        return mapping["nvidia"]
    return None


def lookup_exact(mapping: Any, hw: str | None) -> Any:
    """Discipline X: exact hardware id only."""
    return mapping.get(hw) if isinstance(mapping, dict) and hw is not None else None


def mode_gated(mode: dict[str, Any], profile: dict[str, Any], hw: str | None) -> bool:
    """Discipline M: True when the mode is ``unsupported`` on this generation or id."""
    table = as_dict(mode.get("hardware"))
    gen = _gen_key(profile)
    return (gen is not None and table.get(gen) == "unsupported") or (
        hw is not None and table.get(hw) == "unsupported"
    )


def variant_of(recipe: dict[str, Any], key: str | None) -> dict[str, Any]:
    """§4.1: ``variants[key]``, else ``variants["default"]``, else ``{}``."""
    variants = as_dict(recipe.get("variants"))
    if key in variants:
        return as_dict(variants[key])
    return as_dict(variants.get("default"))


def served_model_id(recipe: dict[str, Any], variant: dict[str, Any]) -> str:
    """§4.2 served model id."""
    for value in (variant.get("model_id"), as_dict(recipe.get("model")).get("model_id")):
        if truthy(value):
            return cast(str, value)  # a string in validated content
    return "unknown"


def precision_constraint(variant: dict[str, Any]) -> dict[str, Any] | None:
    """§3.1: ``precision_hardware`` or the nvfp4/fp4 Blackwell default."""
    ph = variant.get("precision_hardware")
    if truthy(ph):
        return ph if isinstance(ph, dict) else None
    if variant.get("precision") in ("nvfp4", "fp4"):
        return {"brand": "NVIDIA", "generation": "blackwell"}
    return None


def precision_hardware_name(variant: dict[str, Any]) -> str:
    """What the variant's precision constraint asks for: "NVIDIA Blackwell", else the brand ("" when none)."""
    constraint = precision_constraint(variant) or {}
    if constraint.get("generation") == "blackwell":
        return "NVIDIA Blackwell"
    brand = constraint.get("brand")
    return js_str(brand) if brand is not None else ""


def precision_ok(variant: dict[str, Any], profile: dict[str, Any]) -> bool:
    constraint = precision_constraint(variant)
    if constraint is None:
        return True
    if constraint.get("brand") is not None and constraint.get("brand") != profile.get("brand"):
        return False
    if constraint.get("generation") is not None:
        gen = raw_generation(profile)
        gens = gen if isinstance(gen, list) else [gen]
        return constraint["generation"] in gens
    return True


def allowlisted(variant: dict[str, Any], hw: str | None) -> bool:
    allow = variant.get("supported_hardware")
    return not (isinstance(allow, list) and allow) or hw in allow


def declared_hardware(recipe: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(recipe.get("meta")).get("hardware"))


def _candidates(recipe: dict[str, Any], taxonomy: dict[str, Any], variant: dict[str, Any]) -> list[str]:
    """Profiles (taxonomy order) passing §3.1-§3.4."""
    declared = declared_hardware(recipe)
    out = []
    for hw, prof in hardware_profiles(taxonomy).items():
        prof = as_dict(prof)
        if declared.get(hw) == "unsupported":
            continue
        if prof.get("restricted") is True and hw not in declared:
            continue
        if precision_ok(variant, prof) and allowlisted(variant, hw):
            out.append(hw)
    return out


_BRAND_RANK: dict[object, int] = {"NVIDIA": 0, "AMD": 1}


def _default_from(recipe: dict[str, Any], taxonomy: dict[str, Any], variant: dict[str, Any],
                  cands: list[str]) -> str:
    """The authored default, else the candidate of lowest ``default_rank``, else NVIDIA before AMD before
    the other brands, then by id; without candidates the taxonomy's best-ranked profile."""
    authored = as_dict(recipe.get("meta")).get("default_hardware")
    if isinstance(authored, str) and authored in cands:
        return authored
    ranks = default_ranks(taxonomy)
    ranked = [hw for hw in cands if hw in ranks]
    if ranked:
        return min(ranked, key=ranks.__getitem__)
    if cands:
        profiles = hardware_profiles(taxonomy)
        return sorted(cands, key=lambda h: (_BRAND_RANK.get(as_dict(profiles[h]).get("brand"), 9), h))[0]
    return min(ranks, key=ranks.__getitem__) if ranks else next(iter(hardware_profiles(taxonomy)), "")


def default_hardware(recipe: dict[str, Any], taxonomy: dict[str, Any], variant_key: str) -> str:
    """Single-node spec §3.6: default hardware of (recipe, variant)."""
    variant = variant_of(recipe, variant_key)
    return _default_from(recipe, taxonomy, variant, _candidates(recipe, taxonomy, variant))


def initial_hardware(recipe: dict[str, Any], taxonomy: dict[str, Any], variant_key: str,
                     query: str | None = None, preference: str | None = None) -> str:
    """§3.7 builder landing hardware: query parameter, stored NVIDIA preference, else §3.6."""
    variant = variant_of(recipe, variant_key)
    declared = declared_hardware(recipe)

    def usable(hw: str) -> bool:
        prof = get_key(hardware_profiles(taxonomy), hw)
        return (isinstance(prof, dict) and declared.get(hw) != "unsupported" and precision_ok(variant, prof)
                and allowlisted(variant, hw))

    if query is not None and usable(query):
        return query
    prof = profile_of(taxonomy, preference)
    if (preference is not None and usable(preference) and is_nvidia(prof)
        and (prof.get("restricted") is not True or preference in declared)):
        return preference
    return default_hardware(recipe, taxonomy, variant_key)


def offered_hardware(recipe: dict[str, Any], taxonomy: dict[str, Any], variant_key: str) -> list[str]:
    """§3.5 / json-api §4.3: default hardware first, then offered profiles in taxonomy order."""
    variant = variant_of(recipe, variant_key)
    cands = _candidates(recipe, taxonomy, variant)
    first = _default_from(recipe, taxonomy, variant, cands)
    return [first] + [hw for hw in cands if hw != first]


def fits_single_node(profile: dict[str, Any], variant: dict[str, Any]) -> bool:
    """§4.3: the variant's ``vram_minimum_gb`` fits one node (missing figures fit)."""
    node, need = node_vram_gb(profile), variant.get("vram_minimum_gb")
    need = need if is_num(need) else 0
    return node <= 0 or need <= 0 or need <= node


def runs_on(profile: dict[str, Any], variant: dict[str, Any], hw: str | None = None) -> bool:
    """§4.3 *runs on*: precision, allowlist (when ``hw`` given), scalable-or-fits."""
    if not precision_ok(variant, profile):
        return False
    if hw is not None and not allowlisted(variant, hw):
        return False
    return is_scalable(profile) or fits_single_node(profile, variant)


def pick_fitting_variant(recipe: dict[str, Any], profile: dict[str, Any],
                         hw: str | None = None) -> str | None:
    """§4.3: the running variant with the largest ``vram_minimum_gb`` (stable order)."""
    best: str | None = None
    best_need: float = 0
    for key, variant in as_dict(recipe.get("variants")).items():
        variant = as_dict(variant)
        if not runs_on(profile, variant, hw):
            continue
        need = variant.get("vram_minimum_gb")
        need = need if is_num(need) else 0
        if best is None or need > best_need:
            best, best_need = key, need
    return best


def used_variant(recipe: dict[str, Any], profile: dict[str, Any], hw: str, variant_key: str) -> str | None:
    """§4.4: substitute on non-scalable hardware when the variant does not fit."""
    variant = variant_of(recipe, variant_key)
    if is_scalable(profile) or fits_single_node(profile, variant):
        return variant_key
    return pick_fitting_variant(recipe, profile, hw)


REFERENCE_ORDER = ("h100", "h200", "b200", "gb200", "b300", "gb300", "rtx_pro_5000", "rtx_pro_5000_4x",
                   "rtx_pro_6000", "rtx_pro_6000_2x", "rtx_pro_6000_8x", "dgx_spark_gb10", "rtx_4090_2x",
                   "rtx_5090", "rtx_5090_2x", "dgx_station_gb300", "mi300x", "mi325x", "mi350x", "mi355x")
"""The reference builder's pill order within a brand (NVIDIA, then AMD, then the other brands by name)."""
REFERENCE_DEFAULT_RANKS = {"h200": 1, "b200": 2, "gb200": 3}
"""The reference builder's default hardware: H200, else B200 or GB200 (a Blackwell-only precision)."""
REFERENCE_INTERCONNECT = {"gb200": "NVL72", "gb300": "NVL72"}
"""The reference builder keeps the multi-node NVLink environment of PD pools on these ids only."""

REFERENCE_GPU_HOUR_USD = {"h100": 1.3, "h200": 1.41, "b200": 1.95, "b300": 2.34, "gb200": 2.21,
                          "gb300": 2.652, "mi300x": 1.12, "mi325x": 1.28, "mi355x": 1.48}
"""US dollars per GPU-hour, InferenceX's default cost tier (owning at large hyperscaler volume, from the
SemiAnalysis AI Cloud TCO Model; B300 and GB300 are its stated 1.2x placeholders): ``GPU_SPECS`` ``costh`` of
SemiAnalysisAI/InferenceX-app packages/app/src/lib/constants.ts at 77ca49a (2026-04-03)."""
REFERENCE_GPU_HOUR_SOURCE = ("InferenceX's owning-at-hyperscaler-volume cost from the SemiAnalysis AI Cloud "
                             "TCO Model (InferenceX-app 77ca49a)")


_NVL = re.compile(r"NVL(\d+)")


def _declared(profiles: dict[str, Any], key: str) -> bool:
    return any(as_dict(p).get(key) is not None for p in profiles.values())


def pill_order(taxonomy: dict[str, Any]) -> dict[str, int]:
    """Each profile id's place among the hardware pills (0 first).

    Pills sort by ``display_order``, ties in taxonomy order; a profile without one takes the value of
    the profile listed before it (the first declared one when it comes first), so it shows where it
    is written.
    """
    profiles = hardware_profiles(taxonomy)
    if not _declared(profiles, "display_order"):
        return {hw: i for i, hw in enumerate(sorted(profiles, key=_reference_key(profiles)))}
    values = {hw: as_dict(p).get("display_order") for hw, p in profiles.items()}
    current = next(v for v in values.values() if is_num(v))
    keys: dict[str, tuple[float, int]] = {}
    for position, (hw, value) in enumerate(values.items()):
        current = value if is_num(value) else current
        keys[hw] = (current, position)
    return {hw: i for i, hw in enumerate(sorted(keys, key=keys.__getitem__))}


def _reference_key(profiles: dict[str, Any]) -> Any:
    position = {hw: i for i, hw in enumerate(profiles)}

    def key(hw: str) -> tuple[Any, ...]:
        p = as_dict(profiles[hw])
        brand = js_str(p.get("brand"))
        group = 0 if brand == "NVIDIA" else 1 if brand == "AMD" else 2
        rank = REFERENCE_ORDER.index(hw) if hw in REFERENCE_ORDER else len(REFERENCE_ORDER)
        return (group, brand if group == 2 else "", rank, node_vram_gb(p) if group == 0 else 0, position[hw])
    return key


def default_ranks(taxonomy: dict[str, Any]) -> dict[str, float]:
    """``default_rank`` per ranked profile id (lower is preferred as the default hardware)."""
    profiles = hardware_profiles(taxonomy)
    if not _declared(profiles, "default_rank"):
        return {hw: rank for hw, rank in REFERENCE_DEFAULT_RANKS.items() if hw in profiles}
    ranks = {hw: as_dict(p).get("default_rank") for hw, p in profiles.items()}
    return {hw: rank for hw, rank in ranks.items() if is_num(rank)}


def interconnect(taxonomy: dict[str, Any], hw: str | None) -> str | None:
    """The NVLink domain the profile's node belongs to (``NVL72``), None when not given."""
    profiles = hardware_profiles(taxonomy)
    if hw is None or hw not in profiles:
        return None
    if not _declared(profiles, "interconnect"):
        return REFERENCE_INTERCONNECT.get(hw)
    value = as_dict(profiles[hw]).get("interconnect")
    return value if isinstance(value, str) else None


def nvlink_spans_nodes(taxonomy: dict[str, Any], hw: str | None, gpus_per_node: int) -> bool:
    """True when the node's NVLink domain reaches beyond it (NVL72 trays of four GPUs): PD pools then keep
    the multi-node NVLink NCCL environment (cluster spec §7.5)."""
    m = _NVL.fullmatch(interconnect(taxonomy, hw) or "")
    return m is not None and int(m.group(1)) > gpus_per_node


def gpu_hour_price(taxonomy: dict[str, Any], hw: str | None) -> tuple[float | None, str]:
    """(US dollars per GPU-hour, where it comes from) of a profile: its ``gpu_hour_usd`` and
    ``gpu_hour_source``; a taxonomy that prices no profile gets :data:`REFERENCE_GPU_HOUR_USD`."""
    profiles = hardware_profiles(taxonomy)
    if not _declared(profiles, "gpu_hour_usd"):
        return REFERENCE_GPU_HOUR_USD.get(hw or ""), REFERENCE_GPU_HOUR_SOURCE
    profile = as_dict(profiles.get(hw or ""))
    price, source = profile.get("gpu_hour_usd"), profile.get("gpu_hour_source")
    return (float(price) if is_num(price) else None), js_str(source or "the taxonomy's hardware profile")
