"""Small page helpers shared by the builder UI tests."""

from __future__ import annotations

from typing import Any


def dedicated_worker(target: Any) -> None:
    """Make a page (or every page of a context) run its builder in a dedicated worker, as in a
    browser without SharedWorker.

    For tests that route or watch the runtime's requests: Playwright neither routes nor reports the
    requests of a shared worker."""
    target.add_init_script("delete window.SharedWorker;")


BUILDER_SCRIPT = "**/static/builder.js?*"


def without_builder(target: Any) -> None:
    """Keep a page's (or every page of a context's) command builder from starting: its script is not
    served (until ``target.unroute(BUILDER_SCRIPT)``), so no worker boots Pyodide. For tests of what
    recipe pages do besides the builder, or before it runs."""
    target.route(BUILDER_SCRIPT, lambda route: route.abort())


def open_builder(page: Any, path: str) -> None:
    """Open a recipe page and wait until the Pyodide-backed builder has applied the URL."""
    page.goto(path)
    wait_ready(page)


def wait_ready(page: Any) -> None:
    """Wait until the builder has its worker's first view and no click is queued."""
    page.wait_for_function("document.querySelector('#builder')?.dataset.builderReady === '1'", timeout=60000)
    settle(page)


def settle(page: Any) -> None:
    """Wait until no click is queued or being resolved."""
    page.wait_for_function("window.vllmBuilder && window.vllmBuilder.queued === 0")


def view(page: Any) -> dict:
    return page.evaluate("window.vllmBuilder.view")


def shown_command(page: Any) -> str:
    """The displayed text of the active command tab (prelude + command)."""
    return page.locator(".cb-cmd-code").inner_text()


def pill(page: Any, row: str, value: str) -> Any:
    return page.locator(f'[data-row="{row}"] .cb-pill[data-value="{value}"]')


def click(page: Any, row: str, value: str) -> None:
    pill(page, row, value).click()
    settle(page)


# Page-side code to paste into an evaluated function's body: ``bootPyodide(runtime, code)`` starts Pyodide
# from the site's runtime folder with the page's code zip on ``sys.path``, as the worker imports it.
BOOT_PYODIDE = """
const bootPyodide = async (runtime, code) => {
  const { loadPyodide } = await import(runtime + "pyodide.mjs");
  const py = await loadPyodide({ indexURL: runtime, lockFileURL: runtime + "pyodide-lock.json",
                                 packages: [] });
  py.FS.writeFile("/home/pyodide/code.zip", new Uint8Array(await (await fetch(code)).arrayBuffer()));
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/code.zip')");
  return py;
};
"""
