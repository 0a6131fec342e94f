"""Resolver spec Part 1 (resolver-single-node.md): one test group per section, exact expected strings."""

from __future__ import annotations

import copy

import pytest

from tests.resolver.test_module import R, lines, recipe, render, taxonomy, vocab

# A small synthetic taxonomy for rules that do not need the corpus.
TAX = {
    "hardware_profiles": {
        "h200": {"brand": "NVIDIA", "generation": "hopper", "gpu_count": 8, "vram_gb": 1128},
        "b200": {"brand": "NVIDIA", "generation": "blackwell", "gpu_count": 8, "vram_gb": 1440},
        "mi300x": {"brand": "AMD", "generation": "amd", "gpu_count": 8, "vram_gb": 1536},
        "trillium": {"brand": "Google", "generation": "tpu", "gpu_count": 8, "vram_gb": 256,
                     "restricted": True},
        "xeon6": {"brand": "Intel", "generation": "cpu", "gpu_count": 4, "vram_gb": 1024, "restricted": True},
        "arc": {"brand": "Intel", "generation": "xpu", "gpu_count": 4, "vram_gb": 96, "restricted": True},
        "box": {"brand": "NVIDIA", "generation": "blackwell", "gpu_count": 1, "vram_gb": 96,
                "scalable": False},
        "legacy": {"brand": "NVIDIA", "gpu_generation": "hopper", "gpu_count": 8, "vram_gb": 640},
    }
}
STRATS = {
    "single_node_tp": {"name": "single_node_tp", "deploy_type": "single_node",
                       "parallel_flag": "--tensor-parallel-size"},
    "single_node_dep": {"name": "single_node_dep", "deploy_type": "single_node",
                        "vllm_args": ["--enable-expert-parallel"], "parallel_flag": "--data-parallel-size"},
}
SYN_VOCAB = {"taxonomy": TAX, "strategies": STRATS}


def syn(**extra: object) -> dict:
    """A minimal recipe with ``model_id`` ``acme/m`` plus ``extra`` top-level keys."""
    doc = {"model": {"model_id": "acme/m"}, "variants": {"default": {}},
           "compatible_strategies": ["single_node_tp"]}
    doc.update(copy.deepcopy(extra))
    return doc


def syn_args(doc: dict, hw: str, strategy: str = "single_node_tp", **sel: object) -> list[str]:
    return R.resolve(doc, SYN_VOCAB, {"hardware": hw, "strategy": strategy, **sel})["argv"][3:]


# §0 conventions ---------------------------------------------------------------


class TestConventions:
    def test_js_stringification(self) -> None:
        assert ([R.js_str(v) for v in (0, True, False, 8.0, 0.95, "x")]
                == ["0", "true", "false", "8", "0.95", "x"])

    def test_env_values_keep_type_and_render_as_strings(self) -> None:
        doc = syn(model={"model_id": "acme/m", "base_env": {"A": 0, "B": True}})
        res = R.resolve(doc, SYN_VOCAB, {"hardware": "h200"})
        assert "-e A=0 \\\n  -e B=true \\\n" in res["docker_command"]


# §1-§2 hardware identity and key matching ---------------------------------------


class TestKeyMatching:
    MAP = {"h200": "id", "hopper": "gen", "nvidia": "brand", "default": "dflt"}

    def test_discipline_h_order(self) -> None:
        prof = TAX["hardware_profiles"]
        assert R.hardware_lookup(self.MAP, prof["h200"], "h200") == "id"
        assert R.hardware_lookup(self.MAP, prof["legacy"], "legacy") == "gen"  # gpu_generation honoured
        assert R.hardware_lookup({"nvidia": "brand", "default": "d"}, prof["b200"], "b200") == "brand"
        assert R.hardware_lookup({"default": "d"}, prof["mi300x"], "mi300x") == "d"
        assert R.hardware_lookup({"h200": None, "hopper": "gen"}, prof["h200"], "h200") == "gen"
        assert R.hardware_lookup(["x"], prof["h200"], "h200") is None

    def test_discipline_m_mode_gate(self) -> None:
        feature = {"modes": {"a": {"args": ["--a"], "hardware": {"hopper": "unsupported"}},
                             "b": {"args": ["--b"],
                                   "hardware": {"mi300x": "unsupported", "nvidia": "unsupported"}}}}
        prof = TAX["hardware_profiles"]
        assert R.available_modes(feature, "default", prof["h200"], "h200") == ["b"]
        assert R.available_modes(feature, "default", prof["mi300x"], "mi300x") == ["a"]
        assert R.available_modes(feature, "default", prof["b200"], "b200") == ["a", "b"]


# §3 offered and default hardware -------------------------------------------------


class TestOfferedHardware:
    def test_minimax_m3_default_order(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        assert R.offered_hardware(doc, taxonomy(), "default") == [
            "h200", "h100", "b200", "gb200", "b300", "gb300", "mi300x", "mi325x", "mi355x"]
        assert R.offered_hardware(doc, taxonomy(), "nvfp4") == ["b200", "gb200", "b300", "gb300"]
        assert R.offered_hardware(doc, taxonomy(), "mxfp4") == ["mi355x"]

    def test_default_hardware_rules(self) -> None:
        tax = taxonomy()
        assert R.default_hardware(recipe("MiniMaxAI/MiniMax-M3"), tax, "default") == "h200"
        assert R.default_hardware(recipe("MiniMaxAI/MiniMax-M3"), tax, "nvfp4") == "b200"
        assert R.default_hardware(recipe("Qwen/Qwen3.8-2.4T-A95B"), tax, "mxfp4") == "mi300x"

    def test_authored_default_must_be_a_candidate(self) -> None:
        doc = syn(meta={"default_hardware": "xeon6", "hardware": {"trillium": "verified"}})
        assert R.default_hardware(doc, TAX, "default") == "h200"
        doc["meta"]["hardware"]["xeon6"] = "supported"
        assert R.default_hardware(doc, TAX, "default") == "xeon6"

    def test_restricted_unsupported_allowlist_and_precision(self) -> None:
        doc = syn(meta={"hardware": {"trillium": "verified", "h200": "unsupported"}},
                  variants={"default": {}, "fp4": {"precision": "nvfp4"},
                            "amd": {"supported_hardware": ["mi300x"]},
                            "any": {"precision": "nvfp4", "precision_hardware": {"brand": "NVIDIA"}}})
        assert R.offered_hardware(doc, TAX, "default") == ["b200", "mi300x", "trillium", "box", "legacy"]
        assert R.offered_hardware(doc, TAX, "fp4") == ["b200", "box"]
        assert R.offered_hardware(doc, TAX, "amd") == ["mi300x"]
        assert R.offered_hardware(doc, TAX, "any") == ["b200", "box", "legacy"]

    def test_no_candidate_falls_back_to_h200_and_brand_rank_sort(self) -> None:
        doc = syn(variants={"default": {"supported_hardware": ["nowhere"]}})
        assert R.offered_hardware(doc, TAX, "default") == ["h200"]
        doc = syn(meta={"hardware": {"trillium": "verified", "h200": "unsupported", "b200": "unsupported",
                                     "box": "unsupported", "legacy": "unsupported"}})
        assert R.default_hardware(doc, TAX, "default") == "mi300x"


# §4 variants, fit and substitution ------------------------------------------------


class TestVariants:
    def test_substitution_shows_in_matrix_record(self) -> None:
        doc = recipe("Google/gemma-4-26B-A4B-it")
        matrix = R.render_matrix(doc, vocab(), "default", doc["hf_id"])
        by_hw = {e["hardware"]: e["recommended"] for e in matrix["hardware"]}
        assert by_hw["rtx_5090"]["variant"] == "fp8"

    def test_runs_on_and_pick_fitting(self) -> None:
        box = TAX["hardware_profiles"]["box"]
        doc = syn(variants={"big": {"vram_minimum_gb": 200}, "mid": {"vram_minimum_gb": 90},
                            "mid2": {"vram_minimum_gb": 90}, "small": {"vram_minimum_gb": 10}})
        assert not R.runs_on(box, doc["variants"]["big"], "box")
        assert R.pick_fitting_variant(doc, box, "box") == "mid"
        assert R.runs_on(TAX["hardware_profiles"]["h200"], {"vram_minimum_gb": 5000}, "h200")


# §5 parallel size: tests/resolver/fixtures/sn05-*.yaml


# §6 features --------------------------------------------------------------------


class TestFeatures:
    def test_hardware_opt_in(self) -> None:
        doc = recipe("moonshotai/Kimi-K2.5")
        assert "encoder_parallel" not in R.default_enabled_features(doc, "gb200", "default")

    def test_default_modes_force_opt_in_feature(self) -> None:
        doc = recipe("deepseek-ai/DeepSeek-V4-Flash")
        assert "spec_decoding" in R.default_enabled_features(doc, "h200", "default")
        assert "spec_decoding" not in R.default_enabled_features(doc, "h200", "fp8")

    def test_effective_mode_precedence(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        prof = taxonomy()["hardware_profiles"]["h200"]
        assert R.effective_mode(doc, "spec_decoding", "default", prof, "h200") == "eagle3"
        assert R.effective_mode(doc, "spec_decoding", "default", prof, "h200", "eagle3_gqa") == "eagle3_gqa"
        assert R.effective_mode(doc, "spec_decoding", "default", prof, "h200", "nope") == "eagle3"

    def test_no_companion_key_without_companions(self) -> None:
        assert "companions" not in R.resolve(syn(), SYN_VOCAB, {"hardware": "h200"})


# §7 KV offload on a single node ----------------------------------------------------


class TestKvOffloadSingleNode:
    SIMPLE = ('{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":'
              '{"cpu_bytes_to_use_per_rank":236223201280,"lazy_offload":false}}')

    def test_opt_in_and_brand_gates(self) -> None:
        plain = render(recipe("MiniMaxAI/MiniMax-M3"), "h200", "single_node_tp")
        gated = render(recipe("MiniMaxAI/MiniMax-M3"), "h200", "single_node_tp", kv_offload="offloading_fs")
        assert gated["command"] == plain["command"] and gated["kv_offload"] is None
        llama = recipe("meta-llama/Llama-3.3-70B-Instruct")
        assert (render(llama, "xeon6", "single_node_tp", kv_offload="offloading_cpu")["command"]
                == render(llama, "xeon6", "single_node_tp")["command"])

    def test_lmcache_companion(self) -> None:
        res = render(recipe("MiniMaxAI/MiniMax-M3"), "h200", "single_node_tp", kv_offload="lmcache")
        (comp,) = res["companions"]
        assert comp["command"].startswith("# --port must match") and not comp["command"].endswith("\n")

    def test_unsupported_recipe_gate(self) -> None:
        doc = syn(kv_offload_support={"simple": "unsupported"})
        tax = {**TAX, "kv_offload": vocab()["taxonomy"]["kv_offload"]}
        res = R.resolve(doc, {"taxonomy": tax, "strategies": STRATS},
                        {"hardware": "h200", "kv_offload": "simple"})
        assert res["argv"][3:] == ["--tensor-parallel-size", "8"]


# §8 argument assembly order ----------------------------------------------------------


class TestAssemblyOrder:
    def test_full_order(self) -> None:
        doc = syn(
            model={"model_id": "acme/m", "base_args": ["--s1"]},
            variants={"default": {"extra_args": ["--s2", ""], "hardware_overrides": {
                "h200": {"extra_args": ["--s3"]}, "hopper": {"extra_args": ["--s6v"]}}}},
            hardware_overrides={"hopper": {"extra_args": ["--s6r"]}},
            strategy_overrides={"single_node_dep": {"extra_args": ["--s5e"], "vllm_args": ["--s5v"],
                                                    "hardware_overrides": {
                                                        "h200": {"extra_args": ["--s7"]}}}},
            features={"f": {"args": ["--s9"]}},
        )
        assert syn_args(doc, "h200", "single_node_dep", advanced_args=["--s8"]) == [
            "--s1", "--s2", "--s3", "--enable-expert-parallel", "--data-parallel-size", "8", "--s5e", "--s5v",
            "--s6r", "--s6v", "--s7", "--s8", "--s9"]

    def test_strategy_generation_block_replaces_recipe_and_variant_deltas(self) -> None:
        doc = syn(hardware_overrides={"hopper": {"extra_args": ["--r"]}},
                  variants={"default": {"hardware_overrides": {"hopper": {"extra_args": ["--v"]}}}},
                  strategy_overrides={"single_node_tp": {"tp": 4, "hardware_overrides": {"hopper": {}}}})
        assert syn_args(doc, "h200") == ["--tensor-parallel-size", "4"]
        assert syn_args(doc, "b200") == ["--tensor-parallel-size", "4"]

    def test_variant_extra_tp_is_overridden_by_parallel_pair(self) -> None:
        doc = syn(variants={"default": {"extra_args": ["--tensor-parallel-size", "2"]}},
                  features={"f": {"args": ["--tensor-parallel-size", "3"]}})
        assert syn_args(doc, "h200", features=[]) == ["--tensor-parallel-size", "8"]
        assert syn_args(doc, "h200") == ["--tensor-parallel-size", "3"]

    def test_advanced_presets(self) -> None:
        assert R.advanced_presets(syn(), "single_node_tp") == [
            ["--max-num-batched-tokens", "8192"], ["--max-num-seqs", "256"],
            ["--gpu-memory-utilization", "0.95"], ["--max-model-len", "auto"]]
        doc = syn(model={"supports_dcp": True, "flashinfer_autotune": True})
        assert R.advanced_presets(doc, "multi_node_dep")[4:] == [
            ["--decode-context-parallel-size", "8"], ["--no-enable-flashinfer-autotune"],
            ["--enable-ep-weight-filter"]]


# §9 dedupe ------------------------------------------------------------------------------


class TestDedupe:
    def test_spec_example(self) -> None:
        tokens = "--a 1 --b --a 2 --x=1 --x=2 --foo -1 pos1 --bool pos2".split()
        assert (R.dedupe_args(tokens)
                == ["--b", "--a", "2", "--x=1", "--x=2", "--foo", "-1", "pos1", "--bool", "pos2"])

    def test_collisions(self) -> None:
        assert R.dedupe_args(["--a", "--b", "--a", "v"]) == ["--b", "--a", "v"]
        assert R.dedupe_args(["--a", "v", "--a"]) == ["--a"]
        assert R.dedupe_args(["--x=1", "--x", "2"]) == ["--x=1", "--x", "2"]
        assert R.dedupe_args(["--enable-foo", "--no-enable-foo"]) == ["--enable-foo", "--no-enable-foo"]
        assert R.dedupe_args(["p", "--a", "", None, "p"]) == ["p", "--a", "p"]


# §10 rendering -------------------------------------------------------------------------


class TestRendering:
    @pytest.mark.parametrize(("value", "expected"), [
        ("auto", "auto"), ("0.95", "0.95"), ("a=b,c+d%@:/.", "a=b,c+d%@:/."), ("$HEAD_IP", "$HEAD_IP"),
        ('{"a":1}', "'{\"a\":1}'"), ("a b", "'a b'"), ("~/x", "'~/x'"), ("${X}", "'${X}'"),
        ("$lower", "'$lower'"), ("it's", "'it'\\''s'"), ("", ""), ("x\n", "'x\n'"),
    ])
    def test_quoting_table(self, value: str, expected: str) -> None:
        assert R.quote_value(value) == expected

    def test_multi_line_format(self) -> None:
        assert R.format_command("m/x", []) == "vllm serve m/x"
        assert R.format_command("m/x", ["--a", "-1", "pos", "--b", "v w"]) == (
            "vllm serve m/x \\\n  --a \\\n  -1 pos \\\n  --b 'v w'")

    def test_minimax_m3_recommended_command(self) -> None:
        res = render(recipe("MiniMaxAI/MiniMax-M3"), "h200")
        assert res["strategy"] == "single_node_tp"
        assert res["command"] == (
            "vllm serve MiniMaxAI/MiniMax-M3 \\\n  --block-size 128 \\\n  --tensor-parallel-size 8 \\\n"
            "  --tool-call-parser minimax_m3 \\\n  --enable-auto-tool-choice \\\n  --reasoning-parser "
            "minimax_m3")
        assert res["argv"] == ["vllm", "serve", "MiniMaxAI/MiniMax-M3", "--block-size", "128",
                               "--tensor-parallel-size", "8", "--tool-call-parser", "minimax_m3",
                               "--enable-auto-tool-choice", "--reasoning-parser", "minimax_m3"]

    def test_worked_example_section_16(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V4-Flash"), "dgx_spark_gb10", "single_node_dep")
        assert lines(res["command"]) == [
            "vllm serve deepseek-ai/DeepSeek-V4-Flash-0731", "--trust-remote-code", "--kv-cache-dtype fp8",
            "--block-size 256", "--max-num-seqs 8", "--max-num-batched-tokens 8192",
            "--gpu-memory-utilization 0.85", "--enable-prefix-caching",
            "--default-chat-template-kwargs.thinking=true",
            "--default-chat-template-kwargs.reasoning_effort=high",
            "--load-format instanttensor", "--linear-backend b12x", "--attention-backend B12X_MLA_SPARSE",
            "--max-cudagraph-capture-size 64", "--enable-expert-parallel", "--data-parallel-size 4",
            "--compilation-config '{\"cudagraph_mode\":\"FULL_AND_PIECEWISE\", \"custom_ops\":[\"all\"]}'",
            "--attention_config.use_fp4_indexer_cache True", "--moe-backend deep_gemm_mega_moe",
            "--tokenizer-mode deepseek_v4", "--tool-call-parser deepseek_v4", "--enable-auto-tool-choice",
            "--reasoning-parser deepseek_v4",
            "--reasoning-config '{\"reasoning_parser\":\"deepseek_v4\",\"reasoning_start_str\":\"\","
            "\"reasoning_end_str\":\"\"}'",
            "--speculative-config '{\"method\":\"dspark\",\"num_speculative_tokens\":5,"
            "\"draft_sample_method\":\"probabilistic\",\"attention_backend\":\"B12X_MLA_SPARSE\"}'",
        ]
        assert len(res["env"]) == 24 and res["env"]["UCX_NET_DEVICES"] == "$IFACE_NAME"
        assert res["docker_image"] == "eugr/spark-vllm-b12x:latest"
        assert res["docker_command"].count("\n  -e ") == 24

    def test_second_example_minimax_mxfp8(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        h100 = render(doc, "h100", "single_node_tp", variant="mxfp8", nodes=1)
        assert lines(h100["command"])[1:] == [
            "--block-size 128", "--attention_config.indexer_kv_dtype fp8", "--max-model-len 131072",
            "--tensor-parallel-size 8", "--tool-call-parser minimax_m3", "--enable-auto-tool-choice",
            "--reasoning-parser minimax_m3"]
        b200 = render(doc, "b200", "single_node_tp", variant="mxfp8")
        assert "--max-model-len" not in b200["command"]
        assert b200["env"] == {"VLLM_FLOAT32_MATMUL_PRECISION": "high"}


# §11 environment ---------------------------------------------------------------------------


class TestEnvironment:
    def test_layer_order_and_positions(self) -> None:
        doc = syn(
            model={"model_id": "acme/m", "base_env": {"A": "1", "Z": "base"}},
            variants={"default": {"extra_env": {"B": "2"}, "hardware_overrides": {
                "h200": {"extra_env": {"C": "3"}}, "hopper": {"extra_env": {"G2": "v"}}}}},
            hardware_overrides={"hopper": {"extra_env": {"G1": "r", "Z": "gen"}}},
            strategy_overrides={"single_node_tp": {"env": {"S": "env"}, "extra_env": {"S2": "x"},
                                                   "hardware_overrides": {
                                                       "h200": {"extra_env": {"X": "9"}}}}},
        )
        res = R.resolve(doc, SYN_VOCAB, {"hardware": "h200"})
        assert list(res["env"].items()) == [("A", "1"), ("Z", "gen"), ("B", "2"), ("C", "3"), ("S", "env"),
                                            ("S2", "x"), ("G1", "r"), ("G2", "v"), ("X", "9")]

    def test_pip_view(self) -> None:
        prof = TAX["hardware_profiles"]
        assert R.pip_view("vllm serve m", {"A": 1}, prof["h200"]) == "export A=1\n\nvllm serve m"
        assert R.pip_view("vllm serve m", {}, prof["h200"]) == "vllm serve m"
        assert (R.pip_view("vllm serve m", {}, prof["arc"])
                == "source /opt/intel/oneapi/setvars.sh\n\nvllm serve m")


# §12 docker ----------------------------------------------------------------------------------


class TestDocker:
    def test_nvidia_no_env(self) -> None:
        res = render(recipe("MiniMaxAI/MiniMax-M3"), "h200")
        assert res["docker_command"] == (
            "docker run --gpus all \\\n  --privileged --ipc=host -p 8000:8000 \\\n"
            "  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n"
            "  vllm/vllm-openai:minimax-m3 MiniMaxAI/MiniMax-M3 \\\n  --block-size 128 \\\n"
            "  --tensor-parallel-size 8 \\\n  --tool-call-parser minimax_m3 \\\n  --enable-auto-tool-choice "
            "\\\n  --reasoning-parser minimax_m3")
        assert res["docker_argv"][:12] == [
            "docker", "run", "--gpus", "all", "--privileged", "--ipc=host", "-p", "8000:8000", "-v",
            "~/.cache/huggingface:/root/.cache/huggingface", "vllm/vllm-openai:minimax-m3",
            "MiniMaxAI/MiniMax-M3"]

    def test_amd_with_env(self) -> None:
        res = render(recipe("meta-llama/Llama-3.1-8B-Instruct"), "mi300x", "single_node_tp")
        assert res["docker_command"] == (
            "docker run --device=/dev/kfd --device=/dev/dri \\\n"
            "  --security-opt seccomp=unconfined --group-add video \\\n"
            "  --privileged --ipc=host -p 8000:8000 \\\n  -v ~/.cache/huggingface:/root/.cache/huggingface "
            "\\\n  -e VLLM_ROCM_USE_AITER=1 \\\n  vllm/vllm-openai-rocm:latest "
            "meta-llama/Llama-3.1-8B-Instruct \\\n  --tensor-parallel-size 1")
        assert res["docker_argv"] == [
            "docker", "run", "--device=/dev/kfd", "--device=/dev/dri", "--security-opt", "seccomp=unconfined",
            "--group-add", "video", "--privileged", "--ipc=host", "-p", "8000:8000", "-v",
            "~/.cache/huggingface:/root/.cache/huggingface", "-e", "VLLM_ROCM_USE_AITER=1",
            "vllm/vllm-openai-rocm:latest", "meta-llama/Llama-3.1-8B-Instruct", "--tensor-parallel-size", "1"]

    @pytest.mark.parametrize(("hw", "text", "argv"), [
        ("trillium", "docker run --privileged --network host \\\n  -v /dev/shm:/dev/shm \\\n",
         ["--privileged", "--network", "host", "-v", "/dev/shm:/dev/shm"]),
        ("arc", "docker run --device /dev/dri \\\n  -v /dev/dri/by-path:/dev/dri/by-path --shm-size=16g \\\n",
         ["--device", "/dev/dri", "-v", "/dev/dri/by-path:/dev/dri/by-path", "--shm-size", "16g"]),
        ("xeon6", "docker run --shm-size=16g \\\n", ["--shm-size", "16g"]),
    ])
    def test_device_flags(self, hw: str, text: str, argv: list[str]) -> None:
        res = R.resolve(syn(), SYN_VOCAB, {"hardware": hw})
        assert res["docker_command"].startswith(text)
        assert res["docker_argv"][2:2 + len(argv)] == argv

    def test_images(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        assert render(doc, "mi355x")["docker_image"] == "vllm/vllm-openai-rocm:minimax-m3"
        assert render(doc, "mi300x", "single_node_tp", variant="mxfp8")["docker_image"] == (
            "docker pull vllm/vllm-openai-rocm:nightly")
        assert (render(recipe("Qwen/Qwen3-VL-235B-A22B-Instruct"), "h200")["docker_image"]
                == "vllm/vllm-openai:latest")
        flash = recipe("deepseek-ai/DeepSeek-V4-Flash")
        assert render(flash, "h200")["docker_image"] == "vllm/vllm-openai:v0.25.0"
        assert render(flash, "rtx_pro_6000_8x")["docker_image"] == "vllm/vllm-openai:nightly"
        assert render(flash, "mi325x")["docker_image"] == "vllm/vllm-openai-rocm:nightly"
        assert render(recipe("meta-models/Muse-Glimmer-30B"), "h200")["docker_image"] == (
            "vllm/vllm-openai:muse-glimmer")

    def test_image_defaults_and_cuda_toggle(self) -> None:
        prof = TAX["hardware_profiles"]
        nightly = {"model": {"nightly_required": True}}
        assert R.docker_image({}, {}, prof["trillium"], "trillium") == "vllm/vllm-tpu:latest"
        assert R.docker_image({}, {}, prof["xeon6"], "xeon6") == "vllm/vllm-openai-cpu:latest-x86_64"
        assert R.docker_image({}, {}, prof["arc"], "arc") == "vllm/vllm-openai-xpu:latest"
        assert R.docker_image(nightly, {}, prof["mi300x"], "mi300x") == "vllm/vllm-openai-rocm:nightly"
        assert R.docker_image(nightly, {}, prof["xeon6"], "xeon6") is None
        assert R.docker_image(nightly, {}, prof["h200"], "h200", "cu129") == "vllm/vllm-openai:cu129-nightly"
        assert R.docker_image({}, {}, prof["h200"], "h200", "cu129") == "vllm/vllm-openai:latest-cu129"
        cuda_map = {"model": {"docker_image": {"cu129": "img:a", "cu130": "img:b"}}}
        assert R.docker_image(cuda_map, {}, prof["h200"], "h200") == "img:b"
        assert R.docker_image(cuda_map, {}, prof["h200"], "h200", "cu129") == "img:a"
        assert R.docker_image(cuda_map, {}, prof["mi300x"], "mi300x") == "vllm/vllm-openai-rocm:latest"

    def test_undefined_image_edge(self) -> None:
        doc = syn(model={"model_id": "acme/m", "nightly_required": True})
        res = R.resolve(doc, SYN_VOCAB, {"hardware": "xeon6"})
        assert "docker_image" not in res
        assert "\n  undefined acme/m \\\n" in res["docker_command"]
        assert res["docker_argv"][res["docker_argv"].index("acme/m") - 1] is None

    def test_local_model_and_config_path_mounts(self) -> None:
        env = {"MOONCAKE_CONFIG_PATH": "$MOONCAKE_CONFIG_PATH"}
        prof = TAX["hardware_profiles"]["h200"]
        text = R.docker_run("vllm serve /models/x \\\n  --a 1", env, "img", prof)
        assert text == (
            "# /models/x must already exist on the host — bind-mounted read-only below.\n"
            "docker run --gpus all \\\n  --privileged --ipc=host -p 8000:8000 \\\n"
            "  -v ~/.cache/huggingface:/root/.cache/huggingface \\\n  -v /models/x:/models/x:ro \\\n"
            "  -v $MOONCAKE_CONFIG_PATH:$MOONCAKE_CONFIG_PATH:ro \\\n"
            "  -e MOONCAKE_CONFIG_PATH=$MOONCAKE_CONFIG_PATH \\\n  img /models/x \\\n  --a 1")
        assert R.docker_run("vllm serve m", {}, "img", prof).endswith("img m")
        assert R.docker_argv(["vllm", "serve", "/m", "--a"], {}, "img", prof)[-6:] == [
            "~/.cache/huggingface:/root/.cache/huggingface", "-v", "/m:/m:ro", "img", "/m", "--a"]


# §13 install block ------------------------------------------------------------------------------


class TestInstallBlock:
    def test_muse_glimmer(self) -> None:
        block = R.install_block(recipe("meta-models/Muse-Glimmer-30B"))
        assert list(block) == ["docker"]
        assert block["docker"]["command"] == "docker pull vllm/vllm-openai:muse-glimmer"

    def test_gemma_4_12b(self) -> None:
        block = R.install_block(recipe("Google/gemma-4-12B-it"))
        assert block["pip"] == {
            "command": "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --torch-backend auto"}
        assert block["docker"] == {"command": "docker pull vllm/vllm-openai:gemma4-unified"}
        assert (block["extras"][0]["command"] == 'uv pip install "vllm[audio]"'
                and block["extras"][0]["optional"])

    def test_nightly_defaults(self) -> None:
        block = R.install_block({"model": {"nightly_required": True, "min_vllm_version": "0.25.0",
                                           "install": {"pip": None, "docker": {}}}})
        assert block["pip"] == {
            "command": "uv venv\nsource .venv/bin/activate\nuv pip install -U vllm --pre \\\n"
                       "  --extra-index-url https://wheels.vllm.ai/nightly/cu130 \\\n"
                       "  --extra-index-url https://download.pytorch.org/whl/cu130 \\\n"
                       "  --index-strategy unsafe-best-match",
            "note": "vLLM 0.25.0 isn't released yet — nightly required."}
        assert block["docker"] == {"command": "docker pull vllm/vllm-openai:latest"}
        assert R.install_block({"model": {"install": {"pip": False, "docker": False}}}) is None

    def test_interactive_install(self) -> None:
        doc = recipe("meta-models/Muse-Glimmer-30B")
        info = R.interactive_install(doc, vocab(), "h200", "default")
        assert info["header"].endswith(" · CUDA") and info["pip"] is None and info["initial_tab"] == "docker"
        assert info["docker"]["command"] == "docker pull vllm/vllm-openai:muse-glimmer"
        amd = R.interactive_install(syn(model={"min_vllm_version": "0.9.1"}), SYN_VOCAB, "mi300x", "default")
        assert amd["header"] == "vLLM 0.9.1+ · ROCm"
        assert amd["pip"]["command"] == ("uv venv --python 3.12\nsource .venv/bin/activate\n"
                                         "uv pip install vllm --extra-index-url https://wheels.vllm.ai/rocm")
        assert amd["docker"] == {"command": "docker pull vllm/vllm-openai-rocm:latest", "note": None}
        tpu = R.interactive_install(syn(), SYN_VOCAB, "trillium", "default")
        assert tpu["pip"] is None and tpu["docker"]["note"].startswith("TPU builds are published")
        doc = syn(model={"min_vllm_version": "0.10.0", "nightly_required": True},
                  variants={"default": {"min_vllm_version": "0.9.9"}})
        nightly = R.interactive_install(doc, SYN_VOCAB, "h200", "default", cuda="cu129")
        assert nightly["min_version"] == "0.10.0"
        assert "/nightly/cu129 " in nightly["pip"]["command"]
        assert nightly["pip"]["note"] == ("vLLM 0.10.0 isn't released yet — nightly required. "
                                          "For CUDA 12.9, switch the toggle to cu129.")
        assert nightly["docker"]["command"] == "docker pull vllm/vllm-openai:cu129-nightly"

    def test_dependency_filters(self) -> None:
        doc = syn(dependencies=[{"command": "a"}, {"command": "b", "brand": "AMD"},
                                {"command": "c", "optional": True, "install_modes": ["docker"]}])
        tax = {**TAX, "kv_offload": vocab()["taxonomy"]["kv_offload"]}
        entries = R.extra_installs(doc, {"taxonomy": tax, "strategies": {}}, "h200", "lmcache")
        assert [e["command"] for e in entries] == ["a", "c", 'uv pip install "lmcache==0.5.1"']
        assert R.copy_all_installs(entries, "pip") == 'a\nuv pip install "lmcache==0.5.1"'


# §14-§15 records and recommendation -----------------------------------------------------------


class TestRecords:
    def test_single_node_record_key_order(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        matrix = R.render_matrix(doc, vocab(), "default", doc["hf_id"])
        first = matrix["hardware"][0]
        assert first["hardware"] == "h200"
        assert list(first["recommended"]) == ["hardware", "strategy", "variant", "node_count", "deploy_type",
                                              "env",
                                              "docker_image", "command", "argv", "docker_command",
                                              "docker_argv"]
        assert [sid for sid, _ in first["alternatives"]] == [
            "single_node_tep", "single_node_dep", "multi_node_tp", "multi_node_tp_pp", "multi_node_tep",
            "multi_node_dep", "pd_cluster", "kv_store_centralized_mooncake", "kv_store_distributed_mooncake"]

    def test_inkling_h100_single_node_with_two_nodes(self) -> None:
        doc = recipe("thinkingmachines/Inkling")
        matrix = R.render_matrix(doc, vocab(), "default", doc["hf_id"])
        rec = next(e["recommended"] for e in matrix["hardware"] if e["hardware"] == "h100")
        assert ((rec["strategy"], rec["deploy_type"], rec["node_count"])
                == ("single_node_tp", "single_node", 2))
        assert "--tensor-parallel-size 8" in rec["command"]

    def test_missing_variant_and_omni_yield_nothing(self) -> None:
        assert R.render_matrix(syn(), SYN_VOCAB, "nope", "acme/m") == {"hardware": [], "warnings": []}
        omni = recipe("Wan-AI/Wan2.2-T2V-A14B-Diffusers")
        assert R.render_matrix(omni, vocab(), "default", omni["hf_id"])["hardware"] == []

    def test_programming_errors_are_not_warnings(self) -> None:
        class Bug(dict):
            def get(self, key: object, default: object = None) -> object:
                if key == "single_node_tp":
                    raise RuntimeError("bug")
                return super().get(key, default)

        doc = syn(hf_id="acme/parent")
        doc["strategy_overrides"] = Bug()
        with pytest.raises(RuntimeError, match="^bug$"):
            R.render_matrix(doc, SYN_VOCAB, "default", "acme/m")

    def test_resolver_failure_becomes_warning(self) -> None:
        class Boom(dict):
            def get(self, key: object, default: object = None) -> object:
                if key == "single_node_tp":
                    raise R.ResolveError("boom")
                return super().get(key, default)

        doc = syn(hf_id="acme/parent")
        doc["strategy_overrides"] = Boom()
        out = R.render_matrix(doc, SYN_VOCAB, "default", "acme/m")
        assert out["hardware"] == []  # the default hardware failed: nothing for the base
        assert out["warnings"][0] == ("resolver failed for acme/parent variant 'default' "
                                      "strategy 'single_node_tp': boom")


class TestInteractiveHardware:
    def test_landing_precedence(self) -> None:
        doc = syn(meta={"hardware": {"box": "verified"}}, variants={"default": {"precision": "nvfp4"}})
        assert R.initial_hardware(doc, TAX, "default", query="h200") == "b200"  # precision-incompatible query
        assert R.initial_hardware(doc, TAX, "default", query="box") == "box"
        # declared restricted is fine
        assert R.initial_hardware(doc, TAX, "default", preference="box") == "box"
        # NVIDIA-only preference
        assert R.initial_hardware(syn(), TAX, "default", preference="mi300x") == "h200"
        # restriction not rechecked
        assert R.initial_hardware(syn(), TAX, "default", query="trillium") == "trillium"
