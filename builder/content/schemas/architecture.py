"""``architecture_config``: ``config.json`` facts of a checkpoint (Hugging Face key names),
written by ``import-config`` and read by the memory model."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from builder.content.schemas.common import Open


def _fact(key: str, required: bool = False) -> Any:
    """An integer fact bounded as :data:`builder.resolver.memory.INT_FACTS` bounds it."""
    from builder.resolver.memory import INT_FACTS

    low, high = INT_FACTS[key]
    return Field(ge=low, le=high) if required else Field(default=None, ge=low, le=high)


class ArchitectureQuantization(Open):
    """``quantization_config``: how the checkpoint's weights are stored."""

    quant_method: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """Quantization method (fp8, awq, gptq, compressed-tensors...)."""
    bits: int | None = Field(default=None, ge=1, le=32)
    """Bits per quantized weight."""
    weight_type: Literal["float", "int"] | None = None
    """Whether quantized weights are floating point (FP8, FP4) or integers."""
    group_size: int | None = Field(default=None, ge=1, le=1 << 20)
    """Weights that share one scale."""
    weight_block_size: Annotated[list[Annotated[int, Field(ge=1, le=1 << 20)]],
                                 Field(min_length=2, max_length=2)] | None = None
    """``[rows, columns]`` of the weight blocks that share one scale."""
    format: Literal["fp8", "nvfp4", "mxfp4", "int"] | None = None
    """Weight format when the method's name does not say it (compressed-tensors, ModelOpt)."""
    zero_point: bool | None = None
    """Integer groups store a zero point beside each scale (AWQ, asymmetric GPTQ)."""
    unquantized: list[Literal["attention", "shared_experts", "dense_mlp", "lm_head", "vision"]] | None = None
    """Parts the checkpoint keeps in the model dtype (from its ignore list)."""


class ArchitectureRope(Open):
    """``rope_scaling``: how rotary embeddings are stretched."""

    rope_type: Annotated[str, Field(max_length=64)] | None = None
    """Scaling type (yarn, linear, dynamic...); context-extending types raise the maximum context."""
    factor: float | None = Field(default=None, gt=0, le=1 << 20)
    """Multiplier of the context length."""
    original_max_position_embeddings: int | None = Field(default=None, ge=1, le=1 << 34)
    """Yarn: the context before extension, which ``factor`` multiplies."""


def _size() -> Any:
    return Field(default=None, ge=1, le=1 << 20)


class ArchitectureEncoder(Open):
    """An encoder tower (``vision_config``, ``audio_config``), counted in the weights."""

    hidden_size: int = Field(ge=1, le=1 << 20)
    """Width of the encoder."""
    num_hidden_layers: int = Field(ge=1, le=1 << 20)
    """Encoder layers."""
    intermediate_size: int | None = _size()
    """Width of the encoder's MLP (``mlp_ratio`` or four times ``hidden_size`` when absent)."""
    hidden_act: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """Activation of the MLP; silu means a gated MLP of three matrices."""


class ArchitectureVision(ArchitectureEncoder):
    """``vision_config``: the vision encoder (a ViT, or the Qwen-VL tower with a patch merger)."""

    mlp_ratio: int | None = _size()
    """MLP width as a multiple of ``hidden_size`` (Qwen2-VL)."""
    patch_size: int | None = _size()
    """Pixels per side of one patch (14 when absent)."""
    image_size: int | None = _size()
    """Pixels per side of an image; with ``patch_size`` it sizes the learned positions."""
    num_channels: int | None = _size()
    """Colour channels of the patch embedding (3 when absent)."""
    temporal_patch_size: int | None = _size()
    """Video frames per patch (Qwen-VL)."""
    spatial_merge_size: int | None = _size()
    """Qwen-VL: patches merged per side before the projection into the text width."""
    out_hidden_size: int | None = _size()
    """Qwen-VL: width the merger projects into."""


class ArchitectureAudio(ArchitectureEncoder):
    """``audio_config``: the audio encoder (Whisper-style)."""

    num_mel_bins: int | None = _size()
    """Mel bins of the input features (128 when absent)."""


class ArchitectureSource(Open):
    """Where the facts come from: a Hugging Face repository and the commit they were read at."""

    repo: Annotated[str,
                    Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$", max_length=200)]
    """``<org>/<repo>`` on the Hub."""
    revision: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")] | None = None
    """Commit sha the ``config.json`` was read at (``import-config --from-hub``); absent when imported from \
a file."""
    ref: Annotated[str, Field(min_length=1, max_length=200)] | None = None
    """Branch or tag asked for, when not ``main``; ``--check`` compares the sha with its current commit."""


class Architecture(Open):
    """``config.json`` facts of a model (Hugging Face key names), written by ``import-config``."""

    model_type: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """Hugging Face ``model_type``: picks the family's defaults (tied embeddings, biases, windows)."""
    torch_dtype: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    """Dtype of the unquantized weights (bfloat16, float16...)."""
    num_hidden_layers: int = _fact("num_hidden_layers", required=True)
    """Decoder layers."""
    hidden_size: int = _fact("hidden_size", required=True)
    """Width of the hidden state."""
    num_attention_heads: int = _fact("num_attention_heads", required=True)
    """Query heads per layer."""
    vocab_size: int = _fact("vocab_size", required=True)
    """Tokens in the vocabulary: rows of the embedding and of the output layer."""
    num_key_value_heads: int | None = _fact("num_key_value_heads")
    """Key/value heads per layer (grouped-query attention); one per query head when absent."""
    head_dim: int | None = _fact("head_dim")
    """Size of one attention head (``hidden_size`` / heads when absent)."""
    intermediate_size: int | None = _fact("intermediate_size")
    """Width of the dense MLP, and of each expert when ``moe_intermediate_size`` is absent."""
    intermediate_size_mlp: int | None = _fact("intermediate_size_mlp")
    """Llama 4: width of the dense MLP layers."""
    max_position_embeddings: int | None = _fact("max_position_embeddings")
    """Positions the model was trained for: its own maximum context."""
    tie_word_embeddings: bool | None = None
    """Whether the output layer reuses the embedding weights."""
    attention_bias: bool | None = None
    """Whether the query/key/value projections carry biases."""
    multi_query: bool | None = None
    """Multi-query attention: one key/value head shared by all query heads."""
    n_routed_experts: int | None = _fact("n_routed_experts")
    """Routed experts per MoE layer (DeepSeek's name)."""
    num_experts: int | None = _fact("num_experts")
    """Routed experts per MoE layer (Qwen's name)."""
    num_local_experts: int | None = _fact("num_local_experts")
    """Routed experts per MoE layer (Mixtral's and Llama 4's name)."""
    num_experts_per_tok: int | None = _fact("num_experts_per_tok")
    """Experts each token is routed to."""
    moe_intermediate_size: int | None = _fact("moe_intermediate_size")
    """Width of one expert's MLP."""
    shared_expert_intermediate_size: int | None = _fact("shared_expert_intermediate_size")
    """Width of the shared expert, which every token passes through."""
    n_shared_experts: int | None = _fact("n_shared_experts")
    """Shared experts per MoE layer, each as wide as a routed expert."""
    first_k_dense_replace: int | None = _fact("first_k_dense_replace")
    """Leading layers that keep a dense MLP before the MoE layers begin."""
    moe_layer_freq: (Annotated[int, Field(ge=1, le=4096)]
                     | Annotated[list[Literal[0, 1]], Field(max_length=4096)] | None) = None
    """After the dense layers, a MoE layer every this many layers; or one flag per layer (1: MoE)."""
    decoder_sparse_step: int | None = _fact("decoder_sparse_step")
    """A MoE layer every this many layers (Qwen MoE)."""
    interleave_moe_layer_step: int | None = _fact("interleave_moe_layer_step")
    """A MoE layer every this many layers (Llama 4)."""
    mlp_only_layers: Annotated[list[Annotated[int, Field(ge=0, le=4095)]],
                               Field(max_length=4096)] | None = None
    """Indices of layers that keep a dense MLP in a MoE model."""
    kv_lora_rank: int | None = _fact("kv_lora_rank")
    """Rank of the compressed key/value latent; its presence means multi-head latent attention."""
    q_lora_rank: int | None = _fact("q_lora_rank")
    """Rank of the compressed query of multi-head latent attention."""
    qk_rope_head_dim: int | None = _fact("qk_rope_head_dim")
    """Rotary part of each query/key head (latent attention)."""
    qk_nope_head_dim: int | None = _fact("qk_nope_head_dim")
    """Non-rotary part of each query/key head (latent attention)."""
    v_head_dim: int | None = _fact("v_head_dim")
    """Size of each value head (latent attention)."""
    sliding_window: int | None = _fact("sliding_window")
    """Tokens a sliding-window layer attends to, and so keeps in its KV cache."""
    use_sliding_window: bool | None = None
    """Whether the sliding window is on, in families where it is optional."""
    sliding_window_pattern: int | None = _fact("sliding_window_pattern")
    """One full-attention layer every this many layers; the others slide."""
    max_window_layers: int | None = _fact("max_window_layers")
    """Layers below this index use full attention; the rest slide (families where the window is optional)."""
    layer_types: (
        Annotated[
            list[Literal["full_attention", "sliding_attention", "chunked_attention", "linear_attention",
                         "deepseek_sparse_attention"]],
            Field(max_length=4096),
        ]
        | None
    ) = None
    """Attention kind of every layer, one entry per layer (linear_attention: Gated DeltaNet;
    deepseek_sparse_attention: latent attention with a DSA indexer)."""
    full_attention_interval: int | None = _fact("full_attention_interval")
    """Qwen3-Next without ``layer_types``: every this many layers one is full attention, the others linear."""
    hybrid_override_pattern: Annotated[str, Field(pattern=r"^[M*E-]{1,4096}$")] | None = None
    """Nemotron-H: one character per layer: M Mamba2, * attention, - MLP, E MoE (``layers_block_type`` spelt \
so)."""
    attn_output_gate: bool | None = None
    """Whether q_proj also yields a gate of the attention output (Qwen3-Next, Qwen3.5)."""
    linear_num_key_heads: int | None = _fact("linear_num_key_heads")
    """Gated DeltaNet: key heads."""
    linear_num_value_heads: int | None = _fact("linear_num_value_heads")
    """Gated DeltaNet: value heads (the recurrent state has one per value head)."""
    linear_key_head_dim: int | None = _fact("linear_key_head_dim")
    """Gated DeltaNet: width of a key head."""
    linear_value_head_dim: int | None = _fact("linear_value_head_dim")
    """Gated DeltaNet: width of a value head."""
    conv_kernel: int | None = _fact("conv_kernel")
    """Width of the short convolution of Gated DeltaNet and Mamba layers (``linear_conv_kernel_dim``)."""
    use_conv_bias: bool | None = None
    """Whether the Mamba convolution has a bias."""
    mamba_num_heads: int | None = _fact("mamba_num_heads")
    """Mamba2: heads."""
    mamba_head_dim: int | None = _fact("mamba_head_dim")
    """Mamba2: width of a head."""
    n_groups: int | None = _fact("n_groups")
    """Mamba2: groups of the B and C projections."""
    ssm_state_size: int | None = _fact("ssm_state_size")
    """Mamba2: state size per head channel."""
    mamba_ssm_cache_dtype: Literal["auto", "float32", "float16", "bfloat16"] | None = None
    """Dtype of the recurrent state (``mamba_ssm_dtype`` in Qwen3.5); auto: the model dtype."""
    moe_latent_size: int | None = _fact("moe_latent_size")
    """Nemotron-3 latent MoE: the width the experts work in."""
    dense_intermediate_size: int | None = _fact("dense_intermediate_size")
    """MiniMax-M3: width of the dense MLP layers (``intermediate_size`` is then the experts')."""
    kda_num_heads: int | None = _fact("kda_num_heads")
    """Kimi Delta Attention (``linear_attn_config.num_heads``): heads."""
    kda_head_dim: int | None = _fact("kda_head_dim")
    """Kimi Delta Attention (``linear_attn_config.head_dim``): width of a head."""
    kda_layers: Annotated[list[Literal[0, 1]], Field(max_length=4096)] | None = None
    """Per layer: 1 for a Kimi Delta Attention layer (``linear_attn_config.kda_layers``, counted from 1)."""
    index_n_heads: int | None = _fact("index_n_heads")
    """Sparse-attention indexer (DSA, MiniMax-M3 MSA): heads."""
    index_head_dim: int | None = _fact("index_head_dim")
    """Sparse-attention indexer: width of a head; its presence gives every latent-attention layer an indexer \
cache."""
    index_layers: Annotated[list[Literal[0, 1]], Field(max_length=4096)] | None = None
    """Per layer: 1 where the layer has its own indexer."""
    attention_chunk_size: int | None = _fact("attention_chunk_size")
    """Tokens per chunk of chunked-attention layers."""
    no_rope_layers: Annotated[list[Literal[0, 1]], Field(max_length=4096)] | None = None
    """Per layer: 1 for a rotary (chunked) layer, 0 for a global layer without RoPE."""
    partial_rotary_factor: float | None = Field(default=None, gt=0, le=1)
    """Share of each head that gets rotary embeddings."""
    rope_scaling: ArchitectureRope | None = None
    """Rotary scaling; a context-extending type multiplies the maximum context."""
    quantization_config: ArchitectureQuantization | None = None
    """How the checkpoint's weights are quantized."""
    vision_config: ArchitectureVision | None = None
    """The vision encoder, whose weights count too."""
    audio_config: ArchitectureAudio | None = None
    """The audio encoder, whose weights count too."""
    num_nextn_predict_layers: int | None = _fact("num_nextn_predict_layers")
    """Multi-token-prediction layers the checkpoint ships (speculative decoding with an MTP method)."""
    draft_vocab_size: int | None = _fact("draft_vocab_size")
    """An EAGLE-3 draft's own output vocabulary."""
    source: ArchitectureSource | None = None
    """Where the facts were imported from (``import-config``)."""
    drafts: dict[Annotated[str, Field(max_length=200)], Architecture] | None = Field(default=None,
                                                                                     max_length=64)
    """Facts of the speculative-decoding drafts the recipe names, keyed by their repository."""
