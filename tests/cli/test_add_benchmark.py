"""``vllm-recipes add-benchmark``: the two fixture formats stored with provenance, the records' ``measured``
points (JSON API, ``resolve --json``, the schema), ``diff``, and bad files refused with nothing written."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from builder.api.publish import ApiBuilder
from builder.cli.main import main
from builder.content.loader import load_content
from builder.content.schemas.json_schema import performance_schema
from tests.support.paths import RECIPES, ROOT

FIXTURES = ROOT / "tests" / "fixtures" / "benchmarks"
VLLM = FIXTURES / "fixture-synthetic-vllm-bench-serve-Qwen3-8B-h200-c8.json"
ROW = FIXTURES / "fixture-synthetic-inferencex-row-Qwen3-8B-h200-conc16.json"
HF_ID = "Qwen/Qwen3-8B"
RESULTS = f"models/{HF_ID}.benchmarks.json"
SOURCE = "https://example.com/runs/40"
IMAGE = "vllm/vllm-openai:v0.33.0"
VLLM_SHA = "7cf12e9d093ffb130756224bfd0caf17199f32fb12abd074966e90742d3d5217"
ROW_SHA = "3c764b278913fc48aabc4c54d983e3262df946c9b5efa269f93e508e437d81eb"
MEASURED = [
    {"workload": "1k/1k", "input_tokens": 1024, "output_tokens": 1024, "concurrency": 8, "ttft_ms": 88.4,
     "tpot_ms": 6.05, "tokens_per_s_per_user": 165.289, "tokens_per_s_per_gpu": 1298.174,
     "measured_over_predicted": 0.9345,  # 1,298.174 / the stored prediction's 1,389.23 (h200_sxm, bf16, c8)
     "provenance": {"format": "vllm-bench-serve", "file": VLLM.name, "sha256": VLLM_SHA, "vllm_version": None,
                    "image": IMAGE, "gpu": "h200", "date": "2026-12-05T14:30:12", "source": SOURCE}},
    {"workload": "1k/1k", "input_tokens": 1024, "output_tokens": 1024, "concurrency": 16, "ttft_ms": 91.2,
     "tpot_ms": 7.02, "tokens_per_s_per_user": 142.45, "tokens_per_s_per_gpu": 2209.7,
     "measured_over_predicted": 0.9076,  # 2,209.7 / 2,434.58
     "provenance": {"format": "inferencex-row", "file": ROW.name, "sha256": ROW_SHA, "vllm_version": None,
                    "image": IMAGE, "gpu": "h200", "date": None, "source": SOURCE}},
]


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` and its bytes (links as their target)."""
    out = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder) / name
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            out[str(path.relative_to(root))] = data
    return out


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main([*argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.fixture(scope="module")
def added(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A copy of recipes/ after ``add-benchmark`` of both fixtures: (content root, stdout)."""
    root = tmp_path_factory.mktemp("content") / "recipes"
    shutil.copytree(RECIPES, root)
    with pytest.MonkeyPatch.context() as patch:
        lines: list[str] = []
        patch.setattr("builtins.print", lambda *a, **k: lines.append(" ".join(map(str, a))))
        status = main(["add-benchmark", HF_ID, str(VLLM), str(ROW), "--variant", "default", "--strategy",
                       "single_node_tp", "--source", SOURCE, "--content", str(root)])
    assert status == 0
    return root, "\n".join(lines)


def test_recipes_ship_no_results() -> None:
    assert sorted(RECIPES.glob("models/*/*.benchmarks.json")) == []


def test_add_benchmark_says_what_it_stored(added: tuple[Path, str]) -> None:
    root, out = added
    assert out.splitlines() == [
        f"{HF_ID}: stored h200 default single_node_tp, 1k/1k at concurrency 8: 1,298.2 tok/s/GPU, "
        f"165.3 tok/s/user, TTFT 88.4 ms (vllm-bench-serve {VLLM.name})",
        f"{HF_ID}: stored h200 default single_node_tp, 1k/1k at concurrency 16: 2,209.7 tok/s/GPU, "
        f"142.4 tok/s/user, TTFT 91.2 ms (inferencex-row {ROW.name})",
        f"wrote {RESULTS}: 2 result(s)",
    ]
    lines = (root / RESULTS).read_text().splitlines()
    assert len(lines) == 6  # one line per result
    stored = json.loads((root / RESULTS).read_text())["results"]
    selection = {"hardware": "h200", "variant": "default", "strategy": "single_node_tp"}
    assert stored == [{**selection, **{k: v for k, v in m.items() if k != "measured_over_predicted"}}
                      for m in MEASURED]


def test_the_json_api_publishes_measured_points_with_provenance_and_ratio(added: tuple[Path, str]) -> None:
    content, _ = load_content(added[0])
    objects = ApiBuilder(content).build().objects
    block = objects[f"{HF_ID}/hw/h200.json"]["performance"]
    assert list(block) == ["predictor", "workloads", "measured"]
    assert block["measured"] == MEASURED
    jsonschema.validate(block, performance_schema())
    assert "measured" not in objects[f"{HF_ID}/hw/h100.json"]["performance"]  # another command


def test_resolve_json_prints_the_same_block(added: tuple[Path, str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "resolve", HF_ID, "--hardware", "h200", "--json", "--content", str(added[0]))
    assert status == 0
    assert json.loads(out)["performance"]["measured"] == MEASURED


def test_results_without_a_prediction_still_get_a_block(added: tuple[Path, str], tmp_path: Path) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(added[0], root)
    (root / f"models/{HF_ID}.performance.json").unlink()
    content, _ = load_content(root)
    block = ApiBuilder(content).build().objects[f"{HF_ID}/hw/h200.json"]["performance"]
    assert block == {"measured": [{**m, "measured_over_predicted": None} for m in MEASURED]}
    jsonschema.validate(block, performance_schema())


def test_a_rerun_replaces_the_point_and_an_unchanged_file_is_said(added: tuple[Path, str], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(added[0], root)
    faster = json.loads(VLLM.read_text())
    faster["output_throughput"] = 1500.0
    rerun = tmp_path / "rerun.json"
    rerun.write_text(json.dumps(faster))
    status, out, err = run(capsys, "add-benchmark", HF_ID, str(rerun), str(ROW), "--variant", "default",
                           "--strategy", "single_node_tp", "--source", SOURCE, "--content", str(root))
    assert (status, err) == (0, "")
    point = f"{HF_ID}: %s h200 default single_node_tp, 1k/1k at concurrency"
    assert out.splitlines()[0].startswith(f"{point % 'replaced'} 8: 1,500.0 tok/s/GPU")
    assert out.splitlines()[1].startswith(f"{point % 'unchanged'} 16: 2,209.7 tok/s/GPU")
    assert [r["provenance"]["file"] for r in json.loads((root / RESULTS).read_text())["results"]] == [
        "rerun.json", ROW.name]


def test_diff_names_the_results(added: tuple[Path, str], tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "diff", str(RECIPES), str(added[0]), "--exit-zero")
    assert status == 0
    assert (f"- Measured result added: `h200 default single_node_tp, 1k/1k at concurrency 8` from "
            f"`vllm-bench-serve {VLLM.name}`") in out.splitlines()
    assert (f"- Measured result added: `h200 default single_node_tp, 1k/1k at concurrency 16` from "
            f"`inferencex-row {ROW.name}`") in out.splitlines()
    head = tmp_path / "recipes"
    shutil.copytree(added[0], head)
    text = (head / RESULTS).read_text()
    key = '"tokens_per_s_per_gpu": '
    text = text.replace(f"{key}2209.7", f"{key}2500.0").replace(f"{key}1298.174", f"{key}1350.0")
    (head / RESULTS).write_text(text)
    status, out, _ = run(capsys, "diff", str(added[0]), str(head), "--format", "json")
    assert status == 1
    (change,) = json.loads(out)["recipes"]
    assert change["results"] == [{  # 1,298.174 -> 1,350 is under 10 %: not reported
        "change": "changed", "point": "h200 default single_node_tp, 1k/1k at concurrency 16",
        "source": f"inferencex-row {ROW.name}", "figures": ["tokens/s per GPU 2,209.7 → 2,500 (+13.1%)"]}]
    (head / RESULTS).unlink()
    status, out, _ = run(capsys, "diff", str(added[0]), str(head), "--format", "json")
    assert [(r["change"], r["point"]) for r in json.loads(out)["recipes"][0]["results"]] == [
        ("removed", "h200 default single_node_tp, 1k/1k at concurrency 8"),
        ("removed", "h200 default single_node_tp, 1k/1k at concurrency 16")]


def _vllm(**changes: Any) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        data = json.loads(VLLM.read_text())
        for key, value in changes.items():
            if value is None:
                del data[key]
            else:
                data[key] = value
        path = folder / "result.json"
        path.write_text(json.dumps(data))
        return path
    return make


def _text(text: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / "result.json"
        path.write_text(text)
        return path
    return make


def _huge(folder: Path) -> Path:
    path = folder / "result.json"
    with path.open("wb") as handle:
        handle.truncate(50 << 20)  # 50 MB (sparse): refused from its size, never read
    return path


def _link(folder: Path) -> Path:
    path = folder / "result.json"
    path.symlink_to(VLLM)
    return path


GOOD = VLLM.read_text()
BAD_FILES = {
    "missing fields": (_vllm(median_ttft_ms=None, output_throughput=None),
                       ["median_ttft_ms: missing", "output_throughput: missing"]),
    "NaN and Infinity": (_text(GOOD.replace('"median_ttft_ms": 88.4', '"median_ttft_ms": NaN')
                               .replace('"output_throughput": 1298.1744', '"output_throughput": Infinity')),
                         ["median_ttft_ms: not a finite number (NaN)",
                          "output_throughput: not a finite number (Infinity)"]),
    "negative throughput": (_vllm(output_throughput=-5), ["output_throughput: must be positive, got -5"]),
    "absurd throughput": (_vllm(output_throughput=5e9),
                          ["output_throughput: tokens/s per GPU 5e+09 is above 1,000,000: not a plausible "
                           "measurement"]),
    "50 MB": (_huge, ["file is too large: 52,428,800 bytes (the limit is 1,048,576)"]),
    "wrong model": (_vllm(model_id="meta-llama/Llama-3.1-8B-Instruct"),
                    ["model_id: 'meta-llama/Llama-3.1-8B-Instruct' is not the model of Qwen/Qwen3-8B or its "
                     "variants (Qwen/Qwen3-8B)"]),
    "a selection the recipe does not publish": (
        _vllm(gpu="mi300x", variant="fp8"),
        ["selection: mi300x fp8 single_node_tp is not a command Qwen/Qwen3-8B publishes (its variants on "
         "mi300x: default)"]),
    "not JSON": (_text("{not json"),
                 ["not JSON: Expecting property name enclosed in double quotes at line 1, column 2"]),
    "an array where an object belongs": (_text(f"[{GOOD}]"),
                                         ["expected a JSON object (one result), got an array"]),
    "HTML in a string": (_vllm(image="<img src=x onerror=alert(1)>"),
                         ["image: must be a plain name (letters, digits, . _ - and the like), got "
                          "'<img src=x onerror=alert(1)>'"]),
    "a symbolic link": (_link, ["a symbolic link: pass the file it points to (links are not followed)"]),
    # beyond the ten: what the reproducer's --metadata declares must be the command and the run
    "parallel sizes of another command": (
        _vllm(tp="2", ep="2"), ["tp: the file says tp 2, the command h200 default single_node_tp runs tp 1",
                                "ep: the file says ep 2, the command h200 default single_node_tp runs ep 1"]),
    "lengths the metadata does not declare": (
        _vllm(isl="8192", workload="8k/1k"),
        ["total_input_tokens: the requests averaged 1,024 tokens, --metadata isl=8192"]),
    "another recipe's run": (_vllm(recipe="Qwen/Qwen3-14B"),
                             ["recipe: the file measured 'Qwen/Qwen3-14B', not Qwen/Qwen3-8B"]),
}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pristine") / "recipes"
    shutil.copytree(RECIPES, root)
    return root


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_is_refused_and_nothing_changes(case: str, pristine: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    make, problems = BAD_FILES[case]
    bad = make(tmp_path)
    before = tree(pristine)
    # with a good file beside it: every file is checked before anything is written
    status, out, err = run(capsys, "add-benchmark", HF_ID, str(VLLM), str(bad), "--content", str(pristine))
    assert (status, out) == (1, "")
    assert err.splitlines() == [f"{bad}: {problem}" for problem in problems]
    assert tree(pristine) == before


def test_a_source_that_is_not_http_is_refused(pristine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "add-benchmark", HF_ID, str(VLLM), "--source", "javascript:alert(1)",
                         "--content", str(pristine))
    assert (status, err) == (2, "error: --source: must be an absolute http(s) URL\n")


def test_two_files_at_one_point_are_refused(pristine: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "add-benchmark", HF_ID, str(VLLM), str(VLLM), "--content", str(pristine))
    assert status == 1
    assert err == (f"{VLLM}: max_concurrency: measures the same point as {VLLM} (h200 default "
                   "single_node_tp, 1k/1k at concurrency 8)\n")


def test_a_hand_edited_results_file_gets_located_problems(added: tuple[Path, str], tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "recipes"
    shutil.copytree(added[0], root)
    text = (root / RESULTS).read_text()
    (root / RESULTS).write_text(text.replace('"tokens_per_s_per_gpu": 2209.7', '"tokens_per_s_per_gpu": -1')
                                .replace('"concurrency": 8', '"concurrency": 8, "note": "<b>"'))
    status, _, err = run(capsys, "check", "--content", str(root))
    assert status == 1
    assert err.splitlines() == [
        f"{RESULTS}:3: results[0].note: Extra inputs are not permitted",
        f"{RESULTS}:4: results[1].tokens_per_s_per_gpu: must be > 0.0, got number -1",
    ]
