"""The text outputs (llms-full.txt, sitemap, robots, search index) and the CLI verdict on recipe pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MINIMAX = "MiniMaxAI/MiniMax-M3"


def test_text_outputs(built_site: dict[str, Any]) -> None:
    pages = built_site["pages"]
    full = pages["llms-full.txt"].decode()
    docs = built_site["output"].documents
    rc = docs[MINIMAX]["recommended_command"]
    assert rc["command"] in full
    for v in docs[MINIMAX]["variants"].values():
        if v.get("json"):
            vid = v["json"].lstrip("/").removesuffix(".json")
            vrc = docs[vid]["recommended_command"]
            assert vrc.get("command", vrc.get("head_command")) in full
    assert "--speculative-config '{\"method\"" in full  # JSON values stay quoted for the shell
    sitemap = pages["sitemap.xml"].decode()
    assert "/browse</loc>" in sitemap and f"/{MINIMAX}</loc>" in sitemap
    robots = pages["robots.txt"].decode()
    assert "Sitemap: " in robots and "Disallow: /api/" in robots
    index = json.loads(pages["search-index.json"])
    assert len(index["recipes"]) == len(built_site["content"].recipes)


def test_recipe_pages_say_whether_vllm_accepts_the_command(upstream_site: Path) -> None:
    ok = (upstream_site / "MiniMaxAI" / "MiniMax-M3" / "index.html").read_text()
    assert "Checked against the <code>vllm serve</code> CLI of vLLM 0.33.0" in ok
    assert "would reject this command" not in ok
    bad = (upstream_site / "deepseek-ai" / "DeepSeek-V4-Flash" / "index.html").read_text()
    assert "<strong>vLLM 0.33.0 would reject this command:</strong>" in bad
    assert "--attention_config.use_fp4_indexer_cache: unknown key &#39;use_fp4_indexer_cache&#39;" in bad
