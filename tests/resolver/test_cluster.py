"""Resolver spec Part 2 (resolver-cluster.md): one test group per section, exact expected strings."""

from __future__ import annotations

import pytest

from tests.resolver.test_module import R, lines, recipe, render, taxonomy, vocab

# Kimi-K3's floors and strategy data (cluster spec §2-§4 examples), on a synthetic recipe.
KIMI = {
    "model": {"model_id": "moonshotai/Kimi-K3"},
    "variants": {"default": {"vram_minimum_gb": 1600}},
    "compatible_strategies": ["single_node_tp", "multi_node_tp", "multi_node_tep", "multi_node_dep",
                              "multi_node_tp_pp", "pd_cluster"],
    "strategy_hardware": {
        "multi_node_tp_dp": {"h200": "supported", "gb200": "supported", "gb300": "supported"}},
    "strategy_min_gpus": {"single_node_tp": 8, "multi_node_tp": 8, "multi_node_tp_dp": 16,
                          "multi_node_tep": 8, "multi_node_tp_pp": 16, "multi_node_dep": 16, "h100": 32},
    "strategy_overrides": {"pd_cluster": {"prefill": {"parallelism": "tep", "tp": 8},
                                          "decode": {"parallelism": "dep", "tp": 1},
                                          "router": {"intra_node_data_parallel_size": 1},
                                          "hardware_overrides": {
                                              "blackwell": {"extra_env": {"UCX_TLS": "rc,cuda_copy"}}}}},
    "hardware_overrides": {"blackwell": {"extra_args": ["--load-format", "fastsafetensors"]}},
}


def head_lines(res: dict, key: str = "head_command") -> list[str]:
    return lines(res[key])[1:]


# §1 data ---------------------------------------------------------------------


class TestCatalogue:
    def test_strategy_map_order_and_kv_ids(self) -> None:
        assert list(vocab()["strategies"]) == [
            "multi_node_dep", "multi_node_tep", "multi_node_tp", "multi_node_tp_dp", "multi_node_tp_pp",
            "pd_cluster",
            "single_node_dep", "single_node_tep", "single_node_tp", "kv_store_centralized_mooncake",
            "kv_store_distributed_mooncake"]
        assert R.kv_store_ids(vocab()) == ["kv_store_centralized_mooncake", "kv_store_distributed_mooncake"]


# §2 strategy support ------------------------------------------------------------


class TestStrategySupport:
    def test_strategy_hardware_lookup(self) -> None:
        inkling = recipe("thinkingmachines/Inkling")
        prof = taxonomy()["hardware_profiles"]
        assert not R.strategy_supported(inkling, "multi_node_tp", prof["h100"], "h100")
        assert R.strategy_supported(inkling, "multi_node_tp", prof["b200"], "b200")
        assert R.strategy_supported(KIMI, "multi_node_tp_dp", prof["gb200"], "gb200")
        assert not R.strategy_supported(KIMI, "multi_node_tp_dp", prof["h100"], "h100")

    def test_effective_compatible_list(self) -> None:
        assert R.effective_compatible_strategies(recipe("deepseek-ai/DeepSeek-V4-Flash")) == [
            "single_node_tp", "single_node_tep", "single_node_dep", "multi_node_dep", "pd_cluster",
            "multi_node_tp"]
        opt_out_only = {"compatible_strategies": ["single_node_tp"],
                        "strategy_hardware": {"multi_node_tp": {"hopper": "unsupported"}}}
        assert R.effective_compatible_strategies(opt_out_only) == ["single_node_tp"]


# §3 floors and node counts ------------------------------------------------------------


class TestFloors:
    def test_min_gpus(self) -> None:
        assert R.min_gpus(KIMI, "multi_node_tp", "h200") == 8
        assert R.min_gpus(KIMI, "multi_node_tp", "h100") == 32
        assert R.min_gpus(KIMI, "dep", "gb200") == 16
        assert R.min_gpus(KIMI, "pd_cluster", "h100") == 32
        assert R.min_gpus(KIMI, "pd_cluster", "h200") == 0
        qwen = recipe("Qwen/Qwen3.8-2.4T-A95B")
        assert R.min_gpus(qwen, "multi_node_dep", "gb300") == 8 and R.min_gpus(qwen, "tp", "b200") == 0
        assert R.min_gpus({"strategy_min_gpus": 12}, "anything", None) == 12

    def test_nodes_and_reachability(self) -> None:
        assert R.nodes_for_strategy(KIMI, "multi_node_tp", 8, "h100") == 4
        assert R.nodes_for_strategy(KIMI, "multi_node_dep", 4, "gb200") == 4
        assert R.nodes_for_strategy(KIMI, "multi_node_dep", None, "gb200") == 2  # missing GPUs count as 8
        offered = R.offered_strategies(KIMI, vocab(), "default", "h100")
        assert "single_node_tp" not in offered and "multi_node_tp" in offered

    def test_fit_helpers(self) -> None:
        prof = taxonomy()["hardware_profiles"]
        assert R.pd_fits_single_node(prof["b200"], {"vram_minimum_gb": 700})
        assert not R.pd_fits_single_node(prof["b200"], {"vram_minimum_gb": 800})
        assert not R.pd_fits_single_node(prof["rtx_pro_6000"], {})
        assert R.pd_fits_single_node(prof["rtx_pro_6000_2x"], {})


# §4 recommendation and PD pool modes ------------------------------------------------------


class TestRecommendation:
    def test_recommend_strategy(self) -> None:
        flash = recipe("deepseek-ai/DeepSeek-V4-Flash")
        assert R.recommend_strategy(flash, 1) == "single_node_tep"
        assert R.recommend_strategy(flash, 2) == "multi_node_tp"
        dspark = {"default_strategy": "single_node_tep",
                  "compatible_strategies": ["single_node_tep", "multi_node_tep", "multi_node_dep"]}
        assert R.recommend_strategy(dspark, 2) == "multi_node_tep"
        assert (R.recommend_strategy({"compatible_strategies": ["multi_node_tep", "multi_node_dep"]}, 2)
                == "multi_node_dep")
        assert R.recommend_strategy({"compatible_strategies": ["single_node_dep"]}, 1) == "single_node_dep"
        assert R.recommend_strategy({}, 1) == "single_node_tp"

    def test_pool_modes(self) -> None:
        assert R.pd_pool_modes(recipe("thinkingmachines/Inkling")) == ["dep"]
        assert R.pd_pool_modes(recipe("deepseek-ai/DeepSeek-V3.2")) == ["tp", "tep", "dep"]
        assert R.pd_pool_modes({"compatible_strategies": ["pd_cluster"]}) == ["tp"]
        assert R.pd_pool_modes({"compatible_strategies": ["single_node_tp"],
                                "strategy_overrides": {"pd_cluster": {"pool_modes": ["dep"]}}}) == ["tp"]

    @pytest.mark.parametrize(("doc", "hw", "expected"), [
        (KIMI, "h100", ("multi_node_tp", 4)),
        (KIMI, "h200", ("multi_node_tp", 2)),
        (KIMI, "b300", ("single_node_tp", 1)),
    ])
    def test_api_recommendation(self, doc: dict, hw: str, expected: tuple) -> None:
        assert R.recommended_strategy(doc, vocab(), "default", hw) == expected

    def test_api_recommendation_corpus(self) -> None:
        flash = recipe("deepseek-ai/DeepSeek-V4-Flash")
        assert R.recommended_strategy(flash, vocab(), "default", "dgx_spark_gb10") == ("multi_node_tp", 2)
        assert R.recommended_strategy(recipe("thinkingmachines/Inkling"), vocab(), "default", "h100") == (
            "single_node_tp", 2)


# §5 dispatch: tests/resolver/fixtures/cl05-*.yaml


# §6 multi-node --------------------------------------------------------------------------


class TestMultiNode:
    def test_dep_stride_from_override(self) -> None:
        doc = dict(recipe("deepseek-ai/DeepSeek-V3.2"))
        doc["strategy_overrides"] = {"multi_node_dep": {"extra_args": ["--data-parallel-size-local", "4"]}}
        res = render(doc, "h200", "multi_node_dep", nodes=3)
        assert [a[a.index("--data-parallel-start-rank") + 1] for a in res["worker_argvs"]] == ["4", "8"]
        assert res["head_argv"][res["head_argv"].index("--data-parallel-size-local") + 1] == "4"

    def test_four_node_growth_and_worker_lists(self) -> None:
        res = R.resolve(KIMI, vocab(), {"hardware": "h100"})
        assert (res["strategy"], res["node_count"]) == ("multi_node_tp", 4)
        assert "--tensor-parallel-size 32 \\\n  --nnodes 4" in res["head_command"]
        assert ([lines(w)[3] for w in res["worker_commands"]]
                == ["--node-rank 1", "--node-rank 2", "--node-rank 3"])
        assert all(w.count("--headless") == 1 for w in res["worker_commands"])
        assert len(res["worker_docker_commands"]) == 3 and len(res["worker_docker_argvs"]) == 3

    def test_record_key_order(self) -> None:
        res = render(recipe("MiniMaxAI/MiniMax-M3"), "h100", "multi_node_tp", nodes=2, docker=True)
        assert list(res)[:19] == [
            "hardware", "strategy", "variant", "node_count", "deploy_type", "env", "docker_image",
            "head_command",
            "worker_command", "worker_commands", "head_argv", "worker_argv", "worker_argvs",
            "head_docker_command",
            "worker_docker_command", "worker_docker_commands", "head_docker_argv", "worker_docker_argv",
            "worker_docker_argvs"]
        assert ("-e GLOO_SOCKET_IFNAME=$IFACE_NAME \\\n  -e NCCL_SOCKET_IFNAME=$IFACE_NAME"
                in res["head_docker_command"])


# §7 pd_cluster ------------------------------------------------------------------------------


class TestPdCluster:
    PRODUCER = '{"kv_connector":"NixlConnector","kv_role":"kv_producer","kv_load_failure_policy":"fail"}'

    def test_one_node_pools(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V3.2"), "h200", "pd_cluster",
                     pd_nodes={"prefill": 1, "decode": 1})
        pre = res["prefill"]  # commands, env and router: tests/resolver/fixtures/cl07-pd-one-node-pools.yaml
        assert {k: pre[k]
                for k in ("nodes", "parallelism", "tp", "dpLocal", "dpSize", "poolGpus", "currentNode",
                          "startRank")} == {"nodes": 1, "parallelism": "tp", "tp": 8, "dpLocal": 0,
                                                      "dpSize": 1, "poolGpus": 8, "currentNode": 0,
                                            "startRank": 0}
        assert "-p 8001:8001" in pre["docker_command"] and "-p 8002:8002" in res["decode"]["docker_command"]

    def test_co_located_tp(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V3.2"), "b200", "pd_cluster", pd_nodes={})
        for role, devices in (("prefill", "0,1,2,3"), ("decode", "4,5,6,7")):
            assert "--tensor-parallel-size 4" in res[role]["command"]
            assert res[role]["env"]["CUDA_VISIBLE_DEVICES"] == devices
            assert (res[role]["nodes"], res[role]["tp"], res[role]["poolGpus"]) == (0, 4, 4)

    def test_co_located_dep(self) -> None:
        res = render(recipe("thinkingmachines/Inkling"), "b200", "pd_cluster", pd_nodes={})
        for role in ("prefill", "decode"):
            up = role.upper()
            assert ("--data-parallel-size 8 \\\n  --data-parallel-size-local 8 \\\n  "
                    f"--data-parallel-start-rank 0 \\\n  --data-parallel-address ${up}_NODE_1 \\\n  "
                    f"--data-parallel-rpc-port ${up}_DP_RPC_PORT \\\n  --enable-expert-parallel") in res[
                        role]["command"]
        assert res["router"]["command"].endswith("--intra-node-data-parallel-size 8")

    def test_kimi_pools_and_override_layers(self) -> None:
        res = R.resolve(KIMI, vocab(), {"hardware": "h200", "strategy": "pd_cluster",
                                        "pd_nodes": {"prefill": 2, "decode": 2}})
        assert ("--tensor-parallel-size 16 \\\n  --enable-expert-parallel \\\n  --nnodes 2 \\\n"
                "  --node-rank 0 \\\n  --master-addr $PREFILL_NODE_1") in res["prefill"]["command"]
        assert ("--tensor-parallel-size 1 \\\n  --data-parallel-size 16 \\\n  --data-parallel-size-local 8 "
                "\\\n  --data-parallel-start-rank 0") in res["decode"]["command"]
        assert res["router"]["command"].count("--decode http://") == 2
        assert res["router"]["command"].count("--prefill http://") == 1
        assert res["router"]["command"].endswith("--intra-node-data-parallel-size 1")
        for role in ("prefill", "decode"):
            assert res[role]["env"]["GLOO_SOCKET_IFNAME"] == "$IFACE_NAME"
        b200 = R.resolve(KIMI, vocab(), {"hardware": "b200", "strategy": "pd_cluster", "pd_nodes": {}})
        assert b200["prefill"]["env"]["UCX_TLS"] == "rc,cuda_copy"
        assert "fastsafetensors" not in b200["prefill"]["command"]
        assert ("fastsafetensors"
                in R.resolve(KIMI, vocab(), {"hardware": "b200", "strategy": "single_node_tp"})["command"])

    def test_builder_ranks_and_nvl4(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V3.2"), "gb200", "pd_cluster", pd_nodes={
            "prefill": {"nodes": 2, "rank": 1, "parallelism": "dep"},
            "decode": {"nodes": 3, "rank": 2, "parallelism": "tp"}})
        assert ("--data-parallel-size 8 \\\n  --data-parallel-size-local 4 \\\n  --data-parallel-start-rank 4"
                in res["prefill"]["command"])
        assert "--data-parallel-hybrid-lb \\\n  --enable-expert-parallel" in res["prefill"]["command"]
        assert res["prefill"]["env"]["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "$PREFILL_NODE_2"
        assert res["prefill"]["env"]["NCCL_MNNVL_ENABLE"] == "1"  # NVL4 keys kept on gb200
        assert ("--tensor-parallel-size 12 \\\n  --nnodes 3 \\\n  --node-rank 2 \\\n  --master-addr "
                "$DECODE_NODE_1 \\\n  --headless") in res["decode"]["command"]
        assert res["decode"]["env"]["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "$DECODE_NODE_1"
        assert "--prefill http://$PREFILL_NODE_1:8001 \\\n    --prefill http://$PREFILL_NODE_2:8001" in (
            res["router"]["command"])
        assert res["router"]["command"].endswith("--intra-node-data-parallel-size 4")

    def test_rank_clamped_but_rewrite_uses_requested_rank(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V3.2"), "h200", "pd_cluster", pd_nodes={
            "prefill": {"nodes": 2, "rank": 5, "parallelism": "dep"}, "decode": 1})
        assert res["prefill"]["currentNode"] == 1 and res["prefill"]["startRank"] == 8
        assert res["prefill"]["env"]["VLLM_NIXL_SIDE_CHANNEL_HOST"] == "$PREFILL_NODE_6"

    def test_pool_mode_snapping_only_for_args(self) -> None:
        res = render(recipe("thinkingmachines/Inkling"), "b200", "pd_cluster",
                     pd_nodes={"prefill": {"nodes": 1, "parallelism": "tp"}, "decode": 1})
        assert "--data-parallel-size-local 8" in res["prefill"]["command"]
        assert res["prefill"]["parallelism"] == "tp" and res["prefill"]["tp"] == 8

    def test_api_pool_sizing(self) -> None:
        prof = taxonomy()["hardware_profiles"]
        variant = KIMI["variants"]["default"]
        assert R.pick_pd_nodes(KIMI, vocab(), prof["h200"], variant, "h200") == {"prefill": 2, "decode": 2}
        assert R.pick_pd_nodes(KIMI, vocab(), prof["gb200"], variant, "gb200") == {"prefill": 3, "decode": 4}
        assert R.pick_pd_nodes(KIMI, vocab(), prof["b300"], variant, "b300") == {"prefill": 1, "decode": 2}
        qwen = recipe("Qwen/Qwen3.8-2.4T-A95B")
        assert R.pick_pd_nodes(qwen, vocab(), prof["gb300"], qwen["variants"]["default"], "gb300") == "skip"
        matrix = R.render_matrix(qwen, vocab(), "default", qwen["hf_id"])
        for entry in matrix["hardware"]:
            if entry["hardware"] in ("h100", "h200", "b200", "gb200", "gb300"):
                assert "pd_cluster" not in [sid for sid, _ in entry["alternatives"]]

    def test_builder_pool_defaults(self) -> None:
        defaults = R.pd_pool_defaults(KIMI, vocab(), "default", "gb200")
        assert defaults == {"prefill": {"nodes": 3, "rank": 0, "parallelism": "tep"},
                            "decode": {"nodes": 4, "rank": 0, "parallelism": "dep"}}


# §8 KV-offload options ------------------------------------------------------------------


class TestKvOffload:
    SIMPLE = ('{"kv_connector":"SimpleCPUOffloadConnector","kv_role":"kv_both","kv_connector_extra_config":'
              '{"cpu_bytes_to_use_per_rank":236223201280,"lazy_offload":false}}')

    def test_gates(self) -> None:
        doc = recipe("deepseek-ai/DeepSeek-V3.2")
        base = render(doc, "h200", "multi_node_tp", nodes=2)
        lm = render(doc, "h200", "multi_node_tp", nodes=2, kv_offload="lmcache")
        assert lm["head_command"] == base["head_command"] and lm["kv_offload"] is None
        pd = render(doc, "h200", "pd_cluster", pd_nodes={}, kv_offload="simple")
        assert "SimpleCPUOffloadConnector" not in pd["prefill"]["command"]
        assert render(doc, "h200", "single_node_tp", kv_offload="nope")["kv_offload"] is None

    def test_option_env_precedes_override_env(self) -> None:
        doc = {"model": {"model_id": "a/b", "base_env": {"X": "1"}}, "variants": {"default": {}},
               "kv_offload_support": {"offloading_fs": "verified"},
               "hardware_overrides": {"hopper": {"extra_env": {"PYTHONHASHSEED": "7"}}}}
        res = R.resolve(doc, vocab(),
                        {"hardware": "h200", "strategy": "single_node_tp", "kv_offload": "offloading_fs"})
        assert list(res["env"].items()) == [("X", "1"), ("PYTHONHASHSEED", "7")]


# §9 Mooncake kv_store_lb --------------------------------------------------------------------


class TestMooncake:
    KV = "--kv-transfer-config '{\"kv_connector\":\"MooncakeStoreConnector\",\"kv_role\":\"kv_both\"}'"

    def test_distributed_single_node(self) -> None:
        doc = recipe("deepseek-ai/DeepSeek-V3.2")
        res = render(doc, "h200", "kv_store_distributed_mooncake")
        plain = render(doc, "h200", "single_node_tp", nodes=1)
        assert res["vllm_command"] == plain["command"] + " \\\n  " + self.KV  # the rest: cl09-*.yaml
        assert "-v $MOONCAKE_CONFIG_PATH:$MOONCAKE_CONFIG_PATH:ro" in res["vllm_docker_command"]
        assert "-e PYTHONHASHSEED=0" in res["vllm_docker_command"]

    def test_centralized_router_and_store(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V3.2"), "h200", "kv_store_centralized_mooncake")
        assert res["instances"] == 2
        assert res["router"] == {"command": (
            "vllm-router --policy cache_aware \\\n    --backend-url http://$VLLM_INSTANCE_1:8000 \\\n"
            "    --backend-url http://$VLLM_INSTANCE_2:8000 \\\n    --host $ROUTER_HOST \\\n    --port "
            "$ROUTER_PORT \\\n    --cache-threshold 0.5 \\\n    --balance-abs-threshold 4 \\\n    "
            "--balance-rel-threshold 1.1"),
            "install": "uv pip install vllm-router", "port": 30080}
        assert res["store"]["command"] == ("python3 -m mooncake.mooncake_store_service --config "
                                           "$MOONCAKE_STORE_CONFIG_PATH")
        assert res["master"]["description"] == "Lightweight metadata coordinator. One instance per cluster."
        assert [t["label"] for t in res["tabs"]] == ["Mooncake Config", "Mooncake Master", "Mooncake Store",
                                                    "vLLM Serve", "Router"]

    def test_multi_node_instances(self) -> None:
        doc = recipe("inclusionAI/Ring-1T-FP8")
        cen = render(doc, "h200", "kv_store_centralized_mooncake")
        assert (cen["node_count"], cen["serving_strategy"]) == (2, "multi_node_tp")
        assert "--master-addr $VLLM_INSTANCE_1" in cen["vllm_command"]
        assert "--node-rank 1" in cen["vllm_worker_command"] and "--headless" in cen["vllm_worker_command"]
        assert list(cen["env"]) == ["GLOO_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "MOONCAKE_CONFIG_PATH",
                                    "PYTHONHASHSEED"]
        dist = render(doc, "h200", "kv_store_distributed_mooncake")
        assert "--master-addr $HEAD_IP" in dist["vllm_command"]
        second = render(doc, "h200", "kv_store_centralized_mooncake", kv_instances={"count": 3, "current": 9})
        assert second["current_instance"] == 2 and "--master-addr $VLLM_INSTANCE_3" in second["vllm_command"]

    def test_single_node_serving_never_has_workers_and_companion_features_skip(self) -> None:
        doc = dict(recipe("deepseek-ai/DeepSeek-V3.2"))
        doc["features"] = {**doc["features"],
                           "side": {"args": ["--side"], "companion": {"command": "side-car"}}}
        res = render(doc, "h200", "kv_store_distributed_mooncake", serving_strategy="single_node_tp", nodes=3,
                     features=["side", "tool_calling"])
        assert res["vllm_worker_command"] is None and "--side" not in res["vllm_command"]
        assert res["node_count"] == 3

    def test_mooncake_with_pd(self) -> None:
        res = render(recipe("deepseek-ai/DeepSeek-V3.2"), "h200", "pd_cluster",
                     pd_nodes={"prefill": 1, "decode": 1}, kv_offload="kv_store_distributed_mooncake")
        assert list(res)[3:6] == ["node_count", "deploy_type", "env"]
        assert '"kv_connector":"MultiConnector"' in res["prefill"]["argv"][-1]
        assert '"kv_role":"kv_consumer"' in res["decode"]["argv"][-1]
        assert list(res["prefill"]["env"])[:4] == ["VLLM_NIXL_SIDE_CHANNEL_PORT",
                                                   "VLLM_NIXL_SIDE_CHANNEL_HOST",
                                                  "MOONCAKE_CONFIG_PATH", "PYTHONHASHSEED"]
        assert res["mooncake"]["install"] == "uv pip install 'mooncake-transfer-engine>=0.3.10'"
        assert list(res["mooncake"]) == ["master", "store", "config", "configNote", "install"]
        assert [t["label"] for t in res["tabs"]] == ["Mooncake Config", "Mooncake Master", "Prefill",
                                                     "Decode", "Router"]

    def test_install_by_brand_and_config_script(self) -> None:
        deployments = vocab()["strategies"]
        prof = taxonomy()["hardware_profiles"]
        dist = deployments["kv_store_distributed_mooncake"]
        assert (R.kv_install(dist, prof["mi300x"])
                == "uv pip install 'mooncake-transfer-engine-non-cuda>=0.3.10'")
        assert R.kv_install(dist, prof["trillium"]) is None
        script = R.mooncake_config_script(deployments["kv_store_centralized_mooncake"])
        assert script.startswith(
            "export MOONCAKE_CONFIG_PATH=${MOONCAKE_CONFIG_PATH:-/etc/mooncake/mooncake_vllm_config.json}\n"
            "export "
            "MOONCAKE_STORE_CONFIG_PATH=${MOONCAKE_STORE_CONFIG_PATH:-/etc/mooncake/mooncake_store_config.jso"
            "n}\n\n# Same file on every instance node.")
        assert '\ncat > $MOONCAKE_CONFIG_PATH <<EOF\n{\n  "mode": "standalone-store",' in script
        assert script.endswith('  "enable_offload": false\n}\nEOF')
        assert "STORE_CONFIG" not in R.mooncake_config_script(dist)

    def test_api_availability(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        assert R.offered_strategies(doc, vocab(), "default", "h200")[-2:] == [
            "kv_store_centralized_mooncake", "kv_store_distributed_mooncake"]
        qwen = recipe("Qwen/Qwen3.6-27B")  # non-scalable profile: no multi-node, PD or Mooncake
        assert R.offered_strategies(qwen, vocab(), "default", "rtx_pro_6000") == ["single_node_tp"]
        llama = recipe("meta-llama/Llama-3.3-70B-Instruct")  # Google TPU and Intel brands: no Mooncake
        for hw in ("trillium", "xeon6"):
            assert not any(s.startswith("kv_store")
                           for s in R.offered_strategies(llama, vocab(), "default", hw))


# §10 JSON API selection (smoke: the full corpus is compared against golden outside the repo) ---------


class TestApiSelection:
    def test_inkling_h100_mooncake_uses_unsupported_serving(self) -> None:
        doc = recipe("thinkingmachines/Inkling")
        matrix = R.render_matrix(doc, vocab(), "default", doc["hf_id"])
        entry = next(e for e in matrix["hardware"] if e["hardware"] == "h100")
        alts = dict((sid, rec) for sid, rec in entry["alternatives"])
        assert alts["kv_store_centralized_mooncake"]["serving_strategy"] == "multi_node_tp"

    def test_kv_record_key_order(self) -> None:
        doc = recipe("MiniMaxAI/MiniMax-M3")
        entry = R.render_matrix(doc, vocab(), "default", doc["hf_id"])["hardware"][0]
        alts = dict((sid, rec) for sid, rec in entry["alternatives"])
        assert list(alts["kv_store_centralized_mooncake"]) == [
            "hardware", "strategy", "variant", "node_count", "deploy_type", "env", "docker_image",
            "serving_strategy", "kv_min_vllm_version", "instances", "vllm_command", "vllm_argv",
            "vllm_worker_command", "vllm_worker_commands", "vllm_worker_argv", "vllm_worker_argvs",
            "vllm_worker_docker_command", "vllm_worker_docker_argv", "vllm_worker_docker_commands",
            "vllm_worker_docker_argvs", "vllm_install", "vllm_docker_command", "vllm_docker_argv", "master",
            "store", "router", "mooncake_config", "mooncake_config_note"]
        assert list(alts["pd_cluster"]["prefill"]) == [
            "command", "argv", "env", "nodes", "parallelism", "tp", "dpLocal", "dpSize", "poolGpus",
            "currentNode", "startRank", "docker_command", "docker_argv"]

    def test_builder_rows(self) -> None:
        assert R.node_pills(KIMI, vocab(), "h100") == [1, 2, 4]
        assert R.node_pills(KIMI, vocab(), "h200") == [1, 2]
        assert R.builder_strategies(KIMI, vocab(), "h100", 1) == ["pd_cluster"]
        assert R.builder_strategies(KIMI, vocab(), "h200", 2) == [
            "multi_node_tp", "multi_node_tep", "multi_node_dep", "multi_node_tp_pp", "pd_cluster",
            "multi_node_tp_dp"]
        assert R.initial_node_count(KIMI, vocab(), "default", "h200") == 2
        assert R.initial_node_count(KIMI, vocab(), "default", "b300") == 1


# §12 omni ---------------------------------------------------------------------------------


class TestOmni:
    def test_wan_i2v_and_amd_env(self) -> None:
        doc = recipe("Wan-AI/Wan2.2-T2V-A14B-Diffusers")
        res = R.resolve(doc, vocab(), {"hardware": "h200", "task": "i2v"})
        assert (res["deploy_type"], res["command"], res["env"]) == (
            "omni", "vllm serve Wan-AI/Wan2.2-I2V-A14B-Diffusers \\\n  --omni", {})
        amd = R.resolve(doc, vocab(), {"hardware": "mi300x", "task": "t2v"})
        assert amd["env"] == {"VLLM_ROCM_USE_AITER": "1", "SAFETENSORS_FAST_GPU": "1"}

    def test_port_and_fixed_flag_order(self) -> None:
        res = R.resolve(recipe("IndexTeam/IndexTTS-2.5"), vocab(), {"hardware": "h200"})
        assert res["command"] == ("vllm serve IndexTeam/IndexTTS-2.5 \\\n  --trust-remote-code \\\n"
                                  "  --port 8092 \\\n  --omni")
        assert res["example"].startswith("curl -X POST http://localhost:8092/v1/audio/speech")

    def test_variant_extras_skip_default(self) -> None:
        doc = recipe("Lightricks/LTX-2.5-Diffusers")
        fp8 = R.resolve(doc, vocab(), {"hardware": "b200", "variant": "fp8"})
        assert lines(fp8["command"])[1:] == ["--quantization fp8", "--model-class-name LTX2Pipeline",
                                             "--diffusion-attention-backend CUDNN_ATTN", "--port 8000",
                                             "--omni"]
        default = R.resolve(doc, vocab(), {"hardware": "b200"})
        assert "--quantization" not in default["command"]

    def test_curl_examples(self) -> None:
        t2i = R.omni_example({"id": "t2i", "endpoint": "/v1/images/generations"})
        assert t2i == (
            "curl -X POST http://localhost:8000/v1/images/generations \\\n"
            "  -H \"Content-Type: application/json\" \\\n"
            "  -d '{\n      \"prompt\": \"a dragon flying over the Green Mountains at sunset\",\n"
            "      \"size\": \"1024x1024\",\n      \"seed\": 42\n    }' \\\n"
            "  | jq -r '.data[0].b64_json' | base64 -d > output.png")
        t2v = R.omni_example({"id": "t2v", "endpoint": "/v1/videos"}, host="h", port=1)
        assert t2v.split(" \\\n") == [
            "curl -X POST http://h:1/v1/videos/sync",
            '  -F "prompt=A cinematic view of a futuristic city at sunset, '
            'smooth camera pan"', '  -F "width=832"', '  -F "height=480"', '  -F "num_frames=81"',
            '  -F "fps=16"',
            '  -F "num_inference_steps=40"', '  -F "guidance_scale=4"', '  -F "seed=42"',
            "  --output output.mp4"]
        i2v = R.omni_example({"id": "i2v", "endpoint": "/v1/videos"})
        assert '  -F "input_reference=@/path/to/input.png"' in i2v and '-F "guidance_scale=5"' in i2v
        i2i = R.omni_example({"id": "i2i", "endpoint": "/v1/chat/completions"}, model_id="m/x")
        assert '"guidance_scale": 4.5,' in i2i and i2i.endswith("}'")
        t2a = R.omni_example({"id": "t2a", "endpoint": "/v1/audio/generate"})
        assert t2a.endswith("    }' --output output.wav") and '"guidance_scale": 7,' in t2a

    def test_task_resolution_and_overrides(self) -> None:
        doc = {"meta": {"tasks": ["omni"]}, "model": {"model_id": "a/b", "base_args": ["--port", "8000"]},
               "variants": {"default": {}},
               "omni": {"port": 8000, "serve_binary": "vllm-omni serve", "tasks": [
                   "t2i", {"id": "bogus"}, {"id": "t2a", "key": "speech", "extra_args": ["--x"],
                                            "hardware_overrides": {
                                                "h200": {"extra_args": ["--y"], "label": "L"}}}]}}
        assert [t["key"] for t in R.omni_tasks(doc)] == ["t2i", "speech"]
        task = R.active_omni_task(doc, "speech", "h200")
        assert task["label"] == "L" and task["extraArgs"] == ["--x", "--y"]
        res = R.resolve(doc, vocab(), {"hardware": "h200", "task": "speech"})
        assert res["command"] == "vllm-omni serve a/b \\\n  --x \\\n  --y \\\n  --port 8000 \\\n  --omni"
        assert R.resolve(doc, vocab(), {"hardware": "h200", "task": "zzz"})["task"]["id"] == "t2i"
        bare = dict(doc, omni={})
        assert R.resolve(bare, vocab(), {"hardware": "h200"})["command"] == "vllm serve a/b --omni"
