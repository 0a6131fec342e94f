"""The memory line under the command: painted from the view, and the same numbers under Pyodide."""

from __future__ import annotations

import json
import random
from typing import Any

from builder import resolver
from tests.browser.helpers import open_builder, view
from tests.checks.test_memory_records import QWEN3_14B

PAGE = "/MiniMaxAI/MiniMax-M3"  # facts from its NVFP4 checkpoint's config (its document stays the seed's)


def test_the_line_is_under_the_command(builder_site: dict[str, Any], page: Any) -> None:
    open_builder(page, PAGE)
    memory = view(page)["memory"]
    assert memory["verdict"] == "fits"
    assert memory["summary"].startswith("Per GPU (139.59 GiB): weights 100.04 GiB, KV cache ")
    line = page.locator('[data-block="memory"]')
    assert line.inner_text() == memory["summary"]
    assert line.get_attribute("class") == "cb-memory"
    assert (page.evaluate("document.querySelector('[data-block=command]').nextElementSibling.dataset.block")
            == "memory")
    html = builder_site["files"]["MiniMaxAI/MiniMax-M3/index.html"].decode()
    assert f'<p class="cb-memory">{memory["summary"]}</p>' in html.replace("&#39;", "'")


def test_pyodide_computes_the_memory_cpython_computes(builder_site: dict[str, Any], page: Any) -> None:
    files = builder_site["files"]
    vocab = json.loads(files["builder-data/vocab.json"])
    recipe = json.loads(files["builder-data/Qwen/Qwen3-14B.json"])["recipe"]
    recipe["model"] = {**recipe["model"], "architecture_config": QWEN3_14B}
    rng = random.Random(1300)
    hardware = resolver.offered_hardware(recipe, vocab["taxonomy"], "default")
    features = list(recipe.get("features") or {})
    queries = []
    for _ in range(100):
        query = {"hardware": rng.choice(hardware)}
        if rng.random() < 0.6:
            query["variant"] = rng.choice(list(recipe["variants"]))
        if rng.random() < 0.5:
            query["features"] = ",".join(rng.sample(features, rng.randint(0, len(features)))) or "none"
        if rng.random() < 0.3:
            query["advanced"] = rng.choice(["gpu_mem_095", "max_batched_8k"])
        queries.append(query)
    open_builder(page, PAGE)
    got = page.evaluate(
        """async ({queries, recipe}) => {
            const out = [];
            for (const [i, state] of queries.entries()) {
              const msg = {hfId: "memory:Qwen/Qwen3-14B", state, event: null};
              if (i === 0) msg.recipe = recipe;
              out.push(JSON.parse((await window.vllmBuilder.request(msg)).view).memory);
            }
            return out;
        }""",
        {"queries": queries, "recipe": json.dumps(recipe)},
    )
    want = [json.loads(json.dumps(resolver.builder_state(recipe, vocab, q)["memory"])) for q in queries]
    assert len(got) == 100 and got == want
    assert {m["verdict"] for m in want} == {"fits", "wont_start"}
