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
# The tests' Chromium: WebAssembly compiled by the baseline compiler only. Every test opens a fresh
# context, so each builder page boots Pyodide from scratch, and optimising its 10 MB of code in the
# background costs more CPU (about 1.5 s a boot) than the optimised code saves in a test.
# (bench/ measures the browser as readers run it, with CHROMIUM_ARGS.)
TEST_CHROMIUM_ARGS = [*CHROMIUM_ARGS, "--js-flags=--liftoff-only"]


def need_shared() -> None:
    """Skip (with the reason) when ../shared is not beside the project."""
    if not UPSTREAM.is_dir():
        pytest.skip(f"../shared is absent ({SHARED}): the reference corpus and golden files live there")


def need_runtime() -> None:
    """Skip with the reason when the Pyodide runtime the builder site ships is missing."""
    need_shared()
    if not (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
        pytest.skip("node_modules/pyodide is missing: run `npm ci`")
