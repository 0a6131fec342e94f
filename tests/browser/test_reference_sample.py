"""Issue #41, through the real page: a sample of the reference builder's recorded click paths, clicked on
the built site in Chromium (stored clicks, then the Pyodide worker), shows the reference's command tabs
in pip and Docker mode modulo the deviation table, as the CPython replay
(tests/resolver/test_reference_replay.py) does for all of them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from builder.resolver.ui.facts import BuilderFacts
from tests.browser.helpers import click, open_builder, settle, shown_command, view
from tests.resolver.test_module import recipe, vocab
from tests.support.paths import CASES_DIR
from tests.support.reference_cases import INSTALL, MODES, Case, Replay, compare, load_cases, replay

# one per error of the issue: multi-node kept across a hardware switch, PD router, omni docker run
SAMPLE = [("Qwen/Qwen3-32B", 3), ("deepseek-ai/DeepSeek-V3.2", 4), ("MiniMaxAI/MiniMax-H3", 0)]
INSTALL_TAB = {"pip": re.compile(r"^pip / uv"), "docker": re.compile(r"^Docker")}


def sample_case(hf_id: str, clicks: int) -> Case:
    return next(c for c in load_cases() if c["recipe"] == hf_id and len(c["clicks"]) == clicks)


@pytest.mark.skipif(not CASES_DIR.is_dir(), reason="../shared/interactive is absent")
@pytest.mark.parametrize(("hf_id", "clicks"), SAMPLE, ids=[hf for hf, _ in SAMPLE])
def test_recorded_click_path_on_the_page_matches_the_reference(page: Any, hf_id: str, clicks: int) -> None:
    case = sample_case(hf_id, clicks)
    facts = BuilderFacts(recipe(hf_id), vocab())
    events = replay(facts, case).events  # (row id, event) of each recorded click, found in CPython
    open_builder(page, f"/{hf_id}")
    for row_id, event in events:
        click(page, row_id, str(event["value"]))
    views = {}
    for mode in MODES:
        if page.locator(".cb-install-head").get_attribute("aria-expanded") != "true":
            page.locator(".cb-install-head").click()
        page.locator(".cb-install [role=tab]", has_text=INSTALL_TAB[INSTALL[mode]]).click()
        settle(page)
        views[mode] = view(page)
        tabs = views[mode]["tabs"]
        assert shown_command(page) == next(t for t in tabs if t["id"] == "tab-0")["copy"]
    assert compare(Replay(facts, events, views), case).diffs == []
    assert not page.js_errors
