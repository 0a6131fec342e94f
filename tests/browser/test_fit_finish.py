"""Fit and finish in a browser: logos, self-hosted fonts, preview images, the self-host dialog,
pill names and tooltips, popover focus, and an axe scan with the builder's panels open."""

from __future__ import annotations

import io
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from PIL import Image

from tests.browser.axe_scan import AXE, need_axe, serious_violations
from tests.browser.conftest import serve_dir
from tests.browser.helpers import click, open_builder, settle, without_builder
from tests.support.paths import UPSTREAM
from tests.support.sites import build_real

MINIMAX = "/MiniMaxAI/MiniMax-M3"
GEMMA = "/Google/gemma-4-26B-A4B-it"  # lists a self-host platform (Modal)


def logo(page: Any, selector: str) -> dict[str, Any]:
    return page.eval_on_selector(selector,
                                 "img => ({src: new URL(img.src).pathname, alt: img.getAttribute('alt'),"
                                           " loaded: img.complete && img.naturalWidth > 0,"
                                           " filter: getComputedStyle(img).filter})")


def test_provider_logos_on_home_provider_and_recipe_pages(page: Any) -> None:
    page.goto("/")
    qwen = logo(page, '.provider-tile[href="/Qwen"] img')
    assert qwen == {"src": "/static/logos/qwen-color.svg", "alt": "", "loaded": True, "filter": "none"}
    assert page.locator('.provider-tile[href="/JetBrains"] .tile').inner_text() == "J"  # not in the icon set
    page.goto("/openai")
    mark = logo(page, ".org-head img")
    assert (mark["src"], mark["alt"], mark["loaded"]) == ("/static/logos/openai.svg", "", True)
    page.goto(MINIMAX)
    head = logo(page, ".recipe-head img")
    assert (head["src"], head["alt"], head["loaded"]) == ("/static/logos/minimax-color.svg", "MiniMax", True)


def test_one_colour_logos_are_inverted_in_dark_mode(page: Any) -> None:
    page.emulate_media(color_scheme="dark")
    page.goto("/openai")
    assert logo(page, ".org-head img")["filter"] == "invert(1)"
    assert logo(page, '.nav-org-row a[href="/Qwen"] img')["filter"] == "none"  # a colour mark stays


def test_fonts_are_loaded_from_our_origin(page: Any, site_url: str) -> None:
    page.goto(MINIMAX)
    page.evaluate("document.fonts.ready")
    page.wait_for_function(
        "document.fonts.check('16px Inter') && document.fonts.check('16px \"JetBrains Mono\"')")
    loaded = page.evaluate(
        "[...document.fonts].filter(f => f.status === 'loaded').map(f => f.family + ' ' + f.weight)")
    assert {"Inter 400", "JetBrains Mono 400"} <= {f.replace('"', "") for f in loaded}
    fonts = page.evaluate(
        "performance.getEntriesByType('resource').map(e => e.name).filter(n => /\\.woff2/.test(n))")
    assert fonts and all(f.startswith(site_url + "/static/fonts/") for f in fonts), fonts
    preloads = page.eval_on_selector_all('link[rel=preload][as=font]',
                                         "ls => ls.map(l => new URL(l.href).pathname)")
    assert preloads == ["/static/fonts/inter-latin-400-normal.woff2",
                        "/static/fonts/jetbrains-mono-latin-400-normal.woff2"]
    body = page.evaluate("getComputedStyle(document.body).fontFamily")
    assert body.startswith('"Inter"') or body.startswith("Inter")


@pytest.mark.parametrize("path", ["/", "/Qwen", MINIMAX])
def test_og_image_is_our_own_1200_by_630_png(page: Any, site_url: str, path: str) -> None:
    page.goto(path)
    og = page.get_attribute('meta[property="og:image"]', "content")
    assert page.get_attribute('meta[name="twitter:image"]', "content") == og
    assert page.get_attribute('meta[name="twitter:card"]', "content") == "summary_large_image"
    target = urlsplit(og)
    assert target.path == {"/": "/og/site.png", "/Qwen": "/og/Qwen.png"}.get(path, f"/og{path}.png")
    response = page.request.get(site_url + target.path + "?" + target.query)
    assert response.status == 200 and response.headers["content-type"] == "image/png"
    assert Image.open(io.BytesIO(response.body())).size == (1200, 630)


def dialog_state(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => { const d = document.getElementById('self-host');
      return {open: d.open, modal: d.matches(':modal'), focusInside: d.contains(document.activeElement),
              locked: getComputedStyle(document.documentElement).overflow === 'hidden',
              selected: [...d.querySelectorAll('[role=tab]')].map(t => t.getAttribute('aria-selected')),
              shown: [...d.querySelectorAll('[role=tabpanel]')].map(p => !p.hidden)}; }""")


@pytest.fixture(scope="module")
def two_platforms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A site of one recipe (gemma-4-26B-A4B-it) that lists AWS SageMaker before its Modal entry."""
    root = tmp_path_factory.mktemp("two-platforms")
    content = root / "content"
    shutil.copytree(UPSTREAM, content, ignore=lambda d, names: ["models"] if Path(d) == UPSTREAM else [])
    recipe = content / "models" / f"{GEMMA[1:]}.yaml"
    recipe.parent.mkdir(parents=True)
    text = (UPSTREAM / "models" / f"{GEMMA[1:]}.yaml").read_text(encoding="utf-8")
    assert "  platforms:\n    - id: modal\n" in text
    recipe.write_text(text.replace("  platforms:\n", "  platforms:\n    - id: sagemaker\n", 1),
                      encoding="utf-8")
    build_real(content, root / "site")
    with serve_dir(root / "site") as url:
        yield url


def wait_closed(page: Any) -> None:
    """The dialog closed and its close handler ran (page scroll unlocked)."""
    page.wait_for_function("!document.getElementById('self-host').open"
                           " && getComputedStyle(document.documentElement).overflow !== 'hidden'",
                           timeout=5000)


def test_self_host_dialog_keyboard_and_closing(browser: Any, two_platforms: str) -> None:
    ctx = browser.new_context(base_url=two_platforms, viewport={"width": 1280, "height": 900})
    without_builder(ctx)  # the dialog is the page's own (self-host.js)
    try:
        check_dialog(ctx.new_page())
    finally:
        ctx.close()


def check_dialog(page: Any) -> None:
    page.goto(GEMMA)
    trigger = page.get_by_role("button", name="Self Host vLLM")
    assert trigger.get_attribute("aria-haspopup") == "dialog"
    assert trigger.locator(".dd-logos img").get_attribute("src").startswith("/static/logos/aws.svg")
    assert page.locator("#self-host").is_hidden()
    trigger.focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Self host vLLM Google/gemma-4-26B-A4B-it")
    assert dialog.is_visible()
    state = dialog_state(page)
    assert state == {"open": True, "modal": True, "focusInside": True, "locked": True,
                     "selected": ["true", "false"], "shown": [True, False]}
    assert page.evaluate("document.activeElement.getAttribute('role')") == "tab"
    page.keyboard.press("ArrowRight")
    assert dialog_state(page)["selected"] == ["false", "true"]
    assert page.get_by_role("tabpanel", name="Modal").is_visible()
    modal_tab = page.get_by_role("tab", name="Modal", exact=True)
    assert page.evaluate("document.activeElement.id") == modal_tab.get_attribute("id")
    page.keyboard.press("Escape")
    wait_closed(page)
    assert page.evaluate("document.activeElement.dataset.dialogOpen") == "self-host"  # focus restored
    # reopened: the first platform again; × closes
    trigger.click()
    assert dialog_state(page)["selected"] == ["true", "false"]
    dialog.get_by_role("button", name="Close").click()
    wait_closed(page)
    # a click on the backdrop closes, a click inside does not
    trigger.click()
    page.locator("#self-host .dd-head h2").click()
    assert dialog_state(page)["open"]
    page.mouse.click(5, 5)
    wait_closed(page)


def pill_a11y(page: Any, name: str) -> tuple[int, str, str]:
    radio = page.get_by_role("radio", name=name, exact=True)
    ids = (radio.get_attribute("aria-describedby") or "").split()
    description = " ".join(page.locator(f"#{i}").text_content() for i in ids)
    return radio.count(), radio.get_attribute("data-value"), description


def test_pills_are_named_by_their_label_and_described_by_the_reason(page: Any) -> None:
    page.goto(MINIMAX)
    page.wait_for_selector('[data-row="hardware"] .cb-pill')  # the embedded default view, before Pyodide
    first = pill_a11y(page, "H200")
    open_builder(page, MINIMAX)
    assert pill_a11y(page, "H200") == first
    count, value, description = first
    assert (count, value) == (1, "h200") and "GB" in description
    click(page, "hardware", "b200")  # a re-render by the worker: same name, same description
    assert pill_a11y(page, "H200") == first
    disabled = page.locator('[data-row="hardware"] .cb-pill[aria-disabled="true"]')
    if disabled.count():
        tip = disabled.first.get_attribute("aria-describedby").split()[-1]
        assert page.locator(f"#{tip}").get_attribute("role") == "tooltip"
    assert page.locator(".cb [title]").count() == 0  # no title-only tooltips in the builder


def test_tooltips_open_on_keyboard_focus(page: Any) -> None:
    open_builder(page, MINIMAX)
    h200 = page.get_by_role("radio", name="H200", exact=True)
    tip = page.locator(f"#{h200.get_attribute('aria-describedby').split()[-1]}")
    assert tip.is_hidden()
    h200.focus()
    assert tip.is_visible() and tip.text_content()
    info = page.get_by_role("button", name="About Variant")
    info.focus()
    hint = page.locator(f"#{info.get_attribute('aria-describedby')}")
    assert hint.is_visible() and "minimum to load the weights" in hint.text_content()


def test_popover_takes_focus_and_escape_gives_it_back(page: Any) -> None:
    open_builder(page, MINIMAX)
    curl = page.locator('[data-pop="cURL"]')
    curl.click()
    assert curl.get_attribute("aria-expanded") == "true"
    assert page.evaluate("document.activeElement.closest('.cb-popover') !== null")
    page.keyboard.press("Escape")
    settle(page)
    assert curl.get_attribute("aria-expanded") == "false"
    assert page.evaluate("document.activeElement.dataset.pop") == "cURL"


def test_optional_extras_text_is_not_faded(page: Any) -> None:
    open_builder(page, MINIMAX)
    faded = page.evaluate("[...document.querySelectorAll('.cb-optional')].filter(e => "
                          "getComputedStyle(e).opacity !== '1').length")
    assert faded == 0


def open_panels(page: Any) -> None:
    """The builder with its panels open: Install expanded, Advanced open, the Env popover shown."""
    head = page.locator(".cb-install-head")
    if head.count() and head.get_attribute("aria-expanded") != "true":
        head.click()
        settle(page)
    page.evaluate("document.querySelectorAll('.cb-advanced').forEach(d => d.open = true)")
    page.locator('[data-pop="Env"]').click()


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_axe_builder_panels_open_and_dialog(page: Any, scheme: str) -> None:
    need_axe()
    page.add_init_script(path=str(AXE))  # in each document this page loads (the page goes after the test)
    page.emulate_media(color_scheme=scheme)
    page.set_viewport_size({"width": 1280, "height": 900})
    problems: list[str] = []
    for path in ["/", "/browse", "/no/such-recipe", MINIMAX, GEMMA]:
        if path.count("/") == 2 and path != "/no/such-recipe":
            open_builder(page, path)
            open_panels(page)
        else:
            page.goto(path)
            page.wait_for_load_state("load")
        scans = [path]
        if path == GEMMA:
            page.keyboard.press("Escape")
            page.get_by_role("button", name="Self Host vLLM").click()
            scans.append(f"{path} (self-host dialog)")
        for label in scans:
            problems += serious_violations(page, f"{scheme} {label}")
    assert not problems, "\n".join(problems)
