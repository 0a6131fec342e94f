"""Browser tests of issue #16's builder behaviour: panels that stay open, the Env panel, a runtime
that cannot start, hardware-note links, unique labels, persistence (GAP-08, CB-INIT-07), Reset."""

from __future__ import annotations

import json
from typing import Any

from tests.browser.helpers import (
    click,
    dedicated_worker,
    open_builder,
    pill,
    settle,
    shown_command,
    view,
    wait_ready,
)

QWEN = "/Qwen/Qwen3-8B"
DEEPSEEK = "/deepseek-ai/DeepSeek-V3.2"
PREFS = "vllm-recipes-prefs"
RECIPE_STATE = "vllm-recipes-recipe-state"


def features_on(page: Any) -> list[str]:
    return page.eval_on_selector_all('[data-row="features"] .cb-pill[aria-pressed="true"]',
                                     "els => els.map(e => e.dataset.value)")


def set_storage(page: Any, key: str, value: Any) -> None:
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, json.dumps(value)])


def storage(page: Any, key: str) -> Any:
    return page.evaluate("k => JSON.parse(localStorage.getItem(k))", key)


def test_advanced_stays_open_while_ticking(page: Any) -> None:
    open_builder(page, QWEN)
    page.locator(".cb-advanced summary").click()
    boxes = page.locator(".cb-advanced input[type=checkbox]")
    boxes.nth(0).check()
    settle(page)
    assert page.locator(".cb-advanced").get_attribute("open") is not None
    boxes.nth(1).check()
    settle(page)
    assert page.locator(".cb-advanced").get_attribute("open") is not None
    assert boxes.nth(0).is_checked() and boxes.nth(1).is_checked()
    assert "(2 enabled)" in page.locator(".cb-advanced summary").inner_text()
    assert not page.js_errors


def test_env_panel_stays_open_while_typing_and_has_target_fields_and_tips(page: Any) -> None:
    open_builder(page, DEEPSEEK + "?nodes=2")
    page.locator('[data-pop="Env"]').click()
    panel = page.locator(".cb-env")
    assert panel.is_visible()
    text = panel.inner_text()
    assert "Curl / bench target" in text and "Placeholders in current commands" in text
    assert "IFACE_NAME is the NIC" in text and "HEAD_IP is the head node's address" in text
    head = panel.locator('input[data-name="HEAD_IP"]')
    assert head.get_attribute("placeholder") == "10.0.0.1"
    head.fill("10.0.0.7")
    head.press("Tab")  # commits the field: the builder re-renders with the value
    settle(page)
    assert panel.is_visible() and page.locator('[data-pop="Env"]').get_attribute("aria-expanded") == "true"
    port = panel.locator('input[data-name="VLLM_PORT"]')
    assert port.evaluate("e => e === document.activeElement")  # focus stays in the field Tab moved to
    panel.locator('input[data-name="IFACE_NAME"]').click()
    page.keyboard.type("bond0")
    page.keyboard.press("Enter")
    settle(page)
    assert panel.is_visible() and panel.locator('input[data-name="HEAD_IP"]').input_value() == "10.0.0.7"
    assert page.locator('[data-pop="Env"]').inner_text() == "Env (2)"
    texts = "\n".join(t["copy"] for t in view(page)["tabs"])
    assert "10.0.0.7" in texts and "bond0" in texts and "$IFACE_NAME" not in texts
    assert "# Set $HEAD_IP to the rank-0 node's IP" in texts  # the prose keeps the name
    assert not page.js_errors


def test_blocked_runtime_says_so_with_try_again_and_inert_pills(page: Any) -> None:
    dedicated_worker(page)  # so that the page's route sees the worker's requests
    page.route("**/pyodide/**", lambda route: route.abort())
    page.goto(QWEN)
    retry = page.locator("[data-retry]")
    retry.wait_for(timeout=60000)
    status = page.locator(".cb-status")
    assert status.get_attribute("role") == "alert"
    assert "The interactive builder could not start" in status.inner_text()
    assert page.locator('[data-block="panel"]').evaluate("e => e.inert")
    assert "vllm serve Qwen/Qwen3-8B" in shown_command(page)  # the default command stays readable
    pill(page, "hardware", "b200").click(force=True)
    assert page.evaluate("window.vllmBuilder.queued") == 0 and "hardware=" not in page.url
    page.unroute("**/pyodide/**")
    retry.click()
    wait_ready(page)
    assert not page.locator("[data-retry]").count()
    assert not page.locator('[data-block="panel"]').evaluate("e => e.inert")
    click(page, "hardware", "b200")
    assert "hardware=b200" in page.url


def test_a_page_without_builder_data_keeps_its_static_commands(page: Any) -> None:
    """The recipe's builder data missing (a partial deploy): the page drops the builder and shows its
    pre-rendered commands again, and the worker's failed fetch of the same file is no start error."""
    dedicated_worker(page)  # so that the route sees the worker's fetch too
    fetched: list[str] = []

    def missing(route: Any) -> None:
        fetched.append(route.request.url)
        route.fulfill(status=404, body="")

    page.route("**/builder-data/Qwen/Qwen3-8B.json?v=*", missing)
    page.goto(QWEN)
    page.wait_for_function(
        "!document.querySelector('[data-cb-root]') && !document.querySelector('#command').hidden")
    assert "vllm serve Qwen/Qwen3-8B" in page.locator("#command").inner_text()
    assert not page.locator("#install").evaluate("e => e.hidden")
    assert page.locator("[data-retry], .cb-status").count() == 0
    assert fetched and all("/builder-data/Qwen/Qwen3-8B.json?v=" in url for url in fetched)
    assert not page.js_errors


def test_hardware_note_link_is_a_real_url(page: Any) -> None:
    open_builder(page, "/deepseek-ai/DeepSeek-V4-Flash?hardware=dgx_spark_gb10")
    link = page.locator(".cb-hwnote a")
    assert link.get_attribute("href") == "#dgx-spark-gb10-cluster"
    assert link.inner_text() == "DGX Spark cluster guide"
    assert page.locator("#dgx-spark-gb10-cluster").count() == 1
    assert "[object Object]" not in page.content()


def test_hardware_labels_are_unique_per_recipe(page: Any) -> None:
    for path in ("/meta-models/Muse-Glimmer-30B", "/MiniMaxAI/MiniMax-H3"):
        open_builder(page, path)
        labels = page.eval_on_selector_all('[data-row="hardware"] .cb-pill .cb-pill-text',
                                           "els => els.map(e => e.textContent)")
        assert len(labels) == len(set(labels)), labels
    assert "2× RTX 4090" in labels


def test_stale_stored_features_fall_back_to_the_defaults(page: Any) -> None:
    open_builder(page, QWEN)
    defaults = features_on(page)
    assert defaults
    set_storage(page, RECIPE_STATE, {"Qwen/Qwen3-8B": {"features": ["retired_feature"]}})
    open_builder(page, QWEN)
    assert features_on(page) == defaults and "--reasoning-parser" in shown_command(page)
    open_builder(page, QWEN + "?features=bogus")
    assert features_on(page) == defaults


def test_an_explicit_empty_feature_set_and_the_variant_survive_a_reload(page: Any) -> None:
    open_builder(page, DEEPSEEK)
    for key in features_on(page):
        click(page, "features", key)
    assert features_on(page) == []
    other = [p for p in view(page)["rows"][1]["pills"] if not p["selected"] and not p["disabled"]][0]["value"]
    click(page, "variant", other)
    open_builder(page, DEEPSEEK)  # no query: storage alone
    assert features_on(page) == [] and view(page)["state"]["variant"] == other
    assert storage(page, RECIPE_STATE)["deepseek-ai/DeepSeek-V3.2"]["features"] == []


def test_a_deep_stored_object_cannot_stop_the_builder(page: Any) -> None:
    page.goto(QWEN)
    page.evaluate("""() => {
      let deep = {}; const top = deep;
      for (let i = 0; i < 5000; i++) { deep.x = {}; deep = deep.x; }
      localStorage.setItem('vllm-recipes-recipe-state',
                           JSON.stringify({'Qwen/Qwen3-8B': {features: [top], featureModes: top}}));
      localStorage.setItem('vllm-recipes-prefs', JSON.stringify(top));
      localStorage.setItem('vllm-recipes:cluster-endpoints', JSON.stringify(top));
    }""")
    open_builder(page, QWEN)
    assert not page.locator("[data-retry]").count() and "vllm serve Qwen/Qwen3-8B" in shown_command(page)
    click(page, "hardware", "b200")
    assert "hardware=b200" in page.url and not page.js_errors


def test_reset_leaves_the_global_gpu_preference_alone(page: Any) -> None:
    open_builder(page, QWEN)
    click(page, "hardware", "h100")
    click(page, "features", features_on(page)[0])
    assert storage(page, PREFS) == {"hardware": "h100"}
    page.get_by_role("button", name="Reset to the recipe's defaults").click()
    settle(page)
    assert view(page)["state"]["hardware"] == "h200" and view(page)["state"]["features"] is None
    assert storage(page, PREFS) == {"hardware": "h100"}  # Reset is about this recipe only
    open_builder(page, "/Qwen/Qwen3-14B")  # another recipe still opens on the preferred GPU
    assert view(page)["state"]["hardware"] == "h100"


def test_pd_pool_mode_pills_sit_on_one_line(page: Any) -> None:
    open_builder(page, DEEPSEEK + "?strategy=pd_cluster&hardware=h200")
    pills = page.locator('[data-row="prefill_pool_mode"] .cb-pill')
    assert pills.count() >= 2
    tops = {round(pills.nth(i).bounding_box()["y"]) for i in range(pills.count())}
    assert len(tops) == 1, tops
