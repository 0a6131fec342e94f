"""json-api §11.7 presets and §11.2 notes on the MiniMax-M3 recipe of this project (recipes/models/...)."""

from __future__ import annotations

import copy

import pytest
from test_resolver_module import R, project_recipe, project_vocab

HF_ID = "MiniMaxAI/MiniMax-M3"


def minimax() -> dict:
    return project_recipe(HF_ID)


POINTS = [
    pytest.param(
        "h200_agentx", "c1", "single_node_tp", "mxfp8", 1,
        "vllm/vllm-openai:nightly-83c078d955cd6e0c63d3b12abe669c8de936a370@sha256:cb12c3016938a4ee98ed176ac833984089460689a0982cff4b5a60bb45b3cded",
        {
            "VLLM_MARLIN_USE_ATOMIC_ADD": "1",
        },
        [
            "vllm", "serve", "MiniMaxAI/MiniMax-M3-MXFP8",
            "--attention_config.indexer_kv_dtype", "fp8",
            "--attention-backend", "FLASH_ATTN",
            "--linear-backend", "humming",
            "--kv-cache-dtype", "fp8",
            "--gpu-memory-utilization", "0.95",
            "--enable-prefix-caching",
            "--tensor-parallel-size", "8",
            "--trust-remote-code",
            "--block-size", "128",
            "--max-num-seqs", "2",
            "--max-cudagraph-capture-size", "8",
            "--tool-call-parser", "minimax_m3",
            "--enable-auto-tool-choice",
            "--reasoning-parser", "minimax_m3",
            "--speculative-config",
            '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3-GQA", "num_speculative_tokens": '
            '3, "attention_backend": "FLASH_ATTN"}',
            "--language-model-only",
            "--default-chat-template-kwargs", '{"thinking_mode": "enabled"}',
        ],
        id="h200_agentx.c1",
    ),
    pytest.param(
        "b200_agentx", "c30", "single_node_tp", "nvfp4", 1,
        "vllm/vllm-openai:nightly-af7f9488c2210d67e1033ecdc845b087ee7fe92b@sha256:8e2ffbb9f866de678b22e7446903b1ee5a5766c51a948013277477c462a68a77",
        {
            "VLLM_FLOAT32_MATMUL_PRECISION": "high",
            "VLLM_FLASHINFER_ALLREDUCE_BACKEND": "trtllm",
            "VLLM_USE_SIMPLE_KV_OFFLOAD": "1",
        },
        [
            "vllm", "serve", "nvidia/MiniMax-M3-NVFP4",
            "--block-size", "128",
            "--trust-remote-code",
            "--kv-cache-dtype", "fp8",
            "--attention_config.backend", "FLASHINFER",
            "--attention_config.use_trtllm_attention", "true",
            "--attention_config.indexer_kv_dtype", "fp8",
            "--attention_config.minimax_m3_msa_decode_backend", "cutlass",
            "--enable-prefix-caching",
            "--max-num-batched-tokens", "16384",
            "--gpu-memory-utilization", "0.95",
            "--disable-flashinfer-autotune",
            "--stream-interval", "20",
            "--tensor-parallel-size", "4",
            "--max-num-seqs", "60",
            "--max-cudagraph-capture-size", "4096",
            "--tool-call-parser", "minimax_m3",
            "--enable-auto-tool-choice",
            "--reasoning-parser", "minimax_m3",
            "--speculative-config",
            '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3-GQA", "num_speculative_tokens": '
            '3, "attention_backend": "FLASHINFER", "use_local_argmax_reduction": true}',
            "--language-model-only",
            "--default-chat-template-kwargs", '{"thinking_mode": "enabled"}',
            "--kv-transfer-config",
            '{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config'
            '":{"lazy_offload":true,"cpu_bytes_to_use":1073000000000}}',
            "--compilation-config",
            '{"cudagraph_capture_sizes":[1,2,4,8,16,24,32,40,48,56,64,72,80,88,96,104,112,120,128,136,1'
            "44,152,160,168,176,184,192,200,208,216,224,232,240,256,320,384,448,512,640,768,896,1024,12"
            "80,1536,1792,2048,2560,3072,3584,4096]}",
        ],
        id="b200_agentx.c30",
    ),
    pytest.param(
        "b200_agentx_c10", "c10_tp4", "single_node_tp", "nvfp4", 1,
        "vllm/vllm-openai:nightly-ac7509e2b1db40fec2f03dde1ed4e9dfdc2338c9@sha256:98adb2311118263a453ec0acd5d4b72bda3db26cecc0fe8ffc94b9ab03c951f9",
        {
            "VLLM_FLOAT32_MATMUL_PRECISION": "high",
            "VLLM_FLASHINFER_ALLREDUCE_BACKEND": "mnnvl",
        },
        [
            "vllm", "serve", "nvidia/MiniMax-M3-NVFP4",
            "--block-size", "128",
            "--trust-remote-code",
            "--kv-cache-dtype", "fp8",
            "--attention_config.backend", "FLASHINFER",
            "--attention_config.use_trtllm_attention", "true",
            "--attention_config.indexer_kv_dtype", "fp8",
            "--attention_config.minimax_m3_msa_decode_backend", "cutlass",
            "--enable-prefix-caching",
            "--max-num-batched-tokens", "16384",
            "--disable-flashinfer-autotune",
            "--stream-interval", "20",
            "--tensor-parallel-size", "4",
            "--max-num-active-seqs", "1",
            "--gpu-memory-utilization", "0.925",
            "--max-cudagraph-capture-size", "4096",
            "--tool-call-parser", "minimax_m3",
            "--enable-auto-tool-choice",
            "--reasoning-parser", "minimax_m3",
            "--speculative-config",
            '{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3-GQA","num_speculative_tokens":5,"at'
            'tention_backend":"FLASHINFER"}',
            "--language-model-only",
            "--default-chat-template-kwargs", '{"thinking_mode": "enabled"}',
            "--compilation-config",
            '{"cudagraph_capture_sizes":[1,2,4,8,12,16,20,24,28,32,36,40,44,48,52,56,60,64,68,72,76,80,'
            "84,88,92,96,100,104,108,112,116,120,124,128,132,136,140,144,148,152,156,160,164,168,172,17"
            "6,180,184,188,192,196,200,204,208,212,216,220,224,228,232,236,240,244,248,252,256,272,288,"
            "304,320,336,352,368,384,400,416,432,448,464,480,496,512,640,768,1024,1536,2048,3072,4096]}",
        ],
        id="b200_agentx_c10.c10_tp4",
    ),
    pytest.param(
        "b300_agentx", "c1_tp8", "single_node_tp", "nvfp4", 1,
        "vllm/vllm-openai:nightly-49cb2bbf71cfd36ee5aa33d1e184b1cddff55294@sha256:8c1434bfee7d7626eef78ef70600434ffba4a1b8813cb1d1c8707ad25f47035e",
        {
            "VLLM_FLOAT32_MATMUL_PRECISION": "high",
            "VLLM_FLASHINFER_ALLREDUCE_BACKEND": "trtllm",
        },
        [
            "vllm", "serve", "nvidia/MiniMax-M3-NVFP4",
            "--block-size", "128",
            "--trust-remote-code",
            "--kv-cache-dtype", "fp8",
            "--attention_config.backend", "FLASHINFER",
            "--attention_config.use_trtllm_attention", "true",
            "--attention_config.indexer_kv_dtype", "fp8",
            "--enable-prefix-caching",
            "--max-num-batched-tokens", "16384",
            "--no-enable-flashinfer-autotune",
            "--stream-interval", "20",
            "--tensor-parallel-size", "8",
            "--max-num-seqs", "2",
            "--gpu-memory-utilization", "0.95",
            "--tool-call-parser", "minimax_m3",
            "--enable-auto-tool-choice",
            "--reasoning-parser", "minimax_m3",
            "--speculative-config",
            '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3-GQA", "num_speculative_tokens": '
            '3, "attention_backend": "FLASHINFER", "use_local_argmax_reduction": true}',
            "--language-model-only",
            "--default-chat-template-kwargs", '{"thinking_mode": "enabled"}',
            "--compilation-config",
            '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[4,8,256,512,1024,2048]}',
        ],
        id="b300_agentx.c1_tp8",
    ),
    pytest.param(
        "gb200_agentx_tp8", "tp8_c1", "multi_node_tp", "nvfp4", 2,
        "vllm/vllm-openai:nightly-5555a2d8f7116b2b4877f66516f4128176cf722a@sha256:8896fd7b29fc4ee7ce839f146cb4757984c476ec79d0234ffa8c995dee6e339a",
        {
            "VLLM_FLOAT32_MATMUL_PRECISION": "high",
            "VLLM_FLASHINFER_ALLREDUCE_BACKEND": "trtllm",
            "NCCL_CUMEM_ENABLE": "1",
            "NCCL_MNNVL_ENABLE": "1",
            "NCCL_NVLS_ENABLE": "1",
            "GLOO_SOCKET_IFNAME": "$IFACE_NAME",
            "NCCL_SOCKET_IFNAME": "$IFACE_NAME",
            "VLLM_ENGINE_READY_TIMEOUT_S": "7200",
            "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "1800",
        },
        [
            "vllm", "serve", "nvidia/MiniMax-M3-NVFP4",
            "--block-size", "128",
            "--trust-remote-code",
            "--kv-cache-dtype", "fp8",
            "--attention_config.backend", "FLASHINFER",
            "--attention_config.use_trtllm_attention", "true",
            "--attention_config.indexer_kv_dtype", "fp8",
            "--attention_config.minimax_m3_msa_decode_backend", "cutlass",
            "--enable-prefix-caching",
            "--max-num-batched-tokens", "16384",
            "--gpu-memory-utilization", "0.9",
            "--no-enable-flashinfer-autotune",
            "--stream-interval", "20",
            "--tensor-parallel-size", "8",
            "--nnodes", "2",
            "--node-rank", "0",
            "--master-addr", "$HEAD_IP",
            "--max-model-len", "1048576",
            "--max-num-seqs", "2",
            "--tool-call-parser", "minimax_m3",
            "--enable-auto-tool-choice",
            "--reasoning-parser", "minimax_m3",
            "--speculative-config",
            '{"method": "eagle3", "model": "Inferact/MiniMax-M3-EAGLE3-GQA", "num_speculative_tokens": '
            '3, "attention_backend": "FLASHINFER", "use_local_argmax_reduction": true}',
            "--language-model-only",
            "--default-chat-template-kwargs", '{"thinking_mode": "enabled"}',
            "--compilation-config",
            '{"cudagraph_mode":"FULL_AND_PIECEWISE","cudagraph_capture_sizes":[1,2,4,8,256,512,1024,204'
            "8]}",
        ],
        id="gb200_agentx_tp8.tp8_c1",
    ),
    pytest.param(
        "mi355x_agentx", "tp4_c1", "single_node_tp", "mxfp4", 1,
        "vllm/vllm-openai-rocm:nightly-df6603f0583375f244d1ac6d36265462b7490392@sha256:81899892d73777a4ae81e16f39e749169687f29249505eb4c56da83bd097d41c",
        {
            "VLLM_USE_BREAKABLE_CUDAGRAPH": "0",
            "VLLM_ROCM_USE_AITER_MOE": "1",
            "VLLM_ROCM_USE_AITER_FUSION_SHARED_EXPERTS": "1",
            "PYTHONNOUSERSITE": "1",
            "VLLM_ENGINE_READY_TIMEOUT_S": "3600",
            "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "1800",
            "VLLM_USE_V2_MODEL_RUNNER": "1",
            "VLLM_ROCM_USE_AITER": "1",
            "VLLM_ROCM_SHUFFLE_KV_CACHE_LAYOUT": "1",
            "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION": "INT4",
            "VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16": "0",
            "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION_MIN_SIZE_KB": "256",
        },
        [
            "vllm", "serve", "amd/MiniMax-M3-MXFP4",
            "--block-size", "128",
            "--trust-remote-code",
            "--compilation-config",
            '{"cudagraph_mode":"FULL_DECODE_ONLY","cudagraph_capture_sizes":[1,2,3,4,5,6,7,8,9,10,11,12'
            ",13,14,15,16,17,18,20,22,24,26,28,30,32,34,36,48,64,72,80,88,96,104,112,120,128]}",
            "--tensor-parallel-size", "4",
            "--served-model-name", "amd/MiniMax-M3-MXFP4",
            "--gpu-memory-utilization", "0.9",
            "--enable-chunked-prefill",
            "--max-num-batched-tokens", "32768",
            "--enable-prefix-caching",
            "--attention-backend", "ROCM_AITER_UNIFIED_ATTN",
            "--kv-cache-dtype", "fp8",
            "--stream-interval", "20",
            "--moe-backend", "aiter",
            "--max-num-seqs", "2",
            "--monokernel",
            "--tool-call-parser", "minimax_m3",
            "--enable-auto-tool-choice",
            "--reasoning-parser", "minimax_m3",
            "--speculative-config",
            '{"method":"eagle3","model":"Inferact/MiniMax-M3-EAGLE3-GQA","num_speculative_tokens":3,"at'
            'tention_backend":"ROCM_AITER_UNIFIED_ATTN"}',
            "--language-model-only",
            "--default-chat-template-kwargs", '{"thinking_mode": "enabled"}',
            "--attention-config", '{"indexer_kv_dtype":"fp8"}',
        ],
        id="mi355x_agentx.tp4_c1",
    ),]


@pytest.mark.parametrize(("preset", "point", "strategy", "variant", "nodes", "image", "env", "argv"), POINTS)
def test_point_records(preset: str, point: str, strategy: str, variant: str, nodes: int, image: str, env: dict,
                       argv: list[str]) -> None:
    out = R.resolve_preset(minimax(), project_vocab(), preset)
    assert out["warnings"] == []
    rec = out["points"][point]
    assert (rec["hardware"], rec["strategy"], rec["variant"], rec["node_count"]) == (
        minimax()["presets"][preset]["hardware"], strategy, variant, nodes)
    assert rec["docker_image"] == image
    assert list(rec["env"].items()) == list(env.items())
    main = rec["argv"] if rec["deploy_type"] == "single_node" else rec["head_argv"]
    assert main == argv
    command = rec["command"] if rec["deploy_type"] == "single_node" else rec["head_command"]
    assert command == R.format_command(argv[2], argv[3:])
    docker = rec["docker_command"] if rec["deploy_type"] == "single_node" else rec["head_docker_command"]
    assert f"\n  {image} {argv[2]} \\\n" in docker
    assert all(f"\n  -e {k}={v} \\\n" in docker for k, v in env.items())


def test_point_record_shape() -> None:
    rec = R.resolve_preset(minimax(), project_vocab(), "h200_agentx")["points"]["c1"]
    assert list(rec) == ["label", "concurrency", "hardware", "strategy", "variant", "node_count", "deploy_type", "env",
                         "docker_image", "command", "argv", "docker_command", "docker_argv"]
    assert (rec["label"], rec["concurrency"]) == ("1", 1)
    assert list(R.resolve_preset(minimax(), project_vocab(), "h200_agentx")["points"]) == list(
        minimax()["presets"]["h200_agentx"]["points"])


def test_multi_node_point_post_processes_every_worker() -> None:
    rec = R.resolve_preset(minimax(), project_vocab(), "gb200_agentx_tp8")["points"]["tp8_c1"]
    assert rec["deploy_type"] == "multi_node" and rec["node_count"] == 2
    head, worker = rec["head_argv"], rec["worker_argv"]
    assert worker[worker.index("--node-rank") + 1] == "1" and "--headless" in worker
    assert [t for t in worker if t not in ("--headless",)] == [t if t != "0" else "1" for t in head]
    assert rec["worker_argvs"] == [worker] and rec["worker_commands"] == [rec["worker_command"]]
    assert worker[-2:] == head[-2:]


class TestPostProcessing:
    def test_remove_args_drops_flag_and_value(self) -> None:
        tokens = ["--a", "1", "--b", "--c", "x", "pos"]
        assert R._postprocess_tokens(tokens, ["--a", "--b"], {}) == ["--c", "x", "pos"]

    def test_json_patch_in_place_and_appended(self) -> None:
        tokens = ["--cfg", '{"a": 1, "b": {"c": 2, "d": 3}, "e": "é"}', "--bare", "--z", "1"]
        patches = {"--cfg": {"b": {"c": None, "x": 9}, "a": [1, 2], "n": None}, "--bare": {"k": None, "v": True},
                   "--new": {"q": {"r": None, "s": 1}}}
        assert R._postprocess_tokens(tokens, [], patches) == [
            "--cfg", '{"a":[1,2],"b":{"d":3,"x":9},"e":"é"}', "--z", "1", "--bare", '{"v":true}',
            "--new", '{"q":{"s":1}}']

    def test_unparsable_target_raises(self) -> None:
        with pytest.raises(R.PresetError):
            R._postprocess_tokens(["--cfg", "fast"], [], {"--cfg": {"a": 1}})


class TestValidation:
    def test_project_recipe_is_valid(self) -> None:
        assert R.validate_presets(minimax(), project_vocab()) == []

    def test_problems_are_reported_with_paths(self) -> None:
        doc = copy.deepcopy(minimax())
        doc["presets"] = {
            "bad": {"hardware": "h999", "strategy": "pd_cluster", "variants": ["nope"],
                    "select": {"features": {"ghost": True, "spec_decoding": "mtp"}},
                    "json_args": {"--x": 5}, "points": {}},
            "bad_target": {"hardware": "h200", "strategy": "single_node_tp", "variants": ["default"],
                           "args": ["--cfg", "fast"], "points": {"p": {"json_args": {"--cfg": {"a": 1}}}}},
        }
        problems = R.validate_presets(doc, project_vocab())
        assert [path for path, _ in problems] == [
            "presets.bad.hardware", "presets.bad.strategy", "presets.bad.variants[0]", "presets.bad.points",
            "presets.bad.select.features.ghost", "presets.bad.select.features.spec_decoding",
            "presets.bad.json_args.--x", "presets.bad_target.points.p.json_args"]
        assert "'h999'" in problems[0][1] and "'mtp'" in problems[5][1]

    def test_failing_point_becomes_warning(self) -> None:
        doc = copy.deepcopy(minimax())
        doc["presets"]["h200_agentx"]["points"]["c1"]["json_args"] = {"--block-size": {"a": 1}}
        out = R.resolve_preset(doc, project_vocab(), "h200_agentx")
        assert "c1" not in out["points"] and "c2" in out["points"]
        assert len(out["warnings"]) == 1 and "MiniMaxAI/MiniMax-M3" in out["warnings"][0]
        assert "--block-size" in out["warnings"][0]


class TestNotes:
    def test_hardware_condition(self) -> None:
        doc = minimax()
        assert [n["title"] for n in R.applicable_notes(doc, {"hardware": "gb200"})] == [
            n["title"] for n in doc["notes"] if "gb200" in n["when"]["hardware"]]
        assert R.applicable_notes(doc, {"hardware": "mi300x"}) == [
            n for n in doc["notes"] if "mi300x" in n["when"]["hardware"]]

    def test_all_given_lists_must_match(self) -> None:
        doc = {"notes": [{"title": "a", "when": {"hardware": ["h200"], "variant": ["fp8"]}},
                         {"title": "b", "when": {"strategy": ["single_node_tp"]}},
                         {"title": "c"}]}
        titles = lambda sel: [n["title"] for n in R.applicable_notes(doc, sel)]  # noqa: E731
        assert titles({"hardware": "h200", "variant": "fp8", "strategy": "single_node_tp"}) == ["a", "b", "c"]
        assert titles({"hardware": "h200", "variant": "default", "strategy": "multi_node_tp"}) == ["c"]
        assert titles({"hardware": "h200"}) == ["c"]
