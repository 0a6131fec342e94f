"""Pages with JavaScript disabled: commands, matrix, presets, guide, degraded search/browse."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.support.sites import text_on_screen

MINIMAX = "MiniMaxAI/MiniMax-M3"


@pytest.fixture(scope="module")
def minimax_page(nojs_context: Any, server: str) -> Iterator[Any]:
    """MiniMax-M3's page without JavaScript, loaded once for the tests that only read it."""
    page = nojs_context.new_page()
    page.goto(f"{server}/{MINIMAX}")
    yield page
    page.close()


def _doc(built_site: dict[str, Any], hf_id: str) -> dict[str, Any]:
    return built_site["output"].documents[hf_id]


def _single_and_multi(built_site: dict[str, Any]) -> list[str]:
    """One single-node and one multi-node default recipe besides MiniMax-M3."""
    picks: dict[str, str] = {}
    for r in built_site["content"].recipes:
        rc = built_site["output"].documents.get(r.hf_id, {}).get("recommended_command")
        if rc and rc["deploy_type"] not in picks and r.hf_id != MINIMAX:
            picks[rc["deploy_type"]] = r.hf_id
    return [picks["single_node"], picks["multi_node"]]


def test_recipe_page_shows_exact_default_command(built_site: dict[str, Any], minimax_page: Any) -> None:
    page = minimax_page
    rc = _doc(built_site, MINIMAX)["recommended_command"]
    assert page.locator("#cmd-serve").inner_text() == rc["command"]
    assert page.locator("#cmd-docker-serve").inner_text() == rc["docker_command"]
    builder = page.locator("#builder")
    assert builder.get_attribute("data-hf-id") == MINIMAX
    assert builder.get_attribute("data-hardware") == rc["hardware"]
    assert page.locator("h1").count() == 1
    assert page.title() == f"{MINIMAX} | vLLM Recipes"


def test_other_recipes_show_their_commands(built_site: dict[str, Any], server: str, page_nojs: Any) -> None:
    single, multi = _single_and_multi(built_site)
    page_nojs.goto(f"{server}/{single}")
    rc = _doc(built_site, single)["recommended_command"]
    assert page_nojs.locator("#cmd-serve").inner_text() == rc["command"]
    if rc["env"]:
        text = page_nojs.locator("#cmd-env").inner_text()
        assert all(f"export {k}=" in text for k in rc["env"])
    page_nojs.goto(f"{server}/{multi}")
    rc = _doc(built_site, multi)["recommended_command"]
    assert page_nojs.locator("#cmd-head").inner_text() == rc["head_command"]
    assert page_nojs.locator("#cmd-worker-1").inner_text() == rc["worker_commands"][0]


def test_install_block_and_required_extras(built_site: dict[str, Any], server: str, page_nojs: Any) -> None:
    docs = built_site["output"].documents
    hf_id = next(
        r.hf_id
        for r in built_site["content"].recipes
        if any(not e.get("optional")
               for e in docs.get(r.hf_id, {}).get("model", {}).get("install", {}).get("extras", []))
    )
    install = docs[hf_id]["model"]["install"]
    page_nojs.goto(f"{server}/{hf_id}")
    assert page_nojs.locator("#cmd-install-pip").inner_text() == install["pip"]["command"]
    required = [e for e in install["extras"] if not e.get("optional")]
    assert page_nojs.locator("#cmd-extra-1").inner_text() == required[0]["command"]
    assert page_nojs.locator(".extra[data-required=true]").count() == len(required)


def test_matrix_and_guide(minimax_page: Any) -> None:
    page = minimax_page
    _check_matrix_and_guide(page)
    # ../shared/upstream's MiniMax-M3 has no architecture facts: the cell says how many nodes
    assert page.locator("table.matrix tr[data-hardware=h100] td").first.inner_text() == "2 nodes"


def _check_matrix_and_guide(page: Any) -> None:
    matrix = page.locator("table.matrix")
    assert matrix.count() == 1
    h200 = page.locator("table.matrix tr[data-hardware=h200]")
    assert "verified" in text_on_screen(h200)
    assert "1 node" in h200.locator("td").first.inner_text()
    guide = page.locator("details#guide")
    assert guide.get_attribute("open") is not None
    assert guide.locator("[id=overview]").count() == 1
    assert page.locator("details#guide pre").count() > 3


def test_presets_notes_source(presets_site: dict[str, Any], presets_server: str, page_nojs: Any) -> None:
    doc = presets_site["output"].documents[MINIMAX]
    assert list(doc["presets"]) == ["h200_agentx", "b200_agentx", "b200_agentx_c10", "b300_agentx",
                                    "gb200_agentx", "gb200_agentx_tp8", "mi355x_agentx"]
    page = page_nojs
    page.goto(f"{presets_server}/{MINIMAX}")
    assert page.locator("#cmd-serve").inner_text() == doc["recommended_command"]["command"]
    _check_matrix_and_guide(page)
    # ours has facts: BF16 on two H100 nodes at the model's 1M-token context, one request's KV cache
    # does not fit
    h100 = page.locator("table.matrix tr[data-hardware=h100] td").first
    assert h100.inner_text() == "Won't start"
    assert "the estimated maximum model length is" in (h100.get_attribute("title") or "")
    for key, preset in doc.get("presets", {}).items():
        block = page.locator(f"#preset-{key}")
        assert block.count() == 1, key
        assert preset["label"] in text_on_screen(block)
        assert block.locator("table.points tbody tr").count() == len(preset["points"])
        assert block.locator(".runbook").count() == 1
    first_link = page.locator("#preset-h200_agentx .runbook a").first
    assert first_link.get_attribute("href", timeout=2000).startswith("https://")
    for note in doc.get("notes", []):
        aside = page.locator("#notes .note", has_text=note["title"])
        assert aside.count() == 1
        assert aside.get_attribute("data-hardware") == " ".join(note["when"]["hardware"])
    edit_url = f"https://github.com/vllm-project/recipes/edit/main/recipes/models/{MINIMAX}.yaml"
    assert doc["source"]["edit_url"] == edit_url
    assert page.locator("a", has_text="Edit recipe").get_attribute("href") == edit_url


def test_guide_shows_angle_brackets_literally(built_site: dict[str, Any], server: str,
                                              page_nojs: Any) -> None:
    for r in built_site["content"].recipes:
        guide = built_site["output"].documents.get(r.hf_id, {}).get("guide") or ""
        if "<think>" in guide:
            break
    else:
        pytest.skip("no guide mentions <think>")
    page_nojs.goto(f"{server}/{r.hf_id}")
    assert "<think>" in text_on_screen(page_nojs.locator("details#guide"))
    assert page_nojs.locator("details#guide think").count() == 0


def test_search_degrades_to_browse_links(built_site: dict[str, Any], server: str, page_nojs: Any) -> None:
    page = page_nojs
    page.goto(f"{server}/")
    form = page.locator("form[role=search]")
    assert form.get_attribute("action") == "/browse"
    page.fill("#search-input", "minimax")
    page.press("#search-input", "Enter")
    page.wait_for_url(re.compile(r".*/browse/?\?q=minimax$"))
    n = len(built_site["content"].recipes)
    assert page.locator("[data-result-list] > li:visible").count() == n
    assert page.locator("#filter-panel").is_hidden()
    crawl = page.locator("nav[aria-label='All recipes'] a")
    assert crawl.count() == n
    assert crawl.first.get_attribute("href").startswith("/")


def test_home_org_and_404_without_js(built_site: dict[str, Any], server: str, page_nojs: Any) -> None:
    page = page_nojs
    page.goto(f"{server}/")
    assert page.title() == "vLLM Recipes — Deploy any model on any hardware with vLLM"
    cards = page.locator(".grid-cards .card")
    assert 1 <= cards.count() <= 8
    orgs = [c.get_attribute("href").split("/")[1] for c in cards.all()]
    assert len(orgs) == len(set(orgs))
    page.goto(f"{server}/MiniMaxAI")
    assert page.locator("h1").inner_text() == "MiniMax"
    assert page.locator(f".model-rows a[href='/{MINIMAX}']").count() == 1
    resp = page.goto(f"{server}/NoSuchOrg/no-such-model")
    assert resp is not None and resp.status == 404
    assert page.locator("h1").inner_text() == "Page not found"
    assert page.locator(".nf-latest a").count() > 0
    assert page.locator("a[href='/browse']", has_text="Browse all recipes").count() == 1


def test_recipe_page_shows_the_default_deployment_files(built_site: dict[str, Any],
                                                        minimax_page: Any) -> None:
    """Without JavaScript the page holds the default configuration's files of every deployment form, as the
    CLI prints them."""
    from builder.cli.resolve import Choice, resolve_command

    page = minimax_page
    k8s = resolve_command(built_site["content"], Choice(MINIMAX, output="k8s"))
    compose = resolve_command(built_site["content"], Choice(MINIMAX, output="compose"))
    config = resolve_command(built_site["content"], Choice(MINIMAX, output="vllm-config"))
    assert page.locator("#deploy-k8s-1").text_content().rstrip("\n") == k8s
    assert page.locator("#deploy-compose-1").text_content().rstrip("\n") == compose
    labels = page.locator("#deploy .codeblock-label").all_inner_texts()
    assert page.locator("#deploy-vllm-config-1").text_content().rstrip("\n") == config
    assert labels == ["minimax-m3-h200.yaml", "compose.yaml", "minimax-m3.yaml"]
    assert (page.locator("#deploy [data-format=k8s] .block-caption code").inner_text()
            == "kubectl apply -f minimax-m3-h200.yaml")
