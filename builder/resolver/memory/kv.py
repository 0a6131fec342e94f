"""KV cache: bytes per token, per request, and vLLM's hybrid allocator groups."""

from __future__ import annotations

from .architecture import Arch, Layer
from .constants import BLOCK_SIZE, _split
from .types import ResolvedSettings


def _kv_layer_bytes(arch: Arch, tp: int, kv_bytes: int) -> int:
    """KV cache bytes per token of one attention layer on one GPU."""
    if arch.mla:  # the latent cache is the same on every TP rank
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_bytes
    return 2 * _split(arch.kv_heads, tp) * arch.head_dim * kv_bytes


def _tokens_needed(layer: Layer, max_len: int, batched: int) -> tuple[int, int]:
    """(tokens, extra blocks) one request of ``max_len`` keeps in a layer (vLLM's max_memory_usage)."""
    if layer.attention == "sliding":
        return min(layer.window - 1 + batched, max_len), 1
    if layer.attention == "chunked":
        return min(layer.window + batched, max_len), 0
    return max_len, 0


def _request_bytes(arch: Arch, layers: list[Layer], per_layer: int, max_len: int, batched: int) -> int:
    """KV bytes one request of ``max_len`` tokens needs on one GPU of the stage."""
    total = 0
    for layer in layers:
        tokens, extra = _tokens_needed(layer, max_len, batched)
        total += (_split(tokens, BLOCK_SIZE) + extra) * BLOCK_SIZE * per_layer
    return total


def _kv_groups(layers: list[Layer]) -> tuple[int, dict[tuple[str, int], int]]:
    """vLLM's hybrid allocator: (layers per group, groups per attention kind)."""
    counts: dict[tuple[str, int], int] = {}
    for layer in layers:
        key = (layer.attention, layer.window)
        counts[key] = counts.get(key, 0) + 1
    fewest, most = min(counts.values()), max(counts.values())
    size = most if most < 1.25 * fewest else fewest
    return size, {kind: _split(count, size) for kind, count in counts.items()}


def _max_len_that_fits(arch: Arch, layers: list[Layer], per_layer: int, available: int, s: ResolvedSettings) -> int:
    low, high = 0, s["max_model_len"]
    while low < high:
        mid = (low + high + 1) // 2
        if _request_bytes(arch, layers, per_layer, mid, s["max_num_batched_tokens"]) <= available:
            low = mid
        else:
            high = mid - 1
    return low
