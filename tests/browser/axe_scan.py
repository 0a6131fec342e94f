"""axe-core scans: the serious and critical violations of a page, axe injected once per document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
SERIOUS = ("serious", "critical")
# axe.run in ``within`` (null: the document); without selectors (a fifth of a scan's CPU) unless the
# caller names the rules to report with their targets
RUN = """([within, rules]) => axe.run(within ?? document, rules === null
    ? {resultTypes: ['violations'], selectors: false}
    : {resultTypes: ['violations'], runOnly: {type: 'rule', values: rules}})"""


def need_axe() -> None:
    """Skip when axe-core is not installed."""
    if not AXE.is_file():
        pytest.skip("axe-core is not installed: run `npm ci` at the project root")


def serious_violations(page: Any, label: str, within: str = "document") -> list[str]:
    """``label: rule (impact) [targets]`` for each serious or critical violation axe finds in ``within``
    (``document`` or a CSS selector). axe is added to the document unless it is there already (a
    context's init script, or an earlier scan of the same document). The scan computes no CSS
    selectors; only when it finds something are those rules run again for their targets."""
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE))
    scope = None if within == "document" else within
    found = page.evaluate(RUN, [scope, None])["violations"]
    serious = [v for v in found if v["impact"] in SERIOUS]
    if not serious:
        return []
    again = page.evaluate(RUN, [scope, [v["id"] for v in serious]])["violations"]
    targets = {v["id"]: [n["target"] for n in v["nodes"][:3]] for v in again}
    return [f"{label}: {v['id']} ({v['impact']}) {targets.get(v['id'], '(not found again)')}"
            for v in serious]
