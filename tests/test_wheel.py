"""The package as a user installs it: the wheel (and the sdist) carry everything a build needs, and the
installed ``vllm-recipes``, run from another folder, builds ``../shared/upstream`` byte for byte like the
checkout, runtime included.

The wheel is built once per run from a copy of the checkout's files (``node_modules`` linked in, as
after ``npm ci``) and installed into a fresh venv that borrows this environment's dependencies
(a ``.pth`` line; our wheel alone is installed, ``--no-deps``), so no test touches the network.
"""

from __future__ import annotations

import hashlib
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from tests.support.package import build_wheel, checkout_copy, install, run
from tests.support.paths import ROOT, UPSTREAM, need_runtime
from tests.support.shared_builds import once


def tree(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root`` by relative path."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def wheel_files(wheel: Path) -> dict[str, bytes]:
    """The package's files in a wheel (not its metadata)."""
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist() if name.startswith("builder/")}


def build_and_install(folder: Path, checkout_site: Path) -> dict[str, Any]:
    source = checkout_copy(folder / "src")
    wheel = build_wheel(source, folder / "dist")
    venv = folder / "venv"
    bin_dir = install(wheel, venv)
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    installed = elsewhere / "site"
    cache = folder / "user-cache"  # the installed tool's own, cold: nothing read from the checkout's
    built = run([str(bin_dir / "vllm-recipes"), "build", "--content", str(UPSTREAM), "--out", str(installed)],
                elsewhere, VLLM_RECIPES_CACHE=str(cache))
    return {"folder": folder, "source": source, "wheel": wheel, "venv": venv, "elsewhere": elsewhere,
            "installed": tree(installed), "checkout": tree(checkout_site), "stdout": built.stdout}


@pytest.fixture(scope="session")
def installed_tool(tmp_path_factory: pytest.TempPathFactory, upstream_site: Path) -> dict[str, Any]:
    """The wheel built, installed and run on ../shared/upstream; beside it the checkout's build of the same
    content (the session's upstream build, written as ``vllm-recipes build`` writes it)."""
    need_runtime()
    return once(tmp_path_factory, "wheel", lambda folder: build_and_install(folder, upstream_site))


def test_the_installed_tool_builds_upstream_byte_for_byte_like_the_checkout(
        installed_tool: dict[str, Any]) -> None:
    installed, checkout = installed_tool["installed"], installed_tool["checkout"]
    assert installed_tool["stdout"].startswith("built 150 recipes, 286 documents, ")
    assert sorted(set(checkout) ^ set(installed)) == []
    assert sorted(p for p in checkout if checkout[p] != installed[p]) == []
    assert sum(1 for p in installed if p.startswith("pyodide/") and p.endswith("/pyodide.asm.wasm")) == 1
    assert len(installed) > 15_000


def test_the_installed_tool_runs_from_its_own_package(installed_tool: dict[str, Any]) -> None:
    python = installed_tool["venv"] / "bin" / "python"
    where = run([str(python), "-c", "import builder.site.paths as p; print(p.PACKAGE_DIR, p.CHECKOUT)"],
                installed_tool["elsewhere"]).stdout.split()
    assert Path(where[0]).is_relative_to(installed_tool["venv"]) and where[1] == "False"
    version = run([str(installed_tool["venv"] / "bin" / "vllm-recipes"), "--version"],
                  installed_tool["elsewhere"])
    assert version.stdout == run([sys.executable, "-m", "builder", "--version"], ROOT).stdout


def test_the_wheel_holds_templates_static_files_fonts_logos_runtime_and_catalogue(
        installed_tool: dict[str, Any]) -> None:
    names = set(wheel_files(installed_tool["wheel"]))
    assert {"builder/packed/templates/recipe.html", "builder/packed/site/static/site.css",
            "builder/packed/site/static/fonts/inter-latin-400-normal.woff2",
            "builder/packed/site/static/logos/qwen-color.svg",
            "builder/packed/browser/static/resolver.zip", "builder/packed/manifest.json",
            "builder/data/vllm-0.33.0-flags.json", "builder/data/brand_logos.json"} <= names
    assert any(n.startswith("builder/packed/browser/pyodide/") and n.endswith("/python_stdlib.zip.br")
               for n in names)
    assert not any("node_modules" in n or "__pycache__" in n for n in names)


def test_the_sdist_builds_the_same_wheel_without_node_modules(installed_tool: dict[str, Any],
                                                              tmp_path: Path) -> None:
    """An sdist brings its packed copy: a wheel built from it (no node_modules, no Node) holds the same
    files."""
    source = installed_tool["source"]
    script = "import sys, build_backend; print(build_backend.build_sdist(sys.argv[1]))"
    name = run([sys.executable, "-c", script, str(tmp_path)], source, PYTHONPATH=str(source / "tools")).stdout
    sdist = tmp_path / name.strip().splitlines()[-1]
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
         str(tmp_path / "dist"), str(sdist)], tmp_path)
    from_sdist = wheel_files(next((tmp_path / "dist").glob("*.whl")))
    direct = wheel_files(installed_tool["wheel"])
    assert sorted(set(direct) ^ set(from_sdist)) == []
    assert sorted(n for n in direct if direct[n] != from_sdist[n]) == []
