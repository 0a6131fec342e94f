"""Issue #41: every click path the reference builder recorded (``../shared/interactive/cases.jsonl``),
replayed through our builder's event path (``builder_state``, as the page's worker calls it), shows
the reference's command tabs in pip and Docker mode, its summary and its pill labels, except where a
row of the deviation table (``builder/site/reference_deviations.py``) explains the difference."""

from __future__ import annotations

import functools
import re

import pytest

from builder.resolver.ui.facts import BuilderFacts
from builder.site.reference_deviations import DEVIATIONS
from tests.resolver.test_module import recipe, vocab
from tests.support.paths import CASES_DIR, need_shared
from tests.support.reference_cases import Comparison, case_id, compare, load_cases, replay

CASES = load_cases() if CASES_DIR.is_dir() else []
EXACT, MODULO = 18, 34  # cases equal to the reference as they are / after the table's rows


@functools.cache
def facts(hf_id: str) -> BuilderFacts:
    return BuilderFacts(recipe(hf_id), vocab())


@functools.cache
def comparisons() -> tuple[Comparison, ...]:
    need_shared()
    return tuple(compare(replay(facts(c["recipe"]), c), c) for c in CASES)


@pytest.mark.parametrize("index", range(len(CASES)), ids=[case_id(i, c) for i, c in enumerate(CASES)])
def test_case_matches_the_reference_modulo_the_deviation_table(index: int) -> None:
    assert comparisons()[index].diffs == []


def test_counts_exact_and_modulo_deviations() -> None:
    need_shared()
    assert len(CASES) == 52
    exact = sum(1 for c in comparisons() if c.exact)
    assert (exact, len(CASES) - exact) == (EXACT, MODULO)


def test_every_rewriting_row_explains_some_case() -> None:
    """No dead rows: each row that rewrites or normalises is needed by at least one recorded case."""
    used = set().union(*(c.used for c in comparisons()))
    active = {d["id"] for d in DEVIATIONS if d["rewrite"] or d["normalise"]}
    assert sorted(active - used) == []


def test_rows_are_documented() -> None:
    ids = [d["id"] for d in DEVIATIONS]
    assert len(ids) == len(set(ids))
    for row in DEVIATIONS:
        assert all(row[k].strip() for k in ("what", "where", "why", "justified_by")), row["id"]
        for pattern, _ in row["rewrite"]:
            re.compile(pattern)


def test_an_unexplained_difference_fails() -> None:
    """The comparison is not blind: a changed flag value in one tab is reported."""
    need_shared()
    index = next(i for i, c in enumerate(CASES) if c["recipe"] == "Qwen/Qwen3-32B" and len(c["clicks"]) == 3)
    case = CASES[index]
    rep = replay(facts(case["recipe"]), case)
    tab = rep.views["docker"]["tabs"][1]
    tab["copy"] = tab["copy"].replace("--tensor-parallel-size 16", "--tensor-parallel-size 8")
    assert compare(rep, case).diffs[0].startswith("docker Node 1:\n--- ours (normalised)\n")
