"""The builder's deployment tabs (Kubernetes, Compose, vLLM config) show, copy and download exactly what
``resolve --format`` prints."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.cli.main import main
from tests.browser.helpers import click, open_builder, settle, view, wait_ready

MINIMAX = "MiniMaxAI/MiniMax-M3"
OMNI = "IndexTeam/IndexTTS-2.5"


@pytest.fixture()
def cli(builder_site: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> Callable[..., str]:
    """What ``vllm-recipes resolve MiniMax-M3 ARGS`` prints (its main, run in this process) on the content
    the served site was built from."""
    content = builder_site["dir"].parent / "content"

    def printed(*args: str) -> str:
        capsys.readouterr()
        assert main(["resolve", MINIMAX, "--content", str(content), *args]) == 0
        return capsys.readouterr().out

    return printed


def pick(page: Any, label: str) -> None:
    """Open the install block if needed and choose one of its tabs."""
    if page.locator(".cb-install-head").get_attribute("aria-expanded") != "true":
        page.locator(".cb-install-head").click()
    page.locator(".cb-install [role=tab]", has_text=label).click()
    settle(page)


def shown_files(page: Any) -> list[tuple[str, str]]:
    """(file name, exact text) of every file the deploy block shows."""
    files = page.locator(".cb-deploy-file")
    return [(files.nth(i).get_attribute("data-file"), files.nth(i).locator("pre").text_content())
            for i in range(files.count())]


def as_printed(files: list[tuple[str, str]]) -> str:
    """The files as ``resolve --format`` prints them (several: each under ``# file: <name>``)."""
    if len(files) == 1:
        return files[0][1]
    return "\n".join(f"# file: {name}\n{text}" for name, text in files).rstrip("\n") + "\n"


def downloads(page: Any) -> list[tuple[str, bytes]]:
    """Click every Download button: (suggested file name, bytes) of each."""
    out = []
    buttons = page.locator(".cb-deploy-file button", has_text="Download")
    for i in range(buttons.count()):
        with page.expect_download() as info:
            buttons.nth(i).click()
        download = info.value
        out.append((download.suggested_filename, Path(download.path()).read_bytes()))
    return out


def query(page: Any) -> str:
    return page.evaluate("location.search")


def test_kubernetes_tab_is_the_cli_output_and_survives_a_reload(page: Any,
                                                                cli: Callable[..., str]) -> None:
    open_builder(page, f"/{MINIMAX}")
    click(page, "hardware", "h200")
    pick(page, "Kubernetes")
    printed = cli("--hardware", "h200", "--format", "k8s")
    files = shown_files(page)
    assert [name for name, _ in files] == ["minimax-m3-h200.yaml"]
    assert as_printed(files) == printed
    assert "install=k8s" in query(page)
    assert (page.locator(".cb-install [role=tabpanel] pre").inner_text()
            == "kubectl apply -f minimax-m3-h200.yaml")
    assert downloads(page) == [("minimax-m3-h200.yaml", printed.encode())]
    page.locator(".cb-deploy-file button", has_text="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == printed
    page.reload()
    wait_ready(page)
    assert "install=k8s" in query(page) and as_printed(shown_files(page)) == printed
    assert view(page)["install"]["active"] == "k8s"
    assert not page.js_errors


def test_multi_node_compose_files_each_with_copy_and_download(page: Any,
                                                              cli: Callable[..., str]) -> None:
    open_builder(page, f"/{MINIMAX}")
    click(page, "hardware", "h100")
    click(page, "strategy", "multi_node_tp")
    click(page, "nodes", "2")
    pick(page, "Compose")
    printed = cli("--hardware", "h100", "--strategy", "multi_node_tp", "--nodes", "2",
                  "--format", "compose")
    files = shown_files(page)
    assert [name for name, _ in files] == ["compose.minimax-m3-node-0.yaml", "compose.minimax-m3-node-1.yaml"]
    assert as_printed(files) == printed
    assert "install=compose" in query(page) and "nodes=2" in query(page)
    assert downloads(page) == [(name, text.encode()) for name, text in files]
    page.locator(".cb-deploy-file").nth(1).locator("button", has_text="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == files[1][1]
    pick(page, "Kubernetes")
    assert as_printed(shown_files(page)) == cli("--hardware", "h100", "--strategy",
                                                "multi_node_tp", "--nodes", "2", "--format", "k8s")
    pick(page, "pip")
    assert page.locator(".cb-deploy").count() == 0 and page.locator(".cb-cmd-code").count() == 1
    assert "install=" not in query(page)
    assert not page.js_errors


def test_vllm_config_tab_is_the_cli_output_with_its_env_files(page: Any,
                                                              cli: Callable[..., str]) -> None:
    open_builder(page, f"/{MINIMAX}")
    click(page, "hardware", "h100")
    click(page, "strategy", "multi_node_tp")
    click(page, "nodes", "2")
    pick(page, "vLLM config")
    printed = cli("--hardware", "h100", "--strategy", "multi_node_tp", "--nodes", "2",
                  "--format", "vllm-config")
    files = shown_files(page)
    assert [name for name, _ in files] == ["minimax-m3-node-0.yaml", "minimax-m3-node-0.env",
                                           "minimax-m3-node-1.yaml", "minimax-m3-node-1.env"]
    assert as_printed(files) == printed
    assert "install=vllm-config" in query(page)
    started = page.locator(".cb-install [role=tabpanel] pre").inner_text().splitlines()
    assert [line.split(" && vllm serve ")[0] for line in started] == [
        "set -a && . ./minimax-m3-node-0.env && set +a", "set -a && . ./minimax-m3-node-1.env && set +a"]
    assert downloads(page) == [(name, text.encode()) for name, text in files]
    assert not page.js_errors


def test_omni_recipe_shows_the_choices_disabled_with_the_reason(page: Any) -> None:
    open_builder(page, f"/{OMNI}?install=k8s")
    page.locator(".cb-install-head").click()
    tab = page.locator(".cb-install [role=tab]", has_text="Kubernetes")
    assert tab.get_attribute("aria-disabled") == "true"
    assert tab.get_attribute("title") == "omni recipes have no deployment documents yet"
    assert page.locator(".cb-install .cb-below").inner_text() == (
        "Kubernetes, Compose and vLLM config: omni recipes have no deployment documents yet.")
    tab.click(force=True)  # a disabled tab ignores the click
    settle(page)
    assert page.locator(".cb-deploy").count() == 0
    assert page.locator(".cb-install [role=tab][aria-selected=true]").inner_text().startswith("pip")
    assert not page.js_errors
