"""Reading a ``config.json``: the facts the memory model uses, checked and under canonical names."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .checks import check_int, check_number, describe
from .constants import (
    ALIASES,
    BOOL_FACTS,
    HYBRID_BLOCKS,
    INT_FACTS,
    LAYER_TYPES,
    MAMBA_SSM_DTYPES,
    STR_FACTS,
    TEXT_PARTS,
)
from .encoders import audio_facts, vision_facts
from .quant_facts import modelopt_quantization, quantization_facts
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
            raise ArchitectureError("rope_scaling.rope_type",
                                    f"expected a short string, got {_describe(kind)}")
        facts["rope_type"] = kind
    if raw.get("factor") is not None:
        facts["factor"] = check_number(raw["factor"], "rope_scaling.factor", 0, 1 << 20)
    if raw.get("original_max_position_embeddings") is not None:
        facts["original_max_position_embeddings"] = check_int(
            raw["original_max_position_embeddings"], "rope_scaling.original_max_position_embeddings", 1,
            1 << 34
        )
    return facts


def _int_list(raw: Any, field: str, low: int, high: int) -> list[int]:
    if not isinstance(raw, list) or len(raw) > 4096:
        raise ArchitectureError(field, f"expected a list of at most 4,096 integers, got {_describe(raw)}")
    return [check_int(v, f"{field}[{i}]", low, high) for i, v in enumerate(raw)]


PER_LAYER_WIDTHS = ("moe_intermediate_size", "num_experts_per_tok", "n_shared_experts")


def _uniform(merged: dict[str, Any]) -> None:
    """Hunyuan gives expert widths, top-k and shared experts per layer: one value when every layer agrees."""
    for key in PER_LAYER_WIDTHS:
        raw = merged.get(key)
        if isinstance(raw, list):
            values = _int_list(raw, key, 0, 1 << 24)
            if not values or any(v != values[0] for v in values):
                raise ArchitectureError(
                    key, "per-layer values differ: the memory model needs one value for every layer")
            merged[key] = values[0]


def _flags(raw: Any, field: str) -> list[int]:
    """A per-layer list of 0/1 flags (MoE layers, sparse-attention layers)."""
    return _int_list(raw, field, 0, 1)


def _hybrid_pattern(merged: dict[str, Any]) -> str | None:
    """Nemotron-H's blocks as ``hybrid_override_pattern`` characters (M mamba, * attention, - MLP, E MoE).

    vLLM's NemotronH (``vllm/model_executor/models/nemotron_h.py``) builds one decoder layer per character;
    Nemotron-3 configs spell the blocks as words in ``layers_block_type`` and may omit ``num_hidden_layers``.
    """
    raw = merged.get("hybrid_override_pattern")
    if raw is None and merged.get("layers_block_type") is not None:
        words = merged["layers_block_type"]
        names = {word: char for char, word in HYBRID_BLOCKS.items()}
        if not isinstance(words, list) or len(words) > 4096:
            raise ArchitectureError("layers_block_type",
                                    f"expected a list of at most 4,096 block names, got {_describe(words)}")
        for i, word in enumerate(words):
            if word not in names:
                shown = repr(word[:40]) if isinstance(word, str) else _describe(word)
                raise ArchitectureError(f"layers_block_type[{i}]",
                                        f"unsupported block {shown}: expected one of "
                                        f"{', '.join(names)}")
        raw = "".join(names[word] for word in words)
    if raw is None:
        return None
    if not isinstance(raw, str) or not 0 < len(raw) <= 4096 or any(char not in HYBRID_BLOCKS for char in raw):
        raise ArchitectureError("hybrid_override_pattern", f"expected at most 4,096 of the characters "
                                f"{''.join(HYBRID_BLOCKS)}, got "
                                f"{_describe(raw) if not isinstance(raw, str) else repr(raw[:40])}")
    return raw


def _layer_types(merged: dict[str, Any]) -> list[str] | None:
    """``layer_types``, or MiMo-V2's ``hybrid_layer_pattern`` (1: sliding window, 0: full) spelt as layer
    types."""
    types = merged.get("layer_types")
    if types is None and merged.get("hybrid_layer_pattern") is not None:
        flags = _flags(merged["hybrid_layer_pattern"], "hybrid_layer_pattern")
        return ["sliding_attention" if flag else "full_attention" for flag in flags]
    if types is None:
        return None
    if not isinstance(types, list) or len(types) > 4096:
        raise ArchitectureError("layer_types",
                                f"expected a list of at most 4,096 strings, got {_describe(types)}")
    for i, kind in enumerate(types):
        if not isinstance(kind, str) or kind not in LAYER_TYPES:
            shown = repr(kind[:40]) if isinstance(kind, str) else _describe(kind)
            raise ArchitectureError(
                f"layer_types[{i}]",
                f"unsupported layer type {shown}: expected one of {', '.join(LAYER_TYPES)}",
            )
    return list(types)


def _indexer_facts(merged: dict[str, Any]) -> None:
    """MiniMax-M3's ``sparse_attention_config`` and GLM-5's ``indexer_types`` as the DSA indexer's facts."""
    sparse = _sub_mapping(merged.get("sparse_attention_config"), "sparse_attention_config")
    if sparse.get("use_sparse_attention") is True:
        for key, name in (("sparse_num_index_heads", "index_n_heads"),
                          ("sparse_index_dim", "index_head_dim")):
            if sparse.get(key) is not None and merged.get(name) is None:
                merged[name] = sparse[key]
        if sparse.get("sparse_attention_freq") is not None and merged.get("index_layers") is None:
            merged["index_layers"] = _flags(sparse["sparse_attention_freq"],
                                            "sparse_attention_config.sparse_attention_freq")
    kinds = merged.get("indexer_types")
    # a "shared" layer reuses another's top-k
    if isinstance(kinds, list) and merged.get("index_layers") is None:
        merged["index_layers"] = [int(kind != "shared") for kind in kinds[:4096]]


def _kda_facts(merged: dict[str, Any]) -> None:
    """Kimi-Linear's ``linear_attn_config``: its Kimi Delta Attention heads, head width, convolution and
    layers.

    ``kda_layers`` counts layers from 1 as vLLM's ``KimiLinearConfig.is_kda_layer`` reads it
    (``layer_idx + 1``); stored as ``kda_layers``, one 0/1 flag per layer."""
    block = _sub_mapping(merged.get("linear_attn_config"), "linear_attn_config")
    if not block or merged.get("kda_layers") is not None:
        return
    for key, name in (("num_heads", "kda_num_heads"), ("head_dim", "kda_head_dim"),
                      ("short_conv_kernel_size", "conv_kernel")):
        if block.get(key) is not None and merged.get(name) is None:
            merged[name] = block[key]
    count = merged.get("num_hidden_layers")
    numbers = _int_list(block.get("kda_layers", []), "linear_attn_config.kda_layers", 1, 4096)
    if isinstance(count, int) and 0 < count <= 4096:
        merged["kda_layers"] = [int(i + 1 in numbers) for i in range(count)]


def architecture_facts(config: Mapping[str, Any]) -> dict[str, Any]:
    """The facts this model reads from a ``config.json``, checked and under their canonical names.

    Multimodal configs contribute their ``text_config`` (over the top level) and a reduced
    ``vision_config``; ``quantization_config`` and ``rope_scaling`` are reduced to the keys used.
    The result is what ``import-config`` writes into a recipe. Raises :class:`ArchitectureError`.
    """
    merged = _text_part(config)
    _uniform(merged)
    _indexer_facts(merged)
    _kda_facts(merged)
    facts: dict[str, Any] = {}
    pattern = _hybrid_pattern(merged)
    if pattern is not None:
        facts["hybrid_override_pattern"] = pattern
        if merged.get("num_hidden_layers") is None:
            merged["num_hidden_layers"] = len(pattern)
    for key in STR_FACTS:
        value = merged.get(key)
        if value is not None:
            if not isinstance(value, str) or not 0 < len(value) <= 64:
                raise ArchitectureError(key, f"expected a short string, got {_describe(value)}")
            facts[key] = value
    if facts.get("mamba_ssm_cache_dtype", "auto") not in MAMBA_SSM_DTYPES:
        raise ArchitectureError("mamba_ssm_cache_dtype", f"expected one of {', '.join(MAMBA_SSM_DTYPES)}")
    if isinstance(merged.get("moe_layer_freq"), list):  # MiniMax-M3, MiMo-V2: 1 for every MoE layer
        facts["moe_layer_freq"] = _flags(merged.pop("moe_layer_freq"), "moe_layer_freq")
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
        facts["partial_rotary_factor"] = check_number(merged["partial_rotary_factor"],
                                                      "partial_rotary_factor", 0, 1)
    types = _layer_types(merged)
    if types is not None:
        facts["layer_types"] = types
    for key, high in (("mlp_only_layers", 4095), ("no_rope_layers", 1), ("index_layers", 1),
                      ("kda_layers", 1)):
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


def states_precision(config: Mapping[str, Any]) -> bool:
    """Whether a ``config.json`` has its own ``quantization_config`` (at the top or in ``text_config``)."""
    text = config.get("text_config")
    return bool(config.get("quantization_config")
                or (isinstance(text, Mapping) and text.get("quantization_config")))


def with_quant_file(config: Mapping[str, Any], quant_file: Any) -> Mapping[str, Any]:
    """``config`` with the ``quantization_config`` a ModelOpt ``hf_quant_config.json`` gives, when the config
    itself has none (NVIDIA's NVFP4 and FP8 checkpoints often keep their precision only in that file)."""
    quantization = None if states_precision(config) else modelopt_quantization(quant_file)
    return config if quantization is None else {**config, "quantization_config": quantization}
