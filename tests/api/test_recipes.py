"""Our own recipes/: MiniMax-M3 rebuilds the seed, presets endpoints, overlays, provenance."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.cli.main import main
from builder.content.loader import load_content
from builder.content.problems import ContentError
from tests.support.paths import RECIPES, SEED, need_shared

SEED_SOURCE = [
    "--source-name", "vllm",
    "--source-repo", "vllm-project/vllm",
    "--source-ref", "main",
    "--source-sha", "564ac0de1b228568cafcbfbe8ccaccc82d6023eb",
    "--source-prefix", "recipes",
]  # fmt: skip
PRESETS = [
    "h200_agentx",
    "b200_agentx",
    "b200_agentx_c10",
    "b300_agentx",
    "gb200_agentx",
    "gb200_agentx_tp8",
    "mi355x_agentx",
]


def collapse(value: Any) -> Any:
    """Collapse runs of spaces in every string, as the seed's were; drop the ``performance`` blocks (predicted
    speed, an extension the seed predates)."""
    if isinstance(value, dict):
        return {k: collapse(v) for k, v in value.items() if k != "performance"}
    if isinstance(value, list):
        return [collapse(v) for v in value]
    if isinstance(value, str):
        return re.sub(r" {2,}", " ", value)
    return value


def without_facts(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without its architecture_config blocks (model's and variants'), the one extension key it
    may carry beyond the seed's; every other key, value and order is the seed's."""
    doc = json.loads(json.dumps(doc))
    doc["model"].pop("architecture_config")
    for variant in doc["variants"].values():
        variant.pop("architecture_config", None)
    return doc


@pytest.fixture(scope="module")
def our_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our recipes built with the seed's provenance, JSON only."""
    out = tmp_path_factory.mktemp("ours") / "site"
    assert main(["build", "--out", str(out), "--json-only", *SEED_SOURCE]) == 0
    return out


def test_minimax_m3_equals_the_seed(our_site: Path) -> None:
    need_shared()
    seed = json.loads(SEED.read_text())
    ours = json.loads((our_site / "MiniMaxAI" / "MiniMax-M3.json").read_text())
    # same architecture
    assert ours["model"]["architecture_config"]["source"] == {"repo": "nvidia/MiniMax-M3-NVFP4"}
    assert [key for key, v in ours["variants"].items() if "architecture_config" in v] == ["nvfp4"]
    assert json.dumps(collapse(without_facts(ours)), indent=1) == json.dumps(collapse(seed), indent=1)
    assert '"performance":' not in json.dumps(seed)  # dropping the blocks hides nothing of the seed


def test_without_provenance_there_is_no_source(tmp_path: Path) -> None:
    need_shared()
    out = tmp_path / "site"
    assert main(["build", "--out", str(out), "--json-only"]) == 0
    seed = json.loads(SEED.read_text())
    ours = json.loads((out / "MiniMaxAI" / "MiniMax-M3.json").read_text())
    assert "source" not in ours
    del seed["source"]
    assert collapse(without_facts(ours)) == collapse(seed)


def test_per_hardware_and_preset_endpoints_exist(our_site: Path) -> None:
    assert (our_site / "MiniMaxAI" / "MiniMax-M3" / "hw" / "b200.json").is_file()
    written = sorted(p.stem for p in (our_site / "MiniMaxAI" / "MiniMax-M3" / "presets").glob("*.json"))
    assert written == sorted(PRESETS)
    doc = json.loads((our_site / "MiniMaxAI" / "MiniMax-M3.json").read_text())
    assert [p["json"] for p in doc["presets"].values()] == [
        f"/MiniMaxAI/MiniMax-M3/presets/{key}.json" for key in PRESETS
    ]


def test_preset_document_shape(our_site: Path) -> None:
    body = json.loads((our_site / "MiniMaxAI" / "MiniMax-M3" / "presets" / "h200_agentx.json").read_text())
    assert list(body)[:6] == ["hf_id", "preset", "label", "hardware", "strategy", "variant"]
    assert list(body)[-2:] == ["points", "runbook"]
    point = body["points"]["c1"]
    assert (list(point)[:7]
            == ["label", "concurrency", "hardware", "strategy", "variant", "node_count", "deploy_type"])
    assert ((point["hardware"], point["variant"], point["argv"][2])
            == ("h200", "mxfp8", "MiniMaxAI/MiniMax-M3-MXFP8"))


def test_our_recipes_have_no_warnings_under_strict() -> None:
    _, problems = load_content(RECIPES, strict=True)
    assert problems == []


# ── overlays ──


@pytest.fixture()
def overlaid(tmp_path: Path) -> Path:
    """A copy of our recipes with two overlay files for MiniMax-M3."""
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    folder = root / "overlays" / "MiniMaxAI" / "MiniMax-M3"
    folder.mkdir(parents=True)
    (folder / "10-amd.yaml").write_text(
        "meta:\n"
        "  performance_headline: AMD overlay headline\n"
        "  hardware:\n"
        "    mi300x: verified\n"
        "  related_recipes: null\n"
        "opt_in_features: [text_only]\n"
    )
    (folder / "20-more.yaml").write_text("meta:\n  performance_headline: second overlay wins\n")
    return root


def test_overlays_merge_in_file_name_order(overlaid: Path) -> None:
    content, _ = load_content(overlaid)
    recipe = next(r for r in content.recipes if r.hf_id == "MiniMaxAI/MiniMax-M3")
    base = next(r for r in load_content(RECIPES)[0].recipes if r.hf_id == "MiniMaxAI/MiniMax-M3")
    meta = recipe.data["meta"]
    assert meta["performance_headline"] == "second overlay wins"  # later file wins
    assert meta["hardware"] == {**base.data["meta"]["hardware"], "mi300x": "verified"}  # mappings merge
    assert list(meta) == [k for k in base.data["meta"] if k != "related_recipes"]  # null deletes, order kept
    assert recipe.data["opt_in_features"] == ["text_only"]  # lists replace
    assert recipe.overlays == [
        "overlays/MiniMaxAI/MiniMax-M3/10-amd.yaml",
        "overlays/MiniMaxAI/MiniMax-M3/20-more.yaml",
    ]
    assert recipe.where("meta.hardware.mi300x") == ("overlays/MiniMaxAI/MiniMax-M3/10-amd.yaml", 4)
    assert recipe.where("meta.title")[0] == "models/MiniMaxAI/MiniMax-M3.yaml"


def test_source_lists_overlays(overlaid: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert main(["build", "--content", str(overlaid), "--out", str(out), "--json-only", *SEED_SOURCE]) == 0
    source = json.loads((out / "MiniMaxAI" / "MiniMax-M3.json").read_text())["source"]
    assert source["overlays"] == [
        "recipes/overlays/MiniMaxAI/MiniMax-M3/10-amd.yaml",
        "recipes/overlays/MiniMaxAI/MiniMax-M3/20-more.yaml",
    ]
    assert (source["edit_url"]
            == "https://github.com/vllm-project/vllm/edit/main/recipes/models/MiniMaxAI/MiniMax-M3.yaml")


def test_errors_inside_an_overlay_point_at_the_overlay(overlaid: Path) -> None:
    (overlaid / "overlays" / "MiniMaxAI" / "MiniMax-M3" / "30-bad.yaml").write_text(
        "# a vendor's additions\nvariants:\n  mxfp8:\n    vram_minimum_gb: big\n"
    )
    with pytest.raises(ContentError) as caught:
        load_content(overlaid)
    assert [str(p) for p in caught.value.problems] == [
        "overlays/MiniMaxAI/MiniMax-M3/30-bad.yaml:4: variants.mxfp8.vram_minimum_gb: expected a number, "
        "got string 'big'"
    ]


def test_quickstarts_are_published_by_hardware_profile(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    (root / "quickstart").mkdir()
    (root / "quickstart" / "b200.yaml").write_text(
        "hardware_profile: b200\ntitle: B200 in five minutes\nsteps: [a, b]\n")
    out = tmp_path / "site"
    assert main(["build", "--content", str(root), "--out", str(out), "--json-only"]) == 0
    assert (out / "quickstart" / "b200.json").read_text() == (
        '{\n  "hardware_profile": "b200",\n  "title": "B200 in five minutes",\n  "steps": [\n    '
        '"a",\n    "b"\n  ]\n}'
    )


def test_source_sha_comes_from_git_when_not_given(tmp_path: Path) -> None:
    import subprocess

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=RECIPES, capture_output=True, text=True)
    if head.returncode != 0:
        pytest.skip("recipes/ is not inside a git checkout")
    out = tmp_path / "site"
    assert main(["build", "--out", str(out), "--json-only", "--source-name", "ours", "--source-repo",
                 "acme/recipes"]) == 0
    source = json.loads((out / "MiniMaxAI" / "MiniMax-M3.json").read_text())["source"]
    assert source == {
        "source": "ours",
        "repo": "acme/recipes",
        "ref": "main",
        "sha": head.stdout.strip(),
        "path": "models/MiniMaxAI/MiniMax-M3.yaml",
        "edit_url": "https://github.com/acme/recipes/edit/main/models/MiniMaxAI/MiniMax-M3.yaml",
        "overlays": [],
    }


def test_site_yaml_provides_provenance_defaults(tmp_path: Path) -> None:
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    (root / "site.yaml").write_text(
        "source:\n  name: vllm\n  repo: vllm-project/vllm\n  ref: main\n  sha: abc123\n  prefix: recipes\n")
    out = tmp_path / "site"
    assert main(
        ["build", "--content", str(root), "--out", str(out), "--json-only", "--source-ref", "release"]) == 0
    source = json.loads((out / "MiniMaxAI" / "MiniMax-M3.json").read_text())["source"]
    assert ((source["ref"], source["sha"], source["path"])
            == ("release", "abc123", "recipes/models/MiniMaxAI/MiniMax-M3.yaml"))
