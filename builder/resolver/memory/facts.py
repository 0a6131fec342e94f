"""Reading a ``config.json``: the facts the memory model uses, checked and under canonical names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import check_int, check_number, describe
from .constants import ALIASES, BOOL_FACTS, INT_FACTS, LAYER_TYPES, STR_FACTS, TEXT_PARTS
from .encoders import audio_facts, vision_facts
from .quant_facts import quantization_facts
from .types import ArchitectureError

_describe = describe


def _text_part(config: Mapping[str, Any]) -> dict[str, Any]:
    """The language model's keys: ``text_config`` over the top level, aliases resolved."""
    if not isinstance(config, Mapping):
        raise ArchitectureError("", f"expected a mapping, got {_describe(config)}")
    merged = {k: v for k, v in config.items() if k not in TEXT_PARTS}
    for part in TEXT_PARTS:  # a speculators draft keeps its layer in transformer_layer_config
        text = config.get(part)
        if text is not None:
            if not isinstance(text, Mapping):
                raise ArchitectureError(part, f"expected a mapping, got {_describe(text)}")
            merged.update({k: v for k, v in text.items() if merged.get(k) is None or part == "text_config"})
    for alias, name in ALIASES.items():
        if alias in merged and merged.get(name) is None:
            merged[name] = merged[alias]
    return merged


def _sub_mapping(raw: Any, field: str) -> Mapping[str, Any]:
    """A nested config block (empty when absent); anything but a mapping is an error."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ArchitectureError(field, f"expected a mapping, got {_describe(raw)}")
    return raw


def _rope_facts(raw: Any) -> dict[str, Any]:
    raw = _sub_mapping(raw, "rope_scaling")
    facts: dict[str, Any] = {}
    kind = raw.get("rope_type", raw.get("type"))
    if kind is not None:
        if not isinstance(kind, str) or len(kind) > 64:
            raise ArchitectureError("rope_scaling.rope_type", f"expected a short string, got {_describe(kind)}")
        facts["rope_type"] = kind
    if raw.get("factor") is not None:
        facts["factor"] = check_number(raw["factor"], "rope_scaling.factor", 0, 1 << 20)
    if raw.get("original_max_position_embeddings") is not None:
        facts["original_max_position_embeddings"] = check_int(
            raw["original_max_position_embeddings"], "rope_scaling.original_max_position_embeddings", 1, 1 << 34
        )
    return facts


def _int_list(raw: Any, field: str, low: int, high: int) -> list[int]:
    if not isinstance(raw, list) or len(raw) > 4096:
        raise ArchitectureError(field, f"expected a list of at most 4,096 integers, got {_describe(raw)}")
    return [check_int(v, f"{field}[{i}]", low, high) for i, v in enumerate(raw)]


def architecture_facts(config: Mapping[str, Any]) -> dict[str, Any]:
    """The facts this model reads from a ``config.json``, checked and under their canonical names.

    Multimodal configs contribute their ``text_config`` (over the top level) and a reduced
    ``vision_config``; ``quantization_config`` and ``rope_scaling`` are reduced to the keys used.
    The result is what ``import-config`` writes into a recipe. Raises :class:`ArchitectureError`.
    """
    merged = _text_part(config)
    facts: dict[str, Any] = {}
    for key in STR_FACTS:
        value = merged.get(key)
        if value is not None:
            if not isinstance(value, str) or not 0 < len(value) <= 64:
                raise ArchitectureError(key, f"expected a short string, got {_describe(value)}")
            facts[key] = value
    for key, (low, high) in INT_FACTS.items():
        if merged.get(key) is not None:
            facts[key] = check_int(merged[key], key, low, high)
    for key in BOOL_FACTS:
        value = merged.get(key)
        if value is not None:
            if not isinstance(value, bool):
                raise ArchitectureError(key, f"expected true or false, got {_describe(value)}")
            facts[key] = value
    if merged.get("partial_rotary_factor") is not None:
        facts["partial_rotary_factor"] = check_number(merged["partial_rotary_factor"], "partial_rotary_factor", 0, 1)
    if merged.get("layer_types") is not None:
        types = merged["layer_types"]
        if not isinstance(types, list) or len(types) > 4096:
            raise ArchitectureError("layer_types", f"expected a list of at most 4,096 strings, got {_describe(types)}")
        for i, kind in enumerate(types):
            if not isinstance(kind, str) or kind not in LAYER_TYPES:
                shown = repr(kind[:40]) if isinstance(kind, str) else _describe(kind)
                raise ArchitectureError(
                    f"layer_types[{i}]",
                    f"unsupported layer type {shown}: expected one of {', '.join(LAYER_TYPES)}",
                )
        facts["layer_types"] = list(types)
    for key, high in (("mlp_only_layers", 4095), ("no_rope_layers", 1)):
        if merged.get(key) is not None:
            facts[key] = _int_list(merged[key], key, 0, high)
    for key, reader in (
        ("rope_scaling", _rope_facts),
        ("quantization_config", quantization_facts),
        ("vision_config", vision_facts),
        ("audio_config", audio_facts),
    ):
        reduced = reader(merged.get(key))
        if reduced:
            facts[key] = reduced
    for key in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"):
        if key not in facts:
            raise ArchitectureError(key, "missing: the memory model needs it")
    return facts
