"""The fast JSON read of the files the tool writes beside a recipe: the YAML loader's data exactly, or
nothing (then the YAML read reports as before)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.content.files import Collector, read_mapping
from builder.content.loader import load_content
from builder.content.problems import ContentError
from builder.content.written_json import written_json
from builder.resolver.performance.measured import dump_results
from builder.resolver.performance.store import dump_stored
from tests.support.paths import RECIPES

STORED = sorted(p.relative_to(RECIPES).as_posix() for p in RECIPES.glob("models/*/*.performance.json"))
RESULTS = {"results": [{"hardware": "h200", "ttft_ms": 12.0, "note": "ünïcode", "rate": 0.5}]}


def typed(value: Any) -> Any:
    """``value`` with every scalar's type beside it (``1 == 1.0 == True`` in Python)."""
    if isinstance(value, dict):
        return [(key, typed(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [typed(item) for item in value]
    return type(value).__name__, repr(value)


def yaml_data(root: Path, rel: str) -> Any:
    out = Collector()
    loaded = read_mapping(root, rel, out)
    assert loaded is not None, out.problems
    return loaded[0]


@pytest.mark.parametrize("rel", STORED)
def test_stored_predictions_read_as_json_are_the_yaml_loaders_data(rel: str) -> None:
    data = written_json(RECIPES, rel, dump_stored)
    assert data is not None
    assert typed(data) == typed(yaml_data(RECIPES, rel))


def test_stored_results_read_as_json_are_the_yaml_loaders_data(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text(dump_results(RESULTS["results"]), encoding="utf-8")  # type: ignore[arg-type]
    data = written_json(tmp_path, "r.json", lambda d: dump_results(d["results"]))
    assert data == {"results": [{"hardware": "h200", "ttft_ms": 12, "note": "ünïcode", "rate": 0.5}]}
    assert typed(data) == typed(yaml_data(tmp_path, "r.json"))


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    return tmp_path


def results_text(rows: list[dict[str, Any]]) -> str:
    return dump_results(rows)  # type: ignore[arg-type]


@pytest.mark.parametrize(("text", "why"), [
    ('{"results": []}', "not the writer's layout"),
    (results_text([{"a": 1}]).replace('"a": 1', '"a" : 1'), "a space before a colon"),
    (results_text([{"a": 2}]).replace('"a": 2', '"a": 1, "a": 2'), "a duplicate key"),
    (results_text([{"b": 1, "0": 2}]), "an array-index key YAML lists first"),
    (results_text([{"k" * 151: 1}]), "a key YAML may find too far from its colon"),
    (results_text([{"a": "x\u2028y"}]), "a character YAML reads as a line break"),
    (results_text([{"a": "\U0001f600"}]).replace("\U0001f600", "\\ud83d\\ude00"), "escaped surrogates"),
    (results_text([{"a": "x\x01"}]).replace("\\u0001", "\x01"), "a control character"),
], ids=lambda value: value if " " in value else "")
def test_what_yaml_reads_otherwise_or_refuses_is_left_to_the_yaml_read(tmp_path: Path, text: str,
                                                                       why: str) -> None:
    root = write(tmp_path, text)
    assert written_json(root, "r.json", lambda d: dump_results(d["results"])) is None, why


def test_nesting_yaml_refuses_is_left_to_the_yaml_read(tmp_path: Path) -> None:
    deep: Any = 1
    for _ in range(99):
        deep = [deep]
    root = write(tmp_path, results_text([{"a": deep}]))
    assert written_json(root, "r.json", lambda d: dump_results(d["results"])) is None
    shallow: Any = 1
    for _ in range(90):
        shallow = [shallow]
    root = write(tmp_path, results_text([{"a": shallow}]))
    assert written_json(root, "r.json", lambda d: dump_results(d["results"])) == {"results": [{"a": shallow}]}


def test_a_broken_stored_file_is_still_reported_with_its_line(tmp_path: Path) -> None:
    content = tmp_path / "recipes"
    shutil.copytree(RECIPES, content)
    target = content / "models/Qwen/Qwen3-8B.performance.json"
    text = target.read_text(encoding="utf-8").replace('"concurrency": 1,', '"concurrency": "one",', 1)
    target.write_text(text, encoding="utf-8")
    line = text[: text.index('"one"')].count("\n") + 1
    with pytest.raises(ContentError) as caught:
        load_content(content)
    shown = [str(p) for p in caught.value.problems]
    assert [p for p in shown if "performance.json" in p] == [
        f"models/Qwen/Qwen3-8B.performance.json:{line}: predictions[0].workloads.1k/1k[0].concurrency: "
        "expected an integer, got string 'one'"]
