"""Speculative decoding and LoRA: the weights and KV cache vLLM adds to the language model.

A draft is one of: an n-gram lookup (no weights), the checkpoint's own multi-token-prediction layers
(``num_nextn_predict_layers``: each a decoder layer like the model's, plus the projection of the
embedding and hidden state), an EAGLE head (its decoder layers, a fusion layer of two or, for
EAGLE-3, three hidden states, and for EAGLE-3 its own output vocabulary; embeddings shared with the
model) or a separate draft model. A draft's facts come from the architecture block's ``drafts``,
keyed by repository. Its KV cache sits in the same pool as the model's, per token.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from .architecture import Arch, Layer, read_architecture
from .constants import DTYPE_BYTES, KV_DTYPE_BYTES, VOCAB_PADDING, _split
from .kv import _kv_layer_bytes
from .types import ArchitectureError, ResolvedSettings
from .weights import _Sharding, _stage_weights

NO_WEIGHTS = frozenset({"ngram", "ngram_gpu", "suffix"})
EAGLE = frozenset({"eagle", "eagle3"})


class Draft(NamedTuple):
    """What a speculative method adds per GPU; ``missing`` says why it is not estimated ("" when it is)."""

    label: str
    weight_bytes: float
    kv_bytes_per_token: int
    missing: str


def _kv_bytes(s: ResolvedSettings) -> int:
    return DTYPE_BYTES[s["dtype"]] if s["kv_cache_dtype"] == "auto" else KV_DTYPE_BYTES[s["kv_cache_dtype"]]


def _mtp(arch: Arch, s: ResolvedSettings, sh: _Sharding) -> Draft:
    if not arch.mtp_layers:
        return Draft("multi-token prediction", 0, 0, "the config declares no num_nextn_predict_layers")
    kind = "mla" if arch.mla else "full"
    layers = [Layer(kind, 0, arch.experts > 0)] * arch.mtp_layers
    weights, _ = _stage_weights(arch, layers, sh, s, False, False, rotary=False)
    weights += arch.mtp_layers * (2 * arch.hidden * arch.hidden + 3 * arch.hidden) * DTYPE_BYTES[s["dtype"]]
    kv = arch.mtp_layers * _kv_layer_bytes(arch, s["tp"], _kv_bytes(s))
    return Draft(f"{arch.mtp_layers} MTP layer{'s' if arch.mtp_layers > 1 else ''}", weights, kv, "")


def _head(arch: Arch, draft: Arch, method: str, s: ResolvedSettings) -> float:
    """Bytes of an EAGLE head beyond its decoder layers: the fusion layer, EAGLE-3's extra input and
    vocabulary."""
    tp, h = s["tp"], draft.hidden
    fused = 3 if method == "eagle3" else 2
    extra = fused * arch.hidden * h  # fc: the concatenated hidden states into the head's width
    if method == "eagle3":
        heads = _split(draft.heads, tp) + 2 * _split(draft.kv_heads, tp)
        extra += h * heads * draft.head_dim + h  # the first layer also reads the embeddings (and norms them)
        vocab = draft.draft_vocab or draft.vocab
        extra += _split(_split(vocab, VOCAB_PADDING) * VOCAB_PADDING, tp) * h + h  # its own lm_head and norm
    return extra * DTYPE_BYTES[s["dtype"]]


def draft_estimate(arch: Arch, config: Mapping[str, Any], s: ResolvedSettings) -> Draft | None:
    """The draft of ``s["speculative"]`` on one GPU; None without speculative decoding."""
    spec = s["speculative"]
    if spec is None:
        return None
    method = spec.get("method", "")
    model = spec.get("model")
    sh = _Sharding(s["tp"], arch.experts, s["tp"])
    if method in NO_WEIGHTS:
        return Draft(f"{method} lookup (no draft weights)", 0, 0, "")
    if model is None or method.endswith("mtp"):
        return _mtp(arch, s, sh)
    drafts = config.get("drafts")
    facts = drafts.get(model) if isinstance(drafts, Mapping) else None
    label = f"{method or 'draft'} {model}"
    if not isinstance(facts, Mapping):
        return Draft(label, 0, 0, "no config")
    try:
        draft = read_architecture(facts)
    except ArchitectureError as err:
        return Draft(label, 0, 0, f"bad config ({err})")
    layers = list(draft.layers)
    dsh = _Sharding(s["tp"], draft.experts, s["tp"])
    s = ResolvedSettings(**{**s, "weight_bits": draft.quant_bits})  # the draft's own checkpoint format
    if method in EAGLE:
        weights, _ = _stage_weights(draft, layers, dsh, s, False, False, rotary=False)
        weights += _head(arch, draft, method, s)
    else:
        weights, _ = _stage_weights(draft, layers, dsh, s, True, True)
    kv = len(layers) * _kv_layer_bytes(draft, s["tp"], _kv_bytes(s))
    return Draft(label, weights, kv, "")


def lora_bytes(arch: Arch, s: ResolvedSettings, layers: list[Layer]) -> float:
    """vLLM's LoRA buffers on one GPU of a stage: A and B of every attention and dense MLP projection, per
    adapter slot."""
    if not s["max_loras"]:
        return 0.0
    tp, h = s["tp"], arch.hidden
    heads, kv = _split(arch.heads, tp), _split(arch.kv_heads, tp)
    qkv = (heads + 2 * kv) * arch.head_dim
    attention = (h + qkv) + (heads * arch.head_dim + h)  # column-parallel qkv, row-parallel o
    dense = _split(arch.dense_intermediate, tp)
    mlp = (h + 2 * dense) + (dense + h)  # gate_up, down
    elements = sum(attention + (0 if layer.moe else mlp) for layer in layers)
    return elements * s["max_lora_rank"] * s["max_loras"] * DTYPE_BYTES[s["dtype"]]
