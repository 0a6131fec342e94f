"""Weights per GPU: parameters of each layer and stage as vLLM shards them."""

from __future__ import annotations

from dataclasses import dataclass

from .architecture import Arch, Layer
from .constants import DTYPE_BYTES, VOCAB_PADDING, _split
from .types import ResolvedSettings


def pp_layer_counts(layers: int, pp: int) -> list[int]:
    """vLLM's default pipeline split: equal parts, the remainder on the stages before the last."""
    counts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        counts[-i] += 1
    return counts


@dataclass(frozen=True)
class _Sharding:
    tp: int
    experts_per_gpu: int
    expert_split: int  # how many ways each expert's intermediate is split


def _layer_params(arch: Arch, layer: Layer, sh: _Sharding) -> tuple[int, int]:
    """(quantizable linear elements, other elements) of one layer on one GPU."""
    tp, h = sh.tp, arch.hidden
    heads = _split(arch.heads, tp)
    linear = 0
    other = arch.norms_per_layer * h
    if arch.mla:
        qk_dim = arch.qk_nope_head_dim + arch.qk_rope_head_dim
        if arch.q_lora_rank:
            linear += h * arch.q_lora_rank + arch.q_lora_rank * heads * qk_dim
            other += arch.q_lora_rank
        else:
            linear += h * heads * qk_dim
        linear += h * (arch.kv_lora_rank + arch.qk_rope_head_dim)  # kv_a_proj_with_mqa, replicated
        linear += arch.kv_lora_rank * heads * (arch.qk_nope_head_dim + arch.v_head_dim)  # kv_b_proj
        linear += heads * arch.v_head_dim * h  # o_proj
        other += arch.kv_lora_rank
    else:
        kv = _split(arch.kv_heads, tp)  # one replicated head per GPU when TP > KV heads
        qkv = (heads + 2 * kv) * arch.head_dim
        linear += h * qkv + heads * arch.head_dim * h
        other += qkv if arch.qkv_bias else 0
        other += 2 * arch.head_dim if arch.model_type in ("qwen3", "qwen3_moe") else 0  # q_norm, k_norm
    matrices = 3 if arch.gated_mlp else 2
    if layer.moe:
        linear += sh.experts_per_gpu * 3 * h * _split(arch.expert_intermediate, sh.expert_split)
        other += h * arch.experts  # router, replicated
        if arch.shared_intermediate:
            linear += 3 * h * _split(arch.shared_intermediate, tp)
            other += h if arch.shared_gate else 0
    else:
        linear += matrices * h * _split(arch.dense_intermediate, tp)
    return linear, other


def _stage_layers(arch: Arch, pp: int) -> list[list[Layer]]:
    stages, start = [], 0
    for count in pp_layer_counts(len(arch.layers), pp):
        stages.append(list(arch.layers[start : start + count]))
        start += count
    return stages


def _sharding(arch: Arch, s: ResolvedSettings) -> _Sharding:
    if arch.experts and s["expert_parallel"]:
        return _Sharding(s["tp"], _split(arch.experts, s["tp"] * s["dp"]), 1)
    return _Sharding(s["tp"], arch.experts, s["tp"])


def _stage_weights(
    arch: Arch, layers: list[Layer], sh: _Sharding, s: ResolvedSettings, first: bool, last: bool
) -> tuple[float, int]:
    """(bytes, parameters) of one GPU of a stage."""
    linear = other = 0
    for layer in layers:
        lin, oth = _layer_params(arch, layer, sh)
        linear += lin
        other += oth
    rows = _split(_split(arch.vocab, VOCAB_PADDING) * VOCAB_PADDING, sh.tp)
    if first:
        other += rows * arch.hidden + _split(arch.learned_positions, sh.tp) * arch.hidden
        other += _split(arch.vision_params, sh.tp)
    if last:
        other += arch.hidden  # final norm
        if not (arch.tied and first):
            other += rows * arch.hidden  # lm_head (its own copy on the last stage when tied and PP > 1)
    dtype = DTYPE_BYTES[s["dtype"]]
    bits = s["weight_bits"]
    linear_bytes = dtype if bits is None else bits / 8 + _scale_bytes(arch, bits)
    total = linear * linear_bytes + other * dtype
    if arch.rotary_dim and layers:
        total += arch.rotary_positions * arch.rotary_dim * dtype  # the cos/sin cache
    if arch.mla and bits is not None and bits < 8 * dtype:  # MLA keeps a dequantized copy of kv_b_proj
        heads = _split(arch.heads, sh.tp)
        total += len(layers) * arch.kv_lora_rank * heads * (arch.qk_nope_head_dim + arch.v_head_dim) * dtype
    return total, linear + other


def _scale_bytes(arch: Arch, bits: int) -> float:
    """Bytes of quantization scales per weight."""
    if arch.quant_block:
        return 4 / (arch.quant_block[0] * arch.quant_block[1])
    if bits < 8:
        return 2 / (arch.quant_group or 128)
    return 0.0
