"""The real-parser suite's order, for ``make test-vllm``'s two workers with work stealing.

Each worker starts on one half of the run order; a worker that runs out takes half of what the other still
has queued, except the test next in line (xdist needs it to tear a test's fixtures down). The first half
is the ``vllm-config`` form's test (about two thirds of the suite's parsing) and, queued behind it, tests
that take under a second once the golden verdicts exist; the second half, the other worker's, holds the
other tests that parse much, ``bench serve``'s first: the golden verdicts, which both workers need, are
computed once, by whichever asks first (``test_real_parser.golden``). Tests not listed run after these.
Without ``VLLM_VENV`` the suite is skipped and the order left alone.
"""

from __future__ import annotations

import pytest

from tests.vllm_real.scripts import VENV

ORDER = [
    "test_vllm_config_form_parses_like_the_command",  # first worker
    "test_golden_rejected_set", "test_golden_lint_agrees_with_real_parser",
    "test_unit_cases_agree_with_real_parser",
    "test_unit_cases_startup_names_agree_with_vllm",  # second worker
    "test_committed_catalogue_matches_venv", "test_every_reproducer_parses_to_its_point",
    "test_golden_startup_names_agree_with_vllm",
]


@pytest.hookimpl(trylast=True)  # after the run order of tests/conftest.py
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The real-parser suite's tests in :data:`ORDER`."""
    if VENV:
        items.sort(key=lambda item: ORDER.index(item.name) if item.name in ORDER else len(ORDER))
