"""Memory and sharding model of a vLLM start-up, as vLLM 0.19 accounts it (standard library only).

This module imports nothing from ``builder``: it is meant to live in the resolver package and
to run, unchanged, in the browser under Pyodide.

Inputs are an architecture mapping under Hugging Face ``config.json`` key names (multimodal
configs: the ``text_config`` part, with ``vision_config``/``audio_config`` counted as encoders;
speculative drafts' facts under ``drafts``) and serving settings. Everything is derived from the
architecture; nothing is looked up by model name. Beyond the language model, the weights count
the encoders (not with ``--language-model-only``), the speculative draft (MTP layers, EAGLE heads,
draft models; its KV cache joins the pool) and LoRA buffers; quantized formats count their scales
and the parts the checkpoint keeps unquantized. Each estimate lists what it counted and what not.

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

Hybrid models (Gated DeltaNet, Kimi Delta Attention, Mamba2 layers beside attention) keep a state
per sequence instead of a cache per token; vLLM's hybrid allocator raises the attention block until
one attention page holds a state page and pads the state page to it (``kv.hybrid_pool``). Sparse
attention (DSA) adds an indexer cache per token. Given the "Available KV cache memory" instead of the
GPU's (``kv_cache_gib``), the estimate gives the tokens and concurrency vLLM prints for that budget.

Defaults (``vllm serve`` 0.19 on one GPU): ``gpu_memory_utilization`` 0.9;
``max_num_batched_tokens`` 8192 and ``max_num_seqs`` 1024 on GPUs with at least 70 GiB, 2048 and
256 below (vLLM also applies the small values to A100s by name: pass them explicitly there);
``max_model_len`` the model's own maximum (``max_position_embeddings``, times the RoPE scaling
factor for scaling kinds that extend the context).

The overhead constants (non-torch memory, the sampler's fixed scratch, the CUDA graph pool) were
set against H100 start-ups of vLLM 0.19.0; they are per-process figures, not per-model ones.
"""

from __future__ import annotations

from .architecture import Arch, Layer, read_architecture
from .checks import check_int, check_number
from .constants import DTYPE_BYTES, INT_FACTS, KV_DTYPE_BYTES, VLLM_VERSION
from .estimate import estimate_memory, visible_gib
from .facts import architecture_facts, states_precision, with_quant_file
from .rendering import (
    Coverage,
    Memory,
    MemoryLine,
    import_command,
    memory_coverage,
    memory_fallback,
    memory_for_record,
    memory_summary,
)
from .settings import resolve_settings
from .sharding import FATAL_RULES, sharding_findings
from .types import (
    ArchitectureError,
    Finding,
    MemoryEstimate,
    ResolvedSettings,
    Settings,
    SettingsError,
    StageEstimate,
    Verdict,
)
from .weights import pp_layer_counts

__all__ = [
    "DTYPE_BYTES",
    "FATAL_RULES",
    "INT_FACTS",
    "KV_DTYPE_BYTES",
    "VLLM_VERSION",
    "Arch",
    "Coverage",
    "ArchitectureError",
    "Finding",
    "Layer",
    "Memory",
    "MemoryLine",
    "MemoryEstimate",
    "ResolvedSettings",
    "Settings",
    "SettingsError",
    "StageEstimate",
    "Verdict",
    "architecture_facts",
    "check_int",
    "check_number",
    "estimate_memory",
    "import_command",
    "memory_coverage",
    "memory_fallback",
    "memory_for_record",
    "memory_summary",
    "pp_layer_counts",
    "read_architecture",
    "resolve_settings",
    "sharding_findings",
    "states_precision",
    "visible_gib",
    "with_quant_file",
]
