"""Issue #40 in Chromium: the two fixture results added with ``add-benchmark`` to a copy of recipes/ appear on
Qwen3-8B's Performance chart (filled markers beside the hollow predictions) with their provenance and the
prediction's error in the marker's tooltip, in table rows, and as the "measured" badge: in the page as built
(no JavaScript) and once the builder has redrawn the panel from the worker's data."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builder.cli.main import main
from tests.browser.conftest import serve_dir
from tests.browser.test_performance_builder import open_with_predictions
from tests.cli.test_add_benchmark import ROW, SOURCE, VLLM
from tests.support.paths import RECIPES, need_runtime
from tests.support.sites import build_real

IMAGE = "vllm/vllm-openai:v0.33.0"
TITLES = [
    "Measured at concurrency 8: TTFT 88 ms, TPOT 6.0 ms, 165.3 tok/s per user, 1,298 tok/s per GPU "
    f"(measured); 0.93x the prediction; vllm-bench-serve, {VLLM.name}, {IMAGE}, h200, "
    f"2026-12-05T14:30:12, {SOURCE}",
    "Measured at concurrency 16: TTFT 91 ms, TPOT 7.0 ms, 142.4 tok/s per user, 2,210 tok/s per GPU "
    f"(measured); 0.91x the prediction; inferencex-row, {ROW.name}, {IMAGE}, h200, {SOURCE}",
]
ROWS = [["8 (measured)", "88", "6.0", "165.3", "1,298", "$0.302"],
        ["16 (measured)", "91", "7.0", "142.4", "2,210", "$0.177"]]


@pytest.fixture(scope="module")
def measured_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """recipes/ with both fixtures added by ``add-benchmark``, built and served."""
    need_runtime()
    root = tmp_path_factory.mktemp("measured") / "recipes"
    shutil.copytree(RECIPES, root)
    status = main(["add-benchmark", "Qwen/Qwen3-8B", str(VLLM), str(ROW), "--variant", "default",
                   "--strategy", "single_node_tp", "--source", SOURCE, "--content", str(root)])
    assert status == 0
    out = Path(tmp_path_factory.mktemp("measured-site")) / "site"
    build_real(root, out)
    with serve_dir(out) as url:
        yield url


def shown(page: Any) -> dict[str, Any]:
    """The panel's measured markers (their tooltips), its measured table rows, its badge."""
    return page.evaluate("""() => {
        const box = document.querySelector('#performance');
        return {
          titles: [...box.querySelectorAll('svg g.perf-measured title')].map((t) => t.textContent),
          filled: [...box.querySelectorAll('svg g.perf-measured circle')].length,
          rows: [...box.querySelectorAll('tr.perf-measured-row')]
            .map((r) => [...r.cells].map((c) => c.textContent)),
          badge: box.querySelector('.perf-badge').textContent.trim(),
        };
    }""")


def test_the_built_page_shows_the_results_without_javascript(page_nojs: Any, measured_server: str) -> None:
    page_nojs.goto(f"{measured_server}/Qwen/Qwen3-8B")
    assert shown(page_nojs) == {"titles": TITLES, "filled": 2, "rows": ROWS, "badge": "measured"}


def test_the_builder_redraws_them_from_its_data(page_js: Any, measured_server: str) -> None:
    errors: list[str] = []
    page_js.on("pageerror", lambda e: errors.append(str(e)))
    open_with_predictions(page_js, f"{measured_server}/Qwen/Qwen3-8B")
    assert shown(page_js) == {"titles": TITLES, "filled": 2, "rows": ROWS, "badge": "measured"}
    page_js.goto(f"{measured_server}/Qwen/Qwen3-8B?hardware=h100")  # another command: none measured
    ready = "document.querySelector('#builder')?.dataset.builderReady === '1'"
    page_js.wait_for_function(ready, timeout=90000)
    page_js.wait_for_function("(window.vllmBuilder.view.performance || {status: 'loading'}).status "
                              "!== 'loading'", timeout=60000)
    assert shown(page_js)["badge"] == "not yet benchmarked"
    assert shown(page_js)["titles"] == []
    assert errors == []
