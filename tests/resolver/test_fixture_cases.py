"""Resolver cases as documentation: every ``tests/resolver/fixtures/*.yaml`` resolved in CPython.

Each file names the spec section it proves; the same cases run in the browser's Pyodide resolver
(tests/browser/test_parity.py). The format is described in tests/resolver/resolver_fixtures.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.resolver.resolver_fixtures import Case, case_inputs, load_cases, mismatches, resolve_with
from tests.resolver.test_module import R

SPEC = Path(__file__).resolve().parents[2].parent / "shared" / "spec"
CASES = load_cases()


def resolve_case(case: Case) -> dict:
    """The record CPython's resolver gives for the case's selection."""
    return resolve_with(R, *case_inputs(case), case["selection"])


def test_enough_cases_and_each_names_its_section() -> None:
    assert len(CASES) >= 30
    for case in CASES:
        assert set(case) <= {"name", "spec", "proves", "recipe", "content", "fragment", "selection",
                             "expect"}, case["name"]
        assert ("recipe" in case) != ("fragment" in case), case["name"]
        assert case["proves"] and case["expect"] and isinstance(case["selection"], dict), case["name"]
        # a section (``resolver-cluster.md §7``) or a row id of the feature tables
        # (``site-features.md GAP-12``)
        match = re.fullmatch(r"([a-z-]+\.md) (?:§[0-9][0-9.]*|([A-Z]+(?:-[A-Z]+)*-[0-9]+))", case["spec"])
        assert match and (SPEC / match.group(1)).is_file(), f"{case['name']}: spec {case['spec']!r}"
        if match.group(2):
            assert (f"| {match.group(2)} |"
                    in (SPEC / match.group(1)).read_text(encoding="utf-8")), case["name"]


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_fixture_case(case: Case) -> None:
    assert mismatches(case, resolve_case(case)) == []
