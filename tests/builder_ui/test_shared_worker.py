"""One shared worker for the site's recipe pages: a later page finds Python booted.

Two pages open at once are answered from their own recipe; a page opened after the first has
closed still gets the booted interpreter (the worker asks for an extended lifetime)."""

from __future__ import annotations

from typing import Any

from builder_ui.helpers import click, open_builder, shown_command, view

QWEN = "/Qwen/Qwen3-8B"
KIMI = "/moonshotai/Kimi-K2.5"
MINIMAX = "/MiniMaxAI/MiniMax-M3"


def _timings(page: Any) -> dict[str, Any]:
    return page.evaluate("window.vllmBuilder.timings")


def test_pages_share_one_booted_worker_and_keep_their_own_recipe(page: Any) -> None:
    open_builder(page, QWEN)
    first = _timings(page)
    assert (first["shared"], first["reused"]) == (True, False)

    other = page.context.new_page()
    open_builder(other, KIMI)
    second = _timings(other)
    assert (second["shared"], second["reused"]) == (True, True)

    click(other, "hardware", "h200")
    click(page, "hardware", "b200")
    assert view(other)["state"]["hardware"] == "h200" and "moonshotai/Kimi-K2.5" in shown_command(other)
    assert view(page)["state"]["hardware"] == "b200" and "vllm serve Qwen/Qwen3-8B" in shown_command(page)
    other.close()
    assert page.js_errors == []


def test_a_page_opened_after_the_last_one_closed_reuses_the_interpreter(page: Any) -> None:
    open_builder(page, QWEN)
    later = page.context.new_page()
    page.close()
    open_builder(later, MINIMAX)
    assert (_timings(later)["shared"], _timings(later)["reused"]) == (True, True)
    assert "vllm serve MiniMaxAI/MiniMax-M3" in shown_command(later)
