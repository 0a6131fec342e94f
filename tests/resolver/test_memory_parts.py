"""What vLLM loads beyond the text model: encoders (against published start-ups), speculative drafts,
quantized formats, LoRA buffers and data parallelism; and the memory line saying what is counted."""

from __future__ import annotations

import json
from typing import Any

import pytest

from builder.resolver.memory import estimate_memory
from builder.resolver.memory.rendering import argv_settings, memory_for_record
from tests.support.memory_cases import EAGLE3, EAGLE3_PARAMS, EAGLE3_REPO, GEMMA3, MULTIMODAL_SETTINGS, config

GIB = 1 << 30
H100 = 79.19  # GiB, as vLLM reports an H100 80GB

# ── multimodal: Gemma 3 with its SigLIP tower (cases and their source in tests/support/memory_cases.py) ──
SETTINGS = MULTIMODAL_SETTINGS


@pytest.mark.parametrize("model", list(GEMMA3))
def test_multimodal_start_ups_within_the_tolerances_of_the_shared_cases(model: str) -> None:
    facts, measured = GEMMA3[model]
    e = estimate_memory(facts, SETTINGS)
    assert abs(e["weights_gib"] - measured["model_loading_gib"]) <= 0.07 * measured["model_loading_gib"]
    available = measured["available_kv_cache_gib"]
    assert abs(e["available_kv_gib"] - available) <= max(1.5, 0.10 * available)
    assert abs(e["max_concurrency"] - measured["max_concurrency"]) <= 0.10 * measured["max_concurrency"]
    assert abs(e["kv_tokens"] - measured["kv_cache_tokens"]) <= 0.02 * measured["kv_cache_tokens"]
    assert e["estimated"] == [f"vision encoder included ({e['parts']['encoder_gib']:.2f} GiB)"]
    siglip = 27 * 15_239_504 + 5_397_120 + 2 * 1152  # 27 blocks, patch and position embeddings, post-norm
    projector = 1152 * facts["text_config"]["hidden_size"]
    assert e["parts"]["encoder_gib"] == round((siglip + projector) * 2 / GIB, 3)


def test_the_vision_tower_is_what_closes_the_gap() -> None:
    facts, measured = GEMMA3["google/gemma-3-4b-it"]
    text_only = estimate_memory(facts, {**SETTINGS, "language_model_only": True})
    assert (abs(text_only["weights_gib"] - measured["model_loading_gib"])
            > 0.07 * measured["model_loading_gib"])
    assert text_only["estimated"] == ["no vision encoder (--language-model-only)"]
    assert "encoder_gib" not in text_only["parts"]


def test_qwen_vl_tower_counts_its_gated_mlp_and_merger() -> None:
    """Qwen2.5-VL-7B's tower, counted by hand from its module list (32 blocks, SiLU MLP, 2x2 merger)."""
    vision = {"depth": 32, "hidden_size": 1280, "intermediate_size": 3420, "hidden_act": "silu",
              "out_hidden_size": 3584,
              "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "in_chans": 3}
    text = {**config("Qwen__Qwen2.5-7B-Instruct.json"), "model_type": "qwen2_5_vl"}
    with_tower = estimate_memory({**text, "vision_config": vision},
                                 {"gpu_memory_gib": H100, "max_model_len": 8192})
    plain = estimate_memory(text, {"gpu_memory_gib": H100, "max_model_len": 8192})
    block = (1280 * 3840 + 3840) + (1280 * 1280 + 1280) + 3 * 1280 * 3420 + 2 * 3420 + 1280 + 4 * 1280
    merger = 1280 + 5120 * 5120 + 5120 + 5120 * 3584 + 3584
    assert with_tower["params_total"] - plain["params_total"] == 32 * block + 3 * 2 * 14 * 14 * 1280 + merger


@pytest.mark.parametrize(("flag", "value", "text_only"), [
    ("--language-model-only", None, True),
    ("--limit-mm-per-prompt", '{"image": 0, "video": 0}', True),
    ("--limit-mm-per-prompt", '{"image": 2}', False),
])
def test_argv_that_skips_the_encoder(flag: str, value: str | None, text_only: bool) -> None:
    argv = ["vllm", "serve", "m", flag] + ([value] if value else [])
    assert argv_settings(argv).get("language_model_only", False) is text_only


# ── speculative decoding (the EAGLE-3 case and why it is counted by hand: tests/support/memory_cases.py) ──
SPEC_ARGV = ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "8192",
             "--speculative-config",
             json.dumps({"model": EAGLE3_REPO, "method": "eagle3", "num_speculative_tokens": 3})]


def _memory(argv: list[str], facts: dict[str, Any]) -> Any:
    record = {"deploy_type": "single_node", "argv": argv}
    return memory_for_record(record, {"model": {"architecture_config": facts}}, {},
                             {"vram_gb": 80, "gpu_count": 1})


def test_an_eagle3_head_adds_its_weights_and_kv_cache() -> None:
    llama = config("meta-llama__Llama-3.1-8B-Instruct.json")
    plain = _memory(SPEC_ARGV[:5], llama)
    spec = _memory(SPEC_ARGV, {**llama, "drafts": {EAGLE3_REPO: EAGLE3}})
    assert EAGLE3_PARAMS == 424_689_664
    assert spec["parts"] == {"draft_gib": round(EAGLE3_PARAMS * 2 / GIB, 3)}
    assert spec["weights_gib"] == pytest.approx(plain["weights_gib"] + EAGLE3_PARAMS * 2 / GIB, abs=0.002)
    # one more layer's K and V
    assert spec["kv_bytes_per_token"] == plain["kv_bytes_per_token"] + 2 * 8 * 128 * 2
    assert spec["kv_tokens"] < plain["kv_tokens"] * 32 / 33 * 1.001
    assert spec["estimated"] == [f"eagle3 {EAGLE3_REPO} included (0.79 GiB, 4,096 KV bytes per token)"]
    assert spec["summary"].endswith(f"; eagle3 {EAGLE3_REPO} included (0.79 GiB, 4,096 KV bytes per token)")


def test_a_draft_without_facts_is_named_not_estimated() -> None:
    memory = _memory(SPEC_ARGV, config("meta-llama__Llama-3.1-8B-Instruct.json"))
    assert memory["not_estimated"] == [f"eagle3 {EAGLE3_REPO} not estimated: no config"]
    assert (memory["parts"] == {}
            and memory["summary"].endswith(f"; eagle3 {EAGLE3_REPO} not estimated: no config"))
    ngram = _memory(
        SPEC_ARGV[:5] + ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 4}'],
        config("meta-llama__Llama-3.1-8B-Instruct.json"))
    assert ngram["estimated"] == ["ngram lookup (no draft weights) included (0.00 GiB)"]


def test_mtp_layers_are_one_more_decoder_layer_each() -> None:
    deepseek = config("deepseek-ai__DeepSeek-V2-Lite-Chat.json")
    settings = {"gpu_memory_gib": H100, "max_model_len": 8192}
    mtp = estimate_memory({**deepseek, "num_nextn_predict_layers": 1},
                          {**settings, "speculative": {"method": "mtp", "num_speculative_tokens": 1}})
    one_layer = (estimate_memory({**deepseek, "num_hidden_layers": 28}, settings)["params_total"]
                 - estimate_memory(deepseek, settings)["params_total"])
    h = 2048
    assert mtp["parts"]["draft_gib"] == round((one_layer + 2 * h * h + 3 * h) * 2 / GIB, 3)
    assert mtp["draft_kv_bytes_per_token"] == (512 + 64) * 2  # one more latent cache layer
    assert mtp["estimated"][0].startswith("1 MTP layer included (")
    without = estimate_memory(deepseek, {**settings, "speculative": {"method": "mtp"}})
    assert (without["not_estimated"]
            == ["multi-token prediction not estimated: the config declares no num_nextn_predict_layers"])


# ── quantized checkpoints: bytes per linear weight with their scales ──
LLAMA_LINEAR = 32 * (4096 * 6144 + 4096 * 4096 + 3 * 4096 * 14336)  # attention and MLP of Llama 3.1 8B
LLAMA_ATTENTION = 32 * (4096 * 6144 + 4096 * 4096)


@pytest.mark.parametrize(("quantization", "linear_bytes", "attention_bytes"), [
    ({"quant_method": "fp8", "activation_scheme": "dynamic"}, 1, 1),
    ({"quant_method": "fp8", "weight_block_size": [128, 128]}, 1 + 4 / 128 / 128, 1 + 4 / 128 / 128),
    ({"quant_method": "modelopt", "quant_algo": "NVFP4", "group_size": 16,
      "exclude_modules": ["lm_head", "model.layers.*.self_attn*"]}, 0.5 + 1 / 16, 2),
    ({"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "lm_head"]},
     0.5 + 1 / 32, 2),
    ({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True}, 0.5 + 2 / 128 + 0.5 / 128,
     0.5 + 2 / 128 + 0.5 / 128),
    ({"quant_method": "compressed-tensors", "format": "int-quantized", "ignore": ["lm_head"],
      "config_groups": {
          "group_0": {"weights": {"num_bits": 8, "type": "int", "strategy": "channel", "symmetric": True},
                      "targets": ["Linear"]}}}, 1, 1),
    ({"quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
      "config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16}}}},
     0.5 + 1 / 16, 0.5 + 1 / 16),
])
def test_quantized_formats(quantization: dict[str, Any], linear_bytes: float, attention_bytes: float) -> None:
    llama = config("meta-llama__Llama-3.1-8B-Instruct.json")
    settings = {"gpu_memory_gib": H100, "max_model_len": 8192}
    bf16 = estimate_memory(llama, settings)["weights_gib"]
    quantized = estimate_memory({**llama, "quantization_config": quantization}, settings)["weights_gib"]
    mlp = LLAMA_LINEAR - LLAMA_ATTENTION
    expected = bf16 * GIB - 2 * LLAMA_LINEAR + mlp * linear_bytes + LLAMA_ATTENTION * attention_bytes
    assert quantized == pytest.approx(expected / GIB, abs=0.002)


# ── LoRA and data parallelism ──


def test_lora_buffers_and_data_parallel_replicas() -> None:
    llama = config("meta-llama__Llama-3.1-8B-Instruct.json")
    argv = ["vllm", "serve", "m", "--max-model-len", "8192"]
    plain = _memory(argv, llama)
    lora = _memory(argv + ["--enable-lora", "--max-loras", "4", "--max-lora-rank", "64"], llama)
    # A and B of qkv, o, gate_up, down
    per_layer = (4096 + 6144) + (4096 + 4096) + (4096 + 2 * 14336) + (14336 + 4096)
    assert lora["parts"] == {"lora_gib": round(32 * per_layer * 64 * 4 * 2 / GIB, 3)} == {"lora_gib": 1.062}
    assert lora["weights_gib"] == pytest.approx(plain["weights_gib"] + 1.0625, abs=0.002)
    assert lora["estimated"] == ["LoRA buffers included (4 × rank 64, 1.06 GiB)"]
    assert _memory(argv + ["--max-loras", "4"], llama) == plain  # without --enable-lora vLLM allocates none
    dp = memory_for_record({"deploy_type": "single_node", "argv": argv + ["-tp", "2", "-dp", "2"]},
                           {"model": {"architecture_config": llama}}, {}, {"vram_gb": 320, "gpu_count": 4})
    assert dp is not None and dp["estimated"] == ["per replica: DP 2 × TP 2 × PP 1 = 4 GPUs"]
