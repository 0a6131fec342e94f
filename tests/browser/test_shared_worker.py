"""One shared worker for the site's recipe pages: a later page finds Python booted.

Two pages open at once are answered from their own recipe; a page opened after the first has
closed still gets the booted interpreter (the worker asks for an extended lifetime).  Without
SharedWorker each page boots its own worker, from the snapshot the first one stored."""

from __future__ import annotations

import time
from typing import Any

from tests.browser.helpers import click, dedicated_worker, open_builder, shown_command, view

QWEN = "/Qwen/Qwen3-8B"
KIMI = "/moonshotai/Kimi-K2.5"
MINIMAX = "/MiniMaxAI/MiniMax-M3"


def _timings(page: Any) -> dict[str, Any]:
    return page.evaluate("window.vllmBuilder.timings")


def test_pages_share_one_booted_worker_and_keep_their_own_recipe(cold_page: Any) -> None:
    open_builder(cold_page, QWEN)
    first = _timings(cold_page)
    assert (first["shared"], first["reused"]) == (True, False)

    other = cold_page.context.new_page()
    open_builder(other, KIMI)
    second = _timings(other)
    assert (second["shared"], second["reused"]) == (True, True)

    click(other, "hardware", "h200")
    click(cold_page, "hardware", "b200")
    assert view(other)["state"]["hardware"] == "h200" and "moonshotai/Kimi-K2.5" in shown_command(other)
    assert (view(cold_page)["state"]["hardware"] == "b200"
            and "vllm serve Qwen/Qwen3-8B" in shown_command(cold_page))
    other.close()
    assert cold_page.js_errors == []


def test_a_page_opened_after_the_last_one_closed_reuses_the_interpreter(cold_page: Any) -> None:
    open_builder(cold_page, QWEN)
    later = cold_page.context.new_page()
    cold_page.close()
    open_builder(later, MINIMAX)
    assert (_timings(later)["shared"], _timings(later)["reused"]) == (True, True)
    assert "vllm serve MiniMaxAI/MiniMax-M3" in shown_command(later)


def _stored_snapshots(page: Any) -> int:
    return page.evaluate("async () => (await (await caches.open('vllm-recipes-snapshots')).keys()).length")


def test_without_shared_workers_a_later_page_restores_the_interpreter_snapshot(cold_page: Any) -> None:
    dedicated_worker(cold_page.context)
    open_builder(cold_page, QWEN)
    assert (_timings(cold_page)["shared"], _timings(cold_page)["snapshot"]) == (False, False)
    deadline = time.monotonic() + 30
    while _stored_snapshots(cold_page) == 0 and time.monotonic() < deadline:  # stored after the first answer
        time.sleep(0.2)
    assert _stored_snapshots(cold_page) == 1
    later = cold_page.context.new_page()
    cold_page.close()
    open_builder(later, MINIMAX)
    assert (_timings(later)["shared"], _timings(later)["snapshot"]) == (False, True)
    click(later, "hardware", "b200")
    assert (view(later)["state"]["hardware"] == "b200"
            and "vllm serve MiniMaxAI/MiniMax-M3" in shown_command(later))
