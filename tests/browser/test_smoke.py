"""The builder boots under Pyodide and shows the default command."""

from __future__ import annotations

from typing import Any

from tests.browser.helpers import open_builder, shown_command, view


def test_default_command(page: Any) -> None:
    open_builder(page, "/Qwen/Qwen3-8B")
    assert "vllm serve Qwen/Qwen3-8B" in shown_command(page)
    assert view(page)["query"] == ""
    assert not page.js_errors
