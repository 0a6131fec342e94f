"""Shared fixtures: where ../shared is, and one build of the upstream corpus per session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream"
GOLDEN = SHARED / "golden"
SEED = SHARED / "seed" / "MiniMax-M3.json"
RECIPES = ROOT / "recipes"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def need_shared() -> None:
    """Skip (with the reason) when ../shared is not beside the project."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): the reference corpus and golden files live there")


@pytest.fixture(scope="session")
def upstream_build(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The one build of ../shared/upstream per session (JSON and HTML), written to a folder.

    ``{"dir", "content", "output", "pages"}``: the folder, the loaded content, the API output
    (documents and objects) and the HTML side's files.
    """
    need_shared()
    from builder.build import BuildOptions, Pipeline
    from builder.writer import write_tree

    out = tmp_path_factory.mktemp("upstream") / "site"
    result = Pipeline(BuildOptions(content=UPSTREAM, out=out)).run()
    write_tree(result.files, out)
    pages = {k: v for k, v in result.files.items() if k not in result.output.files}
    return {"dir": out, "content": result.content, "output": result.output, "pages": pages}


@pytest.fixture(scope="session")
def upstream_site(upstream_build: dict[str, Any]) -> Path:
    """The folder of the session's upstream build."""
    return upstream_build["dir"]


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One Debian Chromium for the whole session (never downloads a browser).

    Every browser test shares it: Playwright's sync API allows one driver per process.
    """
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


SUMMARY_KEY = pytest.StashKey[list[str]]()


@pytest.fixture(scope="session")
def run_summary(request: pytest.FixtureRequest) -> list[str]:
    """Lines to print at the end of the run (e.g. the golden match count)."""
    return request.config.stash.setdefault(SUMMARY_KEY, [])


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the lines tests put in ``run_summary``."""
    for line in terminalreporter.config.stash.get(SUMMARY_KEY, []):
        terminalreporter.write_line(line)
