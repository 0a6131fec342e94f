"""Issue #37 acceptance: a GPU of a known family is one taxonomy entry, a new family one row of the
device-family table (``builder/resolver/families.py``) plus its GPU's entry. A copy of ``recipes/``
gains an ``h20`` listed first and an ``acme_x1`` of a new family ``acme``; no code is edited (the
test registers the row the way a maintainer adds it to ``DEVICE_FAMILIES``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from builder import resolver
from builder.cli.main import main
from builder.content.loader import load_content
from builder.resolver.families import DEVICE_FAMILIES, DeviceFamily
from tests.support.paths import RECIPES

H20 = """\
  h20:
    brand: NVIDIA
    generation: hopper
    family: nvidia
    display_name: "H20"
    description: "Eight NVIDIA H20 GPUs with 96 GB each"
    gpu_count: 8
    vram_gb: 768

"""
ACME = """\
  acme_x1:
    brand: Acme
    generation: acme1
    family: acme
    display_name: "Acme X1"
    description: "Four Acme X1 accelerators with 64 GB each"
    gpu_count: 4
    vram_gb: 256
    display_order: 1000

"""
ACME_ROW: DeviceFamily = {
    "image_key": "acme", "latest_image": "acme/vllm:latest", "nightly_image": "acme/vllm:nightly",
    "docker_flags": "--device /dev/acme", "docker_argv": ("--device", "/dev/acme"),
    "kubernetes_resource": "acme.example/accelerator", "platform": "Acme", "pip": None,
    "docker_note": "Acme's own vLLM image.",
}
RECIPE = "Qwen/Qwen3-8B"
PILLS = ["h20", "h100", "h200", "b200", "gb200", "b300", "gb300", "rtx_pro_6000", "dgx_spark_gb10",
         "rtx_5090", "mi300x", "mi325x", "mi350x", "mi355x", "acme_x1"]


@pytest.fixture
def content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of recipes/ with the two profiles, and the new family's row registered."""
    monkeypatch.setitem(DEVICE_FAMILIES, "acme", ACME_ROW)
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES, root)
    taxonomy = root / "taxonomy.yaml"
    text = taxonomy.read_text()
    head, tail = text.split("hardware_profiles:\n", 1)
    first_profile = tail.index("  h100:\n")
    end = tail.index("\ntasks:")
    tail = tail[:first_profile] + H20 + tail[first_profile:end] + "\n" + ACME + tail[end + 1:]
    taxonomy.write_text(head + "hardware_profiles:\n" + tail)
    return root


def resolved(root: Path) -> tuple[dict[str, Any], resolver.Vocab]:
    loaded, problems = load_content(root, strict=True)
    assert problems == []
    recipe = next(r for r in loaded.recipes if r.hf_id == RECIPE)
    return recipe.data, loaded.vocab.resolver_vocab()


def hardware_pills(view: resolver.View) -> list[str]:
    row = next(r for r in view["rows"] if r["id"] == "hardware")
    return [p["value"] for p in row["pills"]]


def test_check_passes_and_the_pills_follow_the_taxonomy(content: Path) -> None:
    assert main(["check", "--content", str(content)]) == 0
    recipe, vocab = resolved(content)
    assert hardware_pills(resolver.builder_state(recipe, vocab)) == PILLS


def test_the_default_stays_the_best_ranked_profile(content: Path) -> None:
    recipe, vocab = resolved(content)
    assert resolver.default_hardware(recipe, vocab["taxonomy"], "default") == "h200"
    assert resolver.builder_state(recipe, vocab)["state"]["hardware"] == "h200"


def test_a_gpu_of_a_known_family_gets_its_commands(content: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recipe, vocab = resolved(content)
    record = resolver.resolve(recipe, vocab, {"hardware": "h20"})
    assert record["docker_command"].startswith(
        "docker run --gpus all \\\n  --privileged --ipc=host -p 8000:8000")
    assert record["docker_image"] == "vllm/vllm-openai:latest"
    assert record["install"]["header"].endswith(" · CUDA")
    assert main(["resolve", RECIPE, "--content", str(content), "--hardware", "h20", "--format", "k8s"]) == 0
    vllm = _vllm_container(capsys.readouterr().out)
    assert vllm["resources"] == {"limits": {"nvidia.com/gpu": 8}}  # the node's eight


def test_a_gpu_of_a_new_family_gets_the_rows_commands(content: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    recipe, vocab = resolved(content)
    record = resolver.resolve(recipe, vocab, {"hardware": "acme_x1"})
    assert record["docker_command"].startswith("docker run --device /dev/acme \\\n  --privileged --ipc=host")
    assert record["docker_argv"][:4] == ["docker", "run", "--device", "/dev/acme"]
    assert record["docker_image"] == "acme/vllm:latest"
    assert record["install"]["header"].endswith(" · Acme")
    assert record["install"]["pip"] is None
    assert (record["install"]["docker"]
            == {"command": "docker pull acme/vllm:latest", "note": "Acme's own vLLM image."})
    view = resolver.builder_state(recipe, vocab, {"hardware": "acme_x1"})
    assert [t["label"] for t in view["install"]["tabs"]][:1] == ["Docker (Acme)"]
    assert (main(["resolve", RECIPE, "--content", str(content), "--hardware", "acme_x1", "--format", "k8s"])
            == 0)
    vllm = _vllm_container(capsys.readouterr().out)
    assert vllm["resources"] == {"limits": {"acme.example/accelerator": 4}}
    assert vllm["image"] == "acme/vllm:latest"


def test_an_unknown_family_is_refused(content: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delitem(DEVICE_FAMILIES, "acme")
    assert main(["check", "--content", str(content)]) == 1
    lines = [x for x in capsys.readouterr().err.splitlines() if "acme_x1.family" in x]
    line = len((content / "taxonomy.yaml").read_text().split("    family: acme\n")[0].splitlines()) + 1
    assert lines == [f"taxonomy.yaml:{line}: hardware_profiles.acme_x1.family: must be a device family of "
                     "the resolver's table (nvidia, amd, tpu, xpu, cpu)"]


def _vllm_container(text: str) -> dict[str, Any]:
    deployment = next(d for d in yaml.safe_load_all(text) if d and d["kind"] == "Deployment")
    containers: list[dict[str, Any]] = deployment["spec"]["template"]["spec"]["containers"]
    return containers[0]
