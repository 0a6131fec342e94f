"""``import-config --from-hub`` and ``--check`` against a local stand-in for the Hub (no network): the
facts of our recipes restored with their revision, every failure named with its reason, the cache
and ``HF_HUB_OFFLINE``. Commands run as processes, since huggingface_hub reads its environment
(``HF_ENDPOINT``, ``HF_TOKEN``, ``HF_HOME``, ``HF_HUB_OFFLINE``) when it is imported."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builder.content.loader import load_content
from builder.content.yaml12 import load
from builder.resolver import memory_coverage
from builder.resolver.memory import estimate_memory
from tests.support.commands import run_builder
from tests.support.hub_server import TOKEN, HubServer, corpus_hub, shared_hub, strip_blocks
from tests.support.paths import RECIPES, UPSTREAM, need_shared

OWN_FACTS = ("Qwen/Qwen3-14B", "moonshotai/Kimi-K2-Instruct-0905", "zai-org/GLM-4.5-Air")  # no shared config


def hub_config(facts: dict[str, Any]) -> dict[str, Any]:
    """A config.json as the Hub would serve it for hand-written facts (quantization as the checkpoint writes
    it)."""
    config = {k: v for k, v in facts.items() if k not in ("source", "drafts")}
    quant = config.get("quantization_config")
    if quant is not None:
        config["quantization_config"] = {"quant_method": quant["quant_method"], "fmt": "e4m3",
                                         "activation_scheme": "dynamic",
                                         "weight_block_size": quant["weight_block_size"]}
    return config


def recipe_data(root: Path, hf_id: str) -> dict[str, Any]:
    data, _ = load((root / "models" / f"{hf_id}.yaml").read_text())
    return data


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubServer]:
    """The shared configs on a local hub, plus our hand-written facts for the recipes without one."""
    fake = shared_hub()
    for hf_id in OWN_FACTS:
        fake.add(hf_id, hub_config(recipe_data(RECIPES, hf_id)["model"]["architecture_config"]))
    with HubServer(fake, tmp_path / "hf-home") as server:
        yield server


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """recipes/ with every architecture_config block removed."""
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES, root)
    for path in (root / "models").glob("*/*.yaml"):
        path.write_text(strip_blocks(path.read_text()))
    return root


def cli(server: HubServer, content: Path, *argv: str, **env: str) -> tuple[int, str, str]:
    """``python -m builder import-config ARGV --content CONTENT`` pointed at the local hub."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    done = run_builder(["import-config", *argv, "--content", str(content)], {**clean, **server.env(**env)},
                       timeout=120)
    return done.returncode, done.stdout, done.stderr


def test_stripping_removes_exactly_the_blocks(content: Path) -> None:
    for path in (content / "models").glob("*/*.yaml"):
        original, _ = load((RECIPES / path.relative_to(content)).read_text())
        stripped, _ = load(path.read_text())
        for holder in [original.get("model") or {}, *(original.get("variants") or {}).values()]:
            holder.pop("architecture_config", None)
        assert stripped == original, path


SETTINGS = [
    {"gpu_memory_gib": 79.19, "max_model_len": 8192},
    {"gpu_memory_gib": 79.19, "max_model_len": 8192, "tp": 2, "kv_cache_dtype": "fp8"},
    {"gpu_memory_gib": 139.8, "max_model_len": 32768, "tp": 8},
]


def test_all_restores_our_facts_with_their_revision(hub: HubServer, content: Path) -> None:
    status, out, err = cli(hub, content, "--from-hub", "--all")
    # MiniMax-M3's facts come from its NVFP4 checkpoint's config (../shared/hub), which this hub does
    # not serve
    minimax = RECIPES / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    hand_written = [p for p in (RECIPES / "models").glob("*/*.yaml") if "architecture_config" in p.read_text()
                    and p != minimax]
    assert len(hand_written) == 9
    for path in hand_written:
        hf_id = f"{path.parent.name}/{path.stem}"
        original = recipe_data(RECIPES, hf_id)["model"]["architecture_config"]
        restored = recipe_data(content, hf_id)["model"]["architecture_config"]
        repo = recipe_data(RECIPES, hf_id)["model"]["model_id"]  # google/… for Google/gemma-2-9b-it
        assert restored["source"] == {"repo": repo, "revision": hub.hub.repos[repo].sha}
        assert f"{hf_id}: wrote model.architecture_config ({repo}@{hub.hub.repos[repo].sha[:12]})" in out
        for settings in SETTINGS:
            want, got = estimate_memory(original, settings), estimate_memory(restored, settings)
            assert got["kv_bytes_per_token"] == want["kv_bytes_per_token"], hf_id
            assert abs(got["weights_gib"] - want["weights_gib"]) <= 0.005 * want["weights_gib"], hf_id
            assert abs(got["kv_tokens"] - want["kv_tokens"]) <= 0.005 * max(want["kv_tokens"], 1), hf_id
        # only the block came back: everything else is the stripped file's
        assert (strip_blocks((content / path.relative_to(RECIPES)).read_text())
                == strip_blocks(path.read_text()))
    # what the hub does not hold is named with its reason; MiniMax-M3 gets no facts from it
    assert status == 1
    missing = "not on the Hub (repository not found; a private repository needs HF_TOKEN)"
    assert (f"models/MiniMaxAI/MiniMax-M3.yaml: model.architecture_config: MiniMaxAI/MiniMax-M3: {missing}"
            in err)
    assert (f"models/meta-llama/Llama-3.1-8B-Instruct.yaml: model.architecture_config.drafts."
            "RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3: "
            f"RedHatAI/Llama-3.1-8B-Instruct-speculator.eagle3: {missing}") in err
    assert (content / "models/MiniMaxAI/MiniMax-M3.yaml").read_text() == strip_blocks(minimax.read_text())
    assert out.endswith("imported facts into 9 recipe(s); 11 import(s) failed\n")
    # a second --all has nothing left to import but what the hub does not have
    status, out, _ = cli(hub, content, "--from-hub", "--all")
    assert status == 1 and out.endswith("imported facts into 0 recipe(s); 11 import(s) failed\n")
    assert not [p for p in content.rglob(".*.tmp")]
    done = run_builder(["check", "--content", str(content), "--strict"], dict(os.environ), timeout=300)
    assert done.returncode == 0, done.stderr


def test_gated_needs_a_token(hub: HubServer, content: Path) -> None:
    hub.hub.repos["Qwen/Qwen3-8B"].gated = True
    before = (content / "models/Qwen/Qwen3-8B.yaml").read_text()
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B") == (
        1,
        "imported facts into 0 recipe(s); 1 import(s) failed\n",
        "models/Qwen/Qwen3-8B.yaml: model.architecture_config: Qwen/Qwen3-8B: gated: set HF_TOKEN and accept "
        f"the licence at {hub.hub.url}/Qwen/Qwen3-8B\n",
    )
    assert (content / "models/Qwen/Qwen3-8B.yaml").read_text() == before
    status, out, err = cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", HF_TOKEN=TOKEN)
    assert (status, err) == (0, "")
    assert recipe_data(content, "Qwen/Qwen3-8B")["model"]["architecture_config"]["num_hidden_layers"] == 36


@pytest.mark.parametrize(
    ("repo", "config", "reason"),
    [
        ("Qwen/Qwen3-14B", None, "no config.json in the repository"),
        ("Qwen/Qwen3-14B", {"model_type": "mamba", "num_hidden_layers": 4, "vocab_size": 10},
         "an architecture the memory model does not know (hidden_size: missing: the memory model needs it)"),
        ("Qwen/Qwen3-14B",
         {"num_hidden_layers": 4, "hidden_size": 8, "num_attention_heads": 2, "vocab_size": 10,
          "layer_types": ["mamba"] * 4},
         "an architecture the memory model does not know (layer_types[0]: unsupported layer type 'mamba': "
         "expected one of full_attention, sliding_attention, chunked_attention, linear_attention, "
         "deepseek_sparse_attention)"),
    ],
)
def test_no_config_and_unknown_architectures(hub: HubServer, content: Path, repo: str, config: Any,
                                             reason: str) -> None:
    hub.hub.add(repo, config)
    status, _, err = cli(hub, content, "--from-hub", repo, "--variant", "default")
    assert status == 1
    assert err == f"models/{repo}.yaml: variants.default.architecture_config: {repo}: {reason}\n"


def test_revisions(hub: HubServer, content: Path) -> None:
    sha = hub.hub.repos["Qwen/Qwen3-8B"].sha
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", "--revision", "v9")[2] == (
        "models/Qwen/Qwen3-8B.yaml: model.architecture_config: Qwen/Qwen3-8B: revision 'v9' not found\n"
    )
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", "--revision", sha)[0] == 0
    assert recipe_data(content, "Qwen/Qwen3-8B")["model"]["architecture_config"]["source"] == {
        "repo": "Qwen/Qwen3-8B", "revision": sha}
    # the Hub's requests: the file resolved, redirected to its commit and downloaded in one answer; then, as
    # config.json states no precision, ModelOpt's hf_quant_config.json asked for at that commit (there
    # is none)
    assert hub.hub.requests[-3:] == [
        ("GET", f"/Qwen/Qwen3-8B/resolve/{sha}/config.json"),
        ("GET", f"/api/resolve-cache/models/Qwen/Qwen3-8B/{sha}/config.json"),
        ("GET", f"/Qwen/Qwen3-8B/resolve/{sha}/hf_quant_config.json"),
    ]


def test_offline_uses_the_cache_or_says_why_not(hub: HubServer, content: Path) -> None:
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B")[0] == 0
    online = (content / "models/Qwen/Qwen3-8B.yaml").read_text()
    (content / "models/Qwen/Qwen3-8B.yaml").write_text(strip_blocks(online))
    asked = len(hub.hub.requests)
    status, out, err = cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", HF_HUB_OFFLINE="1")
    assert (status, err) == (0, "")
    assert (content / "models/Qwen/Qwen3-8B.yaml").read_text() == online  # same facts, same revision
    assert len(hub.hub.requests) == asked  # nothing reached the hub
    assert cli(hub, content, "--from-hub", "meta-llama/Llama-3.1-8B-Instruct",
               HF_HUB_OFFLINE="1")[2].splitlines()[0] == (
"models/meta-llama/Llama-3.1-8B-Instruct.yaml: model.architecture_config: meta-llama/Llama-3.1-8B-Instruct: "
"not in the Hugging Face cache, and HF_HUB_OFFLINE=1 forbids downloading it"
    )
    status, out, err = cli(hub, content, "--check", HF_HUB_OFFLINE="1")
    assert status == 1
    assert err == ("models/Qwen/Qwen3-8B.yaml: model.architecture_config.source: Qwen/Qwen3-8B: not checked: "
                   "HF_HUB_OFFLINE=1: comparing with the Hub needs the network\n")


def test_check_names_stale_facts_and_writes_nothing(hub: HubServer, content: Path) -> None:
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B")[0] == 0
    assert cli(hub, content, "--check") == (0, "1 current, 0 stale, 0 unpinned, 0 unchecked\n", "")
    old = hub.hub.repos["Qwen/Qwen3-8B"].sha
    repo = hub.hub.repos["Qwen/Qwen3-8B"]
    repo.files["config.json"] = repo.files["config.json"].replace(b'"max_position_embeddings": 40960',
                                                                  b'"max_position_embeddings": 32768')
    repo.commit()
    before = {p: p.read_bytes() for p in content.rglob("*.yaml")}
    status, out, err = cli(hub, content, "--check")
    assert (status, out) == (1, "0 current, 1 stale, 0 unpinned, 0 unchecked\n")
    assert err == ("models/Qwen/Qwen3-8B.yaml: model.architecture_config.source: Qwen/Qwen3-8B: stale: "
                   f"facts from {old[:12]}, main is now {repo.sha[:12]} (vllm-recipes import-config "
                   "--from-hub Qwen/Qwen3-8B)\n")
    assert {p: p.read_bytes() for p in content.rglob("*.yaml")} == before
    assert ("GET", "/api/models/Qwen/Qwen3-8B") in hub.hub.requests


def test_check_follows_the_ref_and_counts_file_imports(hub: HubServer, content: Path) -> None:
    recipe = content / "models/Qwen/Qwen3-8B.yaml"
    sha = hub.hub.repos["Qwen/Qwen3-8B"].sha
    recipe.write_text(recipe.read_text().replace(
        "  base_env: {}\n",
        "  base_env: {}\n  architecture_config:\n    source:\n      repo: Qwen/Qwen3-8B\n      revision: "
        f"{sha}\n      ref: {sha}\n    num_hidden_layers: 36\n    hidden_size: 4096\n    "
        "num_attention_heads: 32\n    vocab_size: 151936\n", 1))
    assert cli(hub, content, "--check") == (0, "1 current, 0 stale, 0 unpinned, 0 unchecked\n", "")
    assert ("GET", f"/api/models/Qwen/Qwen3-8B/revision/{sha}") in hub.hub.requests
    recipe.write_text(recipe.read_text().replace(f"      revision: {sha}\n      ref: {sha}\n", ""))
    assert cli(hub, content, "--check") == (
        0, "models/Qwen/Qwen3-8B.yaml: model.architecture_config.source: Qwen/Qwen3-8B: no revision recorded "
        "(imported from a file)\n0 current, 0 stale, 1 unpinned, 0 unchecked\n", "")


def test_usage_errors(hub: HubServer, content: Path) -> None:
    assert cli(hub, content, "--from-hub")[::2] == (2, "error: --from-hub needs <org>/<repo> or --all\n")
    assert cli(hub, content, "--check", "Qwen/Qwen3-8B")[::2] == (2, "error: --check takes only --content\n")
    assert cli(hub, content, "--from-hub", "--all", "--revision", "v1")[::2] == (
        2, "error: use --from-hub <org>/<repo> [--revision REV] [--variant V], or --from-hub --all\n")
    assert cli(hub, content, "Qwen/Qwen3-8B")[::2] == (
        2, "error: expected <org>/<repo> CONFIG.json (or --from-hub, or --check)\n")
    assert (cli(hub, content, "--from-hub", "Qwen/../x")[::2]
            == (2, "error: expected <org>/<repo>, got 'Qwen/../x'\n"))


def test_upstream_imports_know_every_architecture(tmp_path: Path) -> None:
    """../shared/upstream against a Hub serving ../shared/hub and ../shared/memory: no import is refused as an
    unknown architecture (hybrid linear attention, Mamba hybrids, sparse attention, per-layer MoE lists),
    every failure is a repository the stand-in does not hold, and the recipes naming a served one get
    facts."""
    need_shared()
    content = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, content)
    with HubServer(corpus_hub(), tmp_path / "hf-home") as server:
        status, out, err = cli(server, content, "--from-hub", "--all")
    failures = err.splitlines()
    assert (status == 1
            and out.endswith(f"imported facts into 42 recipe(s); {len(failures)} import(s) failed\n"))
    assert all(line.endswith(": not on the Hub (repository not found; a private repository needs HF_TOKEN)")
               for line in failures)
    assert "MiniMaxAI/MiniMax-M3: wrote variants.nvfp4.architecture_config (nvidia/MiniMax-M3-NVFP4@" in out
    loaded, _ = load_content(content)
    assert (str(memory_coverage(r.data for r in loaded.recipes))
            == "memory facts: 34 of 128 recipes, 92 of 266 variants")
