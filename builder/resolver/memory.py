"""Memory and sharding model of a vLLM start-up, as vLLM 0.19 accounts it (standard library only).

This module imports nothing from ``builder``: it is meant to live in the resolver package and
to run, unchanged, in the browser under Pyodide.

Inputs are an architecture mapping under Hugging Face ``config.json`` key names (multimodal
configs: the ``text_config`` part, with ``vision_config`` counted as an encoder) and serving
settings. Everything is derived from the architecture; nothing is looked up by model name.

How vLLM 0.19 sizes the KV cache, per GPU (``gpu_worker.determine_available_memory``):

    requested = gpu_memory_utilization × total memory
    non_kv    = weights + torch activation peak of the profile run + non-torch increase
    available = requested − non_kv

The profile run is one forward pass of ``max_num_batched_tokens`` tokens and, on the last
pipeline stage, one sampler pass over ``min(max_num_seqs, max_num_batched_tokens)`` rows of
full-vocabulary logits. CUDA graphs are captured afterwards and are *not* part of ``non_kv``:
their memory comes out of the ``1 − gpu_memory_utilization`` headroom. The KV cache is split in
blocks of 16 tokens; with pipeline parallelism every stage sizes its own cache and vLLM keeps the
smallest block count of all stages.

Defaults (``vllm serve`` 0.19 on one GPU): ``gpu_memory_utilization`` 0.9;
``max_num_batched_tokens`` 8192 and ``max_num_seqs`` 1024 on GPUs with at least 70 GiB, 2048 and
256 below (vLLM also applies the small values to A100s by name: pass them explicitly there);
``max_model_len`` the model's own maximum (``max_position_embeddings``, times the RoPE scaling
factor for scaling kinds that extend the context).

The overhead constants (non-torch memory, the sampler's fixed scratch, the CUDA graph pool) were
set against H100 start-ups of vLLM 0.19.0; they are per-process figures, not per-model ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple, TypedDict

VLLM_VERSION = "0.19.0"
GIB = 1 << 30
BLOCK_SIZE = 16  # vLLM's default KV cache block (tokens)
VOCAB_PADDING = 64  # vLLM pads embedding and lm_head rows to a multiple of 64
DEFAULT_GPU_MEMORY_UTILIZATION = 0.9
LARGE_GPU_GIB = 70  # from this size on vLLM picks the larger scheduler defaults
DEFAULT_BATCHED_TOKENS = {True: 8192, False: 2048}  # keyed by "GPU has >= 70 GiB"
DEFAULT_MAX_NUM_SEQS = {True: 1024, False: 256}

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
DTYPE_NAMES = {"bf16": "bfloat16", "fp16": "float16", "half": "float16", "fp32": "float32", "float": "float32"}
KV_DTYPE_BYTES = {
    "fp8": 1,
    "fp8_e4m3": 1,
    "fp8_e5m2": 1,
    "fp8_inc": 1,
    "bfloat16": 2,
    "float16": 2,
}

# Per-model_type defaults of transformers that configs leave out.
TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3", "gemma3_text", "gpt2", "gpt_bigcode", "cohere", "cohere2", "opt", "bloom"})
TWO_MATRIX_MLP = frozenset(
    {"gpt2", "gpt_bigcode", "gpt_neox", "gptj", "gpt_neo", "opt", "bloom", "falcon", "mpt", "phi", "starcoder2", "codegen"}
)
LEARNED_POSITIONS = frozenset({"gpt2", "gpt_bigcode", "opt", "gpt_neo"})
NO_ROTARY = LEARNED_POSITIONS | {"bloom", "mpt"}
QKV_BIAS_BY_DEFAULT = frozenset({"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl"})
SLIDING_OPT_IN = frozenset({"qwen2", "qwen2_moe", "qwen3", "qwen3_moe", "qwen2_vl", "qwen2_5_vl"})
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
}

BIG = 1 << 40
INT_FACTS: dict[str, tuple[int, int]] = {  # key: (lowest, highest)
    "num_hidden_layers": (1, 4096),
    "num_attention_heads": (1, 65536),
    "num_key_value_heads": (1, 65536),
    "head_dim": (1, 65536),
    "hidden_size": (1, 1 << 20),
    "intermediate_size": (1, 1 << 24),
    "intermediate_size_mlp": (1, 1 << 24),
    "vocab_size": (1, 1 << 26),
    "max_position_embeddings": (1, 1 << 34),
    "n_routed_experts": (1, 1 << 20),
    "num_experts": (1, 1 << 20),
    "num_local_experts": (1, 1 << 20),
    "num_experts_per_tok": (1, 1 << 20),
    "moe_intermediate_size": (1, 1 << 24),
    "shared_expert_intermediate_size": (0, 1 << 24),
    "n_shared_experts": (0, 1 << 20),
    "first_k_dense_replace": (0, 4096),
    "moe_layer_freq": (1, 4096),
    "decoder_sparse_step": (1, 4096),
    "interleave_moe_layer_step": (1, 4096),
    "kv_lora_rank": (1, 1 << 20),
    "q_lora_rank": (1, 1 << 20),
    "qk_rope_head_dim": (1, 1 << 20),
    "qk_nope_head_dim": (0, 1 << 20),
    "v_head_dim": (1, 1 << 20),
    "sliding_window": (1, 1 << 34),
    "sliding_window_pattern": (1, 4096),
    "max_window_layers": (0, 4096),
    "attention_chunk_size": (1, 1 << 34),
}
BOOL_FACTS = ("tie_word_embeddings", "use_sliding_window", "attention_bias", "multi_query")
STR_FACTS = ("model_type", "torch_dtype")
LAYER_TYPES = {"full_attention": "full", "sliding_attention": "sliding", "chunked_attention": "chunked"}


class ArchitectureError(ValueError):
    """A bad architecture fact: ``field`` is its dotted path, ``message`` what is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


class SettingsError(ArchitectureError):
    """A bad serving setting (``field`` is the setting's name)."""


class Finding(NamedTuple):
    """One sharding rule broken: a stable rule id and a message with the numbers."""

    rule: str
    message: str


class Settings(TypedDict, total=False):
    """Serving settings; every key is optional except ``gpu_memory_gib``."""

    tp: int
    pp: int
    dp: int
    expert_parallel: bool
    gpus: int | None  # GPUs the serving strategy uses (for the TP×PP×DP rule)
    dtype: str  # "auto" or a torch dtype name
    kv_cache_dtype: str  # "auto", "fp8", ...
    weight_bits: int | None  # bits of the linear weights (quantized checkpoints)
    gpu_memory_gib: float  # total memory of one GPU as CUDA reports it
    gpu_memory_utilization: float
    max_model_len: int | None
    max_num_batched_tokens: int | None
    max_num_seqs: int | None


class ResolvedSettings(TypedDict):
    """The settings with vLLM's defaults filled in."""

    tp: int
    pp: int
    dp: int
    expert_parallel: bool
    gpus: int | None
    dtype: str
    kv_cache_dtype: str
    weight_bits: int | None
    gpu_memory_gib: float
    gpu_memory_utilization: float
    max_model_len: int
    max_num_batched_tokens: int
    max_num_seqs: int
    block_size: int


class StageEstimate(TypedDict):
    """One pipeline stage (one GPU of it)."""

    stage: int
    layers: int
    weights_gib: float
    activation_peak_gib: float
    non_torch_gib: float
    non_kv_gib: float
    available_kv_gib: float
    kv_bytes_per_token: int
    kv_blocks: int
    kv_tokens: int
    max_concurrency: float
    one_request_kv_gib: float
    cuda_graph_gib: float


Verdict = Literal["fits", "tight", "wont_start"]


class MemoryEstimate(TypedDict):
    """The estimate for one GPU (the binding pipeline stage when there are several)."""

    vllm_version: str
    model_type: str
    params_total: int
    params_per_gpu: int
    weights_gib: float
    kv_bytes_per_token: int
    available_kv_gib: float
    kv_tokens: int
    max_concurrency: float
    requested_gib: float  # gpu_memory_utilization × total
    non_kv_gib: float
    activation_peak_gib: float
    non_torch_gib: float
    cuda_graph_gib: float
    non_kv_parts: list[str]  # the keys above that make up non_kv_gib
    settings: ResolvedSettings
    stages: list[StageEstimate]
    findings: list[Finding]
    verdict: Verdict
    reason: str


# ── reading the architecture ──────────────────────────────────────────────


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"number {value}" if value.bit_length() <= 64 else "a number too large"
    if isinstance(value, float):
        return f"number {value}" if math.isfinite(value) else "a non-finite number"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def check_int(value: Any, field: str, low: int, high: int, error: type[ArchitectureError] = ArchitectureError) -> int:
    """``value`` as an int from ``low`` to ``high``; raises ``error`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(field, f"expected an integer, got {_describe(value)}")
    if not low <= value <= high:
        shown = f"{value:,}" if value.bit_length() <= 64 else "a number too large"
        raise error(field, f"must be from {low:,} to {high:,}, got {shown}")
    return value


def check_number(
    value: Any, field: str, low: float, high: float, error: type[ArchitectureError] = ArchitectureError
) -> float:
    """``value`` as a finite number with ``low < value <= high``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise error(field, f"expected a number, got {_describe(value)}")
    if (isinstance(value, int) and value.bit_length() > 64) or not math.isfinite(value):
        raise error(field, f"must be a number above {low:g} and at most {high:g}, got {_describe(value)}")
    if not low < value <= high:
        raise error(field, f"must be above {low:g} and at most {high:g}, got {value:g}")
    return float(value)


def _text_part(config: Mapping[str, Any]) -> dict[str, Any]:
    """The language model's keys: ``text_config`` over the top level, aliases resolved."""
    if not isinstance(config, Mapping):
        raise ArchitectureError("", f"expected a mapping, got {_describe(config)}")
    merged = {k: v for k, v in config.items() if k != "text_config"}
    text = config.get("text_config")
    if text is not None:
        if not isinstance(text, Mapping):
            raise ArchitectureError("text_config", f"expected a mapping, got {_describe(text)}")
        merged.update(text)
    for alias, name in ALIASES.items():
        if alias in merged and merged.get(name) is None:
            merged[name] = merged[alias]
    return merged


def _quantization_facts(raw: Any) -> dict[str, Any]:
    """``quantization_config`` reduced to quant_method, bits, weight_type, group_size, weight_block_size."""
    if raw is None:
        return {}
    path = "quantization_config"
    if not isinstance(raw, Mapping):
        raise ArchitectureError(path, f"expected a mapping, got {_describe(raw)}")
    method = raw.get("quant_method", raw.get("quant_algo"))
    if method is not None and (not isinstance(method, str) or not 0 < len(method) <= 64):
        raise ArchitectureError(f"{path}.quant_method", f"expected a short string, got {_describe(method)}")
    method = (method or "").lower()
    scheme: Mapping[str, Any] = raw
    where = path
    groups = raw.get("config_groups")
    if isinstance(groups, Mapping):  # compressed-tensors: the first group's weight scheme
        for name, group in groups.items():
            weights = group.get("weights") if isinstance(group, Mapping) else None
            if isinstance(weights, Mapping):
                scheme, where = weights, f"{path}.config_groups.{name}.weights"
                break
    bits = scheme.get("bits", scheme.get("w_bit", scheme.get("num_bits")))
    group = scheme.get("group_size", scheme.get("q_group_size"))
    block = scheme.get("weight_block_size")
    if scheme.get("strategy") == "block":
        block = scheme.get("block_structure", block)
    kind = scheme.get("type")
    if "fp8" in method:
        bits, kind = bits or 8, "float"
    elif "fp4" in method:
        bits, kind = bits or 4, "float"
    elif method in ("gptq", "awq", "awq_marlin", "gptq_marlin"):
        kind = "int"
    elif method == "bitsandbytes" and bits is None:
        bits = 4 if raw.get("load_in_4bit") is True else 8
    facts: dict[str, Any] = {"quant_method": method} if method else {}
    if bits is not None:
        facts["bits"] = check_int(bits, f"{where}.num_bits" if where != path else f"{path}.bits", 1, 32)
    if kind in ("float", "int"):
        facts["weight_type"] = kind
    if group is not None and group != -1:
        facts["group_size"] = check_int(group, f"{where}.group_size", 1, 1 << 20)
    if block is not None:
        if not isinstance(block, list) or len(block) != 2:
            message = f"expected a list of two integers, got {_describe(block)}"
            raise ArchitectureError(f"{where}.weight_block_size", message)
        facts["weight_block_size"] = [
            check_int(b, f"{where}.weight_block_size[{i}]", 1, 1 << 20) for i, b in enumerate(block)
        ]
    return facts


def _rope_facts(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ArchitectureError("rope_scaling", f"expected a mapping, got {_describe(raw)}")
    facts: dict[str, Any] = {}
    kind = raw.get("rope_type", raw.get("type"))
    if kind is not None:
        if not isinstance(kind, str) or len(kind) > 64:
            raise ArchitectureError("rope_scaling.rope_type", f"expected a short string, got {_describe(kind)}")
        facts["rope_type"] = kind
    if raw.get("factor") is not None:
        facts["factor"] = check_number(raw["factor"], "rope_scaling.factor", 0, 1 << 20)
    if raw.get("original_max_position_embeddings") is not None:
        facts["original_max_position_embeddings"] = check_int(
            raw["original_max_position_embeddings"], "rope_scaling.original_max_position_embeddings", 1, 1 << 34
        )
    return facts


def _vision_facts(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ArchitectureError("vision_config", f"expected a mapping, got {_describe(raw)}")
    facts: dict[str, Any] = {}
    for key, aliases in (
        ("hidden_size", ("hidden_size", "embed_dim", "width")),
        ("num_hidden_layers", ("num_hidden_layers", "depth", "layers")),
        ("intermediate_size", ("intermediate_size",)),
    ):
        for alias in aliases:
            value = raw.get(alias)
            if value is not None and not isinstance(value, Mapping | list):
                facts[key] = check_int(value, f"vision_config.{alias}", 1, 1 << 20)
                break
    return facts if "hidden_size" in facts and "num_hidden_layers" in facts else {}


def _int_list(raw: Any, field: str, low: int, high: int) -> list[int]:
    if not isinstance(raw, list) or len(raw) > 4096:
        raise ArchitectureError(field, f"expected a list of at most 4,096 integers, got {_describe(raw)}")
    return [check_int(v, f"{field}[{i}]", low, high) for i, v in enumerate(raw)]


def architecture_facts(config: Mapping[str, Any]) -> dict[str, Any]:
    """The facts this model reads from a ``config.json``, checked and under their canonical names.

    Multimodal configs contribute their ``text_config`` (over the top level) and a reduced
    ``vision_config``; ``quantization_config`` and ``rope_scaling`` are reduced to the keys used.
    The result is what ``import-config`` writes into a recipe. Raises :class:`ArchitectureError`.
    """
    merged = _text_part(config)
    facts: dict[str, Any] = {}
    for key in STR_FACTS:
        value = merged.get(key)
        if value is not None:
            if not isinstance(value, str) or not 0 < len(value) <= 64:
                raise ArchitectureError(key, f"expected a short string, got {_describe(value)}")
            facts[key] = value
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
        facts["partial_rotary_factor"] = check_number(merged["partial_rotary_factor"], "partial_rotary_factor", 0, 1)
    if merged.get("layer_types") is not None:
        types = merged["layer_types"]
        if not isinstance(types, list) or len(types) > 4096:
            raise ArchitectureError("layer_types", f"expected a list of at most 4,096 strings, got {_describe(types)}")
        for i, kind in enumerate(types):
            if not isinstance(kind, str) or kind not in LAYER_TYPES:
                shown = repr(kind[:40]) if isinstance(kind, str) else _describe(kind)
                raise ArchitectureError(
                    f"layer_types[{i}]",
                    f"unsupported layer type {shown}: expected one of {', '.join(LAYER_TYPES)}",
                )
        facts["layer_types"] = list(types)
    for key, high in (("mlp_only_layers", 4095), ("no_rope_layers", 1)):
        if merged.get(key) is not None:
            facts[key] = _int_list(merged[key], key, 0, high)
    for key, reader in (
        ("rope_scaling", _rope_facts),
        ("quantization_config", _quantization_facts),
        ("vision_config", _vision_facts),
    ):
        reduced = reader(merged.get(key))
        if reduced:
            facts[key] = reduced
    for key in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size"):
        if key not in facts:
            raise ArchitectureError(key, "missing: the memory model needs it")
    return facts


@dataclass(frozen=True)
class Layer:
    """One decoder layer: its attention kind (and window) and whether its MLP is a MoE."""

    attention: str  # "full", "sliding", "chunked" or "mla"
    window: int  # sliding window or attention chunk (tokens); 0 for full and mla
    moe: bool


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
    vision_params: int


def _attention_kinds(facts: dict[str, Any], model_type: str, count: int, mla: bool) -> list[tuple[str, int]]:
    """(kind, window) of every layer."""
    if mla:
        return [("mla", 0)] * count
    window = facts.get("sliding_window")
    chunk = facts.get("attention_chunk_size")
    types = facts.get("layer_types")
    if types is not None:
        if len(types) != count:
            raise ArchitectureError("layer_types", f"has {len(types)} entries for {count} layers")
        kinds = []
        for i, name in enumerate(types):
            kind = LAYER_TYPES[name]
            size = {"full": 0, "sliding": window, "chunked": chunk}[kind]
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
    moe_flags = _moe_layers(facts, count, experts)
    kinds = _attention_kinds(facts, model_type, count, mla)
    layers = tuple(Layer(kind, window, moe) for (kind, window), moe in zip(kinds, moe_flags, strict=True))
    gated = model_type not in TWO_MATRIX_MLP
    if model_type == "llama4":
        dense = facts.get("intermediate_size_mlp", facts.get("intermediate_size", 0))
    else:
        dense = facts.get("intermediate_size", 0 if gated else 4 * hidden)
    if not dense and not all(moe_flags):
        raise ArchitectureError("intermediate_size", "missing: the dense MLP layers need it")
    expert_key = "moe_intermediate_size" if "moe_intermediate_size" in facts else "intermediate_size"
    expert_inter = facts.get(expert_key, 0) if experts else 0
    if experts and not expert_inter:
        raise ArchitectureError("moe_intermediate_size", "missing: the experts need it")
    shared = facts.get("shared_expert_intermediate_size", 0) or facts.get("n_shared_experts", 0) * expert_inter
    if model_type == "llama4" and experts:
        shared = shared or expert_inter
    if mla:
        for key in ("qk_rope_head_dim", "v_head_dim"):
            if key not in facts:
                raise ArchitectureError(key, "missing: multi-head latent attention needs it")
    rope_dim = facts.get("qk_rope_head_dim", 0) if mla else int(head_dim * facts.get("partial_rotary_factor", 1.0))
    quant = facts.get("quantization_config", {})
    block = quant.get("weight_block_size")
    vision = facts.get("vision_config", {})
    vision_params = 0
    if vision:
        v_hidden = vision["hidden_size"]
        v_inter = vision.get("intermediate_size", 4 * v_hidden)
        vision_params = vision["num_hidden_layers"] * (4 * v_hidden * v_hidden + 2 * v_hidden * v_inter) + v_hidden * hidden
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
        norms_per_layer=4 if model_type in FOUR_NORMS else 2,
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
        rotary_positions=facts.get("max_position_embeddings", 0),
        learned_positions=facts.get("max_position_embeddings", 0) if model_type in LEARNED_POSITIONS else 0,
        max_len=_max_len(facts),
        torch_dtype=facts.get("torch_dtype", "bfloat16"),
        quant_method=quant.get("quant_method", ""),
        quant_float=quant.get("weight_type", "float" if quant.get("bits") == 8 else "int") == "float",
        quant_bits=quant.get("bits"),
        quant_group=quant.get("group_size"),
        quant_block=(block[0], block[1]) if block else None,
        vision_params=vision_params,
    )


# ── settings ──────────────────────────────────────────────────────────────


def _model_dtype(requested: str, arch: Arch) -> str:
    """vLLM's dtype: "auto" takes the checkpoint's, with float32 checkpoints served in bfloat16."""
    if requested == "auto":
        name = DTYPE_NAMES.get(arch.torch_dtype, arch.torch_dtype)
        return "bfloat16" if name not in DTYPE_BYTES or name == "float32" else name
    return DTYPE_NAMES.get(requested, requested)


def resolve_settings(arch: Arch, settings: Mapping[str, Any]) -> ResolvedSettings:
    """Check the settings and fill in vLLM 0.19's defaults; raises :class:`SettingsError`."""
    if not isinstance(settings, Mapping):
        raise SettingsError("", f"expected a mapping, got {_describe(settings)}")

    def optional(key: str, low: int, high: int, default: int | None) -> int | None:
        value = settings.get(key)
        return default if value is None else check_int(value, key, low, high, SettingsError)

    def number_of(key: str, low: int, high: int, default: int) -> int:
        value = optional(key, low, high, default)
        return default if value is None else value

    if settings.get("gpu_memory_gib") is None:
        raise SettingsError("gpu_memory_gib", "missing: the memory of one GPU is needed")
    total = check_number(settings["gpu_memory_gib"], "gpu_memory_gib", 0, 1 << 20, SettingsError)
    utilization = settings.get("gpu_memory_utilization")
    utilization = (
        DEFAULT_GPU_MEMORY_UTILIZATION
        if utilization is None
        else check_number(utilization, "gpu_memory_utilization", 0, 1, SettingsError)
    )
    dtype = settings.get("dtype") or "auto"
    if not isinstance(dtype, str) or dtype != "auto" and dtype not in DTYPE_BYTES:
        raise SettingsError("dtype", f"unknown dtype {_describe(dtype)}: expected auto or one of {', '.join(DTYPE_BYTES)}")
    kv_dtype = settings.get("kv_cache_dtype") or "auto"
    if not isinstance(kv_dtype, str) or kv_dtype != "auto" and kv_dtype not in KV_DTYPE_BYTES:
        raise SettingsError(
            "kv_cache_dtype", f"unknown KV cache dtype {_describe(kv_dtype)}: expected auto or one of {', '.join(KV_DTYPE_BYTES)}"
        )
    expert_parallel = settings.get("expert_parallel", False)
    if not isinstance(expert_parallel, bool):
        raise SettingsError("expert_parallel", f"expected true or false, got {_describe(expert_parallel)}")
    large = total >= LARGE_GPU_GIB
    max_len = optional("max_model_len", 1, 1 << 34, arch.max_len or None)
    if max_len is None:
        raise SettingsError("max_model_len", "missing: the config has no max_position_embeddings to default to")
    return ResolvedSettings(
        tp=number_of("tp", 1, 1024, 1),
        pp=number_of("pp", 1, 1024, 1),
        dp=number_of("dp", 1, 1 << 16, 1),
        expert_parallel=expert_parallel,
        gpus=optional("gpus", 1, 1 << 20, None),
        dtype=_model_dtype(dtype, arch),
        kv_cache_dtype=kv_dtype,
        weight_bits=optional("weight_bits", 1, 32, arch.quant_bits),
        gpu_memory_gib=total,
        gpu_memory_utilization=utilization,
        max_model_len=max_len,
        max_num_batched_tokens=number_of("max_num_batched_tokens", 1, 1 << 34, DEFAULT_BATCHED_TOKENS[large]),
        max_num_seqs=number_of("max_num_seqs", 1, 1 << 20, DEFAULT_MAX_NUM_SEQS[large]),
        block_size=BLOCK_SIZE,
    )


# ── sharding rules ────────────────────────────────────────────────────────

FATAL_RULES = frozenset({"attention-heads-tp", "kv-heads-tp", "quant-block-tp", "layers-pp"})


def _block_finding(key: str, size: int, tp: int, block: int, what: str) -> Finding | None:
    if size % tp == 0 and (size // tp) % block == 0:
        return None
    shard = f"{size // tp}" if size % tp == 0 else f"{size / tp:.2f}"
    return Finding(
        "quant-block-tp",
        f"{key} {size} / tensor parallel size {tp} = {shard} per GPU is not a multiple of the {what} {block}: "
        "vLLM cannot shard the quantized weights",
    )


def _findings(arch: Arch, s: ResolvedSettings) -> list[Finding]:
    tp, pp, dp = s["tp"], s["pp"], s["dp"]
    found: list[Finding] = []
    if arch.heads % tp:
        found.append(
            Finding(
                "attention-heads-tp",
                f"Total number of attention heads ({arch.heads}) must be divisible by tensor parallel size ({tp}).",
            )
        )
    if not arch.mla and arch.kv_heads % tp and tp % arch.kv_heads:
        found.append(
            Finding(
                "kv-heads-tp",
                f"num_key_value_heads {arch.kv_heads} and tensor parallel size {tp} do not divide one another: "
                "the KV heads can be neither split nor replicated evenly",
            )
        )
    block_size = 0
    what = ""
    bits = s["weight_bits"] or arch.quant_bits or 8
    if arch.quant_block:
        block_size = arch.quant_block[0]
        what = f"{'FP' if arch.quant_float else 'INT'}{bits} weight block size"
    elif arch.quant_group and bits < 8:
        block_size, what = arch.quant_group, f"INT{bits} quantization group size"
    if block_size:
        checks: list[tuple[str, int, int]] = []
        if any(not layer.moe for layer in arch.layers):
            checks.append(("intermediate_size", arch.dense_intermediate, tp))
        if arch.experts:
            checks.append((arch.expert_intermediate_key, arch.expert_intermediate, 1 if s["expert_parallel"] else tp))
            if arch.shared_intermediate:
                checks.append(("shared expert intermediate size", arch.shared_intermediate, tp))
        for key, size, split in checks:
            finding = _block_finding(key, size, split, block_size, what)
            if finding:
                found.append(finding)
                break
    if arch.experts and s["expert_parallel"] and arch.experts % (tp * dp):
        found.append(
            Finding(
                "experts-ep",
                f"{arch.experts} routed experts are not divisible by the expert-parallel size {tp * dp} "
                f"(TP {tp} × DP {dp}): GPUs would hold unequal numbers of experts",
            )
        )
    if len(arch.layers) < pp:
        found.append(
            Finding(
                "layers-pp",
                f"{len(arch.layers)} layers cannot be split over {pp} pipeline stages: every stage needs at least one layer",
            )
        )
    if s["gpus"] is not None and tp * pp * dp != s["gpus"]:
        found.append(
            Finding(
                "gpus-strategy",
                f"tensor parallel {tp} × pipeline parallel {pp} × data parallel {dp} = {tp * pp * dp} GPUs, "
                f"but the strategy uses {s['gpus']}",
            )
        )
    return found


def sharding_findings(config: Mapping[str, Any], settings: Mapping[str, Any]) -> list[Finding]:
    """Every sharding rule the settings break for this architecture, as (rule id, message).

    Rules: ``attention-heads-tp``, ``kv-heads-tp``, ``quant-block-tp`` (block- or group-quantized
    checkpoints whose intermediate size per GPU is not a multiple of the block), ``experts-ep``,
    ``layers-pp``, ``gpus-strategy`` (only when ``settings["gpus"]`` is given). vLLM refuses to
    start on the first four (:data:`FATAL_RULES`).
    """
    arch = read_architecture(config)
    if not isinstance(settings, Mapping):
        raise SettingsError("", f"expected a mapping, got {_describe(settings)}")
    placeholders = {"gpu_memory_gib": 1, "max_model_len": 1}  # not used by the rules
    return _findings(arch, resolve_settings(arch, {**placeholders, **{k: v for k, v in settings.items() if v is not None}}))


# ── weights, KV cache and activations per stage ───────────────────────────


def pp_layer_counts(layers: int, pp: int) -> list[int]:
    """vLLM's default pipeline split: equal parts, the remainder on the stages before the last."""
    counts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        counts[-i] += 1
    return counts


def _split(size: int, parts: int) -> int:
    return -(-size // parts)


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


def _activation_peak(arch: Arch, layers: list[Layer], sh: _Sharding, s: ResolvedSettings, last: bool) -> float:
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


def _cuda_graph_bytes(layers: list[Layer]) -> float:
    weight = sum(1.5 if layer.moe else 1.0 for layer in layers)
    return (CUDA_GRAPH_BASE_GIB + CUDA_GRAPH_PER_LAYER_GIB * weight) * GIB


def _gib(value: float) -> float:
    return round(value / GIB, 3)


def estimate_memory(config: Mapping[str, Any], settings: Mapping[str, Any]) -> MemoryEstimate:
    """Weights, KV cache and verdict of a vLLM start-up, per GPU.

    Raises :class:`ArchitectureError` (or :class:`SettingsError`) for bad input.
    """
    arch = read_architecture(config)
    s = resolve_settings(arch, settings)
    findings = _findings(arch, s)
    tp, pp = s["tp"], s["pp"]
    total = s["gpu_memory_gib"] * GIB
    requested = s["gpu_memory_utilization"] * total
    kv_bytes = DTYPE_BYTES[s["dtype"]] if s["kv_cache_dtype"] == "auto" else KV_DTYPE_BYTES[s["kv_cache_dtype"]]
    per_layer = _kv_layer_bytes(arch, tp, kv_bytes)
    sh = _sharding(arch, s)
    non_torch = NON_TORCH_GIB * GIB + (TP_COMMUNICATOR_GIB * GIB if tp > 1 else 0)
    stages: list[StageEstimate] = []
    stage_layers = [layers for layers in _stage_layers(arch, pp) if layers] or [[]]
    params_per_gpu = 0
    for index, layers in enumerate(stage_layers):
        first, last = index == 0, index == len(stage_layers) - 1
        weights, params = _stage_weights(arch, layers, sh, s, first, last)
        params_per_gpu = max(params_per_gpu, params)
        peak = _activation_peak(arch, layers, sh, s, last)
        non_kv = weights + peak + non_torch
        available = requested - non_kv
        if layers:
            group_size, groups = _kv_groups(layers)
            n_groups = sum(groups.values())
            bytes_per_token = per_layer * group_size * n_groups
            blocks = max(0, int(available // (per_layer * group_size * BLOCK_SIZE)))
            per_request_blocks = 0
            for (kind, window), count in groups.items():
                tokens, extra = _tokens_needed(Layer(kind, window, False), s["max_model_len"], s["max_num_batched_tokens"])
                per_request_blocks += count * (_split(tokens, BLOCK_SIZE) + extra)
            kv_tokens = blocks // n_groups * BLOCK_SIZE
            concurrency = blocks / per_request_blocks
            one_request = _request_bytes(arch, layers, per_layer, s["max_model_len"], s["max_num_batched_tokens"])
        else:
            bytes_per_token = blocks = kv_tokens = one_request = 0
            concurrency = 0.0
        stages.append(
            StageEstimate(
                stage=index,
                layers=len(layers),
                weights_gib=_gib(weights),
                activation_peak_gib=_gib(peak),
                non_torch_gib=_gib(non_torch),
                non_kv_gib=_gib(non_kv),
                available_kv_gib=_gib(available),
                kv_bytes_per_token=bytes_per_token,
                kv_blocks=blocks,
                kv_tokens=kv_tokens,
                max_concurrency=round(concurrency, 2),
                one_request_kv_gib=_gib(one_request),
                cuda_graph_gib=_gib(_cuda_graph_bytes(layers)),
            )
        )
    binding = min(stages, key=lambda stage: (stage["kv_blocks"], stage["available_kv_gib"]))
    heaviest = max(stages, key=lambda stage: stage["weights_gib"])
    total_params = _stage_weights(arch, list(arch.layers), _Sharding(1, arch.experts, 1), s, True, True)[1]
    verdict, reason = _verdict(arch, s, findings, list(zip(stages, stage_layers, strict=True)), binding, per_layer)
    return MemoryEstimate(
        vllm_version=VLLM_VERSION,
        model_type=arch.model_type,
        params_total=total_params,
        params_per_gpu=params_per_gpu,
        weights_gib=heaviest["weights_gib"],
        kv_bytes_per_token=binding["kv_bytes_per_token"],
        available_kv_gib=binding["available_kv_gib"],
        kv_tokens=binding["kv_tokens"],
        max_concurrency=min(stage["max_concurrency"] for stage in stages),
        requested_gib=_gib(requested),
        non_kv_gib=binding["non_kv_gib"],
        activation_peak_gib=binding["activation_peak_gib"],
        non_torch_gib=binding["non_torch_gib"],
        cuda_graph_gib=max(stage["cuda_graph_gib"] for stage in stages),
        non_kv_parts=["weights_gib", "activation_peak_gib", "non_torch_gib"],
        settings=s,
        stages=stages,
        findings=findings,
        verdict=verdict,
        reason=reason,
    )


def _verdict(
    arch: Arch,
    s: ResolvedSettings,
    findings: list[Finding],
    staged: list[tuple[StageEstimate, list[Layer]]],
    binding: StageEstimate,
    per_layer: int,
) -> tuple[Verdict, str]:
    """"fits", "tight" or "wont_start", and why (vLLM's reasons where it refuses)."""
    for finding in findings:
        if finding.rule in FATAL_RULES:
            return "wont_start", finding.message
    if arch.max_len and s["max_model_len"] > arch.max_len:
        return "wont_start", (
            f"max_model_len {s['max_model_len']} is greater than the model's maximum of {arch.max_len} positions "
            "(max_position_embeddings); vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
        )
    if s["max_num_batched_tokens"] < s["max_num_seqs"]:
        return "wont_start", (
            f"max_num_batched_tokens ({s['max_num_batched_tokens']}) must be greater than or equal to "
            f"max_num_seqs ({s['max_num_seqs']})"
        )
    stages = [stage for stage, _ in staged]
    heaviest = max(stages, key=lambda stage: stage["weights_gib"])
    total = s["gpu_memory_gib"]
    if heaviest["weights_gib"] > total:
        return "wont_start", (
            f"not enough memory for the weights: {heaviest['weights_gib']:.2f} GiB per GPU, more than the "
            f"GPU's {total:.2f} GiB (CUDA out of memory while loading the model)"
        )
    requested = s["gpu_memory_utilization"] * total
    for stage in stages:
        if stage["available_kv_gib"] <= 0 or stage["kv_blocks"] == 0:
            return "wont_start", (
                f"no room for the KV cache: weights {stage['weights_gib']:.2f} GiB + activation peak "
                f"{stage['activation_peak_gib']:.2f} GiB + non-torch {stage['non_torch_gib']:.2f} GiB = "
                f"{stage['non_kv_gib']:.2f} GiB leave nothing of gpu_memory_utilization "
                f"{s['gpu_memory_utilization']:g} × {total:.2f} GiB = {requested:.2f} GiB (vLLM: no available memory "
                "for the cache blocks; try increasing gpu_memory_utilization)"
            )
    for stage, layers in staged:
        if stage["one_request_kv_gib"] > stage["available_kv_gib"]:
            fits = _max_len_that_fits(arch, layers, per_layer, int(stage["available_kv_gib"] * GIB), s)
            return "wont_start", (
                f"max_model_len {s['max_model_len']} needs {stage['one_request_kv_gib']:.2f} GiB of KV cache for "
                f"one request, more than the {stage['available_kv_gib']:.2f} GiB available; the estimated maximum "
                f"model length is {fits} (decrease max_model_len or increase gpu_memory_utilization)"
            )
    concurrency = min(stage["max_concurrency"] for stage in stages)
    if concurrency < 2:
        return "tight", (
            f"only {concurrency:.2f} requests of max_model_len {s['max_model_len']} fit in the KV cache at once"
        )
    headroom = (1 - s["gpu_memory_utilization"]) * total
    graphs = max(stage["cuda_graph_gib"] for stage in stages)
    if graphs > headroom:
        return "tight", (
            f"CUDA graphs need about {graphs:.2f} GiB, more than the {headroom:.2f} GiB left outside "
            f"gpu_memory_utilization {s['gpu_memory_utilization']:g}; capture may run out of memory "
            "(lower gpu_memory_utilization or use --enforce-eager)"
        )
    return "fits", (
        f"{binding['kv_tokens']:,} tokens of KV cache: {concurrency:.2f} requests of "
        f"{s['max_model_len']:,} tokens at once"
    )


def visible_gib(vram_gb: float) -> float:
    """The memory CUDA reports for a GPU sold with ``vram_gb`` GB (an H100 80 GB shows 79.2 GiB)."""
    return round(vram_gb * VISIBLE_FRACTION, 2)
