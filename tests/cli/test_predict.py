"""``vllm-recipes predict``: predictions stored beside the recipe, reruns, ``--check``, the coverage line,
the missing extra, and the records' ``performance`` blocks (JSON API and ``resolve``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from builder.api.publish import ApiBuilder
from builder.content.loader import load_content
from builder.content.schemas.json_schema import performance_schema
from builder.resolver.performance.reproducer import reproducer
from tests.cli.test_hub_import import OWN_FACTS, hub_config, recipe_data
from tests.support.commands import run_builder
from tests.support.hub_server import HubServer, shared_hub
from tests.support.paths import ROOT

RECIPES = ROOT / "recipes"
HF_ID = "Qwen/Qwen3-8B"
STORED = f"models/{HF_ID}.performance.json"
COVERAGE = ("performance: 26 of 40 commands predictable, 14 with a named reason (8 the predictor "
            "has no AMD data; 6 the predictor has no kernel measurements of this GPU)")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HubServer]:
    fake = shared_hub()
    for hf_id in OWN_FACTS:
        fake.add(hf_id, hub_config(recipe_data(RECIPES, hf_id)["model"]["architecture_config"]))
    with HubServer(fake, tmp_path_factory.mktemp("hf") / "hf-home") as server:
        yield server


def run(hub: HubServer | None, *argv: str, pythonpath: str | None = None) -> tuple[int, str, str, float]:
    """``python -m builder ARGV`` as a process (pointed at the local hub); status, stdout, stderr, seconds.
    With ``pythonpath`` a new interpreter (the path is read at its start), else a child of the zygote."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    if hub is not None:
        env.update(hub.env())
    started = time.perf_counter()
    if pythonpath is None:
        done = run_builder(list(argv), env, timeout=600)
    else:
        done = subprocess.run([sys.executable, "-m", "builder", *argv], cwd=ROOT,
                              env={**env, "PYTHONPATH": pythonpath}, capture_output=True, text=True,
                              timeout=600)
    return done.returncode, done.stdout, done.stderr, time.perf_counter() - started


@pytest.fixture(scope="module")
def predicted(hub: HubServer, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """recipes/ without stored predictions, after ``predict Qwen/Qwen3-8B``: (content root, stdout)."""
    root = tmp_path_factory.mktemp("content") / "recipes"
    shutil.copytree(RECIPES, root)
    for stored in (root / "models").glob("*/*.performance.json"):
        stored.unlink()
    status, out, err, _ = run(hub, "predict", HF_ID, "--content", str(root))
    assert status == 0, err
    return root, out


def test_predict_stores_every_command_beside_the_recipe(predicted: tuple[Path, str]) -> None:
    root, out = predicted
    lines = out.splitlines()
    assert len(lines) == 2
    assert re.fullmatch(rf"{HF_ID}: 14 predictions \(14 new, 0 the predictor could not make\) in \d+\.\d s",
                        lines[0])
    assert lines[1] == COVERAGE
    stored = json.loads((root / STORED).read_text())
    assert stored["predictor"] == {"name": "aiconfigurator-core", "version": "0.12.0"}
    entries = stored["predictions"]
    systems = sorted({(e["database"]["system"], e["database"]["version"]) for e in entries})
    assert systems == [(s, "0.24.0")
                       for s in ["b200_sxm", "b300_sxm", "gb200", "gb300", "h100_sxm", "h200_sxm",
                                 "rtx_pro_6000_server"]]
    assert sorted(e["inputs"]["gemm_quant"] for e in entries) == ["bfloat16"] * 7 + ["fp8"] * 7
    h100 = next(e for e in entries if e["inputs"]["system"] == "h100_sxm"
                and e["inputs"]["gemm_quant"] == "bfloat16")
    # the sweep stops where the memory model's KV cache (389,920 tokens) no longer holds a full request
    assert [p["concurrency"] for p in h100["workloads"]["1k/1k"]] == [1, 2, 4, 8, 16, 32, 64, 128]
    assert [p["concurrency"] for p in h100["workloads"]["8k/1k"]] == [1, 2, 4, 8, 16, 32]
    assert h100["workloads"]["1k/1k"][3] == {"concurrency": 8, "ttft_ms": 73.88, "tpot_ms": 7.37,
                                             "tokens_per_s_per_user": 135.68, "tokens_per_s_per_gpu": 1074.91}


def test_a_rerun_with_nothing_changed_is_quick_and_writes_nothing(hub: HubServer,
                                                                  predicted: tuple[Path, str]) -> None:
    root, _ = predicted
    before = (root / STORED).read_bytes()
    status, out, _, seconds = run(hub, "predict", HF_ID, "--content", str(root))
    assert status == 0
    assert out.splitlines() == [f"{HF_ID}: up to date (14 predictions)", COVERAGE]
    assert seconds < 10
    assert (root / STORED).read_bytes() == before
    assert run(None, "predict", "--check", HF_ID, "--content", str(root))[:2] == (0, out)


def test_check_lists_stale_predictions_without_writing(predicted: tuple[Path, str], tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(predicted[0], root)
    recipe = root / f"models/{HF_ID}.yaml"
    text = recipe.read_text()
    recipe.write_text(text.replace('''      - "--quantization"
      - "fp8"
''', '''      - "--quantization"
      - "fp8"
      - "--max-num-seqs"
      - "64"
''', 1))
    before = (root / STORED).read_bytes()
    status, out, err, _ = run(None, "predict", "--check", HF_ID, "--content", str(root))
    assert status == 1
    assert out.splitlines()[0] == (f"{HF_ID}: stale: 7 command input(s) without a stored prediction "
                                   "(recipe or facts changed); 7 stored prediction(s) no command uses")
    assert err == "1 recipe(s) with stale predictions: run vllm-recipes predict\n"
    assert (root / STORED).read_bytes() == before


def test_a_recipe_without_predictable_commands_is_not_stale(predicted: tuple[Path, str]) -> None:
    status, out, _, _ = run(None, "predict", "--check", "zai-org/GLM-4.5-Air", "--content", str(predicted[0]))
    assert (status, out.splitlines()) == (0, [
        "zai-org/GLM-4.5-Air: nothing to predict",
        "performance: 0 of 100 commands predictable, 100 with a named reason (60 the predictor has "
        "no model of the 'glm4_moe' architecture; 40 the predictor has no AMD data)"])


def test_without_the_extra_predict_says_what_to_install(tmp_path: Path) -> None:
    shadow = tmp_path / "shadow" / "aiconfigurator_core"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise ImportError('not installed')\n")
    status, out, err, _ = run(None, "predict", HF_ID, pythonpath=f"{shadow.parent}{os.pathsep}{ROOT}")
    assert (status, out) == (2, "")
    assert err == ("error: the predictor (aiconfigurator-core) is not installed: "
                   "pip install 'vllm-recipes-builder[perf]'\n")


def test_usage() -> None:
    assert run(None, "predict")[1:3] == ("", "error: expected <org>/<repo> or --all\n")
    assert run(None, "predict", "Qwen/Nope")[2] == "error: no recipe Qwen/Nope in this content root\n"


def performance_blocks(files: dict[str, Any]) -> dict[str, Any]:
    return {path: record["performance"] for path, record in files.items()
            if isinstance(record, dict) and "performance" in record}


def test_api_records_carry_the_block_and_it_validates(predicted: tuple[Path, str]) -> None:
    content, _ = load_content(predicted[0])
    objects = ApiBuilder(content).build().objects
    blocks = performance_blocks(objects)
    hardware = sorted(path.split("/")[3][:-5] for path in blocks if path.count("/") == 3 and "/hw/" in path)
    assert hardware == ["b200", "b300", "dgx_spark_gb10", "gb200", "gb300", "h100", "h200", "mi300x",
                        "mi325x", "mi350x", "mi355x", "rtx_5090", "rtx_pro_6000"]
    assert len(blocks) == 35  # with the Mooncake alternatives of 11 of them
    assert all(path.startswith(f"{HF_ID}/") for path in blocks)  # no stored data, no block
    schema = performance_schema()
    for block in blocks.values():
        jsonschema.validate(block, schema)
    h200 = blocks[f"{HF_ID}/hw/h200.json"]
    assert h200["predictor"] == {"name": "aiconfigurator-core", "version": "0.12.0",
                                 "database": {"system": "h200_sxm", "backend": "vllm", "version": "0.24.0"}}
    assert list(h200["workloads"]) == ["1k/1k", "8k/1k", "1k/8k"]
    record = objects[f"{HF_ID}/hw/h200.json"]
    assert [p["reproducer"] for p in h200["workloads"]["8k/1k"]] == [
        reproducer(HF_ID, record, "8k/1k", p["concurrency"]) for p in h200["workloads"]["8k/1k"]]
    assert "--random-input-len 8192 --random-output-len 1024" in h200["workloads"]["8k/1k"][0]["reproducer"]
    assert blocks[f"{HF_ID}/hw/mi355x.json"] == {"unavailable": "the predictor has no AMD data"}
    assert (blocks[f"{HF_ID}/hw/rtx_5090.json"]
            == {"unavailable": "the predictor has no kernel measurements of this GPU"})
    # the document keeps the seed's keys
    assert "performance" not in objects[f"{HF_ID}.json"]["recommended_command"]


def test_resolve_prints_the_same_block_and_answers_a_target(predicted: tuple[Path, str]) -> None:
    root = str(predicted[0])
    status, out, _, _ = run(None, "resolve", HF_ID, "--hardware", "h200", "--json", "--content", root)
    assert status == 0
    content, _ = load_content(root)
    api = ApiBuilder(content).build().objects
    assert json.loads(out)["performance"] == api[f"{HF_ID}/hw/h200.json"]["performance"]
    status, out, _, _ = run(None, "resolve", HF_ID, "--target", "ttft=0.2,tps_user=100,gpus=1", "--workload",
                            "8k/1k", "--json", "--content", root)
    pick = json.loads(out)["pick"]
    assert (status == 0
            and (pick["hardware"], pick["variant"], pick["strategy"]) == ("gb300", "fp8", "single_node_tp"))
    assert pick["point"]["ttft_ms"] <= 200 and pick["point"]["tokens_per_s_per_user"] >= 100
    status, out, _, _ = run(None, "resolve", HF_ID, "--target", "ttft=0.01", "--content", root)
    assert status == 0 and out.startswith("no command meets ttft (target 0.01); closest: ")
    status, _, err, _ = run(None, "resolve", HF_ID, "--target", "speed=3", "--content", root)
    assert (status,
            err) == (2, "error: --target: expected NAME=VALUE items with NAME one of ttft, tps_user, gpus, "
                        "got 'speed=3'\n")


def test_a_predictor_failure_is_one_line_without_this_machines_paths() -> None:
    from builder.cli.predictor import _first_line

    error = RuntimeError("perf database error: no MHC module rows loaded (first: "
                         "/work/x/.venv/lib/python3.11/site-packages/aiconfigurator_core/systems/data/gb200/"
                         "vllm/0.24.0/mhc.parquet)\ndetails")
    assert _first_line(error) == ("RuntimeError: perf database error: no MHC module rows loaded (first: "
                                  "aiconfigurator_core/systems/data/gb200/vllm/0.24.0/mhc.parquet)")
