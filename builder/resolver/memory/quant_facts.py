"""``quantization_config`` reduced to what the weights need: format, bits, scales and what stays unquantized.

Formats read: FP8 (per tensor, per channel, block), NVFP4 (ModelOpt and compressed-tensors), MXFP4,
AWQ/GPTQ integer groups, compressed-tensors integer W8A8/W4A16, bitsandbytes. The reduced mapping is
what a recipe stores, and reading it again gives the same mapping.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import check_int, describe
from .types import ArchitectureError

# what a quantized checkpoint may keep in the model dtype, and the module-name fragments that say so
UNQUANTIZED_PARTS: dict[str, tuple[str, ...]] = {
    "attention": ("self_attn", "attention", ".attn", "q_proj", "kv_a_proj", "o_proj", "qkv_proj"),
    "shared_experts": ("shared_expert",),
    "dense_mlp": ("mlp.down_proj", "mlp.gate_up_proj", "mlp.up_proj"),
    "lm_head": ("lm_head",),
    "vision": ("visual", "vision"),
}
IGNORE_KEYS = ("ignore", "ignored_layers", "modules_to_not_convert", "exclude_modules")
SCALE_GROUPS = {"nvfp4": 16, "mxfp4": 32}  # elements per scale of the 4-bit float formats


def _unquantized(raw: Mapping[str, Any], path: str) -> list[str]:
    """The parts a checkpoint leaves unquantized, from its ignore lists (or a stored ``unquantized``)."""
    stored = raw.get("unquantized")
    if stored is not None:
        if not isinstance(stored, list) or any(item not in UNQUANTIZED_PARTS for item in stored):
            raise ArchitectureError(f"{path}.unquantized",
                                    f"expected a list of {', '.join(UNQUANTIZED_PARTS)}")
        return sorted(set(stored))
    names: list[str] = []
    for key in IGNORE_KEYS:
        value = raw.get(key)
        if isinstance(value, list):
            names += [item.lower() for item in value[:100_000] if isinstance(item, str)]
    found = {part for part, fragments in UNQUANTIZED_PARTS.items() for name in names
             if any(f in name for f in fragments)}
    if "dense_mlp" in found and not any("experts" in name for name in names):
        # "mlp.down_proj" in a dense model's list would mean every MLP: too broad to guess
        found.discard("dense_mlp")
    return sorted(found)


def _scheme(raw: Mapping[str, Any], path: str) -> tuple[Mapping[str, Any], str]:
    """compressed-tensors: the first group's weight scheme; other formats: the config itself."""
    groups = raw.get("config_groups")
    if isinstance(groups, Mapping):
        for name, group in groups.items():
            weights = group.get("weights") if isinstance(group, Mapping) else None
            if isinstance(weights, Mapping):
                return weights, f"{path}.config_groups.{name}.weights"
    return raw, path


def _format(method: str, raw: Mapping[str, Any], scheme: Mapping[str, Any]) -> str:
    """The weight format: fp8, nvfp4, mxfp4, int (AWQ/GPTQ/compressed-tensors integers) or the method."""
    stored = raw.get("format")
    if isinstance(stored, str) and stored in ("fp8", "nvfp4", "mxfp4", "int"):
        return stored
    group = scheme.get("group_size")
    if "nvfp4" in method or "nvfp4" in str(raw.get("format", "")) or (
        scheme.get("type") == "float" and scheme.get("num_bits") == 4 and group == 16
    ):
        return "nvfp4"
    if "mxfp4" in method or (scheme.get("type") == "float" and scheme.get("num_bits") == 4):
        return "mxfp4"
    if "fp8" in method or (scheme.get("type") == "float" and scheme.get("num_bits") == 8):
        return "fp8"
    if method in ("gptq", "awq", "awq_marlin", "gptq_marlin", "bitsandbytes") or scheme.get("type") == "int":
        return "int"
    return method.split()[0] if method else ""


def _mixed_algo(raw: Mapping[str, Any]) -> str | None:
    """ModelOpt MIXED_PRECISION: the narrowest format among ``quantized_layers`` (the MLPs' and experts',
    which hold most of the weights; the others, such as FP8 or MXFP8 attention, are counted at that width
    too)."""
    layers = raw.get("quantized_layers")
    if not isinstance(layers, Mapping):
        return None
    algos = {str(entry.get("quant_algo")).lower() for entry in list(layers.values())[:200_000]
             if isinstance(entry, Mapping)}
    for fragment in ("nvfp4", "mxfp4", "fp8"):
        found = sorted(algo for algo in algos if fragment in algo)
        if found:
            return found[0]
    return None


def modelopt_quantization(raw: Any) -> dict[str, Any] | None:
    """A ModelOpt ``hf_quant_config.json`` as the ``quantization_config`` it stands for (None if it is not
    one).

    NVIDIA's checkpoints ship it beside ``config.json``, which may carry no ``quantization_config``: vLLM
    then reads the format from this file (``modelopt.py``)."""
    block = raw.get("quantization") if isinstance(raw, Mapping) else None
    if not isinstance(block, Mapping) or not isinstance(block.get("quant_algo"), str):
        return None
    return {"quant_method": "modelopt", **block}


def quantization_facts(raw: Any) -> dict[str, Any]:
    """The reduced ``quantization_config``: quant_method, format, bits, weight_type, group_size,
    weight_block_size, zero_point and unquantized (parts kept in the model dtype)."""
    if raw is None:
        return {}
    path = "quantization_config"
    if not isinstance(raw, Mapping):
        raise ArchitectureError(path, f"expected a mapping, got {describe(raw)}")
    method = raw.get("quant_method", raw.get("quant_algo"))
    if method is not None and (not isinstance(method, str) or not 0 < len(method) <= 64):
        raise ArchitectureError(f"{path}.quant_method", f"expected a short string, got {describe(method)}")
    method = (method or "").lower()
    algo = raw.get("quant_algo")  # ModelOpt names the format here (NVFP4, FP8) beside quant_method "modelopt"
    if isinstance(algo, str) and algo.upper() == "MIXED_PRECISION":
        algo = _mixed_algo(raw) or algo
    scheme, where = _scheme(raw, path)
    fmt = _format(f"{method} {algo.lower()}" if isinstance(algo, str) else method, raw, scheme)
    bits = scheme.get("bits", scheme.get("w_bit", scheme.get("num_bits")))
    group = scheme.get("group_size", scheme.get("q_group_size"))
    block = scheme.get("weight_block_size")
    if scheme.get("strategy") == "block":
        block = scheme.get("block_structure", block)
    kind = scheme.get("weight_type", scheme.get("type"))
    if fmt == "fp8":
        bits, kind = bits or 8, "float"
    elif fmt in SCALE_GROUPS:
        bits, kind, group = 4, "float", SCALE_GROUPS[fmt]
    elif fmt == "int":
        kind = "int"
        if method == "bitsandbytes" and bits is None:
            bits = 4 if raw.get("load_in_4bit") is True else 8
    facts: dict[str, Any] = {"quant_method": method} if method else {}
    if fmt and fmt != method:
        facts["format"] = fmt
    if bits is not None:
        facts["bits"] = check_int(bits, f"{where}.num_bits" if where != path else f"{path}.bits", 1, 32)
    if kind in ("float", "int"):
        facts["weight_type"] = kind
    if group is not None and group != -1:
        facts["group_size"] = check_int(group, f"{where}.group_size", 1, 1 << 20)
    if block is not None:
        if not isinstance(block, list) or len(block) != 2:
            raise ArchitectureError(f"{where}.weight_block_size",
                                    f"expected a list of two integers, got {describe(block)}")
        facts["weight_block_size"] = [check_int(b, f"{where}.weight_block_size[{i}]", 1, 1 << 20)
                                      for i, b in enumerate(block)]
    zero_point = raw.get("zero_point", scheme.get("zero_point", scheme.get("symmetric") is False or None))
    if fmt == "int" and method in ("awq", "awq_marlin") and zero_point is None:
        zero_point = True  # AWQ checkpoints store 4-bit zero points beside the scales
    if fmt == "int" and method in ("gptq", "gptq_marlin") and zero_point is None:
        zero_point = raw.get("sym") is False
    if isinstance(zero_point, bool) and zero_point:
        facts["zero_point"] = True
    unquantized = _unquantized(raw, path)
    if unquantized:
        facts["unquantized"] = unquantized
    return facts
