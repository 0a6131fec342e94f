"""A site published under a sub-path (GitHub project pages) works in the browser: the builder, search
and the 404 page's redirect all stay under the path."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import serve_dir

RECIPE = "Qwen/Qwen3-8B"


def test_sub_path_site_works_in_the_browser(sub_path_site: dict[str, Any], chromium: Any) -> None:
    if not (sub_path_site["dir"] / "pyodide").is_dir():
        pytest.skip("node_modules/pyodide is missing: run `npm ci`")
    with serve_dir(sub_path_site["host"]) as url:
        ctx = chromium.new_context(base_url=url)
        try:
            page = ctx.new_page()
            page.set_default_timeout(60000)
            missing: list[str] = []
            errors: list[str] = []
            page.on("response", lambda r: missing.append(r.url) if r.status >= 400 else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"/recipes/{RECIPE}")
            page.wait_for_function("document.querySelector('#builder')?.dataset.builderReady === '1'")
            page.locator('[data-row="hardware"] .cb-pill[data-value="b200"]').click()
            page.wait_for_function("window.vllmBuilder.view.state.hardware === 'b200'")
            assert page.evaluate("location.pathname") == f"/recipes/{RECIPE}"  # served as linked, no redirect
            # search fetches the index under the path and links under it
            page.locator("#search-input").fill("qwen3 8b")
            first = page.locator("#search-results a.sr-opt").first
            first.wait_for()
            assert first.get_attribute("href") == f"/recipes/{RECIPE}"
            # the 404 page under the path redirects another casing of a recipe
            page.goto(f"/recipes/{RECIPE.lower()}")
            page.wait_for_url(re.compile(f"/recipes/{RECIPE}$"))
            assert missing == [f"{url}/recipes/{RECIPE.lower()}"] and errors == []
        finally:
            ctx.close()
