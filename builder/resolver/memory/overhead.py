"""Non-KV memory besides the weights: the profile run's activation peak and CUDA graphs."""

from __future__ import annotations

from .architecture import Arch, Layer
from .constants import (
    CUDA_GRAPH_BASE_GIB,
    CUDA_GRAPH_PER_LAYER_GIB,
    DTYPE_BYTES,
    GIB,
    SAMPLER_SCRATCH_GIB,
    VOCAB_PADDING,
    _split,
)
from .types import ResolvedSettings
from .weights import _Sharding


def _activation_peak(arch: Arch, layers: list[Layer], sh: _Sharding, s: ResolvedSettings,
                     last: bool) -> float:
    """Torch peak of the profile run on one GPU of the stage (bytes)."""
    act = DTYPE_BYTES[s["dtype"]]
    tokens, h = s["max_num_batched_tokens"], arch.hidden
    heads = _split(arch.heads, sh.tp)
    if arch.mla:
        qk_dim = arch.qk_nope_head_dim + arch.qk_rope_head_dim
        attention = heads * (2 * qk_dim + arch.qk_nope_head_dim + arch.v_head_dim)  # q, k, kv_b output
    else:
        attention = (heads + 2 * _split(arch.kv_heads, sh.tp)) * arch.head_dim
    mlp = 0
    if any(not layer.moe for layer in layers):  # gate/up output and the activation's output
        mlp = (3 if arch.gated_mlp else 2) * _split(arch.dense_intermediate, sh.tp)
    moe_workspace = 0
    if any(layer.moe for layer in layers):
        if arch.shared_intermediate:
            mlp = max(mlp, 3 * _split(arch.shared_intermediate, sh.tp))
        inter = _split(arch.expert_intermediate, sh.expert_split)
        # the fused-MoE kernel's two workspaces, kept allocated for the rest of the profile run
        moe_workspace = tokens * arch.topk * (max(inter, h) + max(2 * inter, h)) * act
    forward = tokens * act * (mlp + attention + 5 * h)  # plus residual, norm and projection outputs
    sampler = 0.0
    if last:  # logits (model dtype), their fp32 copy and the int64 top-k/top-p sort indices
        rows = min(s["max_num_seqs"], tokens)
        sampler = rows * _split(arch.vocab, VOCAB_PADDING) * VOCAB_PADDING * (act + 12)
        sampler += tokens * h * act + SAMPLER_SCRATCH_GIB * GIB
    return moe_workspace + max(forward, sampler)


def _cuda_graph_bytes(layers: list[Layer]) -> float:
    weight = sum(1.5 if layer.moe else 1.0 for layer in layers)
    return (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * weight) * GIB
