"""The memory block of rendering records: resolve, the API files and the sharding warnings."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest

from builder import resolver
from builder.cli.main import main
from builder.cli.resolve import Choice, resolve_command
from builder.content.loader import load_content
from builder.content.model import Content
from builder.resolver.memory.rendering import argv_settings, memory_for_record
from builder.site.matrix import Cell, memory_cell
from tests.support.hub_server import strip_blocks
from tests.support.paths import RECIPES

QWEN3_14B = {
    "model_type": "qwen3",
    "num_hidden_layers": 40,
    "num_attention_heads": 40,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "hidden_size": 5120,
    "intermediate_size": 17408,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
RTX_PRO_6000_LINE = (
    "Per GPU (95.04 GiB): weights 27.52 GiB, KV cache 55.54 GiB = 363,952 tokens, 8.89 requests of 40,960 "
    "tokens"
)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def content(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    """recipes/ with Qwen3-14B given its architecture block by import-config."""
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES, root)
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN3_14B))
    assert run(capsys, "import-config", "Qwen/Qwen3-14B", str(config), "--content", str(root))[0] == 0
    return root


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """recipes/ with MiniMax-M3's architecture blocks taken out: a recipe without facts."""
    root = tmp_path / "bare"
    shutil.copytree(RECIPES, root)
    recipe = root / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    recipe.write_text(strip_blocks(recipe.read_text()))
    return root


def test_settings_come_from_the_argv() -> None:
    argv = ["vllm", "serve", "m", "--tensor-parallel-size", "2", "--max-model-len=8192", "-pp", "2",
            "--gpu-memory-utilization", "0.7", "--enable-expert-parallel", "--kv-cache-dtype", "fp8",
            "--max-model-len", "16384"]
    assert argv_settings(argv) == {"tp": 2, "max_model_len": 16384, "pp": 2, "gpu_memory_utilization": 0.7,
                                   "expert_parallel": True, "kv_cache_dtype": "fp8"}


def test_no_block_no_memory() -> None:
    record = {"deploy_type": "single_node", "argv": ["vllm", "serve", "m"]}
    assert memory_for_record(record, {"model": {}}, {}, {"vram_gb": 80, "gpu_count": 1}) is None


def test_variant_block_wins_and_bad_argv_is_an_error_line() -> None:
    recipe = {"model": {"architecture_config": {"num_hidden_layers": 1}}}
    record = {"deploy_type": "single_node", "argv": ["vllm", "serve", "m", "--max-model-len", "lots"]}
    memory = memory_for_record(record, recipe, {"architecture_config": QWEN3_14B},
                               {"vram_gb": 80, "gpu_count": 1})
    assert memory == {
        "architecture": "variant",
        "error": "--max-model-len: expected an integer, got string 'lots'",
        "summary": "Memory estimate unavailable: --max-model-len: expected an integer, got string 'lots'",
    }


def test_pd_records_have_a_line_per_role() -> None:
    record = {"deploy_type": "pd_cluster",
              "prefill": {"argv": ["vllm", "serve", "m", "--tensor-parallel-size", "8"]},
              "decode": {"argv": ["vllm", "serve", "m", "--tensor-parallel-size", "3"]}}
    memory = memory_for_record(record, {"model": {"architecture_config": QWEN3_14B}}, {},
                               {"vram_gb": 640, "gpu_count": 8})
    assert memory is not None
    assert list(memory["roles"]) == ["prefill", "decode"]
    assert memory["verdict"] == memory["roles"]["prefill"]["verdict"] == "fits"
    assert memory["roles"]["decode"]["verdict"] == "wont_start"
    assert memory["roles"]["decode"]["reason"] == (
        "Total number of attention heads (40) must be divisible by tensor parallel size (3)."
    )


def test_resolve_prints_the_block_and_the_line(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "resolve", "Qwen/Qwen3-14B", "--content", str(content), "--json")
    assert (status, err) == (0, "")
    record = json.loads(out)
    assert list(record)[-3:] == ["memory", "install", "tabs"]
    assert record["memory"] == {
        "architecture": "model", "gpu_memory_gib": 95.04, "tensor_parallel_size": 1,
        "pipeline_parallel_size": 1,
        "max_model_len": 40960, "weights_gib": 27.518, "kv_cache_gib": 55.536, "kv_bytes_per_token": 163840,
        "kv_tokens": 363952, "max_concurrency": 8.89, "verdict": "fits",
        "reason": "363,952 tokens of KV cache: 8.89 requests of 40,960 tokens at once", "findings": [],
        "parts": {}, "estimated": [], "not_estimated": [], "summary": RTX_PRO_6000_LINE,
    }
    status, out, err = run(capsys, "resolve", "Qwen/Qwen3-14B", "--content", str(content))
    assert (status, err) == (0, "")
    assert out.endswith(f"--enable-auto-tool-choice\n\n# {RTX_PRO_6000_LINE}\n")


def test_resolve_without_a_block_has_no_memory(bare: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "resolve", "MiniMaxAI/MiniMax-M3", "--content", str(bare), "--json")
    assert status == 0 and "memory" not in json.loads(out)


def test_api_records_gain_the_block_at_the_end(content: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "site"
    status, _, err = run(capsys, "build", "--content", str(content), "--out", str(out_dir), "--json-only")
    assert (status, err) == (0, "")
    record = json.loads((out_dir / "Qwen" / "Qwen3-14B" / "hw" / "rtx_pro_6000.json").read_text())
    assert list(record)[-1] == "memory" and record["memory"]["summary"] == RTX_PRO_6000_LINE
    resolved = main(
        ["resolve", "Qwen/Qwen3-14B", "--content", str(content), "--json", "--hardware", "rtx_pro_6000"])
    assert resolved == 0 and json.loads(capsys.readouterr()[0])["memory"] == record["memory"]
    minimax = json.loads((out_dir / "MiniMaxAI" / "MiniMax-M3.json").read_text())
    assert "memory" not in minimax["recommended_command"]  # a recipe document keeps the seed's keys
    assert "performance" not in minimax["recommended_command"]
    h200 = json.loads((out_dir / "MiniMaxAI" / "MiniMax-M3" / "hw" / "h200.json").read_text())
    assert list(h200)[-2:] == ["memory", "performance"]  # the recipe has stored predictions: they follow


def test_sharding_rules_are_located_warnings(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe = content / "models" / "Qwen" / "Qwen3-14B.yaml"
    text = recipe.read_text()
    recipe.write_text(
        text.replace("  default:\n    precision: bf16\n", "  default:\n    precision: bf16\n    tp: 3\n", 1))
    line = recipe.read_text().splitlines().index("    tp: 3") + 1
    status, out, err = run(capsys, "check", "--content", str(content))
    assert status == 0
    expected = (
        f"{recipe.relative_to(content)}:{line}: variants.default.tp: warning: memory model "
        "(attention-heads-tp): Total number of attention heads (40) must be divisible by tensor parallel "
        "size (3). [hardware "
    )
    assert expected in out + err
    status, out, err = run(capsys, "check", "--content", str(content), "--strict")
    assert status == 1 and expected in out + err


def test_the_recipes_have_no_sharding_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "check", "--content", str(RECIPES), "--strict")
    assert status == 0 and "memory model" not in out + err


def _random_query(rng: random.Random, recipe: dict[str, Any], hardware: list[str]) -> dict[str, str]:
    query: dict[str, str] = {"hardware": rng.choice(hardware)}
    if rng.random() < 0.6:
        query["variant"] = rng.choice(list(recipe["variants"]))
    if rng.random() < 0.3:
        query["strategy"] = rng.choice(["single_node_tp", "kv_store_centralized_mooncake", "pd_cluster"])
    features = list(recipe.get("features") or {})
    if rng.random() < 0.6:
        query["features"] = ",".join(rng.sample(features, rng.randint(0, len(features)))) or "none"
    return query


def _cli_memory(content: Content, view: dict[str, Any], recipe: dict[str, Any]) -> Any:
    """``resolve --json``'s memory block (the command's own function) for the selection the view shows."""
    state = view["state"]
    choice = Choice("Qwen/Qwen3-14B", hardware=state["hardware"], variant=state["variant"],
                    strategy=view["strategy"], nodes=state["nodes"], as_json=True)
    if state["features"] is not None:
        for name in recipe.get("features") or {}:
            (choice.features if name in state["features"] else choice.no_features).append(name)
    record = json.loads(resolve_command(content, choice))
    if (record["variant"], record["strategy"]) != (state["variant"], view["strategy"]):
        return None  # the command line swapped in a variant that fits (the builder keeps the chosen one)
    return record.get("memory")


def test_builder_memory_equals_resolve_json(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    loaded, _ = load_content(content)
    vocab = loaded.vocab.resolver_vocab()
    recipe = next(r for r in loaded.recipes if r.hf_id == "Qwen/Qwen3-14B")
    data = {**recipe.data, "hf_id": recipe.hf_id}
    hardware = resolver.offered_hardware(data, vocab["taxonomy"], "default")
    rng = random.Random(13)
    verdicts: list[str] = []
    tries = 0
    while len(verdicts) < 100 and tries < 300:
        tries += 1
        view = resolver.builder_state(data, vocab, _random_query(rng, data, hardware))
        expected = _cli_memory(loaded, dict(view), data)
        if expected is not None:
            assert view["memory"] == expected
            verdicts.append(expected["verdict"])
    assert len(verdicts) == 100 and set(verdicts) == {"fits", "wont_start"}


def test_builder_without_architecture_facts_says_so(bare: Path) -> None:
    loaded, _ = load_content(bare)
    recipe = next(r for r in loaded.recipes if r.hf_id == "MiniMaxAI/MiniMax-M3")
    view = resolver.builder_state({**recipe.data, "hf_id": recipe.hf_id}, loaded.vocab.resolver_vocab(), {})
    assert view["memory"] == {"fallback": (
        "No architecture facts in this recipe: it fits where the node has the variant's minimum memory "
        "(1025 GB, vram_minimum_gb); no KV cache estimate."),
        "command": "vllm-recipes import-config --from-hub MiniMaxAI/MiniMax-M3"}


def test_matrix_cells_give_kv_tokens_or_why_not(content: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "site"
    assert run(capsys, "build", "--content", str(content), "--out", str(out_dir))[0] == 0
    html = (out_dir / "Qwen" / "Qwen3-14B" / "index.html").read_text()
    assert f'title="Tensor Parallel on RTX Pro 6000: {RTX_PRO_6000_LINE}"' in html
    assert '<span class="muted">(363,952 KV tokens)</span>' in html
    assert '<p class="cb-memory">' + RTX_PRO_6000_LINE + "</p>" in html


def test_memory_cell_when_vllm_would_not_start() -> None:
    cell: Cell = {"state": "fits", "text": "1 node", "note": "", "title": "Single-Node TP on H100",
                  "url": "/x.json"}
    memory = {"verdict": "wont_start", "summary": "Per GPU (79.20 GiB): ...; won't start: heads"}
    assert memory_cell(cell, memory) == {"state": "none", "text": "Won't start", "note": "",
                                         "title": "Per GPU (79.20 GiB): ...; won't start: heads",
                                         "url": "/x.json"}
    assert memory_cell(cell, None) is cell


def test_preset_points_carry_the_memory_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES, root)
    config = tmp_path / "config.json"
    config.write_text(json.dumps(QWEN3_14B))
    assert run(capsys, "import-config", "MiniMaxAI/MiniMax-M3", str(config), "--content", str(root))[0] == 0
    out_dir = tmp_path / "site"
    assert run(capsys, "build", "--content", str(root), "--out", str(out_dir), "--json-only")[0] == 0
    presets = sorted((out_dir / "MiniMaxAI" / "MiniMax-M3" / "presets").glob("*.json"))
    points = [point for path in presets for point in json.loads(path.read_text())["points"].values()]
    assert presets and len(points) >= len(presets)
    for point in points:  # the recipe has stored predictions: the performance block follows the memory block
        assert list(point)[-2:] == ["memory", "performance"]
        assert point["memory"]["summary"].startswith("Per GPU (")


def test_coverage_counts_recipes_by_their_default_variant() -> None:
    facts = {"architecture_config": QWEN3_14B}
    recipes = [
        {"model": facts, "variants": {"default": {}, "fp8": {"model_id": "a/b"}}},
        {"model": {}, "variants": {"default": {}, "nvfp4": facts}},
        {"model": {}, "variants": {"default": facts}},
        {"model": {}, "meta": {"tasks": ["omni"]}, "variants": {"default": {}}},
    ]
    coverage = resolver.memory_coverage(recipes)
    assert str(coverage) == "memory facts: 2 of 3 recipes, 4 of 5 variants"
