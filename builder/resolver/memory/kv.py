"""KV cache: bytes per token, per request, vLLM's hybrid allocator groups and the state layers' pages.

Sources, vllm-project/vllm as read for this model (main at commits 001cabc1 and 02d71083; the same
formulas reproduce the figures that releases 0.10.2, 0.11.2, 0.13.0 and 0.20.1 print in
../shared/hybrid-logs): ``vllm/v1/kv_cache_interface.py`` (``FullAttentionSpec``, ``SlidingWindowSpec``,
``ChunkedLocalAttentionSpec``, ``MLAAttentionSpec`` and its ``fp8_ds_mla`` page, ``MambaSpec``: page size and
``max_memory_usage_bytes`` with ``mamba_cache_mode`` "none"/"align"),
``vllm/model_executor/layers/mamba/mamba_utils.py``
(``MambaStateShapeCalculator.gated_delta_net_state_shape``, ``mamba2_state_shape``, ``kda_state_shape``;
``MambaStateDtypeCalculator``), ``HybridAttentionMambaModelConfig.verify_and_update_config``
(``vllm/model_executor/models/config.py`` up to 0.19, ``interface.py`` in the 0.20 logs: the attention block
raised until one attention page holds a state page, the state page padded to it) and
``vllm/v1/core/kv_cache_utils.py`` (``_get_kv_cache_groups_uniform_page_size``,
``get_max_concurrency_for_kv_cache_config``, ``_report_kv_cache_config``, whose printed token count changed in
0.20: see :func:`reported_tokens`).
"""

from __future__ import annotations

from typing import NamedTuple

from .architecture import STATE_KINDS, Arch, Layer
from .constants import BLOCK_SIZE, DTYPE_BYTES, _split
from .types import ResolvedSettings

DSA_FP8_MLA_BYTES = 656  # fp8_ds_mla: 512 fp8 latent values, 4 fp32 scales, 64 bf16 RoPE values per token
INDEXER_SCALE_BLOCK = 128  # the DSA indexer keeps fp8 keys with one fp32 scale per 128 values
NEW_TOKEN_REPORT = (0, 20)  # from this vLLM release on, "GPU KV cache size" = max concurrency × max_model_len


def _kv_layer_bytes(arch: Arch, tp: int, kv_bytes: int) -> int:
    """KV cache bytes per token of one attention layer on one GPU."""
    if arch.mla:  # the latent cache is the same on every TP rank
        if kv_bytes == 1 and any(layer.indexer for layer in arch.layers):
            return DSA_FP8_MLA_BYTES  # sparse MLA stores fp8 with its scales and the RoPE part in bf16
        return (arch.kv_lora_rank + arch.qk_rope_head_dim) * kv_bytes
    return 2 * _split(arch.kv_heads, tp) * arch.head_dim * kv_bytes


def indexer_bytes(arch: Arch) -> int:
    """Indexer cache bytes per token of one layer with a sparse-attention indexer
    (``DeepseekV32IndexerCache``: ``index_head_dim`` fp8 values and one fp32 scale per 128 of them, the same
    on every TP rank)."""
    return arch.index_dim + arch.index_dim // INDEXER_SCALE_BLOCK * 4


def state_bytes(arch: Arch, kind: str, tp: int, model_bytes: int, spec_tokens: int) -> int:
    """One state layer's page on one GPU: its convolution state and its recurrent (SSM) state for one
    sequence.

    The convolution keeps ``conv_kernel - 1`` past inputs (plus one per speculative token) in the model dtype;
    the recurrent state is ``(v_heads, v_dim, k_dim)`` for Gated DeltaNet and ``(heads, head_dim, state)`` for
    Mamba2, in ``mamba_ssm_cache_dtype`` ("auto": the model dtype). Mamba2 replicates its groups to the TP
    size when they do not divide it (``extra_groups_for_head_shards``). Kimi Delta Attention
    (``kda_state_shape``) convolves q, k and v (``3 × heads × head_dim``) and keeps a
    ``(heads, head_dim, head_dim)`` state in float32.
    """
    ssm = model_bytes if arch.ssm_dtype == "auto" else DTYPE_BYTES[arch.ssm_dtype]
    columns = arch.conv_kernel - 1 + spec_tokens
    if kind == "kda":
        conv_dim = 3 * arch.kda_heads * arch.kda_dim
        recurrent = _split(arch.kda_heads, tp) * arch.kda_dim * arch.kda_dim
        ssm = 4  # MambaStateDtypeCalculator.kda_state_dtype: the recurrent state is float32
    elif kind == "linear":
        conv_dim = 2 * arch.linear_k_heads * arch.linear_k_dim + arch.linear_v_heads * arch.linear_v_dim
        recurrent = _split(arch.linear_v_heads, tp) * arch.linear_v_dim * arch.linear_k_dim
    else:
        groups = arch.mamba_groups if arch.mamba_groups % tp == 0 else tp
        conv_dim = arch.mamba_heads * arch.mamba_head_dim + 2 * groups * arch.ssm_state
        recurrent = _split(arch.mamba_heads, tp) * arch.mamba_head_dim * arch.ssm_state
    return _split(conv_dim, tp) * columns * model_bytes + recurrent * ssm


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
        if layer.attention in STATE_KINDS or layer.attention == "none":
            continue  # a state page per sequence, or no cache at all
        tokens, extra = _tokens_needed(layer, max_len, batched)
        total += (_split(tokens, BLOCK_SIZE) + extra) * BLOCK_SIZE * per_layer
    return total


Kind = tuple[str, int]  # (layer kind, window); every state layer is ("state", 0)


def _kv_groups(kinds: list[Kind]) -> tuple[int, dict[Kind, int]]:
    """vLLM's hybrid allocator: (layers per group, groups per layer kind)."""
    counts: dict[Kind, int] = {}
    for key in kinds:
        counts[key] = counts.get(key, 0) + 1
    fewest, most = min(counts.values()), max(counts.values())
    size = most if most < 1.25 * fewest else fewest
    return size, {kind: _split(count, size) for kind, count in counts.items()}


def _max_len_that_fits(arch: Arch, layers: list[Layer], per_layer: int, available: int,
                       s: ResolvedSettings) -> int:
    low, high = 0, s["max_model_len"]
    while low < high:
        mid = (low + high + 1) // 2
        if _request_bytes(arch, layers, per_layer, mid, s["max_num_batched_tokens"]) <= available:
            low = mid
        else:
            high = mid - 1
    return low


class Pool(NamedTuple):
    """The KV cache of one GPU of a stage as vLLM lays it out and reports it."""

    bytes_per_token: int  # KV bytes per token of every attention layer (and draft layer)
    state_bytes: int  # state pages one sequence holds (padded as allocated), 0 without state layers
    block_size: int  # tokens per block (raised for hybrid models)
    blocks: int  # blocks of one group's layers
    tokens: int  # "GPU KV cache size" as vLLM prints it
    concurrency: float  # "Maximum concurrency for max_model_len tokens per request"
    one_request: int  # bytes one request of max_model_len needs
    state_padding: float  # percent the state page was padded to the attention page


def version_tuple(version: str) -> tuple[int, int]:
    """(major, minor) of a vLLM version string ("0.20.1rc1.dev91" -> (0, 20)); (0, 0) when unreadable."""
    parts = version.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except (IndexError, ValueError):
        return 0, 0


def reported_tokens(blocks: int, groups: float, block: int, concurrency: float, s: ResolvedSettings) -> int:
    """vLLM's "GPU KV cache size": up to 0.19, ``num_blocks // len(groups) × block_size``; from 0.20 on,
    ``int(max_concurrency × max_model_len)`` (``_report_kv_cache_config``), which counts what sliding-window
    and state groups really hold per request."""
    if version_tuple(s["vllm_version"]) >= NEW_TOKEN_REPORT:
        return int(concurrency * s["max_model_len"])
    return int(blocks // groups) * block


def attention_pool(arch: Arch, layers: list[Layer], per_layer: int, draft_kv: int, available: float,
                   s: ResolvedSettings) -> Pool:
    """Attention layers only: one page size, groups of equal layer count (sliding and full apart), a DSA
    indexer's cache on top of its layer's page (``UniformTypeKVCacheSpecs``); a draft's KV joins the pool."""
    max_len, batched = s["max_model_len"], s["max_num_batched_tokens"]
    group_size, groups = _kv_groups([(layer.attention, layer.window) for layer in layers])
    indexed = sum(indexer_bytes(arch) for layer in layers if layer.indexer)
    n_groups = sum(groups.values())
    group_bytes = per_layer * group_size + indexed / n_groups
    draft_groups = draft_kv / group_bytes  # the draft's layers share the pool's blocks
    blocks = max(0, int(available // (group_bytes * BLOCK_SIZE)))
    request_len = _split(max_len, BLOCK_SIZE)
    per_request_blocks = draft_groups * request_len
    for (kind, window), count in groups.items():
        tokens, extra = _tokens_needed(Layer(kind, window, False), max_len, batched)
        per_request_blocks += count * (_split(tokens, BLOCK_SIZE) + extra)
    concurrency = blocks / per_request_blocks
    one_request = (_request_bytes(arch, layers, per_layer, max_len, batched)
                   + request_len * BLOCK_SIZE * (draft_kv + indexed))
    return Pool(
        bytes_per_token=int(per_layer * group_size * n_groups + indexed + draft_kv),
        state_bytes=0,
        block_size=BLOCK_SIZE,
        blocks=blocks,
        tokens=reported_tokens(blocks, n_groups + draft_groups, BLOCK_SIZE, concurrency, s),
        concurrency=concurrency,
        one_request=one_request,
        state_padding=0.0,
    )


def speculative_tokens(s: ResolvedSettings) -> int:
    """Tokens a speculative method proposes per step (0 without one; vLLM's default of 1 for MTP)."""
    spec = s["speculative"]
    return 0 if spec is None else spec.get("num_speculative_tokens", 1)


def hybrid_pool(arch: Arch, layers: list[Layer], per_layer: int, draft_layers: int, available: float,
                s: ResolvedSettings) -> Pool:
    """Attention and state layers in one pool (vLLM's hybrid allocator).

    The attention block grows to ``16 × ceil(state page / (16 × attention bytes per token))`` tokens and the
    state page is padded to the attention page, so every layer's page has one size; layers are grouped by
    kind in groups of equal count, each group's layers share the blocks. A request holds
    ``ceil(max_model_len / block)`` blocks per attention group and ``1 + speculative tokens`` pages per state
    group (``mamba_cache_mode`` "none"; "align", used with ``--enable-prefix-caching``, keeps one more).
    """
    max_len, batched = s["max_model_len"], s["max_num_batched_tokens"]
    spec = speculative_tokens(s)
    kinds = [layer.attention for layer in layers if layer.attention in STATE_KINDS]
    state = state_bytes(arch, kinds[0], s["tp"], DTYPE_BYTES[s["dtype"]], spec)
    attention = [(layer.attention, layer.window) for layer in layers
                 if layer.attention not in STATE_KINDS | {"none"}]
    attention += [("full", 0)] * draft_layers  # MTP layers are full-attention layers of the same shape
    if not attention:  # a state-only stage keeps its own page size
        block, page = BLOCK_SIZE, state
    else:
        block = BLOCK_SIZE * _split(state, BLOCK_SIZE * per_layer)
        page = block * per_layer
    group_size, groups = _kv_groups(attention + [("state", 0)] * len(kinds))
    n_groups = sum(groups.values())
    blocks = max(0, int(available // page // group_size))
    state_blocks = 1 + spec + (1 if s["enable_prefix_caching"] else 0)
    per_request = 0
    for (kind, window), count in groups.items():
        if kind == "state":
            per_request += count * state_blocks
        else:
            tokens, extra = _tokens_needed(Layer(kind, window, False), max_len, batched)
            per_request += count * (_split(tokens, block) + extra)
    concurrency = blocks / per_request
    return Pool(
        bytes_per_token=per_layer * len(attention),
        state_bytes=page * len(kinds) * state_blocks if attention else state * len(kinds) * state_blocks,
        block_size=block,
        blocks=blocks,
        tokens=reported_tokens(blocks, n_groups, block, concurrency, s),
        concurrency=concurrency,
        one_request=per_request * group_size * page,
        state_padding=100 * (page - state) / state,
    )
