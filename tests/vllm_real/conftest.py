"""The real-parser suite's order: its longest test first.

``make test-vllm`` runs the suite on two xdist workers with work stealing, each starting on half of the
run order: with the ``vllm-config`` form's test (about two thirds of the suite's parsing) first, one worker
starts on it while the other runs the rest; they share the golden verdicts both need
(``test_real_parser.golden``). Without ``VLLM_VENV`` the suite is skipped and the order left alone.
"""

from __future__ import annotations

import pytest

from tests.vllm_real.scripts import VENV

LONGEST = "tests/vllm_real/test_real_parser.py::test_vllm_config_form_parses_like_the_command"


@pytest.hookimpl(trylast=True)  # after the run order of tests/conftest.py
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The longest test of the real-parser suite first, the others in the run order."""
    if VENV:
        items.sort(key=lambda item: item.nodeid != LONGEST)
