"""resolver.builder_state, the fit-and-finish rules of issue #16: labels, verified-on text, plurals,
hardware-note links, the Env panel, persistence (GAP-08, CB-INIT-07) and Reset."""

from __future__ import annotations

import pytest

from tests.resolver.test_builder_state import bs, row, selected, step
from tests.resolver.test_module import R, recipe, vocab


def test_no_two_hardware_profiles_share_a_label() -> None:
    labels = R.hardware_labels(vocab()["taxonomy"])
    assert len({label.casefold() for label in labels.values()}) == len(labels)
    assert labels["rtx_5090"] == "RTX 5090" and labels["rtx_5090_2x"] == "2× RTX 5090"
    assert labels["rtx_4090_2x"] == "2× RTX 4090"
    # names that carry their count already, and nodes of 8 GPUs, keep their names
    assert labels["rtx_pro_6000_2x"] == "RTX Pro 6000 2x" and labels["gb200"] == "GB200 NVL4"
    assert labels["h200"] == "H200"


def test_a_name_still_shared_gets_the_profile_id() -> None:
    taxonomy = {"hardware_profiles": {"a": {"display_name": "Box", "gpu_count": 8},
                                      "b": {"display_name": "box", "gpu_count": 8}}}
    assert R.hardware_labels(taxonomy) == {"a": "Box (a)", "b": "box (b)"}


@pytest.mark.parametrize("hf_id",
                         ["meta-models/Muse-Glimmer-30B", "Qwen/Qwen3.8-27B", "MiniMaxAI/MiniMax-H3"])
def test_hardware_pill_labels_are_unique_per_recipe(hf_id: str) -> None:
    labels = [p["label"] for p in row(bs(hf_id), "hardware")["pills"]]
    assert len(labels) == len(set(labels)), labels


def test_hardware_note_link_is_the_notes_own_label_and_target() -> None:
    v = bs("deepseek-ai/DeepSeek-V4-Flash", {"hardware": "dgx_spark_gb10"})
    assert v["hardware_note"]["link"] == "#dgx-spark-gb10-cluster"
    assert v["hardware_note"]["link_text"] == "DGX Spark cluster guide"


def test_verified_on_only_for_the_single_node_configuration() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    one = bs(hf, {"hardware": "h200"})
    assert one["summary"] == {"verified": True, "text": "Verified on NVIDIA H200"}
    two = bs(hf, {"hardware": "h200", "nodes": "2"})
    assert two["summary"]["verified"] is False and two["summary"]["text"].startswith("2× H200 · ")
    pd = bs(hf, {"hardware": "h200", "strategy": "pd_cluster"})
    assert pd["summary"]["verified"] is False and "PD cluster" in pd["summary"]["text"]


def test_counts_are_singular_for_one_and_name_the_device() -> None:
    v = bs("Qwen/Qwen3-8B", {"hardware": "rtx_5090"})
    tips = [p["tooltip"] for p in row(v, "nodes")["pills"]]
    assert tips[0] == "One RTX 5090 node (1 GPU)."
    tpu = bs("Google/gemma-4-E4B-it", {"hardware": "trillium"})
    assert next(p for p in row(tpu, "hardware")["pills"] if p["value"] == "trillium")["sub"] == "32G/chip"
    assert row(tpu, "nodes")["pills"][0]["tooltip"] == "One TPU v6e (Trillium) node (8 chips)."


def test_mooncake_instances_text_counts_in_words() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = bs(hf, {"hardware": "h200", "kv_offload": "kv_store_centralized_mooncake", "kv_instances": "1"})
    text = row(v, "instances")["text"]
    assert text == "× 1 node × 8 GPUs = 8 GPUs total"
    tip = next(p for p in row(v, "nodes")["pills"] if p["value"] == 2)["tooltip"]
    assert "× 1 instance." in tip and "instances" not in tip


def test_env_panel_target_fields_placeholders_examples_and_tips() -> None:
    v = bs("deepseek-ai/DeepSeek-V3.2", {"hardware": "h200", "nodes": "2"})
    env = v["env"]
    assert (env["target"]
            == [{"name": "HEAD_IP", "example": "10.0.0.1"}, {"name": "VLLM_PORT", "example": "8000"}])
    names = [f["name"] for f in env["fields"]]
    assert "HEAD_IP" not in names and "IFACE_NAME" in names
    assert {"name": "IFACE_NAME", "example": "bond0"} in env["fields"]
    assert [t.split(" ")[0] for t in env["tips"]] == ["IFACE_NAME", "HEAD_IP"]
    single = bs("Qwen/Qwen3-8B")
    assert single["env"] == {"target": [{"name": "VLLM_HOST", "example": "localhost"},
                                        {"name": "VLLM_PORT", "example": "8000"}], "fields": [], "tips": []}


def test_env_values_are_not_substituted_in_comment_lines() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    v = bs(hf, {"hardware": "h200", "kv_offload": "kv_store_centralized_mooncake", "kv_instances": "2",
                "_endpoints": {"VLLM_INSTANCE_1": "10.1.1.1"}})
    serve = next(t for t in v["tabs"] if t["kind"] == "serve")
    assert "# Instance 1 of 2: runs on $VLLM_INSTANCE_1" in serve["prelude"].split("\n")


# -- persistence (GAP-08, CB-INIT-07) ---------------------------------------------------------------

HF = "Qwen/Qwen3-8B"


def defaults() -> list:
    return selected(bs(HF), "features")


@pytest.mark.parametrize("stored", [["zzz"], ["gone", "also_gone"], [{"deep": 1}], [""]])
def test_stale_or_unknown_stored_features_fall_back_to_the_defaults(stored: list) -> None:
    v = bs(HF, {"_stored": {"features": stored}})
    assert selected(v, "features") == defaults() and defaults()
    assert "--reasoning-parser" in v["tabs"][0]["command"]


@pytest.mark.parametrize("query", ["zzz", "", " , ", "unknown1,unknown2"])
def test_invalid_features_query_falls_back_to_the_defaults(query: str) -> None:
    v = bs(HF, {"features": query})
    assert selected(v, "features") == defaults() and "features=" not in v["query"]


def test_an_explicit_empty_feature_set_is_stored_and_survives_a_reload() -> None:
    v = bs(HF)
    for key in selected(v, "features"):
        v = step(v, HF, type="feature", value=key)
    assert selected(v, "features") == [] and v["storage"]["recipe"] == {"features": []}
    again = bs(HF, {"_stored": v["storage"]["recipe"]})
    assert selected(again, "features") == [] and again["query"] == "features=none"


def test_the_variant_is_remembered_per_recipe() -> None:
    hf = "deepseek-ai/DeepSeek-V3.2"
    variants = list(recipe(hf)["variants"])
    other = variants[1]
    v = step(bs(hf), hf, type="variant", value=other)
    assert v["storage"]["recipe"]["variant"] == other
    assert bs(hf, {"_stored": v["storage"]["recipe"]})["state"]["variant"] == other
    # the URL still wins, and an unknown stored variant is ignored
    assert bs(hf, {"variant": variants[0], "_stored": {"variant": other}})["state"]["variant"] == variants[0]
    assert bs(hf, {"_stored": {"variant": "nope"}})["state"]["variant"] == variants[0]


def test_reset_goes_to_the_recipe_defaults_and_stores_no_preference() -> None:
    v = bs(HF, {"_prefs": {"hardware": "b200"}})
    assert v["state"]["hardware"] == "b200"
    v = step(v, HF, type="hardware", value="h100")
    assert v["storage"]["prefs"] == {"hardware": "h100"}
    reset = step(v, HF, type="reset")
    assert reset["state"]["hardware"] == "h200" and reset["query"] == ""
    assert reset["storage"]["prefs"] is None  # the stored preference (h100) is left as it is
    assert reset["storage"]["recipe"] == {}
