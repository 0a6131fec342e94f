"""Reading a ``config.json``: the facts the memory model uses, checked and under canonical names."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from .constants import ALIASES, BOOL_FACTS, INT_FACTS, LAYER_TYPES, STR_FACTS
from .types import ArchitectureError


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"number {value}" if value.bit_length() <= 64 else "a number too large"
    if isinstance(value, float):
        return f"number {value}" if math.isfinite(value) else "a non-finite number"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def check_int(value: Any, field: str, low: int, high: int, error: type[ArchitectureError] = ArchitectureError) -> int:
    """``value`` as an int from ``low`` to ``high``; raises ``error`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(field, f"expected an integer, got {_describe(value)}")
    if not low <= value <= high:
        shown = f"{value:,}" if value.bit_length() <= 64 else "a number too large"
        raise error(field, f"must be from {low:,} to {high:,}, got {shown}")
    return value


def check_number(
    value: Any, field: str, low: float, high: float, error: type[ArchitectureError] = ArchitectureError
) -> float:
    """``value`` as a finite number with ``low < value <= high``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise error(field, f"expected a number, got {_describe(value)}")
    if (isinstance(value, int) and value.bit_length() > 64) or not math.isfinite(value):
        raise error(field, f"must be a number above {low:g} and at most {high:g}, got {_describe(value)}")
    if not low < value <= high:
        raise error(field, f"must be above {low:g} and at most {high:g}, got {value:g}")
    return float(value)


def _text_part(config: Mapping[str, Any]) -> dict[str, Any]:
    """The language model's keys: ``text_config`` over the top level, aliases resolved."""
    if not isinstance(config, Mapping):
        raise ArchitectureError("", f"expected a mapping, got {_describe(config)}")
    merged = {k: v for k, v in config.items() if k != "text_config"}
    text = config.get("text_config")
    if text is not None:
        if not isinstance(text, Mapping):
            raise ArchitectureError("text_config", f"expected a mapping, got {_describe(text)}")
        merged.update(text)
    for alias, name in ALIASES.items():
        if alias in merged and merged.get(name) is None:
            merged[name] = merged[alias]
    return merged


def _quantization_facts(raw: Any) -> dict[str, Any]:
    """``quantization_config`` reduced to quant_method, bits, weight_type, group_size, weight_block_size."""
    if raw is None:
        return {}
    path = "quantization_config"
    if not isinstance(raw, Mapping):
        raise ArchitectureError(path, f"expected a mapping, got {_describe(raw)}")
    method = raw.get("quant_method", raw.get("quant_algo"))
    if method is not None and (not isinstance(method, str) or not 0 < len(method) <= 64):
        raise ArchitectureError(f"{path}.quant_method", f"expected a short string, got {_describe(method)}")
    method = (method or "").lower()
    scheme: Mapping[str, Any] = raw
    where = path
    groups = raw.get("config_groups")
    if isinstance(groups, Mapping):  # compressed-tensors: the first group's weight scheme
        for name, group in groups.items():
            weights = group.get("weights") if isinstance(group, Mapping) else None
            if isinstance(weights, Mapping):
                scheme, where = weights, f"{path}.config_groups.{name}.weights"
                break
    bits = scheme.get("bits", scheme.get("w_bit", scheme.get("num_bits")))
    group = scheme.get("group_size", scheme.get("q_group_size"))
    block = scheme.get("weight_block_size")
    if scheme.get("strategy") == "block":
        block = scheme.get("block_structure", block)
    kind = scheme.get("type")
    if "fp8" in method:
        bits, kind = bits or 8, "float"
    elif "fp4" in method:
        bits, kind = bits or 4, "float"
    elif method in ("gptq", "awq", "awq_marlin", "gptq_marlin"):
        kind = "int"
    elif method == "bitsandbytes" and bits is None:
        bits = 4 if raw.get("load_in_4bit") is True else 8
    facts: dict[str, Any] = {"quant_method": method} if method else {}
    if bits is not None:
        facts["bits"] = check_int(bits, f"{where}.num_bits" if where != path else f"{path}.bits", 1, 32)
    if kind in ("float", "int"):
        facts["weight_type"] = kind
    if group is not None and group != -1:
        facts["group_size"] = check_int(group, f"{where}.group_size", 1, 1 << 20)
    if block is not None:
        if not isinstance(block, list) or len(block) != 2:
            message = f"expected a list of two integers, got {_describe(block)}"
            raise ArchitectureError(f"{where}.weight_block_size", message)
        facts["weight_block_size"] = [
            check_int(b, f"{where}.weight_block_size[{i}]", 1, 1 << 20) for i, b in enumerate(block)
        ]
    return facts


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


def _vision_facts(raw: Any) -> dict[str, Any]:
    raw = _sub_mapping(raw, "vision_config")
    facts: dict[str, Any] = {}
    for key, aliases in (
        ("hidden_size", ("hidden_size", "embed_dim", "width")),
        ("num_hidden_layers", ("num_hidden_layers", "depth", "layers")),
        ("intermediate_size", ("intermediate_size",)),
    ):
        for alias in aliases:
            value = raw.get(alias)
            if value is not None and not isinstance(value, Mapping | list):
                facts[key] = check_int(value, f"vision_config.{alias}", 1, 1 << 20)
                break
    return facts if "hidden_size" in facts and "num_hidden_layers" in facts else {}


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
        ("quantization_config", _quantization_facts),
        ("vision_config", _vision_facts),
    ):
        reduced = reader(merged.get(key))
        if reduced:
            facts[key] = reduced
    for key in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"):
        if key not in facts:
            raise ArchitectureError(key, "missing: the memory model needs it")
    return facts
