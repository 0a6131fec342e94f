"""Loading and validation: YAML 1.2 scalars, line numbers, exact error text, no half-written output."""

from __future__ import annotations

import hashlib
import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from builder.api.form_schema import FORM_SCHEMA_PATH
from builder.cli.main import main
from builder.content import yaml12
from builder.content.loader import load_content
from builder.content.problems import ContentError
from builder.content.schemas.json_schema import PERFORMANCE_SCHEMA_PATH, SCHEMA_PATH
from builder.output.writer import MARKER, MARKER_TEXT
from builder.site.browser.bundle import browser_files
from tests.support.paths import ROOT, UPSTREAM, need_shared
from tests.support.sites import JsonBuild

M3 = "models/MiniMaxAI/MiniMax-M3.yaml"


# ── YAML 1.2 scalar resolution (json-api §1.2) ──


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("on", "on"),
        ("OFF", "OFF"),
        ("yes", "yes"),
        ("no", "no"),
        ("True", True),
        ("FALSE", False),
        ("1e3", 1000),
        ("1E-2", 0.01),
        ("010", 10),
        ("0o10", 8),
        ("0x1f", 31),
        ("1_000", "1_000"),
        ("1:30", "1:30"),
        ("=", "="),
        ("1.0", 1),
        ("0.95", 0.95),
        ("2025-09-03", "2025-09-03"),
        ("2025-9-3", "2025-9-3"),
        ("2001-12-14t21:59:43.10-05:00", "2001-12-15"),
        ("y", "y"),
        ("n", "n"),
        ("~", None),
        ("null", None),
    ],
)
def test_plain_scalars_follow_yaml_1_2(text: str, expected: object) -> None:
    data, _ = yaml12.load(f"value: {text}\n")
    assert data["value"] == expected
    assert type(data["value"]) is type(expected)


def test_quoted_scalars_stay_strings_and_keys_become_strings() -> None:
    data, _ = yaml12.load('a: "off"\nb: \'2025-09-03\'\n1: x\ntrue: y\n')
    assert data == {"1": "x", "a": "off", "b": "2025-09-03", "true": "y"}


def test_integer_like_keys_come_first_as_in_javascript() -> None:
    data, _ = yaml12.load("b: 1\n'8': x\n'08': y\n2: z\n")
    assert list(data) == ["2", "8", "b", "08"]


def test_every_key_path_has_a_line() -> None:
    _, lines = yaml12.load("meta:\n  title: X\nlist:\n  - a\n  - b: 1\n")
    assert lines == {"": 1, "meta": 1, "meta.title": 2, "list": 3, "list[0]": 4, "list[1]": 5, "list[1].b": 5}


def test_duplicate_keys_are_errors() -> None:
    with pytest.raises(yaml12.YamlError) as caught:
        yaml12.load("a: 1\nb: 2\na: 3\n")
    assert (caught.value.line, caught.value.field, caught.value.message) == (3, "a", "duplicate key 'a'")


# ── corrupted copies of an upstream recipe ──


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file of a folder with its SHA-256."""
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture()
def corrupt(tmp_path: Path):
    """Copy the upstream corpus, apply one text replacement to MiniMax-M3, build it."""
    need_shared()
    content = tmp_path / "content"
    shutil.copytree(UPSTREAM, content)
    out = tmp_path / "out"
    (out / "MiniMaxAI").mkdir(parents=True)
    (out / "MiniMaxAI" / "MiniMax-M3.json").write_text('{"previous": true}')
    (out / "index.html").write_text("previous site")
    (out / MARKER).write_bytes(MARKER_TEXT)  # an earlier build's site: the writer may replace it
    before = tree_digest(out)

    def run(old: str, new: str, capsys: pytest.CaptureFixture[str]) -> tuple[list[str], int]:
        path = content / M3
        text = path.read_text()
        assert text.count(old) == 1, old
        line = text[: text.index(old)].count("\n") + 1
        path.write_text(text.replace(old, new))
        status = main(["build", "--content", str(content), "--out", str(out)])
        assert status == 1
        assert tree_digest(out) == before
        errors = [e for e in capsys.readouterr().err.splitlines() if "warning:" not in e]
        return errors, line

    return run


def test_bad_yaml(corrupt, capsys) -> None:
    errors, line = corrupt("compatible_strategies:\n  - single_node_tp\n",
                           "compatible_strategies: [single_node_tp\n", capsys)
    assert errors[0] == (
        f"{M3}:{line + 9}: invalid YAML: did not find expected ',' or ']' "
        f"(while parsing a flow sequence started on line {line})"
    )
    assert errors[-1].startswith("build failed: 1 error(s);")


def test_unknown_strategy_id(corrupt, capsys) -> None:
    errors, line = corrupt("  - multi_node_tep\n", "  - multi_node_teq\n", capsys)
    assert errors[0] == f"{M3}:{line}: compatible_strategies[5]: unknown strategy 'multi_node_teq'"


def test_string_where_a_number_belongs(corrupt, capsys) -> None:
    errors, line = corrupt("    vram_minimum_gb: 1025\n", "    vram_minimum_gb: lots\n", capsys)
    assert errors[0] == f"{M3}:{line}: variants.default.vram_minimum_gb: expected a number, got string 'lots'"


def test_default_mode_naming_no_mode(corrupt, capsys) -> None:
    errors, line = corrupt("    default_mode: eagle3\n", "    default_mode: eagle9\n", capsys)
    assert errors[0] == f"{M3}:{line}: features.spec_decoding.default_mode: unknown mode 'eagle9'"


def test_features_not_a_mapping(corrupt, capsys) -> None:
    errors, line = corrupt("\nfeatures:\n", "\nfeatures: [oops]\nunused_features:\n", capsys)
    assert errors[0] == f"{M3}:{line + 1}: features: expected a mapping, got a list"


def test_all_errors_are_reported_together(corrupt, capsys) -> None:
    errors, _ = corrupt("    default_mode: eagle3\n", "    default_mode: eagle9\n    strategies: [nope]\n",
                        capsys)
    assert [e.split(": ", 1)[1] for e in errors[:2]] == [
        "features.spec_decoding.default_mode: unknown mode 'eagle9'",
        "features.spec_decoding.strategies[0]: unknown strategy 'nope'",
    ]


def test_file_outside_an_org_folder_is_an_error(tmp_path: Path) -> None:
    need_shared()
    content = tmp_path / "content"
    shutil.copytree(UPSTREAM, content)
    (content / "models" / "stray.yaml").write_text("meta: {title: X, provider: Y}\n")
    with pytest.raises(ContentError) as caught:
        load_content(content)
    assert [str(p) for p in caught.value.problems if not p.warning] == [
        "models/stray.yaml: a recipe file must be inside an organisation folder: models/<org>/<repo>.yaml"
    ]


def test_unknown_hardware_is_a_warning_and_strict_makes_it_an_error(tmp_path: Path) -> None:
    need_shared()
    _, warnings = load_content(UPSTREAM)
    assert "models/nvidia/Cosmos3-Nano.yaml:19: meta.hardware.a100: warning: unknown hardware 'a100'" in [
        str(w) for w in warnings
    ]
    with pytest.raises(ContentError):
        load_content(UPSTREAM, strict=True)


def test_two_builds_are_byte_identical(upstream_json_build: JsonBuild,
                                       upstream_build: dict[str, Any]) -> None:
    """A second build of the same content, by the command, JSON only and on two cores (the session's: the
    output tests compare it with one process's), writes exactly the session's build's API files and
    schema, byte for byte."""
    second = {rel: digest for rel, digest in tree_digest(upstream_json_build["dir"]).items() if rel != MARKER}
    first = {rel: hashlib.sha256(upstream_build["pages"].get(rel)
                                 or upstream_build["output"].files[rel]).hexdigest()
             for rel in [*upstream_build["output"].files, SCHEMA_PATH, PERFORMANCE_SCHEMA_PATH,
                         FORM_SCHEMA_PATH]}
    assert len(second) > 13_000 and second == first


def test_impossible_hardware_numbers_are_errors(tmp_path: Path) -> None:
    content = tmp_path / "content"
    shutil.copytree(ROOT / "recipes", content)
    taxonomy = content / "taxonomy.yaml"
    text = taxonomy.read_text()
    line = text[: text.index("    gpu_count: 8\n")].count("\n") + 1
    taxonomy.write_text(text.replace("    gpu_count: 8\n", "    gpu_count: 0\n", 1))
    with pytest.raises(ContentError) as caught:
        load_content(content)
    errors = [str(p) for p in caught.value.problems if not p.warning]
    assert errors == [f"taxonomy.yaml:{line}: hardware_profiles.h100.gpu_count: must be >= 1, got number 0"]


def test_parallel_page_rendering_equals_one_process(upstream_build: dict[str, Any], tmp_path: Path) -> None:
    """In a fresh single-threaded process (the only place the build forks), the pages rendered on two
    cores from the session's build of ../shared/upstream are its pages rendered by one process."""
    built = tmp_path / "built.pickle"
    built.write_bytes(pickle.dumps((upstream_build["content"], upstream_build["output"]),
                                   protocol=pickle.HIGHEST_PROTOCOL))
    script = (
        "import hashlib, json, os, pickle, sys, threading\n"
        "from builder.output.parallel import site_pages_parallel\n"
        f"content, output = pickle.loads(open({str(built)!r}, 'rb').read())\n"
        "assert threading.active_count() == 1 and hasattr(os, 'fork')\n"
        "pages = site_pages_parallel(content, output)\n"
        "json.dump({path: hashlib.sha256(body).hexdigest() for path, body in pages.items()}, sys.stdout)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    parallel = json.loads(done.stdout)
    # the session's build rendered its pages in one process; beside them it holds the JSON Schemas,
    # the in-browser builder's runtime and its data
    not_pages = {SCHEMA_PATH, PERFORMANCE_SCHEMA_PATH, FORM_SCHEMA_PATH, *browser_files()}
    one_process = {path: hashlib.sha256(body).hexdigest() for path, body in upstream_build["pages"].items()
                   if path not in not_pages and not path.startswith("builder-data/")}
    assert len(parallel) > 300 and parallel == one_process
