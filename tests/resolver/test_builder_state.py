"""resolver.builder_state: the interactive builder's view model, in CPython."""

from __future__ import annotations

import json

from tests.resolver.test_module import R, project_recipe, project_vocab, recipe, vocab


def bs(hf_id: str, state: dict | None = None, event: dict | None = None) -> dict:
    return R.builder_state(recipe(hf_id), vocab(), state or {}, event)


def step(view: dict, hf_id: str, **event) -> dict:
    return R.builder_state(recipe(hf_id), vocab(), view["state"], event)


def row(view: dict, rid: str) -> dict:
    return next(r for r in view["rows"] if r["id"] == rid)


def selected(view: dict, rid: str) -> list:
    return [p["value"] for p in row(view, rid)["pills"] if p["selected"]]


def test_default_view_has_every_standard_row_and_a_clean_url() -> None:
    v = bs("Qwen/Qwen3-8B")
    assert [r["id"] for r in v["rows"]] == ["hardware", "variant", "strategy", "kv_offload", "nodes",
                                            "features", "advanced"]
    assert v["query"] == ""
    assert selected(v, "hardware") == ["h200"] and selected(v, "nodes") == [1]
    assert v["tabs"][0]["command"].startswith("vllm serve Qwen/Qwen3-8B")
    assert v["summary"]["text"] == "H200 · TP=1 · BF16"
    assert v["storage"] == {"prefs": None, "recipe": None}
    json.dumps(v)  # plain JSON


def test_hardware_pills_carry_per_gpu_memory_verified_mark_and_groups() -> None:
    v = bs("deepseek-ai/DeepSeek-V3.2")
    hw = {p["value"]: p for p in row(v, "hardware")["pills"]}
    assert hw["h200"]["sub"] == "141G/GPU" and hw["h200"]["label"] == "H200"
    assert [g["label"] for g in row(v, "hardware")["groups"]][:2] == ["NVIDIA", "AMD"]
    assert any(p["verified"] for p in hw.values())


def test_unsupported_hardware_is_disabled_with_a_reason_and_clicks_are_inert() -> None:
    hf = "dots-studio/dots3-note-prev"
    bad = next(h for h, m in recipe(hf)["meta"]["hardware"].items() if m == "unsupported")
    v = bs(hf)
    pill = next(p for p in row(v, "hardware")["pills"] if p["value"] == bad)
    assert pill["disabled"] and pill["reason"] and not pill["selected"]
    after = step(v, hf, type="hardware", value=bad)
    assert after["state"] == v["state"] and after["query"] == v["query"] and after["storage"]["prefs"] is None


def test_hardware_click_stores_the_preference_and_writes_the_url() -> None:
    v = step(bs("Qwen/Qwen3-8B"), "Qwen/Qwen3-8B", type="hardware", value="b200")
    assert v["storage"]["prefs"] == {"hardware": "b200"}
    assert v["query"] == "hardware=b200"
    assert selected(v, "hardware") == ["b200"]


def test_invalid_parameters_are_corrected() -> None:
    v = bs("Qwen/Qwen3-8B", {"hardware": "nope", "variant": "bogus", "nodes": "9", "strategy": "x",
                             "kv_offload": "zzz", "features": "tool_calling,unknown"})
    assert v["state"]["hardware"] == "h200" and v["state"]["variant"] == "default"
    assert v["state"]["nodes"] == 1 and v["state"]["kv_offload"] is None
    assert v["query"] == "hardware=h200&features=tool_calling"


def test_stored_nvidia_preference_applies_but_amd_does_not() -> None:
    assert bs("Qwen/Qwen3-8B", {"_prefs": {"hardware": "b200"}})["state"]["hardware"] == "b200"
    assert bs("Qwen/Qwen3-8B", {"_prefs": {"hardware": "mi300x"}})["state"]["hardware"] == "h200"
    assert (bs("Qwen/Qwen3-8B", {"hardware": "mi300x", "_prefs": {"hardware": "b200"}})["state"]["hardware"]
            == "mi300x")


def test_stored_recipe_choices_restore_unless_the_url_says_otherwise() -> None:
    stored = {"features": ["reasoning"], "nodes": 1}
    v = bs("Qwen/Qwen3-8B", {"_stored": stored})
    assert selected(v, "features") == ["reasoning"]
    v = bs("Qwen/Qwen3-8B", {"features": "none", "_stored": stored})
    assert selected(v, "features") == [] and "features=none" in v["query"]


def test_url_round_trip_reproduces_the_command() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = bs(hf)
    for event in ({"type": "hardware", "value": "b200"}, {"type": "nodes", "value": 2},
                  {"type": "advanced", "value": "gpu_mem_095"}, {"type": "install", "value": "docker"}):
        v = R.builder_state(recipe(hf), vocab(), v["state"], event)
    query = dict(p.split("=", 1) for p in v["query"].split("&"))
    again = bs(hf, query)
    assert again["tabs"] == v["tabs"] and again["query"] == v["query"]


def test_strategy_row_follows_node_count_and_pd_gets_pool_rows_and_tabs() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = bs(hf)
    assert "pd_cluster" in [p["value"] for p in row(v, "strategy")["pills"]]
    pd = step(v, hf, type="strategy", value="pd_cluster")
    assert [t["label"] for t in pd["tabs"]] == ["Prefill", "Decode", "Router"]
    assert {r["id"] for r in pd["rows"]} >= {"prefill_pool", "decode_pool"}
    assert pd["tabs"][0]["copy"].startswith("# 1 node × 8 GPU = 8 GPU")
    assert (pd["target"]["host_var"] == "ROUTER_HOST"
            and [t["client"] for t in pd["tabs"]] == [False, False, True])
    bigger = step(pd, hf, type="pool_nodes", role="prefill", value=2)
    assert "prefill_nodes=2" in bigger["query"]
    assert "--headless" not in bigger["tabs"][0]["command"]
    follower = step(bigger, hf, type="pool_rank", role="prefill", value=2)
    assert "prefill_rank=1" in follower["query"] and "--headless" in follower["tabs"][0]["command"]


def test_multi_node_tabs_and_summary() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = step(bs(hf), hf, type="nodes", value=2)
    assert [t["label"] for t in v["tabs"]] == ["Head", "Node 1"]
    if not v["summary"]["verified"]:
        assert v["summary"]["text"].startswith("2× H200 · Multi-Node")
    mi = step(bs(hf, {"hardware": "mi355x"}), hf, type="nodes", value=2)
    assert mi["summary"]["verified"] or mi["summary"]["text"].startswith("2× MI355X · Multi-Node")
    assert "$HEAD_IP" in v["tabs"][1]["command"] and v["target"]["host_var"] == "HEAD_IP"
    assert v["tabs"][0]["client"] and not v["tabs"][1]["client"]


def test_mooncake_defaults_to_distributed_with_numbered_tabs_and_instances() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = step(bs(hf), hf, type="kv_offload", value="mooncake")
    assert v["state"]["kv_offload"] == "kv_store_distributed_mooncake"
    assert [t["label"] for t in v["tabs"]] == ["1· Mooncake Config", "2· Mooncake Master", "3· vLLM Serve"]
    assert {"topology", "instances"} <= {r["id"] for r in v["rows"]}
    assert row(v, "nodes")["label"] == "Nodes / Instance"
    three = step(v, hf, type="kv_instances", value=3)
    assert three["tabs"][-1]["name"] == "Router" and three["target"]["port"] == 30080
    assert "kv_instances=3" in three["query"]
    assert step(three, hf, type="kv_instances", value=99)["state"]["kv_instances"] == 16
    off = step(three, hf, type="kv_offload", value="off")
    assert off["state"]["kv_instances"] is None and "kv_" not in off["query"]
    assert any("mooncake" in e["command"] for e in v["install"]["extras"]["entries"])


def test_composing_kv_option_adds_its_config_and_lmcache_companion_tab() -> None:
    hf = "Qwen/Qwen3-8B"
    v = step(bs(hf), hf, type="kv_offload", value="simple")
    assert "SimpleCPUOffloadConnector" in v["tabs"][0]["command"]
    assert v["summary"]["text"].endswith("Simple (CPU offload)")
    lm = step(bs(hf), hf, type="kv_offload", value="lmcache")
    assert [t["label"] for t in lm["tabs"]] == ["1· LMCache Server", "2· vLLM Serve"]
    assert lm["tabs"][1]["client"] and not lm["tabs"][0]["client"]


def test_feature_toggle_and_mutual_exclusion() -> None:
    hf = "moonshotai/Kimi-K2.5"
    v = bs(hf)
    off = step(v, hf, type="feature", value="reasoning")
    assert "reasoning" not in selected(off, "features")
    assert "--reasoning-parser" not in off["tabs"][0]["command"]
    assert "features=" in off["query"]


def test_install_block_tabs_and_cuda_toggle() -> None:
    hf = "Qwen/Qwen3-8B"
    v = bs(hf)
    assert ([t["id"] for t in v["install"]["tabs"]] == ["pip", "docker", "k8s", "compose", "vllm-config"]
            and v["install"]["active"] == "pip")
    d = step(v, hf, type="install", value="docker")
    assert d["install"]["cuda_toggle"] and d["tabs"][0]["command"].startswith("docker run")
    assert d["tabs"][0]["copy"] == d["tabs"][0]["command"]
    cu = step(d, hf, type="cuda", value="cu129")
    assert "cu129" in cu["install"]["tabs"][1]["command"] and "cuda=cu129" in cu["query"]


def test_copy_text_is_prelude_blank_line_and_command() -> None:
    v = bs("deepseek-ai/DeepSeek-V3.2", {"strategy": "pd_cluster"})
    tab = v["tabs"][0]
    # the tab's comment line leads, above its exports (as the reference shows it)
    assert tab["prelude"].startswith("# 1 node × 8 GPU = 8 GPU · TP\nexport ")
    assert tab["copy"] == f"{tab['prelude']}\n\n{tab['command']}"


def test_env_values_substitute_whole_placeholders() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = bs(hf, {"nodes": "2", "_endpoints": {"HEAD_IP": "10.0.0.7", "HEAD": "x"}})
    command_lines = [line for line in v["tabs"][1]["command"].split("\n") if not line.startswith("#")]
    assert any("10.0.0.7" in line for line in command_lines)
    assert not any("$HEAD_IP" in line for line in command_lines)
    # the prose comment keeps the placeholder's name
    assert v["tabs"][1]["command"].endswith("# Set $HEAD_IP to the rank-0 node's IP before launch, then run "
                                            "each tab on its own node —\n# they differ only by --node-rank "
                                            "(TP/TEP) or --data-parallel-start-rank (DEP).")
    assert "http://10.0.0.7:8000" in v["curl"] and "HEAD_IP" in v["placeholders"]


def test_omni_rows_and_task_axes() -> None:
    hf = "Lightricks/LTX-2.5-Diffusers"
    v = bs(hf)
    assert [r["id"] for r in v["rows"]][:4] == ["hardware", "axis_stage", "axis_weights", "axis_x2v"]
    assert v["tabs"][0]["command"].endswith("--omni")
    i2v = step(v, hf, type="axis", axis="x2v", value="i2v")
    assert i2v["state"]["task"] == "full_one_stage_i2v" and i2v["query"].endswith("task=full_one_stage_i2v")
    assert i2v["curl"] != v["curl"]


def test_omni_task_row_for_plain_task_lists() -> None:
    hf = "Wan-AI/Wan2.2-T2V-A14B-Diffusers"
    v = bs(hf, {"task": "i2v"})
    assert selected(v, "task") == ["i2v"]
    assert "Wan2.2-I2V" in v["tabs"][0]["command"]
    assert "/v1/videos/sync" in v["curl"]


def test_presets_apply_their_selection_and_show_the_endpoint_command() -> None:
    m, pv = project_recipe("MiniMaxAI/MiniMax-M3"), project_vocab()
    v = R.builder_state(m, pv, {})
    assert [p["key"] for p in v["presets"]][:2] == ["h200_agentx", "b200_agentx"]
    chosen = R.builder_state(m, pv, v["state"], {"type": "preset", "value": "b200_agentx"})
    point = chosen["state"]["point"]
    want = R.resolve_preset(m, pv, "b200_agentx")["points"][point]
    assert chosen["tabs"][0]["command"] == want["command"]
    assert chosen["state"]["hardware"] == "b200" and chosen["state"]["variant"] == "nvfp4"
    assert chosen["query"] == f"preset=b200_agentx&point={point}"
    nxt = R.builder_state(m, pv, chosen["state"], {"type": "point", "value": "c30"})
    assert nxt["tabs"][0]["command"] == R.resolve_preset(m, pv, "b200_agentx")["points"]["c30"]["command"]
    reopened = R.builder_state(m, pv, {"preset": "b200_agentx", "point": "c30"})
    assert reopened["tabs"] == nxt["tabs"]
    left = R.builder_state(m, pv, nxt["state"], {"type": "feature", "value": "reasoning"})
    assert left["preset"] is None and left["state"]["hardware"] == "b200"


def test_notes_apply_by_hardware() -> None:
    m, pv = project_recipe("MiniMaxAI/MiniMax-M3"), project_vocab()
    assert R.builder_state(m, pv, {})["notes"] == []
    gb = R.builder_state(m, pv, {"hardware": "gb200"})
    assert [n["title"] for n in gb["notes"]] == ["Host KV offload on GB200"]


def test_vram_warning_and_single_node_disabled_reason() -> None:
    v = bs("deepseek-ai/DeepSeek-V3.2", {"hardware": "h100"})
    single = next(p for p in row(v, "nodes")["pills"] if p["value"] == 1)
    assert single["disabled"] and "GB" in single["reason"]
    assert v["state"]["nodes"] == 2


def test_every_upstream_recipe_renders_a_default_view() -> None:
    from tests.resolver.test_module import UPSTREAM

    count = 0
    for path in sorted((UPSTREAM / "models").rglob("*.yaml")):
        hf = str(path.relative_to(UPSTREAM / "models"))[:-5]
        v = bs(hf)
        assert v["tabs"] and v["rows"][0]["id"] == "hardware", hf
        again = bs(hf, dict(p.split("=", 1) for p in v["query"].split("&")) if v["query"] else {})
        assert again["tabs"] == v["tabs"], hf
        count += 1
    assert count > 100
