"""User-provided text is rendered as text: no markup injection, no script runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from builder.api.output import BuildOutput
from builder.content.model import Content, RecipeFile
from builder.site.pages import site_pages
from tests.browser.conftest import serve_dir
from tests.support import sites
from tests.support.paths import UPSTREAM

P = '<img src=x onerror="window.__xss=1;alert(1)">'
S = "<script>window.__xss=1;alert(1)</script>"
END = "</script><script>window.__xss=1</script>"
HF_ID = "Evil/xss-model"


def _evil_recipe() -> tuple[dict[str, Any], dict[str, Any]]:
    meta = {
        "title": f"Evil {P}",
        "slug": "evil",
        "provider": f"Evil Corp {END}",
        "description": f"desc {S} {P}",
        "performance_headline": f"fast {P}",
        "date_added": "2030-01-01",
        "date_updated": "2030-01-02",
        "tasks": ["text", f"task{P}"],
        "related_recipes": [P],
        "hardware": {"h200": "verified", P: "verified"},
    }
    model = {
        "model_id": HF_ID,
        "min_vllm_version": f"0.1{P}",
        "architecture": f"moe{P}",
        "parameter_count": f"7B{P}",
        "active_parameters": "1B",
        "context_length": 4096,
        "install": {
            "pip": {"command": f"pip install vllm {S}", "note": f"note {P}"},
            "docker": {"command": f"docker pull x {P}"},
            "extras": [{"note": f"extra {P}", "command": f"pip install {S}"}],
        },
    }
    command = f"vllm serve {HF_ID} \\\n  --chat-template '{S}' \\\n  --x '{{\"a\": \"{P}\"}}'"
    rc = {
        "hardware": "h200", "strategy": "single_node_tp", "variant": "default", "node_count": 1,
        "deploy_type": "single_node", "env": {"EVIL": P, "ALSO": S}, "docker_image": f"img{P}",
        "command": command, "argv": [], "docker_command": f"docker run {P}", "docker_argv": [],
        "alternatives": {"x": f"/{P}.json"}, "by_hardware": {"h200": f"/{HF_ID}/hw/h200.json"},
    }
    doc = {
        "hf_id": HF_ID,
        "meta": meta,
        "recommended_command": rc,
        "model": model,
        "variants": {
            "default": {"precision": f"bf16{P}", "vram_minimum_gb": 16, "description": f"v {P}"},
            "evil": {"precision": "fp8", "label": P, "vram_minimum_gb": 8, "model_id": f"Evil/{P}"},
        },
        "presets": {
            "p1": {
                "label": f"Preset {P}", "hardware": "h200", "strategy": "single_node_tp",
                "variants": ["default"], "workload": P, "description": f"d {S}", "image": P,
                "source": {"label": P, "href": "javascript:window.__xss=1"},
                "points": {"c1": {"label": P, "concurrency": 1, "args": [S]}},
                "runbook": f"Runbook {S} [x](javascript:window.__xss=1) [y](data:text/html,{S}) <b "
                           "onmouseover=alert(1)>b</b>",
            }
        },
        "notes": [{"title": f"Note {P}", "when": {"hardware": ["h200", P]}, "body": f"body {S} {P}"}],
        "guide": f"# Guide {S}\n\n{P}\n\n[click](javascript:window.__xss=1)\n\n```bash\necho "
                 f"{S}\n```\n\n<think> and <64K\n",
        "source": {"edit_url": "javascript:window.__xss=1"},
    }
    raw = {k: v for k, v in doc.items() if k not in ("recommended_command", "hf_id", "source")}
    return raw, doc


@pytest.fixture(scope="module")
def xss_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not UPSTREAM.is_dir():
        pytest.skip(f"shared upstream content not found at {UPSTREAM}")
    raw, doc = _evil_recipe()
    content = Content("evil", sites.load_vocab(), [RecipeFile(HF_ID, "models/Evil/xss-model.yaml", raw)])
    output = BuildOutput(files={f"{HF_ID}.json": json.dumps(doc).encode()}, objects={f"{HF_ID}.json": doc},
                         documents={HF_ID: doc})
    out = tmp_path_factory.mktemp("xss")
    for rel, data in {**output.files, **site_pages(content, output)}.items():
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_bytes(data)
    return out


def test_payloads_render_as_text(chromium: Any, xss_site: Path) -> None:
    with serve_dir(xss_site) as base:
        ctx = chromium.new_context()
        ctx.set_default_timeout(10_000)
        page = ctx.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        try:
            for path in ["/", f"/{HF_ID}", "/Evil", "/browse", "/llms.txt"]:
                page.goto(base + path)
                page.wait_for_load_state("load")
                page.wait_for_timeout(100)
                assert page.evaluate("window.__xss") is None, path
            page.goto(f"{base}/{HF_ID}")
            assert (page.locator("#cmd-serve").inner_text()
                    == _evil_recipe()[1]["recommended_command"]["command"])
            assert P in page.locator("#cmd-env").inner_text()
            guide = sites.text_on_screen(page.locator("details#guide"))
            assert S in guide
            assert "<think> and <64K" in guide
            assert page.locator("img[src=x]").count() == 0
            # in the page's body only the builder's embedded view (data, never run) and builder.js itself
            scripts = page.evaluate("[...document.querySelectorAll('main script')].map((s) => "
                                    "[s.type, s.getAttribute('src'), s.textContent])")
            assert [(kind, (src or "").split("?")[0]) for kind, src, _ in scripts] == [
                ("application/json", ""), ("", "/static/builder.js")]
            assert json.loads(scripts[0][2])["state"]["hardware"]
            assert page.locator("a[href^='javascript:'], a[href^='data:']").count() == 0
            assert P in page.locator("#notes").inner_text()
            assert P in page.locator("#preset-p1").inner_text()
            lds = page.locator("script[type='application/ld+json']").all_inner_texts()
            assert all(json.loads(t) for t in lds)
        finally:
            ctx.close()
    assert not dialogs
