"""Issue #41: properties of the builder's click paths over every recipe of ``../shared/upstream``
(exhaustive loops: a view costs under a millisecond), and the three errors the reference comparison
found, each pinned on its own.

- a hardware switch keeps the node count, the strategy, the variant and the features whenever the
  new hardware offers them;
- toggling a feature off and on gives back the same commands;
- every recipe with a Docker install tab (Docker-first ones and omni ones included) shows
  ``docker run`` in Docker mode.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from builder.resolver.hardware import fits_single_node, lookup_exact, variant_of
from builder.resolver.strategies import deploy_type_of, strategy_supported
from builder.resolver.ui.facts import BuilderFacts
from builder.resolver.ui.view import builder_state
from builder.resolver.values import as_list
from tests.resolver.test_module import _content_at, require_upstream
from tests.support.paths import UPSTREAM


@functools.cache
def corpus() -> list[BuilderFacts]:
    require_upstream()
    vocabulary, recipes = _content_at(str(UPSTREAM))
    return [BuilderFacts(r, vocabulary) for r in recipes.values()]


def view(facts: BuilderFacts, state: dict[str, Any] | None = None,
         event: dict[str, Any] | None = None) -> dict[str, Any]:
    return builder_state(facts.recipe, facts.vocab, state or {}, event, facts=facts)


def pills(v: dict[str, Any], row_id: str) -> list[dict[str, Any]]:
    row = next((r for r in v["rows"] if r["id"] == row_id), None)
    return [p for p in (row or {}).get("pills") or [] if not p["disabled"]]


def texts(v: dict[str, Any]) -> dict[str, str]:
    return {t["name"]: t["copy"] for t in v["tabs"]}


def start_states(facts: BuilderFacts) -> list[dict[str, Any]]:
    """Views a reader reaches before switching hardware: the default; two nodes; two nodes with a
    strategy picked that is not the recommended one; and the default with its first feature toggled."""
    base = view(facts)
    out = [base]
    if any(p["value"] == 2 for p in pills(base, "nodes")):
        two = view(facts, base["state"], {"type": "nodes", "value": 2})
        out.append(two)
        other = [p["value"] for p in pills(two, "strategy") if p["value"] != two["strategy"]]
        if other:
            out.append(view(facts, two["state"], {"type": "strategy", "value": other[-1]}))
    feats = pills(base, "features")
    if feats:
        out.append(view(facts, base["state"], {"type": "feature", "value": feats[0]["value"]}))
    return out


def _opted_out(facts: BuilderFacts, hw: str) -> set[Any]:
    return set(as_list(lookup_exact(facts.recipe.get("hardware_opt_in_features"), hw)))


def switch_problems(facts: BuilderFacts, before: dict[str, Any], hw: str) -> list[str]:
    """What a click on hardware ``hw`` dropped although ``hw`` offers it."""
    after = view(facts, before["state"], {"type": "hardware", "value": hw})
    old, new = before["state"], after["state"]
    where = f"{facts.recipe['hf_id']} {old['hardware']} -> {hw}"
    if new["hardware"] != hw:
        return [f"{where}: the click was refused"]
    problems = []
    if facts.runs(hw, old["variant"]) and new["variant"] != old["variant"]:
        problems.append(f"{where}: variant {old['variant']} -> {new['variant']}")
    p = facts.profile(hw)
    fits = fits_single_node(p, variant_of(facts.recipe, new["variant"]))
    single_default = isinstance(facts.recipe.get("default_strategy"), str) and deploy_type_of(
        facts.strategies.get(facts.recipe["default_strategy"])) == "single_node"
    offered = (old["nodes"] == 1 and fits) or (
        old["nodes"] > 1 and facts.clusterable(hw) and not (single_default and fits)  # CB-HW-06
        and facts.floor_nodes(after["strategy"], hw) <= old["nodes"])
    if offered and new["nodes"] != old["nodes"]:
        problems.append(f"{where}: nodes {old['nodes']} -> {new['nodes']}")
    pick = old["strategy"]
    if pick is not None and new["nodes"] == old["nodes"] and pick in facts.row_strategies(hw, new["nodes"]) \
            and strategy_supported(facts.recipe, pick, p, hw) and new["strategy"] != pick:
        problems.append(f"{where}: strategy {pick} -> {new['strategy']}")
    if old["features"] is not None and new["variant"] == old["variant"]:
        lost = [f for f in old["features"] if f not in _opted_out(facts, hw)
                and f not in (new["features"] or [])]
        if lost:
            problems.append(f"{where}: features {lost} dropped")
    return problems


def test_a_hardware_switch_keeps_what_the_new_hardware_offers() -> None:
    problems: list[str] = []
    switches = 0
    for facts in corpus():
        if facts.omni:
            continue
        for before in start_states(facts):
            for pill in pills(before, "hardware"):
                if pill["value"] != before["state"]["hardware"]:
                    problems += switch_problems(facts, before, pill["value"])
                    switches += 1
    assert problems == []
    assert switches > 3000  # every recipe, several starting states, every other hardware


def test_a_feature_toggled_off_and_on_gives_the_same_commands() -> None:
    toggles = 0
    for facts in corpus():
        for start in start_states(facts):
            for pill in pills(start, "features"):
                if not pill["selected"]:
                    # (on then off may rightly differ: turning a feature on turns its
                    # exclusive partner off)
                    continue
                event = {"type": "feature", "value": pill["value"]}
                off = view(facts, start["state"], event)
                assert (pill["value"]
                        not in (off["state"]["features"] or [])), (facts.recipe["hf_id"], pill["value"])
                twice = view(facts, off["state"], event)
                assert texts(twice) == texts(start), (facts.recipe["hf_id"], pill["value"])
                toggles += 1
    assert toggles > 300


def test_docker_mode_shows_docker_run_on_every_recipe_with_a_docker_tab() -> None:
    docker_first = omni = 0
    for facts in corpus():
        start = view(facts)
        if not any(t["id"] == "docker" and not t.get("reason") for t in start["install"]["tabs"]):
            continue
        docker = view(facts, start["state"], {"type": "install", "value": "docker"})
        serve = [t for t in docker["tabs"] if t["kind"] == "serve"]
        assert serve and all(t["copy"].split("\n")[0].startswith(("docker run ", "# "))
                             and "docker run " in t["copy"]
                             for t in serve), facts.recipe["hf_id"]
        docker_first += start["install"]["active"] == "docker"
        omni += facts.omni
    assert docker_first >= 5 and omni >= 20


# -- the three errors of issue #41, each on its own ------------------------------------------------------


def qwen32b() -> BuilderFacts:
    return next(f for f in corpus() if f.recipe["hf_id"] == "Qwen/Qwen3-32B")


def test_error_1_multi_node_survives_a_hardware_switch() -> None:
    facts = qwen32b()
    assert facts.recipe.get("default_strategy") is None
    v = view(facts, {}, None)
    v = view(facts, v["state"], {"type": "hardware", "value": "h100"})
    v = view(facts, v["state"], {"type": "nodes", "value": 2})
    b200 = view(facts, v["state"], {"type": "hardware", "value": "b200"})
    assert b200["state"]["nodes"] == 2 and [t["name"] for t in b200["tabs"]] == ["Head", "Node 1"]
    assert "--tensor-parallel-size 16 \\\n  --nnodes 2 \\\n  --node-rank 1" in b200["tabs"][1]["copy"]
    assert b200["summary"]["text"] == "2× B200 · Multi-Node Tensor Parallel · BF16"


def test_error_2_omni_docker_mode_runs_the_image_with_the_weights_mounted() -> None:
    facts = next(f for f in corpus() if f.recipe["hf_id"] == "MiniMaxAI/MiniMax-H3")
    start = view(facts)
    assert start["install"]["active"] == "docker"  # install.docker comes first: a Docker-first recipe
    command = start["tabs"][0]["copy"]
    assert command.startswith("# /path/to/MiniMax-H3 must already exist on the host — bind-mounted read-only "
                              "below.\ndocker run --gpus all \\\n  --privileged --ipc=host -p 8000:8000 \\\n")
    assert ("  -v /path/to/MiniMax-H3:/path/to/MiniMax-H3:ro \\\n  -v "
            "/path/to/vllm-omni:/path/to/vllm-omni:ro \\\n"
            in command)
    assert ("  -e PYTHONPATH=/path/to/vllm-omni \\\n  vllm/vllm-omni:minimax-h3 /path/to/MiniMax-H3 \\\n"
            in command)
    assert start["install"]["tabs"][1]["command"] == "docker pull vllm/vllm-omni:minimax-h3"
    pip = view(facts, start["state"], {"type": "install", "value": "pip"})
    assert pip["tabs"][0]["command"].startswith("vllm serve /path/to/MiniMax-H3 \\\n")
    assert (pip["tabs"][0]["prelude"]
            == "export VLLM_WORKER_MULTIPROC_METHOD=spawn\nexport VLLM_OMNI_VIDEO_SYNC_TIMEOUT=1800")


@pytest.mark.parametrize(("hf_id", "state", "host_port"), [
    ("deepseek-ai/DeepSeek-V3.2", {"hardware": "h200", "strategy": "pd_cluster"},
     "--host localhost \\\n    --port 30000"),
    ("deepseek-ai/DeepSeek-V3.2",
     {"hardware": "h200", "kv_offload": "kv_store_centralized_mooncake", "kv_instances": "2"},
     "--host localhost \\\n    --port 30080"),
])
def test_error_3_router_prints_concrete_host_and_port(hf_id: str, state: dict[str, Any],
                                                      host_port: str) -> None:
    facts = next(f for f in corpus() if f.recipe["hf_id"] == hf_id)
    v = view(facts, state)
    router = next(t for t in v["tabs"] if t["name"] == "Router")
    assert host_port in router["copy"] and "$ROUTER_" not in router["copy"]
    assert (v["target"]["host_var"], v["target"]["port"]) == ("ROUTER_HOST", int(host_port.rsplit(" ", 1)[1]))
    saved = view(facts, {**state, "_endpoints": {"ROUTER_HOST": "10.0.0.9", "ROUTER_PORT": "9000"}})
    router = next(t for t in saved["tabs"] if t["name"] == "Router")
    assert "--host 10.0.0.9 \\\n    --port 9000" in router["copy"]  # the Env panel's values win


def test_mooncake_tabs_say_what_they_need() -> None:
    facts = next(f for f in corpus() if f.recipe["hf_id"] == "deepseek-ai/DeepSeek-V3.2")
    v = view(facts, {"hardware": "h200", "kv_offload": "kv_store_centralized_mooncake", "kv_instances": "2"})
    tabs = {t["name"]: t for t in v["tabs"]}
    assert tabs["vLLM Serve"]["copy"].startswith(
        "# One per instance node. Requires: uv pip install 'mooncake-transfer-engine>=0.3.10'\n")
    assert tabs["Mooncake Config"]["copy"].startswith("# Run once on every node (instances + store node) ")
    assert tabs["Router"]["copy"].startswith(
        "# LB across 2 vLLM instances. Install: uv pip install vllm-router\n")
    amd = view(facts, {"hardware": "mi355x", "kv_offload": "kv_store_distributed_mooncake"})
    serve = next(t for t in amd["tabs"] if t["name"] == "vLLM Serve")
    assert serve["copy"].startswith("# One per instance node. Requires: uv pip install "
                                    "'mooncake-transfer-engine-non-cuda>=0.3.10'\n")
    config = next(t for t in amd["tabs"] if t["name"] == "Mooncake Config")
    assert config["copy"].startswith("# Run once on every instance node before the steps to the right — it "
                                     "reads this file via $MOONCAKE_CONFIG_PATH.\n")
    pd = view(facts,
              {"hardware": "h200", "strategy": "pd_cluster", "kv_offload": "kv_store_distributed_mooncake"})
    prefill = next(t for t in pd["tabs"] if t["name"] == "Prefill")
    assert prefill["copy"].startswith("# 1 node × 8 GPU = 8 GPU · TP\n# Mooncake store connector. Requires: "
                                      "uv pip install 'mooncake-transfer-engine>=0.3.10'\nexport ")
