"""axe-core scans: the serious and critical violations of a page, axe injected once per document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")


def need_axe() -> None:
    """Skip when axe-core is not installed."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed: run `npm ci` at the project root")


def serious_violations(page: Any, label: str, within: str = "document") -> list[str]:
    """``label: rule (impact) [targets]`` for each serious or critical violation axe finds in ``within``
    (``document`` or a CSS selector). axe is added to the document unless it is there already (a
    context's init script, or an earlier scan of the same document)."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    result = page.evaluate("(within) => axe.run(within ?? document, {resultTypes: ['violations']})",
                           None if within == "document" else within)
    return [f"{label}: {v['id']} ({v['impact']}) {[n['target'] for n in v['nodes'][:3]]}"
            for v in result["violations"] if v["impact"] in SERIOUS]
