"""Where the project and ``../shared`` are, and the browser every browser test starts."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
UPSTREAM = SHARED / "upstream"
GOLDEN = SHARED / "golden"
SEED = SHARED / "seed" / "MiniMax-M3.json"
CASES_DIR = SHARED / "interactive"
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


def need_runtime() -> None:
    """Skip with the reason when the Pyodide runtime the builder site ships is missing."""
    need_shared()
    if not (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
        pytest.skip("node_modules/pyodide is missing: run `npm ci`")
