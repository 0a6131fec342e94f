"""The layer kinds of hybrid and sparse models against figures computed by hand from their configs.

Each test names the vLLM formula it follows (files of vLLM 0.19.0 unless said otherwise):
``MambaStateShapeCalculator``/``MambaStateDtypeCalculator`` (``layers/mamba/mamba_utils.py``),
``HybridAttentionMambaModelConfig.verify_and_update_config`` (``models/config.py``), ``MambaSpec`` and
``MLAAttentionSpec`` (``v1/kv_cache_interface.py``), ``_get_kv_cache_groups_uniform_page_size``,
``get_max_concurrency_for_kv_cache_config`` and ``_report_kv_cache_config`` (``v1/core/kv_cache_utils.py``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from builder.resolver.memory import (
    ArchitectureError,
    architecture_facts,
    estimate_memory,
    memory_for_record,
    read_architecture,
)
from builder.resolver.memory.kv import indexer_bytes, state_bytes
from builder.resolver.memory.weights import _linear_attention_params, _mamba_params
from tests.support.memory_cases import (
    HYBRID_CASES,
    HYBRID_CONFIGS,
    HYBRID_UNCHECKED,
    HYBRID_WEIGHTS_UNCHECKED,
    QWEN3_NEXT,
    hub_config,
    hybrid_case_config,
    hybrid_checks,
    run,
)
from tests.support.paths import need_shared

GIB = 1 << 30


@pytest.fixture(autouse=True)
def _shared() -> None:
    need_shared()


def test_gated_deltanet_state_and_the_unified_page() -> None:
    """gated_delta_net_state_shape: conv (2·16·128 + 32·128)/TP × (kernel − 1), recurrent (32/TP, 128, 128),
    both bf16 (mamba_ssm_cache_dtype auto); the attention block is 16·ceil(state / (16 · attention bytes per
    token))."""
    arch = read_architecture(QWEN3_NEXT)
    assert [layer.attention for layer in arch.layers[:4]] == ["linear", "linear", "linear", "full"]
    state = state_bytes(arch, "linear", 2, 2, 0)
    assert state == 8192 // 2 * 3 * 2 + 16 * 128 * 128 * 2 == 548_864
    # one attention token at TP 2: 2 (K, V) × 1 KV head × 256 × 2 bytes = 1,024 -> 544 tokens, padding 1.49%
    e = estimate_memory(QWEN3_NEXT,
                        {"tp": 2, "kv_cache_gib": 44.59, "max_model_len": 262144, "vllm_version": "0.10.2"})
    assert e["kv_block_size"] == 16 * -(-548_864 // (16 * 1024)) == 544
    # 12 full-attention and 36 linear layers: groups of 12 (1 attention + 3 state groups); blocks per group
    blocks = int(44.59 * GIB) // (544 * 1024) // 12
    assert blocks == 7162
    assert e["kv_tokens"] == blocks // 4 * 544 == 973_760  # the log: "GPU KV cache size: 973,760 tokens"
    # a request: ceil(262144 / 544) = 482 attention blocks + 1 page per state group
    assert e["max_concurrency"] == round(blocks / (482 + 3), 2) == 14.77  # the log: 14.77x
    assert e["state_bytes_per_sequence"] == 36 * 544 * 1024  # 36 padded pages
    assert e["kv_bytes_per_token"] == 12 * 1024


def test_qwen3_5_float32_recurrent_state() -> None:
    """Qwen3.5's mamba_ssm_dtype float32 (MambaStateDtypeCalculator: the conv state stays in the model dtype):
    8192 × 3 × 2 + 32 × 128 × 128 × 4 = 2,146,304 bytes; attention 2 × 2 × 256 × 2 = 2,048 bytes per token ->
    1,056 tokens, padding 0.76% (as a published vLLM 0.18.1 start-up of Qwen3.5-35B-A3B prints)."""
    config = hub_config("Qwen__Qwen3.5-35B-A3B")
    arch = read_architecture(config)
    assert arch.ssm_dtype == "float32"
    assert state_bytes(arch, "linear", 1, 2, 0) == 49_152 + 2_097_152
    e = estimate_memory(config, {"kv_cache_gib": 40, "max_model_len": 262144})
    assert e["kv_block_size"] == 1056
    assert e["stages"][0]["kv_block_size"] == 1056
    assert e["state_padding_pct"] == round(100 * (1056 * 2048 - 2_146_304) / 2_146_304, 2) == 0.76
    # MTP: one speculative token adds a conv column to the state and a page per request; its layer joins
    # attention
    spec = estimate_memory(config, {"kv_cache_gib": 40, "max_model_len": 262144,
                                    "speculative": {"method": "mtp", "num_speculative_tokens": 1}})
    assert state_bytes(arch, "linear", 1, 2, 1) == 8192 * 4 * 2 + 2_097_152
    assert spec["kv_bytes_per_token"] == (10 + 1) * 2048


def test_mamba2_state_groups_and_the_token_report() -> None:
    """mamba2_state_shape: conv (64·64 + 2·8·128)/TP × 3 in bf16, recurrent (64, 64, 128) in float32;
    attention 2 × 2 × 128 × 1 (fp8) = 512 bytes -> 4,176 tokens (the log's block); 6 attention and 23 Mamba
    layers make groups of 6; vLLM 0.20 prints max concurrency × max_model_len, 0.19 num_blocks // groups ×
    block."""
    config = hub_config("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4")
    arch = read_architecture(config)
    kinds = [layer.attention for layer in arch.layers]
    assert (kinds.count("mamba"), kinds.count("full"), len(kinds)) == (23, 6, 52)
    assert state_bytes(arch, "mamba", 1, 2, 0) == 6144 * 3 * 2 + 64 * 64 * 128 * 4 == 2_134_016
    settings: dict[str, Any] = {"kv_cache_gib": 3.72, "max_model_len": 256000, "kv_cache_dtype": "fp8_e4m3",
                                "max_num_batched_tokens": 32768}
    new = estimate_memory(config, {**settings, "vllm_version": "0.20.1rc1.dev91"})
    old = estimate_memory(config, settings)
    blocks = int(3.72 * GIB) // (4176 * 512) // 6
    assert (new["kv_block_size"], blocks) == (4176, 311)
    per_request = -(-256000 // 4176) + 4  # 62 attention blocks, one page in each of 4 Mamba groups
    assert new["max_concurrency"] == round(blocks / per_request, 2) == 4.71  # the log: 4.71x
    assert new["kv_tokens"] == int(blocks / per_request * 256000) == 1_206_303  # the log: 1,206,303 tokens
    assert old["kv_tokens"] == blocks // 5 * 4176 == 258_912


def test_nemotron_blocks_without_num_hidden_layers() -> None:
    """Nemotron-3 Ultra spells its blocks in layers_block_type and gives no num_hidden_layers: one layer a
    block."""
    facts = architecture_facts(hub_config("nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16"))
    pattern = facts["hybrid_override_pattern"]
    assert facts["num_hidden_layers"] == len(pattern)
    assert pattern[:8] == "MEMEMEM*"
    with pytest.raises(ArchitectureError) as caught:
        architecture_facts({**hub_config("nvidia__NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16"),
                            "layers_block_type": ["mamba", "gdn"]})
    assert (caught.value.field, caught.value.message) == (
        "layers_block_type[1]", "unsupported block 'gdn': expected one of mamba, attention, mlp, moe")


def test_mixer_weights() -> None:
    """Gated DeltaNet (in_proj_qkvz, out_proj linear; in_proj_ba, conv1d, dt_bias, A_log, norm kept) and
    Mamba2 (in_proj of z, x, B, C, dt and out_proj linear; conv1d with bias, dt_bias, A, D, norm kept), at TP
    1."""
    arch = read_architecture(QWEN3_NEXT)
    assert _linear_attention_params(arch, 1) == (2048 * 12288 + 4096 * 2048, 2048 * 64 + 8192 * 4 + 64 + 128)
    nano = read_architecture(hub_config("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"))
    assert _mamba_params(nano, 1) == (2688 * (4096 + 6144 + 64) + 4096 * 2688, 6144 * 5 + 3 * 64 + 4096)


def test_weights_against_the_logs() -> None:
    """Qwen3-Next 80B BF16 at TP 2 loads 74.2812 GiB; the Nemotron-3 Nano NVFP4 checkpoint 18.54 GiB, its
    precision read from hf_quant_config.json (its config.json has no quantization_config)."""
    qwen = estimate_memory(QWEN3_NEXT, {"tp": 2, "kv_cache_gib": 44.59, "max_model_len": 262144})
    assert abs(qwen["weights_gib"] / 74.2812 - 1) < 0.005
    nano = estimate_memory(hub_config("nvidia__NVIDIA-Nemotron-3-Nano-30B-A3B-NVFP4"),
                           {"kv_cache_gib": 3.72, "max_model_len": 256000})
    assert abs(nano["weights_gib"] / 18.54 - 1) < 0.05


def test_dsa_indexer_cache() -> None:
    """DeepSeek V3.2: every MLA layer has an indexer cache of 128 fp8 values + one fp32 scale = 132 bytes per
    token; MLA itself 576 × 2 bytes, or fp8_ds_mla's 656 bytes with an fp8 KV cache
    (UniformTypeKVCacheSpecs)."""
    config = hub_config("deepseek-ai__DeepSeek-V3.2")
    arch = read_architecture(config)
    assert indexer_bytes(arch) == 132
    assert (estimate_memory(config, {"kv_cache_gib": 10, "max_model_len": 8192})["kv_bytes_per_token"]
            == 61 * (1152 + 132))
    fp8 = estimate_memory(config, {"kv_cache_gib": 10, "max_model_len": 8192, "kv_cache_dtype": "fp8"})
    assert fp8["kv_bytes_per_token"] == 61 * (656 + 132)
    assert fp8["kv_tokens"] == int(10 * GIB) // (61 * 788 * 16) * 16
    glm = read_architecture(hub_config("nvidia__GLM-5.2-NVFP4"))  # layer_types deepseek_sparse_attention
    assert {layer.attention for layer in glm.layers} == {"mla"}
    assert sum(layer.indexer for layer in glm.layers) == sum(1 for kind in
                                                             hub_config("nvidia__GLM-5.2-NVFP4")[
                                                                 "indexer_types"]
                                                             if kind != "shared")


def test_moe_patterns_given_as_lists() -> None:
    """moe_layer_freq per layer (MiniMax-M3: 3 dense layers, then MoE) and Hunyuan's per-layer widths."""
    m3 = read_architecture(hub_config("nvidia__MiniMax-M3-NVFP4"))
    assert [layer.moe for layer in m3.layers[:4]] == [False, False, False, True]
    assert ((sum(layer.moe for layer in m3.layers), m3.dense_intermediate, m3.expert_intermediate)
            == (57, 12288, 3072))
    assert sum(layer.indexer for layer in m3.layers) == 57  # sparse_attention_freq
    assert (m3.quant_format, m3.quant_bits) == ("nvfp4", 4)  # MIXED_PRECISION: its experts' NVFP4
    hunyuan = architecture_facts(hub_config("tencent__Hunyuan-A13B-Instruct"))
    assert ((hunyuan["moe_intermediate_size"], hunyuan["num_experts_per_tok"], hunyuan["n_shared_experts"])
            == (3072, 8, 1))
    with pytest.raises(ArchitectureError) as caught:
        architecture_facts(
            {**hub_config("tencent__Hunyuan-A13B-Instruct"), "moe_intermediate_size": [3072, 1536] * 16})
    assert (caught.value.field, caught.value.message) == (
        "moe_intermediate_size", "per-layer values differ: the memory model needs one value for every layer")


def test_sliding_window_with_sinks_against_the_log() -> None:
    """gpt-oss-120b (vLLM 0.11.2, 8.99 GiB): 18 full and 18 sliding (128) layers in groups of 18; a request
    holds ceil(98304/16) blocks of the full group and ceil((127 + 8192)/16) + 1 of the sliding one."""
    e = estimate_memory(hub_config("openai__gpt-oss-120b"), {"kv_cache_gib": 8.99, "max_model_len": 98304,
                                                             "max_num_batched_tokens": 8192,
                                                             "vllm_version": "0.11.2"})
    blocks = int(8.99 * GIB) // (18 * 8 * 64 * 2 * 2 * 16)
    assert e["kv_tokens"] == blocks // 2 * 16
    assert abs(e["kv_tokens"] / 130_960 - 1) < 0.02  # the log
    assert e["max_concurrency"] == round(blocks / (6144 + 521), 2) == 2.46  # the log: 2.46x


def test_memory_command_with_a_kv_budget(tmp_path, capsys) -> None:
    """``memory --kv-cache-gib``: the logged budget and settings in, vLLM's token and concurrency lines
    out."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN3_NEXT))
    argv = ["memory", "--config", str(config), "--kv-cache-gib", "44.59", "--tp", "2", "--max-model-len",
            "262144", "--vllm-version", "0.10.2"]
    status, out, _ = run(capsys, *argv)
    assert status == 0
    lines = out.splitlines()
    assert lines[2] == "KV cache:  44.59 GiB given; 12,288 bytes per token; 973,760 tokens in blocks of 544"
    assert lines[3] == ("state:     19.1 MiB per sequence (linear-attention / Mamba layers: reserved per "
                        # the log: "Padding mamba page size by 1.49%"
                        "request, not per token; pages padded by 1.49%)")
    assert lines[4] == "requests:  14.77 at once of max_model_len 262,144 (max_num_batched_tokens 2,048)"
    status, out, _ = run(capsys, *argv, "--json")
    record = json.loads(out)
    assert (record["kv_cache_tokens"], record["max_concurrency"]) == (973_760, 14.77)
    assert record["state_bytes_per_sequence"] == 36 * 544 * 1024
    status, out, _ = run(capsys, *argv, "--json", "--speculative-tokens", "2", "--enable-prefix-caching")
    # two speculative tokens widen the conv state: 4096 × (3 + 2) × 2 + 524,288 = 565,248 bytes ->
    # blocks of 560;
    # a sequence holds 1 + 2 speculative + 1 (align) pages in each of the 36 state layers
    assert json.loads(out)["state_bytes_per_sequence"] == 36 * 560 * 1024 * 4
    assert run(capsys, "memory", "--config", str(config)) == (
        2, "", "error: give --gpu-memory-gib, --hardware or --kv-cache-gib\n")


def test_every_hybrid_log_with_a_config() -> None:
    """../shared/hybrid-logs: given the logged budget and settings, tokens and concurrency within 2% of the
    log, weights within 5% where logged and comparable; a negative or too small budget does not start."""
    checks = {check["id"]: check for check in hybrid_checks()}
    assert set(checks) == set(HYBRID_CONFIGS) - {"gpt-oss-120b-h100-v0.14.1-weights"}  # it logged no budget
    assert not set(HYBRID_CONFIGS) & set(HYBRID_UNCHECKED)
    assert {case["id"] for case in HYBRID_CASES} == set(HYBRID_CONFIGS) | set(HYBRID_UNCHECKED)
    for case_id, check in checks.items():
        e, log = check["estimate"], check["log"]
        if log["kv_cache_tokens"] is not None:
            assert abs(e["kv_tokens"] / log["kv_cache_tokens"] - 1) < 0.02, case_id
            assert abs(e["max_concurrency"] / log["max_concurrency"]["x"] - 1) < 0.02, case_id
        assert (e["verdict"] == "wont_start") is check["failed"], case_id
        if log["model_loading_gib"] is not None and case_id not in HYBRID_WEIGHTS_UNCHECKED:
            assert abs(e["weights_gib"] / log["model_loading_gib"] - 1) < 0.05, case_id
    minimax = checks["minimax-m2.7-awq-tp2-2xdgxspark-fail"]["estimate"]
    assert minimax["stages"][0]["one_request_kv_gib"] == 23.25  # the log: "23.25 GiB KV cache is needed"
    assert minimax["reason"].endswith("the estimated maximum model length is 190256 (decrease max_model_len "
                                      "or increase gpu_memory_utilization)")  # the log: 190272, 0.01% more


def test_logged_weights_without_a_budget() -> None:
    """gpt-oss: MXFP4 experts padded to 3,072 (2,880 rounded up to 256) as vLLM's Mxfp4MoEMethod does."""
    e = estimate_memory(hybrid_case_config("gpt-oss-120b-h100-v0.14.1-weights"), {"gpu_memory_gib": 79.19})
    assert abs(e["weights_gib"] / 64.38 - 1) < 0.05


def test_the_page_line_of_a_hybrid_model() -> None:
    """The memory line says the KV tokens and the state per sequence apart, the concurrency at
    --max-model-len, and what the estimate counts and leaves out."""
    facts = architecture_facts(hub_config("Qwen__Qwen3.5-27B"))
    record = {
        "argv": ["vllm", "serve", "Qwen/Qwen3.5-27B", "--max-model-len", "262144", "--enable-prefix-caching"]}
    memory = memory_for_record(record, {"model": {"architecture_config": facts}}, {},
                               {"vram_gb": 80, "gpu_count": 1})
    assert memory is not None
    e = estimate_memory(facts,
                        {"gpu_memory_gib": 79.2, "max_model_len": 262144, "enable_prefix_caching": True})
    state = round(e["state_bytes_per_sequence"] / (1 << 20), 1)
    # state: (2·16·128 + 48·128) × 3 × 2 + 48 × 128 × 128 × 4 = 3,207,168 bytes; attention 2 × 4 × 256 ×
    # 2 = 4,096
    # bytes per token -> blocks of 16·ceil(3,207,168 / 65,536) = 784 tokens (the block a published vLLM 0.25.1
    # start-up of this architecture, Qwen3.6-27B, prints); 48 Gated DeltaNet layers × 2 pages (align mode)
    assert e["kv_block_size"] == 784
    assert e["state_bytes_per_sequence"] == 48 * 2 * 784 * 4096
    assert memory["state_mib_per_sequence"] == state
    assert memory["summary"].startswith(
        f"Per GPU (79.20 GiB): weights {e['weights_gib']:.2f} GiB, KV cache {e['available_kv_gib']:.2f} GiB "
        f"= {e['kv_tokens']:,} tokens of attention KV plus {state:,.1f} MiB of state per sequence; at most "
        f"{e['max_concurrency']:.2f} requests of 262,144 tokens (--max-model-len) at once; ")
    assert ("Gated DeltaNet state included: 294.0 MiB per sequence, reserved per request on top of the KV "
            "tokens (vLLM's hybrid allocator: attention blocks of 784 tokens, state pages padded to "
            "them)") in memory["estimated"]
    assert memory["not_estimated"][-1] == (
        "the profile run's scan buffers of the linear-attention / Mamba kernels not estimated (the "
        "activation peak counts attention and MLPs)")


# A Kimi-Linear-shaped config written for this test (no Kimi-Linear config is at hand): 8 layers, layers 4
# and 8
# (counted from 1, as vLLM's KimiLinearConfig counts kda_layers) latent attention, the others Kimi Delta
# Attention.
KIMI_SHAPED = {"model_type": "kimi_linear", "torch_dtype": "float16", "hidden_size": 2304,
               "num_hidden_layers": 8,
               "num_attention_heads": 32, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
               "qk_nope_head_dim": 128,
               "v_head_dim": 128, "intermediate_size": 9216, "vocab_size": 1000,
               "max_position_embeddings": 131072,
               "linear_attn_config": {"kda_layers": [1, 2, 3, 5, 6, 7], "full_attn_layers": [4, 8],
                                      "num_heads": 32, "head_dim": 128, "short_conv_kernel_size": 4}}


def test_kimi_delta_attention_state() -> None:
    """kda_state_shape: q, k and v convolved (3 × 32 × 128 / TP values × (kernel − 1), the model dtype) and a
    (32 / TP, 128, 128) float32 state (kda_state_dtype); latent attention pages (512 + 64) × 2 bytes a
    token."""
    arch = read_architecture(KIMI_SHAPED)
    assert [layer.attention for layer in arch.layers] == ["kda"] * 3 + ["mla"] + ["kda"] * 3 + ["mla"]
    assert state_bytes(arch, "kda", 2, 2, 0) == 6144 * 3 * 2 + 16 * 128 * 128 * 4 == 1_085_440
    e = estimate_memory(KIMI_SHAPED, {"tp": 2, "kv_cache_gib": 2.3, "max_model_len": 120000})
    assert e["kv_block_size"] == 16 * -(-1_085_440 // (16 * 1152)) == 944
    blocks = int(2.3 * GIB) // (944 * 1152) // 2  # groups of 2 layers: 1 latent-attention and 3 KDA groups
    assert e["kv_tokens"] == blocks // 4 * 944
    assert e["max_concurrency"] == round(blocks / (-(-120000 // 944) + 3), 2)
