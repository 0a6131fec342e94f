"""Our code zip (static/resolver.zip?v=<hash>) in the browser: fetched once under its content hash,
and, in a shared worker serving pages of two builds, each page answered by its own build's code."""

from __future__ import annotations

import hashlib
import io
import zipfile
from typing import Any

from builder.site.browser.bundle import WORKER_GLUE
from tests.browser.helpers import click, dedicated_worker, open_builder, view

RECIPE = "/moonshotai/Kimi-K2.5"
# the second build's glue: the same, marking every view it answers
MARKED_VIEW = '''
_unmarked_view = view


def view(hf_id, state, event):
    out = json.loads(_unmarked_view(hf_id, state, event))
    out["_code"] = "two"
    return json.dumps(out)
'''


def test_the_worker_fetches_the_code_once_under_its_hash(cold_page: Any,
                                                         builder_site: dict[str, Any]) -> None:
    dedicated_worker(cold_page)
    urls: list[str] = []
    cold_page.context.on("request",
                    lambda request: urls.append(request.url) if "resolver.zip" in request.url else None)
    open_builder(cold_page, RECIPE)
    click(cold_page, "features", "reasoning")
    code = (builder_site["dir"] / "static" / "resolver.zip").read_bytes()
    assert ([url.split("/static/", 1)[1] for url in urls]
            == [f"resolver.zip?v={hashlib.sha256(code).hexdigest()[:10]}"])
    assert cold_page.js_errors == []


def test_a_shared_worker_answers_each_page_with_its_own_builds_code(cold_page: Any,
                                                                    builder_site: dict[str, Any]) -> None:
    static = builder_site["dir"] / "static"
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO((static / "resolver.zip").read_bytes())) as zin, \
            zipfile.ZipFile(buf, "w") as zout:
        for info in zin.infolist():
            if info.filename != "recipes_worker_glue.pyc":
                zout.writestr(info, zin.read(info))
        zout.writestr("recipes_worker_glue.py", WORKER_GLUE.read_text(encoding="utf-8") + MARKED_VIEW)
    second = static / "second-build-resolver.zip"
    second.write_bytes(buf.getvalue())
    try:
        open_builder(cold_page, RECIPE)
        other = cold_page.context.new_page()

        def second_build(route: Any) -> None:
            html = route.fetch().text()
            route.fulfill(status=200, content_type="text/html",
                          body=html.replace('data-resolver="/static/resolver.zip?v=',
                                            'data-resolver="/static/second-build-resolver.zip?x='))

        other.route(f"**{RECIPE}", second_build)
        open_builder(other, RECIPE)
        assert view(other).get("_code") == "two"
        assert (cold_page.evaluate("window.vllmBuilder.timings.shared"),
                other.evaluate("window.vllmBuilder.timings.reused")) == (True, True)
        # on by default: off; not a stored click, so the worker answers
        click(cold_page, "features", "reasoning")
        click(other, "features", "reasoning")
        assert "_code" not in view(cold_page) and "reasoning" not in view(cold_page)["state"]["features"]
        assert view(other)["_code"] == "two" and "reasoning" not in view(other)["state"]["features"]
        other.close()
    finally:
        second.unlink()
    assert cold_page.js_errors == []
