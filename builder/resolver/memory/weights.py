"""Weights per GPU: parameters of each layer and stage as vLLM shards them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .architecture import Arch, Layer
from .constants import DTYPE_BYTES, VOCAB_PADDING, _split
from .quant_facts import SCALE_GROUPS
from .types import ResolvedSettings

MXFP4_MOE_PAD = 256  # MXFP4 experts: the intermediate size per GPU rounded up to this (gpt-oss: 2880 -> 3072)


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


class LayerParams(NamedTuple):
    """Elements of one layer on one GPU: the linear weights by part, and everything else."""

    attention: int
    experts: int
    shared: int  # shared experts
    dense: int  # a dense MLP
    other: int  # norms, biases, routers: always in the model dtype


def _attention_params(arch: Arch, heads: int, tp: int) -> tuple[int, int]:
    """(linear, other) elements of a multi-head latent or grouped-query attention block on one GPU."""
    h = arch.hidden
    attention = other = 0
    if arch.mla:
        qk_dim = arch.qk_nope_head_dim + arch.qk_rope_head_dim
        if arch.q_lora_rank:
            attention += h * arch.q_lora_rank + arch.q_lora_rank * heads * qk_dim
            other += arch.q_lora_rank
        else:
            attention += h * heads * qk_dim
        attention += h * (arch.kv_lora_rank + arch.qk_rope_head_dim)  # kv_a_proj_with_mqa, replicated
        attention += arch.kv_lora_rank * heads * (arch.qk_nope_head_dim + arch.v_head_dim)  # kv_b_proj
        attention += heads * arch.v_head_dim * h  # o_proj
        other += arch.kv_lora_rank
        return attention, other
    kv = _split(arch.kv_heads, tp)  # one replicated head per GPU when TP > KV heads
    q = heads * arch.head_dim * (2 if arch.attn_gate else 1)  # the output gate comes out of q_proj
    qkv = q + 2 * kv * arch.head_dim
    attention += h * qkv + heads * arch.head_dim * h
    other += qkv if arch.qkv_bias else 0
    other += 2 * arch.head_dim if arch.qk_norm else 0  # q_norm, k_norm
    return attention, other


def _linear_attention_params(arch: Arch, tp: int) -> tuple[int, int]:
    """Gated DeltaNet on one GPU (vLLM's ``qwen3_next.py``/``qwen3_5.py``): in_proj_qkvz and out_proj
    are linear layers; in_proj_ba, the short convolution, dt_bias, A_log and the gated norm stay in the model
    dtype."""
    h, kh, vh = arch.hidden, arch.linear_k_heads, arch.linear_v_heads
    key, value = kh * arch.linear_k_dim, vh * arch.linear_v_dim
    conv_dim = 2 * key + value
    linear = h * _split(2 * key + 2 * value, tp) + _split(value, tp) * h
    other = (h * _split(2 * vh, tp) + _split(conv_dim, tp) * arch.conv_kernel + 2 * _split(vh, tp)
             + arch.linear_v_dim)
    return linear, other


def _kda_params(arch: Arch, tp: int) -> tuple[int, int]:
    """Kimi Delta Attention on one GPU (vLLM ``kimi_linear.py``): q, k, v, the low-rank forget and output
    gates and o_proj are linear layers; the three short convolutions, A_log, dt_bias, b_proj and o_norm stay
    in the model dtype."""
    h, dim = arch.hidden, arch.kda_dim
    inner = _split(arch.kda_heads * dim, tp)
    linear = 3 * h * inner + 2 * (h * dim + dim * inner) + inner * h
    other = 3 * inner * arch.conv_kernel + _split(arch.kda_heads, tp) * (1 + h) + inner + dim
    return linear, other


def _mamba_params(arch: Arch, tp: int) -> tuple[int, int]:
    """A Mamba2 mixer on one GPU (vLLM's ``mamba_mixer2.py``): in_proj (z, x, B, C, dt) and out_proj are
    linear layers; conv1d (and its bias), dt_bias, A, D and the gated norm stay in the model dtype."""
    h, heads = arch.hidden, arch.mamba_heads
    inner = heads * arch.mamba_head_dim
    conv_dim = inner + 2 * arch.mamba_groups * arch.ssm_state
    linear = h * _split(inner + conv_dim + heads, tp) + _split(inner, tp) * h
    conv = _split(conv_dim, tp) * (arch.conv_kernel + (1 if arch.conv_bias else 0))
    return linear, conv + 3 * _split(heads, tp) + _split(inner, tp)


def _indexer_params(arch: Arch) -> int:
    """The sparse-attention indexer, replicated on every GPU (vLLM's ``deepseek_v2.py`` ``Indexer``): a query
    projection from the query latent (or the hidden state), a key projection and its LayerNorm, per-head
    weights."""
    source = arch.q_lora_rank or arch.hidden
    return source * arch.index_heads * arch.index_dim + arch.hidden * arch.index_dim + 2 * arch.index_dim + \
        arch.hidden * arch.index_heads


def _layer_params(arch: Arch, layer: Layer, sh: _Sharding) -> LayerParams:
    """The parameters of one layer on one GPU."""
    tp, h = sh.tp, arch.hidden
    heads = _split(arch.heads, tp)
    attention = experts = shared = dense = 0
    other = arch.norms_per_layer * h
    if layer.attention == "linear":
        attention, extra = _linear_attention_params(arch, tp)
    elif layer.attention == "mamba":
        attention, extra = _mamba_params(arch, tp)
    elif layer.attention == "kda":
        attention, extra = _kda_params(arch, tp)
    elif layer.attention == "none":
        extra = 0
    else:
        attention, extra = _attention_params(arch, heads, tp)
    other += extra
    if layer.indexer:
        attention += _indexer_params(arch)
    matrices = 3 if arch.gated_mlp else 2  # Nemotron-H's relu2 MLPs and experts have two
    if layer.moe:
        width = arch.moe_latent or h  # latent MoE: the experts read and write the latent width
        inter = _split(arch.expert_intermediate, sh.expert_split)
        if arch.quant_format == "mxfp4":  # vLLM's Mxfp4MoEMethod pads each expert's share (mxfp4.py)
            inter = _split(inter, MXFP4_MOE_PAD) * MXFP4_MOE_PAD
        experts += sh.experts_per_gpu * matrices * width * inter
        other += h * arch.experts  # router, replicated
        other += 2 * h * arch.moe_latent  # the projections into and out of the latent width
        if arch.shared_intermediate:
            shared += matrices * h * _split(arch.shared_intermediate, tp)
            other += h if arch.shared_gate else 0
    elif layer.mlp:
        dense += matrices * h * _split(arch.dense_intermediate, tp)
    return LayerParams(attention, experts, shared, dense, other)


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


def encoder_params(arch: Arch, s: ResolvedSettings, tp: int) -> int:
    """Vision and audio encoder parameters on one GPU of the first stage (none with --language-model-only)."""
    return 0 if s["language_model_only"] else _split(arch.vision_params + arch.audio_params, tp)


def _stage_weights(
    arch: Arch, layers: list[Layer], sh: _Sharding, s: ResolvedSettings, first: bool, last: bool,
    rotary: bool = True
) -> tuple[float, int]:
    """(bytes, parameters) of one GPU of a stage; ``rotary=False`` for layers that reuse the model's cos/sin
    cache."""
    dtype = DTYPE_BYTES[s["dtype"]]
    quantized = _quantized_bytes(arch, s["weight_bits"], dtype)
    kept = arch.unquantized if arch.quant_format else frozenset()
    total = 0.0
    params = 0
    known: dict[Layer, LayerParams] = {}  # the layers of a model repeat a few kinds
    for layer in layers:
        part = known.get(layer)
        if part is None:
            part = known[layer] = _layer_params(arch, layer, sh)
        for size, name in ((part.attention, "attention"), (part.experts, ""), (part.shared, "shared_experts"),
                           (part.dense, "dense_mlp")):
            total += size * (dtype if name in kept else quantized)
        total += part.other * dtype
        params += sum(part)
    other = 0
    rows = _split(_split(arch.vocab, VOCAB_PADDING) * VOCAB_PADDING, sh.tp)
    if first:
        other += rows * arch.hidden + _split(arch.learned_positions, sh.tp) * arch.hidden
        other += encoder_params(arch, s, sh.tp)
    if last:
        other += arch.hidden  # final norm
        if not (arch.tied and first):
            other += rows * arch.hidden  # lm_head (its own copy on the last stage when tied and PP > 1)
    total += other * dtype
    params += other
    if rotary and arch.rotary_dim and layers:
        total += arch.rotary_positions * arch.rotary_dim * dtype  # the cos/sin cache
    bits = s["weight_bits"]
    if arch.mla and bits is not None and bits < 8 * dtype:  # MLA keeps a dequantized copy of kv_b_proj
        heads = _split(arch.heads, sh.tp)
        total += len(layers) * arch.kv_lora_rank * heads * (arch.qk_nope_head_dim + arch.v_head_dim) * dtype
    return total, params


def _quantized_bytes(arch: Arch, bits: int | None, dtype: int) -> float:
    """Bytes of one quantized linear weight with its share of the scales (the dtype when unquantized)."""
    if bits is None:
        return dtype
    if arch.quant_format in SCALE_GROUPS:  # one FP8 (NVFP4) or E8M0 (MXFP4) scale per group
        return bits / 8 + 1 / SCALE_GROUPS[arch.quant_format]
    if arch.quant_block:
        return bits / 8 + 4 / (arch.quant_block[0] * arch.quant_block[1])
    if bits < 8:  # integer groups: a 16-bit scale, and a packed zero point where the format has one
        group = arch.quant_group or 128
        return bits / 8 + 2 / group + (bits / 8 / group if arch.quant_zero_point else 0)
    return bits / 8
