"""Shared fixtures: where ../shared is, and one build of the upstream corpus per session."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream"
GOLDEN = SHARED / "golden"
SEED = SHARED / "seed" / "MiniMax-M3.json"
RECIPES = ROOT / "recipes"


def need_shared() -> None:
    """Skip (with the reason) when ../shared is not beside the project."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): the reference corpus and golden files live there")


@pytest.fixture(scope="session")
def upstream_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from ../shared/upstream with the real CLI (JSON and HTML)."""
    need_shared()
    from builder.cli import main

    out = tmp_path_factory.mktemp("upstream") / "site"
    assert main(["build", "--content", str(UPSTREAM), "--out", str(out)]) == 0
    return out
