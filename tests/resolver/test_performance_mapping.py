"""The mapping from a published command to the predictor's inputs: flags in, inputs out (no predictor
needed)."""

from __future__ import annotations

from typing import Any

import pytest

from builder.resolver.performance.mapping import ACCEPTANCE, predictor_inputs, record_inputs

# facts as `import-config` stores them (numbers from the models' config.json)
QWEN3_8B = {
    "source": {"repo": "Qwen/Qwen3-8B", "revision": "b968826d9c46dd6066d109eabc6255188de91218"},
    "model_type": "qwen3", "torch_dtype": "bfloat16", "num_hidden_layers": 36, "num_attention_heads": 32,
    "num_key_value_heads": 8, "head_dim": 128, "hidden_size": 4096, "intermediate_size": 12288,
    "vocab_size": 151936, "max_position_embeddings": 40960, "tie_word_embeddings": False,
}
QWEN3_30B_A3B = {
    "source": {"repo": "Qwen/Qwen3-30B-A3B"},
    "model_type": "qwen3_moe", "torch_dtype": "bfloat16", "num_hidden_layers": 48, "decoder_sparse_step": 1,
    "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "hidden_size": 2048,
    "num_experts": 128,
    "num_experts_per_tok": 8, "intermediate_size": 6144, "moe_intermediate_size": 768, "vocab_size": 151936,
    "max_position_embeddings": 40960, "tie_word_embeddings": False, "mlp_only_layers": [],
}
KIMI_K2 = {
    "model_type": "kimi_k2", "torch_dtype": "bfloat16", "num_hidden_layers": 61, "num_attention_heads": 64,
    "num_key_value_heads": 64, "hidden_size": 7168, "intermediate_size": 18432, "vocab_size": 163840,
    "max_position_embeddings": 262144, "n_routed_experts": 384, "num_experts_per_tok": 8,
    "moe_intermediate_size": 2048, "n_shared_experts": 1, "first_k_dense_replace": 1, "moe_layer_freq": 1,
    "kv_lora_rank": 512, "q_lora_rank": 1536, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
    "v_head_dim": 128, "tie_word_embeddings": False,
    "quantization_config": {"quant_method": "fp8", "bits": 8, "weight_type": "float",
                            "weight_block_size": [128, 128]},
}
NVFP4_30B = {**QWEN3_30B_A3B, "source": {"repo": "nvidia/Qwen3-30B-A3B-NVFP4", "revision": "a" * 40},
             "quantization_config": {"quant_method": "modelopt", "format": "nvfp4", "bits": 4}}
GLM_AIR = {**QWEN3_30B_A3B, "model_type": "glm4_moe", "source": {"repo": "zai-org/GLM-4.5-Air"}}

H100 = {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 640}
B200 = {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 1440}
H200 = {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 1128}
PRO6000 = {"brand": "NVIDIA", "gpu_count": 1, "vram_gb": 96}
PROFILES = {
    "h100": H100, "h200": H200, "b200": B200, "b300": {**B200, "vram_gb": 2144},
    "gb200": {**B200, "gpu_count": 4, "vram_gb": 768},
    "rtx_pro_6000": PRO6000, "mi355x": {"brand": "AMD", "gpu_count": 8, "vram_gb": 2304},
    "trillium": {"brand": "Google", "gpu_count": 8, "vram_gb": 256},
    "xeon6": {"brand": "Intel", "gpu_count": 4, "vram_gb": 1024},
    "rtx_5090": {"brand": "NVIDIA", "gpu_count": 1, "vram_gb": 32},
}
EAGLE3_GQA = '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3-GQA", "num_speculative_tokens": 3}'
EAGLE3_MHA = '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3", "num_speculative_tokens": 3}'


def recipe(facts: dict[str, Any] | None, model_id: str = "Qwen/Qwen3-8B") -> dict[str, Any]:
    model: dict[str, Any] = {"model_id": model_id}
    if facts is not None:
        model["architecture_config"] = facts
    return {"model": model}


BF16: dict[str, Any] = {"precision": "bf16"}
# (id, facts, variant, hardware, argv, expected inputs (a subset) or the reason)
CASES: list[tuple[str, dict[str, Any] | None, dict[str, Any], str, list[str], dict[str, Any] | str]] = [
    ("dense tp1 h100", QWEN3_8B, BF16, "h100", ["--tensor-parallel-size", "1"],
     {"model": "Qwen/Qwen3-8B", "revision": "b968826d9c46dd6066d109eabc6255188de91218", "system": "h100_sxm",
      "backend": "vllm", "tp": 1, "pp": 1, "attention_dp": 1, "moe_tp": 1, "moe_ep": 1,
      "gemm_quant": "bfloat16",
      "kv_cache_quant": "bfloat16", "nextn": 0, "nextn_accepted": 0.0, "acceptance_source": None,
      "max_num_seqs": 1024, "max_num_batched_tokens": 8192}),
    ("dense -tp alias", QWEN3_8B, BF16, "h200", ["-tp", "2"], {"system": "h200_sxm", "tp": 2}),
    ("dense tp=inline", QWEN3_8B, BF16, "b200", ["--tensor-parallel-size=4"],
     {"system": "b200_sxm", "tp": 4}),
    ("dense pp", QWEN3_8B, BF16, "h100", ["--tensor-parallel-size", "2", "--pipeline-parallel-size", "2"],
     {"tp": 2, "pp": 2}),
    ("online fp8", QWEN3_8B, {"precision": "fp8"}, "h100", ["--quantization", "fp8"],
     {"gemm_quant": "fp8", "moe_quant": "fp8"}),
    ("fp8 kv cache", QWEN3_8B, BF16, "h100", ["--kv-cache-dtype", "fp8"], {"kv_cache_quant": "fp8"}),
    ("fp8_e4m3 kv cache", QWEN3_8B, BF16, "b200", ["--kv-cache-dtype", "fp8_e4m3"],
     {"kv_cache_quant": "fp8"}),
    ("max-num-seqs cap", QWEN3_8B, BF16, "h100", ["--max-num-seqs", "64", "--max-num-batched-tokens", "4096"],
     {"max_num_seqs": 64, "max_num_batched_tokens": 4096}),
    ("small GPU defaults", QWEN3_8B, BF16, "rtx_pro_6000", [],
     {"system": "rtx_pro_6000_server", "max_num_seqs": 1024, "max_num_batched_tokens": 8192}),
    ("awq online", QWEN3_8B, BF16, "h100", ["--quantization", "awq"], {"gemm_quant": "int4_wo"}),
    ("moe tp", QWEN3_30B_A3B, BF16, "h100", ["--tensor-parallel-size", "2"],
     {"model": "Qwen/Qwen3-30B-A3B", "revision": None, "tp": 2, "moe_tp": 2, "moe_ep": 1}),
    ("moe tep", QWEN3_30B_A3B, BF16, "h200", ["--tensor-parallel-size", "4", "--enable-expert-parallel"],
     {"tp": 4, "attention_dp": 1, "moe_tp": 1, "moe_ep": 4}),
    ("moe dep", QWEN3_30B_A3B, BF16, "b200",
     ["--tensor-parallel-size", "1", "--data-parallel-size", "8", "--enable-expert-parallel"],
     {"tp": 1, "attention_dp": 8, "moe_tp": 1, "moe_ep": 8}),
    ("moe dp without ep", QWEN3_30B_A3B, BF16, "h100", ["--data-parallel-size", "2"],
     {"attention_dp": 2, "moe_tp": 2, "moe_ep": 1}),
    ("moe -ep alias", QWEN3_30B_A3B, BF16, "h100", ["-tp", "2", "-ep"], {"moe_tp": 1, "moe_ep": 2}),
    ("block fp8 checkpoint", KIMI_K2, {"precision": "fp8"}, "b300", ["--tensor-parallel-size", "8"],
     {"model": "moonshotai/Kimi-K2-Instruct-0905", "gemm_quant": "fp8_block", "moe_quant": "fp8_block",
      "moe_tp": 8}),
    ("nvfp4 on blackwell", None, {"precision": "nvfp4", "architecture_config": NVFP4_30B}, "b200", [],
     {"model": "nvidia/Qwen3-30B-A3B-NVFP4", "revision": "a" * 40, "gemm_quant": "nvfp4",
      "moe_quant": "nvfp4"}),
    ("nvfp4 on hopper", None, {"precision": "nvfp4", "architecture_config": NVFP4_30B}, "h100", [],
     {"gemm_quant": "nvfp4_wo", "moe_quant": "nvfp4_wo"}),
    ("eagle3 gqa draft", QWEN3_8B, BF16, "h200", ["--speculative-config", EAGLE3_GQA],
     {"nextn": 3, "nextn_accepted": 1.78,
      "acceptance_source": ACCEPTANCE["Inferact/MiniMax-M3-EAGLE3-GQA"]["source"]}),
    ("too big for the node", KIMI_K2, {"precision": "fp8"}, "h100", ["--tensor-parallel-size", "8"],
     "the memory model says this command won't start: not enough memory for the weights: "
     "120.98 GiB per GPU…"),
    ("bf16 sibling of quantized facts", NVFP4_30B, {"precision": "bf16", "model_id": "Qwen/Qwen3-30B-A3B"},
     "h100", [], {"model": "nvidia/Qwen3-30B-A3B-NVFP4", "gemm_quant": "bfloat16", "moe_quant": "bfloat16"}),
    ("gb200", QWEN3_8B, BF16, "gb200", [], {"system": "gb200"}),
    ("b300", QWEN3_8B, BF16, "b300", [], {"system": "b300_sxm"}),
    # named reasons
    ("amd", QWEN3_8B, BF16, "mi355x", [], "the predictor has no AMD data"),
    ("tpu", QWEN3_8B, BF16, "trillium", [], "the predictor has no TPU data"),
    ("cpu", QWEN3_8B, BF16, "xeon6", [], "the predictor has no Intel data"),
    ("uncovered nvidia", QWEN3_8B, BF16, "rtx_5090", [],
     "the predictor has no kernel measurements of this GPU"),
    ("no facts", None, BF16, "h100", [],
     "no architecture facts in this recipe (vllm-recipes import-config --from-hub)"),
    ("unknown architecture", GLM_AIR, BF16, "h100", [],
     "the predictor has no model of the 'glm4_moe' architecture"),
    ("per-channel fp8", QWEN3_8B, BF16, "h100", ["--quantization", "fp8_per_channel"],
     "the predictor has no kernels for --quantization fp8_per_channel"),
    ("fp8 checkpoint without facts", QWEN3_8B, {"precision": "fp8", "model_id": "nvidia/Qwen3-8B-FP8"},
     "h100", [],
     "the predictor does not know a fp8 checkpoint without its own facts (the scaling of its weights "
     "is not recorded)"),
    ("draft without rate", QWEN3_8B, BF16, "h100", ["--speculative-config", EAGLE3_MHA],
     "no known acceptance rate for the Inferact/MiniMax-M3-EAGLE3 draft"),
    ("draft with other token count", QWEN3_8B, BF16, "h100",
     ["--speculative-config", EAGLE3_GQA.replace('": 3', '": 5')],
     "no known acceptance rate for the Inferact/MiniMax-M3-EAGLE3-GQA draft with 5 tokens (known: 3)"),
    ("ngram", QWEN3_8B, BF16, "h100",
     ["--speculative-config", '{"method": "ngram", "num_speculative_tokens": 4}'],
     "speculative method 'ngram' (the predictor models draft-token decoding only)"),
    ("unknown kv dtype", QWEN3_8B, BF16, "h100", ["--kv-cache-dtype", "fp8_inc"],
     "the predictor has no KV cache mode for --kv-cache-dtype fp8_inc"),
]


@pytest.mark.parametrize(("facts", "variant", "hardware", "argv", "expected"), [case[1:] for case in CASES],
                         ids=[case[0] for case in CASES])
def test_flags_in_inputs_out(facts: dict[str, Any] | None, variant: dict[str, Any], hardware: str,
                             argv: list[str], expected: dict[str, Any] | str) -> None:
    model_id = "moonshotai/Kimi-K2-Instruct-0905" if facts is KIMI_K2 else "Qwen/Qwen3-8B"
    inputs = predictor_inputs(["vllm", "serve", model_id, *argv], hardware, PROFILES[hardware], variant,
                              recipe(facts, model_id))
    if isinstance(expected, str):
        assert list(inputs) == ["unavailable"]
        reason = inputs["unavailable"]  # type: ignore[typeddict-item]
        assert reason.startswith(expected[:-1]) if expected.endswith("…") else reason == expected
    else:
        assert "unavailable" not in inputs, inputs
        assert {key: inputs[key] for key in expected} == expected  # type: ignore[literal-required]


def test_every_input_has_its_place_and_the_kv_cache_bounds_the_sweep() -> None:
    inputs = predictor_inputs(["vllm", "serve", "Qwen/Qwen3-8B"], "h100", H100, BF16, recipe(QWEN3_8B))
    assert list(inputs) == ["model", "revision", "system", "backend", "tp", "pp", "attention_dp", "moe_tp",
                            "moe_ep", "gemm_quant", "moe_quant", "kv_cache_quant", "nextn", "nextn_accepted",
                            "acceptance_source", "max_num_seqs", "max_num_batched_tokens", "kv_tokens"]
    fp8_kv = predictor_inputs(["vllm", "serve", "Qwen/Qwen3-8B", "--kv-cache-dtype", "fp8"], "h100", H100,
                              BF16, recipe(QWEN3_8B))
    assert 350_000 < inputs["kv_tokens"] < 500_000  # type: ignore[typeddict-item]
    assert fp8_kv["kv_tokens"] > 1.9 * inputs["kv_tokens"]  # type: ignore[typeddict-item]


def test_records_pick_their_command_and_pd_is_named() -> None:
    record = {"hardware": "h100", "deploy_type": "single_node",
              "argv": ["vllm", "serve", "Qwen/Qwen3-8B", "-tp", "2"]}
    assert record_inputs(record, recipe(QWEN3_8B), BF16, H100)["tp"] == 2  # type: ignore[typeddict-item]
    pd = {"hardware": "h100", "deploy_type": "pd_cluster", "prefill": {"argv": []}, "decode": {"argv": []}}
    assert record_inputs(pd, recipe(QWEN3_8B), BF16, H100) == {
        "unavailable": "disaggregated prefill/decode is not predicted yet"}
