"""The tool as a user runs it: ``--version``, the ``--content`` default, a build that can't ship the
runtime, and ``serve --base-url`` previewing a sub-path deploy."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from importlib.metadata import version
from pathlib import Path

import pytest

from builder.cli.main import main
from builder.cli.serve import start_dev_server
from builder.output.writer import MARKER, MARKER_TEXT
from builder.site.browser import bundle
from builder.site.paths import NODE_MODULES
from tests.support.paths import RECIPES, need_runtime


def test_version_names_the_tool_the_catalogue_and_pyodide(capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    pyodide = json.loads((NODE_MODULES / "pyodide" / "package.json").read_text())["version"]
    assert capsys.readouterr().out == (
        f"vllm-recipes {version('vllm-recipes-builder')}\nvLLM flag catalogue 0.33.0\nPyodide {pyodide}\n")


def test_content_defaults_to_recipes_here_else_says_what_to_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    assert capsys.readouterr().err == (
        f"error: no recipes/ folder in {tmp_path}: pass --content DIR, the content root that holds "
        "taxonomy.yaml and models/\n")
    (tmp_path / "taxonomy.yaml").write_text("hardware_profiles: {}\n")
    assert main(["build"]) == 2
    assert capsys.readouterr().err.endswith(
        "and models/ (this folder holds taxonomy.yaml: pass --content .)\n")
    assert main(["resolve", "Qwen/Qwen3-8B", "--content", "elsewhere"]) == 2
    assert capsys.readouterr().err == "error: --content elsewhere: no such folder\n"
    shutil.copytree(RECIPES, tmp_path / "recipes")
    assert main(["check"]) == 0
    assert capsys.readouterr().out == "recipes: ok (0 warning(s))\n"


def test_memory_needs_no_content_without_hardware(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32,
                                  "num_attention_heads": 32, "num_key_value_heads": 8,
                                  "intermediate_size": 14336,
                                  "vocab_size": 128256, "max_position_embeddings": 8192,
                                  "torch_dtype": "bfloat16"}))
    assert main(["memory", "--config", str(config), "--gpu-memory-gib", "79"]) == 0
    assert main(["memory", "--config", str(config), "--hardware", "h100"]) == 2
    assert capsys.readouterr().err.startswith("error: no recipes/ folder in ")


@pytest.fixture()
def no_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout without ``node_modules/pyodide`` (``npm ci`` never ran)."""
    missing = tmp_path / "node_modules"
    monkeypatch.setattr(bundle, "NODE_MODULES", missing)
    bundle.browser_files.cache_clear()
    yield missing
    bundle.browser_files.cache_clear()


def test_a_build_without_the_runtime_fails_and_leaves_the_site(
    no_runtime: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    out.mkdir()
    (out / MARKER).write_bytes(MARKER_TEXT)
    (out / "index.html").write_text("the previous build\n")
    assert main(["build", "--content", str(RECIPES), "--out", str(out)]) == 1
    assert capsys.readouterr().err == (
        f"error: the command builder's runtime is missing: {no_runtime / 'pyodide'} is not installed; run "
        f"`npm ci` in {bundle.PROJECT_ROOT} (a site without it would lack the interactive builder); {out} "
        "left unchanged\n")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "index.html"]
    assert (out / "index.html").read_text() == "the previous build\n"
    # no pages, no runtime
    assert main(["build", "--content", str(RECIPES), "--out", str(out), "--json-only"]) == 0


def test_an_installed_tool_without_its_packed_runtime_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bundle, "CHECKOUT", False)
    monkeypatch.setattr(bundle, "PACKED_BROWSER_DIR", tmp_path / "packed" / "browser")
    monkeypatch.setattr(bundle, "read_manifest", lambda: None)
    bundle.browser_files.cache_clear()
    try:
        assert main(["build", "--content", str(RECIPES), "--out", str(tmp_path / "site")]) == 1
    finally:
        bundle.browser_files.cache_clear()
    assert capsys.readouterr().err == (
        f"error: this installation has no packed runtime ({tmp_path / 'packed' / 'browser'} is missing): "
        "reinstall vllm-recipes from a wheel or sdist built in a checkout where `npm ci` has run; "
        f"{tmp_path / 'site'} left unchanged\n")
    assert not (tmp_path / "site").exists()


def _get(url: str) -> tuple[int, str, str]:
    """(status, final URL, body) of a GET that follows redirects."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.url, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, url, exc.read().decode()


def test_serve_base_url_serves_the_site_under_its_path(tmp_path: Path) -> None:
    need_runtime()
    dev = start_dev_server(RECIPES, tmp_path / "site", "--base-url", "https://you.github.io/recipes")
    try:
        root = f"http://127.0.0.1:{dev.port}"
        assert any(line.startswith(f"serving {tmp_path / 'site'} on {root}/recipes/ ") for line in dev.lines)
        status, url, home = _get(f"{root}/")
        assert (status, url) == (200, f"{root}/recipes/")
        assert 'href="/recipes/browse"' in home and 'href="/browse"' not in home
        status, _, page = _get(f"{root}/recipes/Qwen/Qwen3-8B")
        assert status == 200 and 'data-pyodide="/recipes/pyodide/' in page
        assert '<link rel="canonical" href="https://you.github.io/recipes/Qwen/Qwen3-8B">' in page
        status, _, missing = _get(f"{root}/Qwen/Qwen3-8B")  # outside the mount: the site's own 404
        assert status == 404 and 'href="/recipes/browse"' in missing
    finally:
        dev.stop()
