"""Constants of vLLM 0.19 and per-model_type defaults of transformers (see the package docstring)."""

from __future__ import annotations

VLLM_VERSION = "0.19.0"
GIB = 1 << 30
BLOCK_SIZE = 16  # vLLM's default KV cache block (tokens)
VOCAB_PADDING = 64  # vLLM pads embedding and lm_head rows to a multiple of 64
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
LARGE_GPU_GIB = 70  # from this size on vLLM picks the larger scheduler defaults
DEFAULT_BATCHED_TOKENS = {True: 8192, False: 2048}  # keyed by "GPU has >= 70 GiB"
DEFAULT_MAX_NUM_SEQS = {True: 1024, False: 256}
DEFAULT_LORA_RANK = 16  # --max-lora-rank

# Overheads (see the module docstring): per process, fit once on H100 start-ups of vLLM 0.19.0.
NON_TORCH_GIB = 0.25  # CUDA context growth, cuBLAS/cuDNN workspaces after the weights are loaded
TP_COMMUNICATOR_GIB = 1.85  # NCCL communicators and custom all-reduce buffers when TP > 1
SAMPLER_SCRATCH_GIB = 0.125  # fixed sampler and kernel scratch on top of the logits
CUDA_GRAPH_BASE_GIB = 0.43  # CUDA graph pool: a base ...
CUDA_GRAPH_PER_LAYER_GIB = 0.016  # ... plus this much per layer of the stage (1.5x for MoE layers)
VISIBLE_FRACTION = 0.99  # a GPU sold as N GB shows about 0.99 N GiB to CUDA (H100 80 GB: 79.2)

DTYPE_BYTES = {
    "bfloat16": 2,
    "bf16": 2,
    "float16": 2,
    "fp16": 2,
    "half": 2,
    "float32": 4,
    "fp32": 4,
    "float": 4,
}
DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp32": "float32",
               "float": "float32"}
KV_DTYPE_BYTES = {
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "bfloat16": 2,
    "float16": 2,
}

# Per-model_type defaults of transformers that configs leave out.
TIED_BY_DEFAULT = frozenset(
    {"gemma", "gemma2", "gemma3", "gemma3_text", "gpt2", "gpt_bigcode", "cohere", "cohere2", "opt", "bloom"})
TWO_MATRIX_MLP = frozenset(
    {"gpt2", "gpt_bigcode", "gpt_neox", "gptj", "gpt_neo", "opt", "bloom", "falcon", "mpt", "phi",
     "starcoder2", "codegen",
     "nemotron_h"}  # Nemotron-H: relu2 MLPs and experts of two matrices
)
LEARNED_POSITIONS = frozenset({"gpt2", "gpt_bigcode", "opt", "gpt_neo"})
NO_ROTARY = LEARNED_POSITIONS | {"bloom", "mpt"}
QKV_BIAS_BY_DEFAULT = frozenset({"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"})
SLIDING_OPT_IN = frozenset({"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl"})
# Gated DeltaNet
QWEN_HYBRID = frozenset({"qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text"})
# per-head q_norm, k_norm
QK_NORM = frozenset({"qwen3", "qwen3_moe", "gemma3", "gemma3_text", "hunyuan"}) | QWEN_HYBRID
GATED_ATTENTION_OUTPUT = QWEN_HYBRID  # attn_output_gate defaults to true: q_proj also gives the output gate
FOUR_NORMS = frozenset({"gemma2", "gemma3", "gemma3_text"})
GLOBAL_EVERY = {"gemma3": 6, "gemma3_text": 6, "cohere2": 4}  # every Nth layer is full attention
CONTEXT_EXTENDING_ROPE = frozenset({"linear", "dynamic", "yarn"})

ALIASES = {
    "n_embd": "hidden_size",
    "n_layer": "num_hidden_layers",
    "n_head": "num_attention_heads",
    "n_inner": "intermediate_size",
    "n_positions": "max_position_embeddings",
    "num_kv_heads": "num_key_value_heads",
    "n_head_kv": "num_key_value_heads",
    "dtype": "torch_dtype",
    "mtp_num_hidden_layers": "num_nextn_predict_layers",
    "num_mtp_modules": "num_nextn_predict_layers",
    "attention_head_dim": "head_dim",
    "moe_topk": "num_experts_per_tok",
    "num_shared_expert": "n_shared_experts",
    "moe_shared_expert_intermediate_size": "shared_expert_intermediate_size",
    "mamba_ssm_dtype": "mamba_ssm_cache_dtype",
    "linear_conv_kernel_dim": "conv_kernel",
    "num_experts_per_token": "num_experts_per_tok",
    "num_shared_experts": "n_shared_experts",
}
TEXT_PARTS = ("text_config", "transformer_layer_config")  # where a config keeps its language model

BIG = 1 << 40
# The integer facts, grouped by what they count; each group's (lowest, highest) bounds.
_INT_FACT_GROUPS: tuple[tuple[tuple[int, int], tuple[str, ...]], ...] = (
    # layers, and layer strides of MoE and sliding-window patterns
    ((1, 4096), ("num_hidden_layers", "moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step",
                 "sliding_window_pattern")),
    ((0, 4096), ("first_k_dense_replace", "max_window_layers")),
    # attention heads and the width of one head
    ((1, 65536), ("num_attention_heads", "num_key_value_heads", "head_dim")),
    # model width, expert counts and MLA ranks
    ((1, 1 << 20),
     ("hidden_size", "n_routed_experts", "num_experts", "num_local_experts", "num_experts_per_tok",
      "kv_lora_rank", "q_lora_rank", "qk_rope_head_dim", "v_head_dim")),
    ((0, 1 << 20), ("n_shared_experts", "qk_nope_head_dim")),
    # MLP widths
    ((1, 1 << 24), ("intermediate_size", "intermediate_size_mlp", "moe_intermediate_size")),
    ((0, 1 << 24), ("shared_expert_intermediate_size",)),
    ((1, 1 << 26), ("vocab_size", "draft_vocab_size")),
    # multi-token-prediction layers a checkpoint ships for speculative decoding
    ((0, 64), ("num_nextn_predict_layers",)),
    # linear attention (Gated DeltaNet), Mamba2 mixers and sparse-attention indexers
    ((1, 65536),
     ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim",
      "mamba_num_heads", "mamba_head_dim", "n_groups", "ssm_state_size", "index_n_heads", "index_head_dim",
      "full_attention_interval", "kda_num_heads", "kda_head_dim")),
    ((1, 64), ("conv_kernel",)),
    ((1, 1 << 20), ("moe_latent_size", "dense_intermediate_size")),
    # token counts
    ((1, 1 << 34), ("max_position_embeddings", "sliding_window", "attention_chunk_size")),
)
INT_FACTS: dict[str, tuple[int, int]] = {key: bounds for bounds, keys in _INT_FACT_GROUPS for key in keys}
BOOL_FACTS = ("tie_word_embeddings", "use_sliding_window", "attention_bias", "multi_query",
              "attn_output_gate", "use_conv_bias")
STR_FACTS = ("model_type", "torch_dtype", "mamba_ssm_cache_dtype")
# layer_types entries and the layer kind each means (deepseek_sparse_attention: MLA with a DSA indexer)
LAYER_TYPES = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked",
               "linear_attention": "linear", "deepseek_sparse_attention": "mla"}
# Nemotron-H's hybrid_override_pattern: one character per block; layers_block_type spells the same words
HYBRID_BLOCKS = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
MAMBA_SSM_DTYPES = ("auto", "float32", "float16", "bfloat16")


def _split(size: int, parts: int) -> int:
    """``size`` divided by ``parts``, rounded up (vLLM's per-rank share)."""
    return -(-size // parts)
