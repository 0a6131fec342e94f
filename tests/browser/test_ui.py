"""Browser acceptance tests of the command builder (site-features §6-§7), Pyodide in Chromium."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

from tests.browser.helpers import click, open_builder, pill, settle, shown_command, view, wait_ready

QWEN = "/Qwen/Qwen3-8B"
DEEPSEEK = "/deepseek-ai/DeepSeek-V3.2"
MINIMAX = "/MiniMaxAI/MiniMax-M3"


def query(page: Any) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def test_static_command_first_then_queued_click_is_applied(cold_page: Any) -> None:
    cold_page.goto(QWEN)
    assert "vllm serve Qwen/Qwen3-8B" in cold_page.locator("#builder").inner_text()
    target = pill(cold_page, "hardware", "b200")
    target.wait_for()
    early = cold_page.evaluate("document.querySelector('#builder').dataset.builderReady !== '1'")
    target.click()
    wait_ready(cold_page)
    assert query(cold_page)["hardware"] == "b200"
    assert pill(cold_page, "hardware", "b200").get_attribute("aria-checked") == "true"
    assert early, "the click should have happened before Pyodide was ready"
    assert not cold_page.js_errors


def test_hardware_row_radio_group_keyboard_and_storage(page: Any) -> None:
    open_builder(page, QWEN)
    group = page.locator('[data-row="hardware"] [role=radiogroup]')
    assert group.get_attribute("aria-labelledby")
    label_id = group.get_attribute("aria-labelledby")
    assert page.locator(f"#{label_id}").text_content() == "Hardware"
    h200 = pill(page, "hardware", "h200")
    assert h200.get_attribute("tabindex") == "0" and "141G/GPU" in h200.inner_text()
    h200.focus()
    page.keyboard.press("ArrowRight")
    settle(page)
    assert query(page)["hardware"] == "b200"
    assert page.evaluate("document.activeElement.dataset.value") == "b200"
    prefs = page.evaluate("JSON.parse(localStorage.getItem('vllm-recipes-prefs'))")
    assert prefs == {"hardware": "b200"}
    page.goto(DEEPSEEK)  # the NVIDIA preference carries to other recipes
    wait_ready(page)
    assert view(page)["state"]["hardware"] == "b200"


def test_disabled_pill_is_focusable_and_inert(page: Any) -> None:
    open_builder(page, "/dots-studio/dots3-note-prev")
    bad = page.locator('[data-row="hardware"] .cb-pill[aria-disabled="true"]').first
    before = page.url
    # the reason is the pill's description (a tooltip element, no title attribute: GAP-05, A11Y-03)
    assert bad.get_attribute("title") is None
    reason = next(p["reason"] for r in view(page)["rows"] if r["id"] == "hardware" for p in r["pills"]
                  if p["value"] == bad.get_attribute("data-value"))
    tip_id = bad.get_attribute("aria-describedby").split()[-1]
    assert page.locator(f"#{tip_id}").text_content() == reason
    bad.click(force=True)
    settle(page)
    assert page.url == before


def test_variant_strategy_features_and_advanced_rows(page: Any) -> None:
    open_builder(page, "/moonshotai/Kimi-K2.5")
    feats = page.locator('[data-row="features"] [role=group]')
    assert feats.count() == 1
    reasoning = pill(page, "features", "reasoning")
    assert reasoning.get_attribute("aria-pressed") == "true"
    click(page, "features", "reasoning")
    assert pill(page, "features", "reasoning").get_attribute("aria-pressed") == "false"
    assert "--reasoning-parser" not in shown_command(page)
    assert "features" in query(page)
    page.locator(".cb-advanced summary").click()
    page.locator('.cb-advanced input[data-value="gpu_mem_095"]').check()
    settle(page)
    assert "--gpu-memory-utilization 0.95" in shown_command(page)
    assert query(page)["advanced"] == "gpu_mem_095"
    strategies = page.locator('[data-row="strategy"] .cb-pill')
    assert strategies.count() >= 1
    variants = [p["value"] for p in view(page)["rows"][1]["pills"] if not p["disabled"]]
    if len(variants) > 1:
        click(page, "variant", variants[1])
        assert query(page).get("variant") == variants[1]


def test_multi_node_tabs_are_a_tablist_with_arrow_keys(page: Any) -> None:
    open_builder(page, DEEPSEEK)
    click(page, "nodes", "2")
    tablist = page.locator('.cb-command [role=tablist][aria-label="Launch steps"]')
    tabs = tablist.locator("[role=tab]")
    assert tabs.all_inner_texts() == ["Head", "Node 1"]
    assert (tabs.nth(0).get_attribute("aria-selected") == "true"
            and tabs.nth(1).get_attribute("tabindex") == "-1")
    tabs.nth(0).focus()
    page.keyboard.press("ArrowRight")
    assert page.locator(".cb-command [role=tab][aria-selected=true]").inner_text() == "Node 1"
    assert "--headless" in shown_command(page) or "--data-parallel-start-rank" in shown_command(page)
    assert page.locator('[data-pop="cURL"]').get_attribute("aria-disabled") == "true"
    page.keyboard.press("ArrowRight")  # wraps
    assert page.locator(".cb-command [role=tab][aria-selected=true]").inner_text() == "Head"
    assert query(page)["nodes"] == "2"


def test_pd_pools_tabs_and_router(page: Any) -> None:
    open_builder(page, f"{DEEPSEEK}?strategy=pd_cluster")
    names = page.locator(".cb-command [role=tab]").all_inner_texts()
    assert names == ["Prefill", "Decode", "Router"]
    assert "# 1 node × 8 GPU" in shown_command(page)
    page.get_by_label("Prefill node count").fill("2")
    page.get_by_label("Prefill node count").dispatch_event("change")
    settle(page)
    assert query(page)["prefill_nodes"] == "2"
    node = page.get_by_label("Which prefill node is shown")
    node.fill("2")
    node.dispatch_event("change")
    settle(page)
    assert query(page)["prefill_rank"] == "1" and "--headless" in shown_command(page)
    page.locator(".cb-command [role=tab]", has_text="Router").click()
    assert shown_command(page).startswith("# Install:")


def test_mooncake_tabs_and_instances(page: Any) -> None:
    open_builder(page, DEEPSEEK)
    click(page, "kv_offload", "mooncake")
    names = page.locator(".cb-command [role=tab]").all_inner_texts()
    assert names == ["1· Mooncake Config", "2· Mooncake Master", "3· vLLM Serve"]
    assert page.locator('[data-row="topology"] [aria-checked=true]').get_attribute("data-value") == \
        "kv_store_distributed_mooncake"
    box = page.get_by_label("Number of vLLM instances")
    box.fill("3")
    box.dispatch_event("change")
    settle(page)
    assert page.locator(".cb-command [role=tab]").last.inner_text().endswith("Router")
    assert query(page)["kv_instances"] == "3"


def test_copy_buttons_copy_exactly_what_is_shown(page: Any) -> None:
    open_builder(page, f"{DEEPSEEK}?strategy=pd_cluster")
    page.locator('.cb-command button[aria-label="Copy command"]').click()
    clip = page.evaluate("navigator.clipboard.readText()")
    assert clip == shown_command(page)
    assert clip.startswith("# 1 node × 8 GPU = 8 GPU · TP\nexport ")  # the pool's comment, then its exports
    page.locator('[data-pop="cURL"]').click(force=True)  # disabled on a pool tab: nothing opens
    page.locator(".cb-command [role=tab]", has_text="Router").click()
    page.locator('[data-pop="cURL"]').click()
    pop = page.locator('.cb-popover[aria-label="cURL"]')
    assert pop.is_visible()
    pop.locator("button").click()
    assert page.evaluate("navigator.clipboard.readText()") == pop.locator("pre").inner_text()
    assert "http://localhost:30000/v1/chat/completions" in pop.inner_text()
    page.keyboard.press("Escape")
    assert not pop.is_visible()


def test_install_tabs_docker_and_cuda_in_url(page: Any) -> None:
    open_builder(page, QWEN)
    page.locator(".cb-install-head").click()
    page.locator('.cb-install [role=tab]', has_text="Docker").click()
    settle(page)
    assert query(page)["install"] == "docker" and shown_command(page).startswith("docker run")
    page.locator('.cb-cuda [data-value="cu129"]').click()
    settle(page)
    assert query(page)["cuda"] == "cu129"
    assert "cu129" in page.locator(".cb-install [role=tabpanel]").inner_text()
    url = page.url
    cmd = shown_command(page)
    open_builder(page, url)
    assert shown_command(page) == cmd


def test_url_round_trip_and_invalid_parameters(page: Any) -> None:
    open_builder(page, f"{DEEPSEEK}?hardware=b200&nodes=2&advanced=gpu_mem_095&kv_offload=simple")
    cmd, url = shown_command(page), page.url
    open_builder(page, url)
    assert shown_command(page) == cmd and page.url == url
    open_builder(page, f"{QWEN}?hardware=nope&variant=zzz&nodes=7&kv_offload=bad")
    assert query(page) == {"hardware": "h200"}


def test_omni_task_row_and_axes(page: Any) -> None:
    open_builder(page, "/Wan-AI/Wan2.2-T2V-A14B-Diffusers")
    row = page.locator('[data-row="task"]')
    assert row.locator("[role=radiogroup]").count() == 1
    assert not page.locator('[data-row="strategy"]').count()
    value = view(page)["rows"][1]["pills"][1]["value"]
    click(page, "task", value)
    assert query(page)["task"] == value
    page.locator('[data-pop="cURL"]').click()
    assert "/v1/videos/sync" in page.locator('.cb-popover[aria-label="cURL"]').inner_text()
    open_builder(page, "/Lightricks/LTX-2.5-Diffusers")
    click(page, "axis_x2v", "i2v")
    assert query(page)["task"] == "full_one_stage_i2v"


def test_presets_picker_and_notes(page: Any) -> None:
    open_builder(page, MINIMAX)
    click(page, "preset", "b200_agentx")
    q = query(page)
    assert q["preset"] == "b200_agentx"
    data = json.loads(
        page.evaluate("fetch('/MiniMaxAI/MiniMax-M3/presets/b200_agentx.json').then(r => r.text())"))
    point = q["point"]
    assert shown_command(page).endswith(data["points"][point]["command"])
    assert pill(page, "hardware", "b200").get_attribute("aria-checked") == "true"
    click(page, "point", "c30")
    assert shown_command(page).endswith(data["points"]["c30"]["command"])
    click(page, "hardware", "gb200")
    assert "preset" not in query(page)
    notes = page.locator(".cb-notes .cb-note")
    assert notes.count() == 1 and "GB200" in notes.inner_text()
    assert re.search(r"preset-gb200_agentx", page.locator(".cb-notes").inner_html())


def test_copy_link_and_reset(page: Any) -> None:
    open_builder(page, QWEN)
    default = shown_command(page)
    click(page, "hardware", "b200")
    click(page, "features", "reasoning")
    assert query(page)["hardware"] == "b200" and "--reasoning-parser" not in shown_command(page)
    page.locator('button[aria-label="Copy link to this configuration"]').click()
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    page.locator('button[aria-label="Reset to the recipe\'s defaults"]').click()
    settle(page)
    assert shown_command(page) == default
    assert query(page) == {}
