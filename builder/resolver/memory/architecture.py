"""The architecture (:class:`Arch`) with every per-model_type default applied."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .constants import (
    CONTEXT_EXTENDING_ROPE,
    FOUR_NORMS,
    GATED_ATTENTION_OUTPUT,
    GLOBAL_EVERY,
    HYBRID_BLOCKS,
    LAYER_TYPES,
    LEARNED_POSITIONS,
    NO_ROTARY,
    QK_NORM,
    QKV_BIAS_BY_DEFAULT,
    QWEN_HYBRID,
    SLIDING_OPT_IN,
    TIED_BY_DEFAULT,
    TWO_MATRIX_MLP,
)
from .encoders import audio_params, vision_params
from .facts import architecture_facts
from .memo import memoised
from .types import ArchitectureError

# layers that keep a state per sequence, not a KV cache per token
STATE_KINDS = frozenset({"linear", "kda", "mamba"})


@dataclass(frozen=True)
class Layer:
    """One decoder layer: its token mixer (and window), whether its MLP is a MoE, and what else it holds.

    ``attention`` is "full", "sliding", "chunked", "mla", "linear" (Gated DeltaNet), "kda" (Kimi Delta
    Attention), "mamba" (Mamba2) or
    "none" (a Nemotron-H MLP or MoE block). Nemotron-H builds one layer per block, so its mixer blocks
    have no MLP (``mlp`` False) and its MLP blocks no mixer.
    """

    attention: str
    window: int  # sliding window or attention chunk (tokens); 0 for the others
    moe: bool
    mlp: bool = True
    # a sparse-attention indexer (DeepSeek V3.2 / GLM-5 DSA, MiniMax-M3 MSA) with its own cache
    indexer: bool = False


@dataclass(frozen=True)
class Arch:
    """The architecture with every per-model_type default applied."""

    model_type: str
    layers: tuple[Layer, ...]
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    tied: bool
    gated_mlp: bool
    qkv_bias: bool
    norms_per_layer: int
    dense_intermediate: int
    experts: int
    topk: int
    expert_intermediate: int
    shared_intermediate: int
    expert_intermediate_key: str
    shared_gate: bool
    mla: bool
    q_lora_rank: int
    kv_lora_rank: int
    qk_rope_head_dim: int
    qk_nope_head_dim: int
    v_head_dim: int
    rotary_dim: int
    rotary_positions: int
    learned_positions: int
    max_len: int  # the model's own maximum context (0 when the config does not say)
    torch_dtype: str
    quant_method: str
    quant_float: bool  # floating-point weight format (FP8, FP4) rather than integers
    quant_bits: int | None
    quant_group: int | None
    quant_block: tuple[int, int] | None
    quant_format: str  # fp8, nvfp4, mxfp4, int, or the method's own name
    quant_zero_point: bool  # integer groups that store a zero point beside each scale
    unquantized: frozenset[str]  # parts kept in the model dtype (quant_facts.UNQUANTIZED_PARTS)
    vision_params: int
    audio_params: int
    mtp_layers: int  # multi-token-prediction layers shipped for speculative decoding
    draft_vocab: int  # an EAGLE-3 draft's own output vocabulary (0: the target's)
    qk_norm: bool
    attn_gate: bool  # q_proj also yields a sigmoid gate of the attention output (Qwen3-Next, Qwen3.5)
    moe_latent: int  # Nemotron-3 latent MoE: experts work in this width between two projections (0: none)
    linear_k_heads: int  # Gated DeltaNet
    linear_v_heads: int
    linear_k_dim: int
    linear_v_dim: int
    conv_kernel: int  # the short convolution of Gated DeltaNet and Mamba layers
    conv_bias: bool
    mamba_heads: int  # Mamba2
    mamba_head_dim: int
    mamba_groups: int
    ssm_state: int
    ssm_dtype: str  # mamba_ssm_cache_dtype: "auto" (the model dtype) or a dtype name
    kda_heads: int  # Kimi Delta Attention
    kda_dim: int
    index_heads: int  # the sparse-attention indexer
    index_dim: int


def _attention_kinds(facts: dict[str, Any], model_type: str, count: int, mla: bool) -> list[tuple[str, int]]:
    """(kind, window) of every layer."""
    kda = facts.get("kda_layers")
    if kda is not None:  # Kimi-Linear: its other layers are latent (or full) attention
        if len(kda) != count:
            raise ArchitectureError("kda_layers", f"has {len(kda)} entries for {count} layers")
        return [("kda", 0) if flag else ("mla" if mla else "full", 0) for flag in kda]
    if mla:
        return [("mla", 0)] * count
    window = facts.get("sliding_window")
    chunk = facts.get("attention_chunk_size")
    types = facts.get("layer_types")
    interval = facts.get("full_attention_interval")
    # Qwen3-Next: every interval-th layer is full
    if types is None and model_type in QWEN_HYBRID and interval:
        types = ["full_attention" if (i + 1) % interval == 0 else "linear_attention" for i in range(count)]
    if types is not None:
        if len(types) != count:
            raise ArchitectureError("layer_types", f"has {len(types)} entries for {count} layers")
        kinds = []
        for i, name in enumerate(types):
            kind = LAYER_TYPES[name]
            size = {"sliding": window, "chunked": chunk}.get(kind, 0)
            if size is None:
                needed = "sliding_window" if kind == "sliding" else "attention_chunk_size"
                raise ArchitectureError(f"layer_types[{i}]", f"{name} needs {needed}")
            kinds.append((kind, size))
        return kinds
    if chunk is not None:  # Llama 4: RoPE layers attend within chunks, NoPE layers globally
        flags = facts.get("no_rope_layers")
        if flags is None or len(flags) != count:
            flags = [int((i + 1) % 4 != 0) for i in range(count)]
        return [("chunked", chunk) if flag else ("full", 0) for flag in flags]
    enabled = facts.get("use_sliding_window")
    if window is None or enabled is False or (model_type in SLIDING_OPT_IN and enabled is not True):
        return [("full", 0)] * count
    if model_type == "gemma2":
        return [("sliding", window) if i % 2 == 0 else ("full", 0) for i in range(count)]
    if model_type in GLOBAL_EVERY:
        every = facts.get("sliding_window_pattern", GLOBAL_EVERY[model_type])
        return [("sliding", window) if (i + 1) % every else ("full", 0) for i in range(count)]
    first_sliding = facts.get("max_window_layers", 0) if model_type in SLIDING_OPT_IN else 0
    return [("sliding", window) if i >= first_sliding else ("full", 0) for i in range(count)]


def _moe_layers(facts: dict[str, Any], count: int, experts: int) -> list[bool]:
    if not experts:
        return [False] * count
    if isinstance(facts.get("moe_layer_freq"), list):  # one flag per layer (MiniMax-M3, MiMo-V2)
        flags = facts["moe_layer_freq"]
        if len(flags) != count:
            raise ArchitectureError("moe_layer_freq", f"has {len(flags)} entries for {count} layers")
        return [bool(flag) for flag in flags]
    if "first_k_dense_replace" in facts or "moe_layer_freq" in facts:
        first = facts.get("first_k_dense_replace", 0)
        every = facts.get("moe_layer_freq", 1)
        return [i >= first and i % every == 0 for i in range(count)]
    if "decoder_sparse_step" in facts or "mlp_only_layers" in facts:
        dense = set(facts.get("mlp_only_layers", []))
        step = facts.get("decoder_sparse_step", 1)
        return [i not in dense and (i + 1) % step == 0 for i in range(count)]
    step = facts.get("interleave_moe_layer_step", 1)
    return [(i + 1) % step == 0 for i in range(count)]


def _max_len(facts: dict[str, Any]) -> int:
    """vLLM's derived max_model_len: positions, extended by context-extending RoPE scaling."""
    positions = facts.get("max_position_embeddings", 0)
    rope = facts.get("rope_scaling", {})
    kind = rope.get("rope_type")
    if positions and kind in CONTEXT_EXTENDING_ROPE and "factor" in rope:
        if kind == "yarn":
            positions = rope.get("original_max_position_embeddings", positions)
        positions = int(positions * rope["factor"])
    return int(positions)


def _hybrid_layers(pattern: str, count: int) -> list[Layer]:
    """Nemotron-H: one layer per block of ``hybrid_override_pattern`` (vLLM's ``nemotron_h.py``)."""
    if len(pattern) != count:
        raise ArchitectureError("hybrid_override_pattern", f"has {len(pattern)} blocks for {count} layers")
    kinds = {"mamba": Layer("mamba", 0, False, mlp=False), "attention": Layer("full", 0, False, mlp=False),
             "mlp": Layer("none", 0, False), "moe": Layer("none", 0, True)}
    return [kinds[HYBRID_BLOCKS[char]] for char in pattern]


def _indexed(facts: dict[str, Any], layers: list[Layer], mla: bool) -> list[Layer]:
    """Mark the layers with a sparse-attention indexer: every MLA layer of a DSA model, or
    ``index_layers``."""
    if "index_head_dim" not in facts:
        return layers
    flags = facts.get("index_layers")
    if flags is not None and len(flags) != len(layers):
        raise ArchitectureError("index_layers", f"has {len(flags)} entries for {len(layers)} layers")
    if flags is None and not mla:
        return layers
    return [Layer(layer.attention, layer.window, layer.moe, layer.mlp, bool(flags[i]) if flags else True)
            for i, layer in enumerate(layers)]


@memoised  # one configuration serves every hardware, strategy and setting of a build
def read_architecture(config: Mapping[str, Any]) -> Arch:
    """Check a ``config.json`` mapping and apply the per-model_type defaults."""
    facts = architecture_facts(config)
    model_type = facts.get("model_type", "")
    count = facts["num_hidden_layers"]
    hidden = facts["hidden_size"]
    heads = facts["num_attention_heads"]
    kv_heads = facts.get("num_key_value_heads", 1 if facts.get("multi_query") else heads)
    head_dim = facts.get("head_dim", hidden // heads or 1)
    mla = "kv_lora_rank" in facts
    experts = facts.get("n_routed_experts", facts.get("num_experts", facts.get("num_local_experts", 0)))
    pattern = facts.get("hybrid_override_pattern")
    if pattern is not None:
        layer_list = _hybrid_layers(pattern, count)
    else:
        moe_flags = _moe_layers(facts, count, experts)
        kinds = _attention_kinds(facts, model_type, count, mla)
        layer_list = [Layer(kind, window, moe) for (kind, window), moe in zip(kinds, moe_flags, strict=True)]
    layers = tuple(_indexed(facts, layer_list, mla))
    gated = model_type not in TWO_MATRIX_MLP
    if model_type == "llama4":
        dense = facts.get("intermediate_size_mlp", facts.get("intermediate_size", 0))
    else:
        dense = facts.get("dense_intermediate_size",
                          facts.get("intermediate_size", 0 if gated else 4 * hidden))
    if not dense and any(layer.mlp and not layer.moe for layer in layers):
        raise ArchitectureError("intermediate_size", "missing: the dense MLP layers need it")
    expert_key = "moe_intermediate_size" if "moe_intermediate_size" in facts else "intermediate_size"
    if any(layer.attention == "linear" for layer in layers):
        for key in ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim",
                    "linear_value_head_dim"):
            if key not in facts:
                raise ArchitectureError(key, "missing: linear-attention (Gated DeltaNet) layers need it")
    if any(layer.attention == "kda" for layer in layers):
        for key in ("kda_num_heads", "kda_head_dim"):
            if key not in facts:
                raise ArchitectureError(key,
                                        "missing: Kimi Delta Attention layers need it (linear_attn_config)")
    if any(layer.attention == "mamba" for layer in layers):
        for key in ("mamba_num_heads", "mamba_head_dim", "ssm_state_size"):
            if key not in facts:
                raise ArchitectureError(key, "missing: Mamba layers need it")
    expert_inter = facts.get(expert_key, 0) if experts else 0
    if experts and not expert_inter:
        raise ArchitectureError("moe_intermediate_size", "missing: the experts need it")
    shared = (facts.get("shared_expert_intermediate_size", 0)
              or facts.get("n_shared_experts", 0) * expert_inter)
    if model_type == "llama4" and experts:
        shared = shared or expert_inter
    if mla:
        for key in ("qk_rope_head_dim", "v_head_dim"):
            if key not in facts:
                raise ArchitectureError(key, "missing: multi-head latent attention needs it")
    rope_dim = (facts.get("qk_rope_head_dim", 0) if mla
                else int(head_dim * facts.get("partial_rotary_factor", 1.0)))
    quant = facts.get("quantization_config", {})
    block = quant.get("weight_block_size")
    rope = facts.get("rope_scaling", {})
    positions = facts.get("max_position_embeddings", 0)
    if rope.get("rope_type") == "linear" and "factor" in rope:  # vLLM caches the stretched positions
        positions = int(positions * rope["factor"])
    return Arch(
        model_type=model_type,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        vocab=facts["vocab_size"],
        tied=facts.get("tie_word_embeddings", model_type in TIED_BY_DEFAULT),
        gated_mlp=gated,
        qkv_bias=facts.get("attention_bias", model_type in QKV_BIAS_BY_DEFAULT),
        norms_per_layer=4 if model_type in FOUR_NORMS else 1 if pattern is not None else 2,
        dense_intermediate=dense,
        experts=experts,
        topk=min(facts.get("num_experts_per_tok", 1), experts) if experts else 0,
        expert_intermediate=expert_inter,
        shared_intermediate=shared if experts else 0,
        expert_intermediate_key=expert_key,
        shared_gate="shared_expert_intermediate_size" in facts and bool(shared),
        mla=mla,
        q_lora_rank=facts.get("q_lora_rank", 0),
        kv_lora_rank=facts.get("kv_lora_rank", 0),
        qk_rope_head_dim=facts.get("qk_rope_head_dim", 0),
        qk_nope_head_dim=facts.get("qk_nope_head_dim", 0),
        v_head_dim=facts.get("v_head_dim", 0),
        rotary_dim=0 if model_type in NO_ROTARY else rope_dim,
        rotary_positions=positions,
        learned_positions=facts.get("max_position_embeddings", 0) if model_type in LEARNED_POSITIONS else 0,
        max_len=_max_len(facts),
        torch_dtype=facts.get("torch_dtype", "bfloat16"),
        quant_method=quant.get("quant_method", ""),
        quant_float=quant.get("weight_type", "float" if quant.get("bits") == 8 else "int") == "float",
        quant_bits=quant.get("bits"),
        quant_group=quant.get("group_size"),
        quant_block=(block[0], block[1]) if block else None,
        quant_format=quant.get("format", quant.get("quant_method", "")),
        quant_zero_point=quant.get("zero_point", False),
        unquantized=frozenset(quant.get("unquantized", ())),
        vision_params=vision_params(facts.get("vision_config", {}), hidden),
        audio_params=audio_params(facts.get("audio_config", {}), hidden),
        mtp_layers=facts.get("num_nextn_predict_layers", 0),
        draft_vocab=facts.get("draft_vocab_size", 0),
        qk_norm=model_type in QK_NORM,
        attn_gate=facts.get("attn_output_gate", model_type in GATED_ATTENTION_OUTPUT),
        moe_latent=facts.get("moe_latent_size", 0),
        linear_k_heads=facts.get("linear_num_key_heads", 0),
        linear_v_heads=facts.get("linear_num_value_heads", 0),
        linear_k_dim=facts.get("linear_key_head_dim", 0),
        linear_v_dim=facts.get("linear_value_head_dim", 0),
        conv_kernel=facts.get("conv_kernel", 4),
        conv_bias=facts.get("use_conv_bias", pattern is not None),
        mamba_heads=facts.get("mamba_num_heads", 0),
        mamba_head_dim=facts.get("mamba_head_dim", 0),
        mamba_groups=facts.get("n_groups", 1),
        ssm_state=facts.get("ssm_state_size", 0),
        ssm_dtype=facts.get("mamba_ssm_cache_dtype", "auto"),
        kda_heads=facts.get("kda_num_heads", 0),
        kda_dim=facts.get("kda_head_dim", 0),
        index_heads=facts.get("index_n_heads", 0),
        index_dim=facts.get("index_head_dim", 0),
    )
