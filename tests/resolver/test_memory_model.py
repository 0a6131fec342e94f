"""The memory and sharding model against real vLLM 0.19.0 start-ups, its rules and its CLI (``memory``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builder.resolver.memory import (
    ArchitectureError,
    Finding,
    estimate_memory,
    sharding_findings,
)
from tests.support.memory_cases import CASES, LLAMA, MEMORY, config, run
from tests.support.paths import RECIPES, ROOT

GIB = 1 << 30


def case_argv(case: dict[str, Any]) -> list[str]:
    argv = ["memory", "--config", str(MEMORY / "configs" / case["architecture_config"])]
    argv += ["--gpu-memory-gib", str(case["gpu_memory_gib"])]
    argv += ["--tp", str(case["tensor_parallel_size"]), "--pp", str(case["pipeline_parallel_size"])]
    argv += ["--dtype", case["dtype"], "--kv-cache-dtype", case["kv_cache_dtype"]]
    if case["weight_bits"] is not None:
        argv += ["--weight-bits", str(case["weight_bits"])]
    argv += ["--gpu-memory-utilization", str(case["gpu_memory_utilization"])]
    argv += ["--max-model-len", str(case["max_model_len"])]
    argv += ["--max-num-batched-tokens", str(case["max_num_batched_tokens"]), "--json"]
    return argv


def within(estimate: float, measured: float, tolerance: float) -> bool:
    return abs(estimate - measured) <= tolerance


# ── the 21 start-ups ──


def test_the_cases_are_there() -> None:
    assert len(CASES) == 21, "../shared/memory/cases.json is missing or changed"


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_estimate_matches_the_start_up_log(case: dict[str, Any], capsys) -> None:
    status, out, err = run(capsys, *case_argv(case))
    assert (status, err) == (0, "")
    e = json.loads(out)
    measured = case["measured"]
    assert within(e["weights_gib"], measured["model_loading_gib"], 0.07 * measured["model_loading_gib"])
    available = measured["available_kv_cache_gib"]
    assert within(e["available_kv_gib"], available, max(1.5, 0.10 * available))
    assert within(e["max_concurrency"], measured["max_concurrency"]["x"],
                  0.10 * measured["max_concurrency"]["x"])
    assert e["verdict"] == "fits"
    if case["attention"] in ("full", "mla"):  # sliding-window/hybrid models count tokens their own way
        per_token = available * GIB / measured["kv_cache_tokens"]
        assert within(e["kv_bytes_per_token"], per_token, 0.02 * per_token)
        slack = max(0.10 * measured["kv_cache_tokens"], 1.5 * GIB / per_token)
        assert within(e["kv_tokens"], measured["kv_cache_tokens"], slack)


def test_the_command_runs_as_a_process() -> None:
    case = next(c for c in CASES if c["id"] == "deepseek-ai-deepseek-v2---h100-80gb--tp1pp1dp1--8192")
    done = subprocess.run(
        [sys.executable, "-m", "builder", *case_argv(case)], cwd=ROOT, capture_output=True, text=True,
        timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    e = json.loads(done.stdout)
    for key in ("weights_gib", "kv_bytes_per_token", "available_kv_gib", "kv_tokens", "max_concurrency",
                "verdict"):
        assert key in e
    assert e["kv_bytes_per_token"] == (512 + 64) * 27 * 2  # MLA: latent + rope key per layer, bf16
    assert e["non_kv_parts"] == ["weights_gib", "activation_peak_gib", "non_torch_gib"]


def test_text_form(capsys) -> None:
    status, out, _ = run(capsys, "memory", "--config", str(LLAMA), "--gpu-memory-gib", "79.19",
                         "--max-model-len", "8192")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == (
        "llama: 8.03B parameters; TP 1 x PP 1 on 79.19 GiB per GPU; bfloat16, KV cache auto; vLLM 0.19.0 "
        "accounting"
    )
    assert lines[1] == "weights:   14.99 GiB per GPU"
    assert [line.split(":")[0] for line in lines[2:]] == ["non-KV", "KV cache", "requests", "verdict"]
    assert lines[-1].startswith("verdict:   fits: ")


def test_hardware_profile_gives_the_gpu_memory(capsys) -> None:
    status, out, _ = run(capsys, "memory", "--config", str(LLAMA), "--hardware", "h100", "--content",
                         str(RECIPES), "--json")
    assert status == 0
    assert json.loads(out)["settings"]["gpu_memory_gib"] == 79.2  # 640 GB / 8 GPUs, as CUDA shows it
    status, _, err = run(capsys, "memory", "--config", str(LLAMA), "--hardware", "nope", "--content",
                         str(RECIPES))
    assert status == 2
    assert err.startswith("error: unknown hardware 'nope': expected one of h100, ")


def test_defaults_are_vllms() -> None:
    e = estimate_memory(config("meta-llama__Llama-3.1-8B-Instruct.json"), {"gpu_memory_gib": 79.19})
    s = e["settings"]
    assert (s["gpu_memory_utilization"], s["max_model_len"], s["max_num_batched_tokens"],
            s["max_num_seqs"]) == (
0.9,
131072,
8192,
1024,
    )
    small = estimate_memory(config("meta-llama__Llama-3.1-8B-Instruct.json"),
                            {"gpu_memory_gib": 44.4})["settings"]
    assert (small["max_num_batched_tokens"], small["max_num_seqs"]) == (2048, 256)


# ── what the estimate derives from the architecture ──


def test_kv_heads_are_replicated_when_tp_exceeds_them() -> None:
    llama = config("meta-llama__Llama-3.1-8B-Instruct.json")

    def per_token(tp: int) -> int:
        return estimate_memory(llama, {"gpu_memory_gib": 79.19, "tp": tp, "max_model_len": 8192})[
            "kv_bytes_per_token"]

    assert per_token(1) == 2 * 8 * 128 * 2 * 32
    assert per_token(8) == per_token(16) == 2 * 1 * 128 * 2 * 32


def test_mla_cache_is_the_same_on_every_tp_rank() -> None:
    deepseek = config("deepseek-ai__DeepSeek-V2-Lite-Chat.json")
    sizes = {
        estimate_memory(deepseek,
                        {"gpu_memory_gib": 79.19, "tp": tp, "max_model_len": 8192})["kv_bytes_per_token"]
        for tp in (1, 2, 4)
    }
    assert sizes == {(512 + 64) * 27 * 2}
    fp8 = estimate_memory(deepseek, {"gpu_memory_gib": 79.19, "kv_cache_dtype": "fp8", "max_model_len": 8192})
    assert fp8["kv_bytes_per_token"] == (512 + 64) * 27


def test_gemma_ties_embeddings_by_default_llama_does_not() -> None:
    gemma = config("google__gemma-2-9b-it.json")
    untold = {k: v for k, v in gemma.items() if k != "tie_word_embeddings"}
    settings = {"gpu_memory_gib": 79.19}
    assert (estimate_memory(untold, settings)["params_total"]
            == estimate_memory(gemma, settings)["params_total"])
    as_llama = {**untold, "model_type": "llama"}
    extra = (estimate_memory(as_llama, settings)["params_total"]
             - estimate_memory(gemma, settings)["params_total"])
    assert extra == 256000 * 3584 - 42 * 2 * 3584  # a separate lm_head; Gemma 2's two extra norms per layer


def test_gelu_mlp_has_two_matrices() -> None:
    gpt2 = {"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257,
            "n_positions": 1024}
    params = estimate_memory(gpt2, {"gpu_memory_gib": 24})["params_total"]
    per_layer = 4 * 768 * 768 + 2 * 768 * 3072 + 2 * 768 + 0  # attention, fc + proj, two norms
    padded_vocab = 50304
    assert params == 12 * per_layer + padded_vocab * 768 + 1024 * 768 + 768  # tied lm_head, learned positions


def test_hybrid_sliding_window_groups_as_vllm() -> None:
    """Gemma 3: 5 sliding layers per full one; vLLM groups 10 layers per block and pads to 7 groups."""
    gemma3 = {
        "model_type": "gemma3_text",
        "num_hidden_layers": 62,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "num_attention_heads": 32,
        "num_key_value_heads": 16,
        "head_dim": 128,
        "vocab_size": 262208,
        "sliding_window": 1024,
        "max_position_embeddings": 131072,
    }
    e = estimate_memory(gemma3, {"gpu_memory_gib": 139.8, "max_model_len": 32768})
    per_layer = 2 * 16 * 128 * 2
    assert e["kv_bytes_per_token"] == per_layer * 10 * 7
    # one request: 10 full layers hold 32768 tokens, 52 sliding ones 1023 + 8192 (+ one block)
    one = (10 * 32768 + 52 * (576 + 1) * 16) * per_layer
    assert e["stages"][0]["one_request_kv_gib"] == round(one / GIB, 3)


def test_text_config_is_the_language_model() -> None:
    llama = config("meta-llama__Llama-3.1-8B-Instruct.json")
    wrapped = {
        "model_type": "llava",
        "text_config": llama,
        "vision_config": {"hidden_size": 1024, "num_hidden_layers": 24, "intermediate_size": 4096},
    }
    plain = estimate_memory(llama, {"gpu_memory_gib": 79.19, "max_model_len": 8192})
    both = estimate_memory(wrapped, {"gpu_memory_gib": 79.19, "max_model_len": 8192})
    assert both["kv_bytes_per_token"] == plain["kv_bytes_per_token"]
    h, inter = 1024, 4096  # a ViT: biased q/k/v/o and GELU MLP, two norms, 14-pixel patches, a projector
    layer = 4 * h * h + 4 * h + 2 * h * inter + inter + h + 4 * h
    vision = 24 * layer + (3 * 14 * 14 * h + h) + (2 * h + h * 4096)
    assert both["params_total"] - plain["params_total"] == vision
    assert both["estimated"] == ["vision encoder included (0.57 GiB)"] and plain["estimated"] == []


def test_pipeline_stages_split_layers_like_vllm() -> None:
    e = estimate_memory(config("Qwen__Qwen2.5-7B-Instruct.json"), {"gpu_memory_gib": 79.19, "pp": 3})
    # 28 layers over 3 stages: the remainder goes to the stages before the last, second-to-last first
    assert [stage["layers"] for stage in e["stages"]] == [9, 10, 9]


# ── verdicts ──


def test_weights_that_do_not_fit() -> None:
    e = estimate_memory(config("Qwen__Qwen3-30B-A3B.json"), {"gpu_memory_gib": 44.4, "max_model_len": 8192})
    assert e["verdict"] == "wont_start"
    assert e["reason"] == (
        "not enough memory for the weights: 56.88 GiB per GPU, more than the GPU's 44.40 GiB "
        "(CUDA out of memory while loading the model)"
    )


def test_no_room_for_the_kv_cache() -> None:
    e = estimate_memory(config("Qwen__Qwen3-30B-A3B.json"),
                        {"gpu_memory_gib": 79.19, "gpu_memory_utilization": 0.7})
    assert e["verdict"] == "wont_start"
    assert e["reason"] == (
        "no room for the KV cache: weights 56.88 GiB + activation peak 2.69 GiB + non-torch 0.25 GiB = 59.81 "
        "GiB leave nothing of gpu_memory_utilization 0.7 × 79.19 GiB = 55.43 GiB (vLLM: no available memory "
        "for the cache blocks; try increasing gpu_memory_utilization)"
    )


def test_one_request_of_max_model_len_must_fit() -> None:
    e = estimate_memory(config("Qwen__Qwen3-30B-A3B.json"),
                        {"gpu_memory_gib": 79.19, "gpu_memory_utilization": 0.78})
    assert e["verdict"] == "wont_start"
    assert e["reason"] == (
        "max_model_len 40960 needs 3.75 GiB of KV cache for one request, more than the 1.95 GiB available; "
        "the estimated maximum model length is 21328 (decrease max_model_len or increase "
        "gpu_memory_utilization)"
    )


def test_longer_than_the_model() -> None:
    e = estimate_memory(config("google__gemma-2-9b-it.json"),
                        {"gpu_memory_gib": 79.19, "max_model_len": 16384})
    assert (e["verdict"], e["reason"]) == (
        "wont_start",
        "max_model_len 16384 is greater than the model's maximum of 8192 positions "
        "(max_position_embeddings); vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
    )


def test_tight_when_fewer_than_two_requests_fit() -> None:
    e = estimate_memory(config("Qwen__Qwen3-30B-A3B.json"),
                        {"gpu_memory_gib": 79.19, "gpu_memory_utilization": 0.82})
    assert e["verdict"] == "tight"
    assert e["reason"] == "only 1.37 requests of max_model_len 40960 fit in the KV cache at once"


def test_tight_when_cuda_graphs_exceed_the_headroom() -> None:
    e = estimate_memory(
        config("meta-llama__Llama-3.1-8B-Instruct.json"),
        {"gpu_memory_gib": 79.19, "gpu_memory_utilization": 0.99, "max_model_len": 8192},
    )
    assert e["verdict"] == "tight"
    assert e["reason"] == (
        "CUDA graphs need about 0.94 GiB, more than the 0.79 GiB left outside gpu_memory_utilization 0.99; "
        "capture may run out of memory (lower gpu_memory_utilization or use --enforce-eager)"
    )


# ── sharding rules ──

MOE_FP8 = {
    "model_type": "qwen3_moe",
    "num_hidden_layers": 94,
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "num_attention_heads": 64,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "vocab_size": 151936,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "moe_intermediate_size": 3072,
    "max_position_embeddings": 40960,
    "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]},
}


def test_fp8_block_that_tp_cuts_through() -> None:
    assert sharding_findings(MOE_FP8, {"tp": 16}) == [
        Finding(
            "quant-block-tp",
            "moe_intermediate_size 3072 / tensor parallel size 16 = 192 per GPU is not a multiple of the FP8 "
            "weight block size 128: vLLM cannot shard the quantized weights",
        )
    ]
    assert sharding_findings(MOE_FP8, {"tp": 8}) == []  # 384 = 3 blocks
    assert sharding_findings(MOE_FP8, {"tp": 16, "expert_parallel": True}) == []  # experts stay whole
    e = estimate_memory(MOE_FP8, {"gpu_memory_gib": 139.8, "tp": 16})
    assert (e["verdict"], e["reason"]) == ("wont_start", sharding_findings(MOE_FP8, {"tp": 16})[0].message)


def test_int4_group_that_tp_cuts_through() -> None:
    llama2 = {
        "model_type": "llama",
        "num_hidden_layers": 32,
        "hidden_size": 4096,
        "intermediate_size": 11008,
        "num_attention_heads": 32,
        "vocab_size": 32000,
        "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128},
    }
    assert sharding_findings(llama2, {"tp": 8}) == [
        Finding(
            "quant-block-tp",
            "intermediate_size 11008 / tensor parallel size 8 = 1376 per GPU is not a multiple of the INT4 "
            "quantization group size 128: vLLM cannot shard the quantized weights",
        )
    ]
    assert sharding_findings(llama2, {"tp": 2}) == []


def test_heads_and_kv_heads_rules() -> None:
    llama = config("meta-llama__Llama-3.1-8B-Instruct.json")
    assert sharding_findings(llama, {"tp": 3}) == [
        Finding("attention-heads-tp",
                "Total number of attention heads (32) must be divisible by tensor parallel size (3)."),
        Finding(
            "kv-heads-tp",
            "num_key_value_heads 8 and tensor parallel size 3 do not divide one another: "
            "the KV heads can be neither split nor replicated evenly",
        ),
    ]
    qwen = config("Qwen__Qwen2.5-7B-Instruct.json")  # 28 heads, 4 KV heads
    assert [f.rule for f in sharding_findings(qwen, {"tp": 14})] == ["kv-heads-tp"]
    assert sharding_findings(llama, {"tp": 16}) == []  # KV heads replicated: fine
    assert sharding_findings(config("deepseek-ai__DeepSeek-V2-Lite-Chat.json"), {"tp": 8}) == []


def test_experts_layers_and_gpus_rules() -> None:
    qwen_moe = config("Qwen__Qwen3-30B-A3B.json")
    assert sharding_findings(qwen_moe, {"tp": 4, "dp": 6, "expert_parallel": True}) == [
        Finding(
            "experts-ep",
            "128 routed experts are not divisible by the expert-parallel size 24 (TP 4 × DP 6): "
            "GPUs would hold unequal numbers of experts",
        )
    ]
    assert sharding_findings(qwen_moe, {"tp": 4, "dp": 8, "expert_parallel": True}) == []
    assert sharding_findings(qwen_moe, {"pp": 64}) == [
        Finding("layers-pp",
                "48 layers cannot be split over 64 pipeline stages: every stage needs at least one layer")
    ]
    assert sharding_findings(qwen_moe, {"tp": 4, "pp": 2, "gpus": 4}) == [
        Finding("gpus-strategy",
                "tensor parallel 4 × pipeline parallel 2 × data parallel 1 = 8 GPUs, but the strategy uses 4")
    ]
    assert sharding_findings(qwen_moe, {"tp": 4, "pp": 2, "gpus": 8}) == []


# ── bad input ──


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"hidden_size": None}, "hidden_size", "missing: the memory model needs it"),
        ({"num_hidden_layers": True}, "num_hidden_layers", "expected an integer, got boolean true"),
        ({"num_hidden_layers": 10**400}, "num_hidden_layers",
         "must be from 1 to 4,096, got a number too large"),
        ({"vocab_size": "lots"}, "vocab_size", "expected an integer, got string 'lots'"),
        ({"layer_types": ["full_attention", {}]}, "layer_types[1]", "unsupported layer type a mapping: "
                                                                    "expected one of full_attention, "
                                                                    "sliding_attention, chunked_attention, "
                                                                    "linear_attention, "
                                                                    "deepseek_sparse_attention"),
        ({"layer_types": ["full_attention"]}, "layer_types", "has 1 entries for 32 layers"),
        ({"quantization_config": {"bits": 99}}, "quantization_config.bits", "must be from 1 to 32, got 99"),
        ({"text_config": [1]}, "text_config", "expected a mapping, got a list"),
    ],
)
def test_bad_architecture_facts(change: dict[str, Any], field: str, message: str) -> None:
    broken = {**config("meta-llama__Llama-3.1-8B-Instruct.json"), **change}
    with pytest.raises(ArchitectureError) as caught:
        estimate_memory(broken, {"gpu_memory_gib": 80})
    assert (caught.value.field, caught.value.message) == (field, message)


def test_cli_reports_bad_input_without_a_traceback(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "config.json"
    bad.write_text('{"num_hidden_layers": 0, "hidden_size": 1, "num_attention_heads": 1, "vocab_size": 1}')
    assert run(capsys, "memory", "--config", str(bad), "--gpu-memory-gib", "80") == (
        1,
        "",
        f"{bad}: num_hidden_layers: must be from 1 to 4,096, got 0\n",
    )
    bad.write_text("[1, 2")
    status, _, err = run(capsys, "memory", "--config", str(bad), "--gpu-memory-gib", "80")
    assert (status, err.startswith(f"{bad}: invalid JSON: ")) == (1, True)
    assert run(capsys, "memory", "--config", str(LLAMA), "--gpu-memory-gib", "80", "--tp", "0") == (
        2,
        "",
        "error: --tp: must be from 1 to 1,024, got 0\n",
    )
    assert run(capsys, "memory", "--config", str(LLAMA), "--gpu-memory-gib", "nan") == (
        2,
        "",
        "error: --gpu-memory-gib: must be a number above 0 and at most 1.04858e+06, got a non-finite "
        "number\n",
    )
