"""Session fixtures shared by every package's tests: the builds they read.

Each site is built once per test process (with ``-n 2``, once per worker that needs it) and only
read by the tests; a test that changes a site builds its own.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import cpu_profile, run_order
from tests.support.paths import RECIPES, UPSTREAM, need_runtime, need_shared
from tests.support.shared_builds import once
from tests.support.sites import JsonBuild, build_for, build_presets_site, build_real, json_build_on_two_cores


@pytest.fixture(scope="session")
def upstream_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The one build of ../shared/upstream per session (JSON and HTML), written to a folder.

    ``{"dir", "content", "output", "pages"}``: the folder, the loaded content, the API output
    (documents and objects) and the HTML side's files.
    """
    need_shared()
    return once(tmp_path_factory, "upstream", lambda folder: build_real(UPSTREAM, folder / "site"))


@pytest.fixture(scope="session")
def upstream_json_build(tmp_path_factory: pytest.TempPathFactory) -> JsonBuild:
    """The session's ``build --json-only`` of ../shared/upstream by the command, on two cores: read by the
    tests comparing it with the session's build and with one process's."""
    need_shared()
    built = once(tmp_path_factory, "upstream-json",
                 lambda folder: dict(json_build_on_two_cores(UPSTREAM, folder / "site")))
    return JsonBuild(dir=built["dir"], out=built["out"], err=built["err"], forked=built["forked"])


@pytest.fixture(scope="session")
def upstream_site(upstream_build: dict[str, Any]) -> Path:
    """The folder of the session's upstream build."""
    return upstream_build["dir"]


@pytest.fixture(scope="session")
def built_site(upstream_build: dict[str, Any]) -> dict[str, Any]:
    """The session's one build of ../shared/upstream: its directory, content, output and pages."""
    return upstream_build


@pytest.fixture(scope="session")
def presets_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Our recipes/ built with provenance: MiniMax-M3 carries presets, notes and an edit link."""
    return once(tmp_path_factory, "presets", lambda folder: build_presets_site(folder / "site"))


SUB_URL = "https://example.github.io/recipes"


@pytest.fixture(scope="session")
def sub_path_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Our recipes/ built for ``SUB_URL``, placed at <host root>/recipes/ as GitHub Pages serves it
    (``{"dir", "pages", "files", "host"}``)."""
    def build(host: Path) -> dict[str, Any]:
        info = build_for(RECIPES, host / "recipes", SUB_URL)
        # GitHub Pages answers with the site's 404
        shutil.copyfile(host / "recipes" / "404.html", host / "404.html")
        return {**info, "host": host}

    return once(tmp_path_factory, "sub-path", build)


@pytest.fixture(scope="session")
def recipes_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our recipes/ built by the command line, as a user builds it (no provenance)."""
    from builder.cli.main import main

    def build(folder: Path) -> dict[str, Any]:
        assert main(["build", "--content", str(RECIPES), "--out", str(folder / "site")]) == 0
        return {"dir": folder / "site"}

    site: Path = once(tmp_path_factory, "recipes", build)["dir"]
    return site


@pytest.fixture(scope="session")
def recipes_json_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Our recipes/ built ``--json-only`` by the command line: the JSON API alone."""
    from builder.cli.main import main

    def build(folder: Path) -> dict[str, Any]:
        out = folder / "site"
        assert main(["build", "--content", str(RECIPES), "--out", str(out), "--json-only"]) == 0
        return {"dir": out}

    site: Path = once(tmp_path_factory, "recipes-json", build)["dir"]
    return site


def merged_content(tmp: Path) -> Path:
    """The upstream corpus with the project's own recipes laid over it (presets, notes)."""
    root = tmp / "content"
    shutil.copytree(UPSTREAM, root)
    for src in (RECIPES / "models").rglob("*.yaml"):
        dst = root / "models" / src.relative_to(RECIPES / "models")
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
    return root


@pytest.fixture(scope="session")
def builder_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The upstream corpus with our recipes laid over it, built with the Pyodide runtime and the
    builder data: ``{"dir", "content", "files"}``."""
    need_runtime()

    def build(folder: Path) -> dict[str, Any]:
        info = build_real(merged_content(folder), folder / "site")
        return {"dir": info["dir"], "content": info["content"], "files": info["files"]}

    return once(tmp_path_factory, "builder-site", build)


SUMMARY_KEY = pytest.StashKey[list[str]]()


@pytest.fixture(scope="session")
def run_summary(request: pytest.FixtureRequest) -> list[str]:
    """Lines to print at the end of the run (e.g. the golden match count)."""
    return request.config.stash.setdefault(SUMMARY_KEY, [])


def pytest_sessionfinish(session: pytest.Session) -> None:
    """In an xdist worker: hand the summary lines to the controller, which prints them."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["summary"] = session.config.stash.get(SUMMARY_KEY, [])


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """In the xdist controller: collect a finished worker's summary lines."""
    node.config.stash.setdefault(SUMMARY_KEY, []).extend(getattr(node, "workeroutput", {}).get("summary", []))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the lines tests put in ``run_summary``."""
    for line in terminalreporter.config.stash.get(SUMMARY_KEY, []):
        terminalreporter.write_line(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    """With ``VLLM_RECIPES_CPU_PROFILE`` set: each test's CPU seconds (its processes included) go to
    that file (tests/support/cpu_profile.py)."""
    meter = cpu_profile.meter()
    if meter is None:
        return (yield)
    wall, cpu = meter.measure()
    try:
        return (yield)
    finally:
        end_wall, end_cpu = meter.measure()
        meter.record(item.nodeid, end_wall - wall, end_cpu - cpu)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The costliest test files first (tests/support/run_order.py)."""
    run_order.costliest_first(items)
