"""Other casings of recipe and provider URLs: the 404 page's case-insensitive lookup redirects them."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.browser.helpers import without_builder


def test_the_404_page_redirects_other_casings(recipes_site: Path, chromium: Any) -> None:
    """ERR-05: the 404 page's case-insensitive lookup replaces the stubs, keeping the query."""
    from builder.cli.static_host import serve_directory

    server, url = serve_directory(recipes_site)
    page = chromium.new_page()
    without_builder(page)  # the redirect is the 404 page's; the builder would tidy the query away
    try:
        page.goto(f"{url}/minimaxai/minimax-m3?x=1")
        page.wait_for_url(re.compile(r"/MiniMaxAI/MiniMax-M3/?\?x=1$"), wait_until="commit")
        page.goto(f"{url}/qwen")
        page.wait_for_url(re.compile(r"/Qwen/?$"), wait_until="commit")
    finally:
        page.close()
        server.shutdown()
