"""The real vLLM start-ups and the ``config.json`` facts of ``../shared/memory``, the multimodal and
speculative-decoding cases added to them, and running a command of the CLI the way the memory tests do."""

from __future__ import annotations

import json
from typing import Any

import pytest

from builder.cli.main import main
from tests.support.paths import SHARED

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
SIGLIP = {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304, "num_hidden_layers": 27, "patch_size": 14}


def gemma3(hidden: int, intermediate: int, layers: int, heads: int, kv_heads: int) -> dict[str, Any]:
    text = {"model_type": "gemma3_text", "hidden_size": hidden, "intermediate_size": intermediate,
            "num_hidden_layers": layers, "num_attention_heads": heads, "num_key_value_heads": kv_heads, "head_dim": 256,
            "vocab_size": 262208, "sliding_window": 1024, "max_position_embeddings": 131072,
            "rope_scaling": {"rope_type": "linear", "factor": 8.0}}
    return {"model_type": "gemma3", "torch_dtype": "bfloat16", "text_config": text, "vision_config": SIGLIP}


GEMMA3 = {
    "google/gemma-3-4b-it": (gemma3(2560, 10240, 34, 8, 4),
                             {"model_loading_gib": 8.58, "available_kv_cache_gib": 62.51, "kv_cache_tokens": 468144,
                              "max_concurrency": 57.05}),
    "google/gemma-3-12b-it": (gemma3(3840, 15360, 48, 16, 8),
                              {"model_loading_gib": 23.31, "available_kv_cache_gib": 47.72, "kv_cache_tokens": 130304,
                               "max_concurrency": 15.88}),
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
                                       "num_hidden_layers": 1, "vocab_size": 128256, "max_position_embeddings": 131072}}
EAGLE3_PARAMS = (8192 * 6144 + 4096 * 4096 + 3 * 4096 * 14336 + 3 * 4096) + 3 * 4096 * 4096 + 32000 * 4096 + 4096


def config(name: str) -> dict[str, Any]:
    """One shared ``config.json`` by its file name."""
    loaded: dict[str, Any] = json.loads((MEMORY / "configs" / name).read_text())
    return loaded


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``python -m builder ARGV`` in this process: (exit status, stdout, stderr)."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err
