"""The self-host dialog's markup is in the static page: a real ``<dialog>`` with one tab per platform."""

from __future__ import annotations

import re
from typing import Any

GEMMA = "/Google/gemma-4-26B-A4B-it"  # lists a self-host platform (Modal)


def test_static_page_has_dialog_markup_without_javascript(builder_site: dict[str, Any]) -> None:
    html = builder_site["files"][f"{GEMMA[1:]}/index.html"].decode()
    assert re.search(r'<dialog id="self-host" class="dd" aria-labelledby="dd-title dd-recipe">', html)
    assert html.count('role="tab"') == 1 and html.count('role="tabpanel"') == 1
    assert '<details id="self-host"' not in html
