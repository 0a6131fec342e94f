"""The real vLLM start-ups and the ``config.json`` facts of ``../shared/memory``, the multimodal and
speculative-decoding cases added to them, and running a command of the CLI the way the memory tests do."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, TypedDict

import pytest

from builder.cli.main import main
from tests.support.paths import SHARED

if TYPE_CHECKING:
    from builder.resolver.memory import MemoryEstimate

MEMORY = SHARED / "memory"
CASES: list[dict[str, Any]] = json.loads((MEMORY / "cases.json").read_text()) if MEMORY.is_dir() else []
CONFIG_NAMES = sorted(p.name for p in (MEMORY / "configs").glob("*.json")) if MEMORY.is_dir() else []
LLAMA = MEMORY / "configs" / "meta-llama__Llama-3.1-8B-Instruct.json"


# Multimodal: Gemma 3 with its SigLIP tower, against vLLM 0.19.0 start-ups on one H100.
# Source: llm-d-incubation/llm-d-planner (the same sweep as ../shared/memory/cases.json), commit d3121e05,
# accuracy/results/v0.19.0/logs/google-gemma-3-{4b,12b}-it--h100-80gb--tp1pp1dp1--8192.log; vLLM's own lines
# "Model loading took", "Available KV cache memory", "GPU KV cache size", "Maximum concurrency for 8,192
# tokens per request", with max_model_len 8192 and gpu_memory_utilization 0.95 ("Requested memory: 0.950000").
# The architecture facts are those of google/gemma-3-{4b,12b}-it's config.json (text_config, vision_config).
SIGLIP = {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304, "num_hidden_layers": 27,
          "patch_size": 14}


def gemma3(hidden: int, intermediate: int, layers: int, heads: int, kv_heads: int,
           head_dim: int = 256) -> dict[str, Any]:
    text = {"model_type": "gemma3_text", "hidden_size": hidden, "intermediate_size": intermediate,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv_heads,
            "head_dim": head_dim,
            "vocab_size": 262208, "sliding_window": 1024, "max_position_embeddings": 131072,
            "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    return {"model_type": "gemma3", "torch_dtype": "bfloat16", "text_config": text, "vision_config": SIGLIP}


GEMMA3 = {
    "google/gemma-3-4b-it": (gemma3(2560, 10240, 34, 8, 4),
                             {"model_loading_gib": 8.58, "available_kv_cache_gib": 62.51,
                              "kv_cache_tokens": 468144, "max_concurrency": 57.05}),
    "google/gemma-3-12b-it": (gemma3(3840, 15360, 48, 16, 8),
                              {"model_loading_gib": 23.31, "available_kv_cache_gib": 47.72,
                               "kv_cache_tokens": 130304, "max_concurrency": 15.88}),
}
MULTIMODAL_SETTINGS = {"gpu_memory_gib": 79.19, "gpu_memory_utilization": 0.95, "max_model_len": 8192}

# Speculative decoding.
# No published start-up log gives the memory of an EAGLE-3 head, so this case is checked against the
# parameters of RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3 counted by hand from its config.json
# (speculators format: one Llama decoder layer of width 4096, 32 heads, 8 KV heads, MLP 14336, a draft
# vocabulary of 32000): qkv reads the embeddings and the hidden state (2 × 4096 inputs), o_proj, the
# MLP, three norms, the fusion layer of three hidden states, its lm_head and final norm.
EAGLE3_REPO = "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3"
EAGLE3 = {"speculators_model_type": "eagle3", "draft_vocab_size": 32000,
          "transformer_layer_config": {"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336,
                                       "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                                       "num_hidden_layers": 1, "vocab_size": 128256,
                                       "max_position_embeddings": 131072}}
EAGLE3_PARAMS = ((8192 * 6144 + 4096 * 4096 + 3 * 4096 * 14336 + 3 * 4096) + 3 * 4096 * 4096 + 32000 * 4096
                 + 4096)


def config(name: str) -> dict[str, Any]:
    """One shared ``config.json`` by its file name."""
    loaded: dict[str, Any] = json.loads((MEMORY / "configs" / name).read_text())
    return loaded


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``python -m builder ARGV`` in this process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# Hybrid, sliding-window and sparse models: the public start-ups of ../shared/hybrid-logs and their configs.
HYBRID_LOGS = SHARED / "hybrid-logs"
HUB_CONFIGS = SHARED / "hub" / "configs"
HYBRID_CASES: list[dict[str, Any]] = (
    [json.loads(line) for line in (HYBRID_LOGS / "cases.jsonl").read_text().splitlines() if line.strip()]
    if HYBRID_LOGS.is_dir() else []
)
# Qwen/Qwen3-Next-80B-A3B-Instruct's config.json (the Hugging Face Hub; no copy in ../shared): the keys the
# model
# reads. Its start-up log confirms them: "Setting attention block size to 544 tokens" and "Padding mamba
# page size
# by 1.49%" follow from exactly these head counts and widths at TP 2.
QWEN3_NEXT = {"model_type": "qwen3_next", "torch_dtype": "bfloat16", "hidden_size": 2048,
              "num_hidden_layers": 48,
              "num_attention_heads": 16, "num_key_value_heads": 2, "head_dim": 256,
              "full_attention_interval": 4,
              "linear_num_key_heads": 16, "linear_num_value_heads": 32, "linear_key_head_dim": 128,
              "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4, "num_experts": 512,
              "num_experts_per_tok": 10,
              "moe_intermediate_size": 512, "shared_expert_intermediate_size": 512, "intermediate_size": 5120,
              "decoder_sparse_step": 1, "mlp_only_layers": [], "vocab_size": 151936,
              "max_position_embeddings": 262144, "tie_word_embeddings": False, "partial_rotary_factor": 0.25}


# google/gemma-3-27b-it's config.json (the Hugging Face Hub; no copy in ../shared): 62 layers, every sixth
# full
# attention, head_dim 128. Its ROCm start-up log confirms them: "Add 8 padding layers" (10 full, 52 sliding
# layers
# in groups of 10) and num_gpu_blocks 89,994 at 109.86 GiB (16 KV heads × 128 × 2 × 2 bytes × 10 layers a
# block).
GEMMA3_27B = gemma3(5376, 21504, 62, 32, 16, head_dim=128)
INLINE_CONFIGS = {"Qwen/Qwen3-Next-80B-A3B-Instruct": QWEN3_NEXT, "google/gemma-3-27b-it": GEMMA3_27B}


def hub_config(name: str) -> dict[str, Any]:
    """One ``../shared/hub/configs`` file by its stem, with its ``hf_quant_config.json`` precision when it has
    one."""
    from builder.resolver.memory import with_quant_file

    loaded: dict[str, Any] = json.loads((HUB_CONFIGS / f"{name}.json").read_text())
    quant = HUB_CONFIGS / f"{name}.hf_quant_config.json"
    return dict(with_quant_file(loaded, json.loads(quant.read_text()) if quant.is_file() else None))


# hybrid-logs case id -> the config it ran
HYBRID_CONFIGS: dict[str, str] = {
    "qwen3next-80b-bf16-tp2-h200-v0.10.2": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "qwen3next-80b-ct-wna16-tp2-l40s-v0.13.0": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "gemma-3-27b-it-rocm-v0.11.0rc2": "google/gemma-3-27b-it",
    "nemotron-cascade-2-30b-a3b-nvfp4-1gpu-v0.20.1": "nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4",
    "gpt-oss-120b-1gpu-kaggle-v0.11.2": "openai__gpt-oss-120b",
    "gpt-oss-120b-h100-fail-v0.10.x": "openai__gpt-oss-120b",
    "gpt-oss-120b-h100-v0.14.1-weights": "openai__gpt-oss-120b",
    "gpt-oss-120b-h100-util0.95-mnbt1024-fail": "openai__gpt-oss-120b",
    "gpt-oss-20b-a100-v0.19.0": "openai__gpt-oss-20b",
    "minimax-m2.7-awq-tp2-2xdgxspark-fail": "MiniMaxAI__MiniMax-M2.7",
}


# why the other cases cannot be checked
HYBRID_UNCHECKED = {
    "qwen3next-80b-autoround-int4-tp2ep": "no 'Available KV cache memory' line in the log",
    "qwen3.5-2b-bf16-24gb-v0.17.1": "no config of Qwen/Qwen3.5-2B at hand",
    "qwen3.6-27b-autoround-int4-tp2-3090-mtp3": "no 'Available KV cache memory' line in the log",
    "kimi-linear-48b-awq-tp2-3090": "no config of Kimi-Linear-48B-A3B at hand",
    "nemotron-3-nano-4b-fp8-gb10-v0.13.0nv": "no config of NVIDIA-Nemotron-3-Nano-4B at hand",
    "deepseek-v3-mi308-v1-early": "no 'Available KV cache memory' line, TP size unknown",
}


# logged weights that are not comparable with the config at hand
HYBRID_WEIGHTS_UNCHECKED = {
    "qwen3next-80b-ct-wna16-tp2-l40s-v0.13.0": "a compressed-tensors WNA16 checkpoint whose "
                                               "quantization_config is not at hand",
}


def hybrid_case_config(case_id: str) -> dict[str, Any]:
    """The architecture a hybrid-logs case ran."""
    name = HYBRID_CONFIGS[case_id]
    return json.loads(json.dumps(INLINE_CONFIGS[name])) if name in INLINE_CONFIGS else hub_config(name)


def hybrid_case_settings(case: dict[str, Any]) -> dict[str, Any]:
    """A hybrid-logs case's logged settings and KV budget as memory-model settings (None where not logged)."""
    version = (case.get("vllm_version") or "").split(" ")[0].split("+")[0] or None
    spec = case.get("speculative")
    return {"tp": case.get("tp"), "max_model_len": case.get("max_model_len"),
            "kv_cache_dtype": case.get("kv_cache_dtype"),
            "max_num_batched_tokens": case.get("max_num_batched_tokens"), "vllm_version": version,
            "kv_cache_gib": case["measured"]["available_kv_cache_gib"],
            "speculative": spec if isinstance(spec, dict) else None}


class HybridCheck(TypedDict):
    """One hybrid-logs case: the estimate given its logged budget and settings, beside the log."""

    id: str
    estimate: MemoryEstimate
    log: dict[str, Any]
    failed: bool  # the logged start-up failed


def hybrid_checks() -> list[HybridCheck]:
    """Every hybrid-logs case with a config and a logged "Available KV cache memory", estimated from them."""
    from builder.resolver.memory import estimate_memory

    checks: list[HybridCheck] = []
    for case in HYBRID_CASES:
        settings = hybrid_case_settings(case)
        if case["id"] in HYBRID_CONFIGS and settings["kv_cache_gib"] is not None:
            estimate = estimate_memory(hybrid_case_config(case["id"]), settings)
            failed = case["completeness"].startswith("failure case")
            checks.append(HybridCheck(id=case["id"], estimate=estimate, log=case["measured"], failed=failed))
    return checks
