"""The builder's Kubernetes and Compose choices: the view, the URL, and the CLI's text for the same
selection."""

from __future__ import annotations

from typing import Any

import pytest

from builder.cli.resolve import Choice, resolve_command
from tests.resolver.test_module import (
    PROJECT_CONTENT,
    UPSTREAM,
    R,
    project_recipe,
    project_vocab,
    recipe,
    vocab,
)

MINIMAX = "MiniMaxAI/MiniMax-M3"
OMNI = "IndexTeam/IndexTTS-2.5"


@pytest.fixture(scope="module")
def content() -> Any:
    from builder.content.loader import load_content

    return load_content(UPSTREAM)[0]


def bs(hf_id: str, state: dict[str, Any] | None = None, event: dict[str, Any] | None = None) -> dict[str,
                                                                                                     Any]:
    return R.builder_state(recipe(hf_id), vocab(), state or {}, event)


def reload(view: dict[str, Any], hf_id: str) -> dict[str, Any]:
    """The view a page opens on from ``view``'s URL."""
    params = dict(item.split("=", 1) for item in view["query"].split("&")) if view["query"] else {}
    return bs(hf_id, params)


@pytest.mark.parametrize(("state", "choice"), [
    ({"hardware": "h200", "install": "k8s"}, Choice(MINIMAX, hardware="h200", output="k8s")),
    ({"hardware": "h200", "install": "compose"}, Choice(MINIMAX, hardware="h200", output="compose")),
    ({"hardware": "h100", "strategy": "multi_node_tp", "nodes": "2", "install": "k8s"},
     Choice(MINIMAX, hardware="h100", strategy="multi_node_tp", nodes=2, output="k8s")),
    ({"hardware": "h100", "strategy": "multi_node_tp", "nodes": "2", "install": "compose"},
     Choice(MINIMAX, hardware="h100", strategy="multi_node_tp", nodes=2, output="compose")),
    ({"strategy": "pd_cluster", "install": "compose"},
     Choice(MINIMAX, strategy="pd_cluster", output="compose")),
    ({"install": "k8s"}, Choice(MINIMAX, output="k8s")),
])
def test_view_text_is_the_cli_text(content: Any, state: dict[str, Any], choice: Choice) -> None:
    deploy = bs(MINIMAX, state)["deploy"]
    assert deploy["reason"] is None and deploy["format"] == choice.output
    assert deploy["text"] == resolve_command(content, choice)
    if len(deploy["files"]) == 1:
        assert deploy["files"][0]["text"].rstrip("\n") == deploy["text"]
    else:
        assert ("\n".join(f"# file: {f['filename']}\n{f['text']}" for f in deploy["files"]).rstrip("\n")
                == deploy["text"])


def test_multi_node_compose_has_one_file_per_node_and_its_start_command() -> None:
    v = bs(MINIMAX, {"hardware": "h100", "nodes": "2", "install": "compose"})
    names = [f["filename"] for f in v["deploy"]["files"]]
    assert names == ["compose.minimax-m3-node-0.yaml", "compose.minimax-m3-node-1.yaml"]
    assert [f["apply"] for f in v["deploy"]["files"]] == [f"docker compose -f {n} up -d" for n in names]
    tab = next(t for t in v["install"]["tabs"] if t["id"] == "compose")
    assert tab["command"] == "\n".join(f["apply"] for f in v["deploy"]["files"])
    assert (tab["note"]
            == "Each file runs on its own host: copy it there with the .env lines it names, then start it.")


def test_url_keeps_the_choice_and_a_reload_shows_the_same_files() -> None:
    v = bs(MINIMAX, {"hardware": "h200"})
    assert v["deploy"] is None and v["install"]["active"] == "pip"
    k8s = R.builder_state(recipe(MINIMAX), vocab(), v["state"], {"type": "install", "value": "k8s"})
    assert k8s["query"] == "hardware=h200&install=k8s" and k8s["install"]["active"] == "k8s"
    assert k8s["install"]["tabs"][2]["command"] == "kubectl apply -f minimax-m3-h200.yaml"
    again = reload(k8s, MINIMAX)
    assert again["query"] == k8s["query"] and again["deploy"] == k8s["deploy"]
    back = R.builder_state(recipe(MINIMAX), vocab(), k8s["state"], {"type": "install", "value": "pip"})
    assert back["deploy"] is None and "install=" not in back["query"]


def test_unknown_install_value_falls_back() -> None:
    v = bs(MINIMAX, {"install": "helm"})
    assert v["install"]["active"] == "pip" and v["deploy"] is None and "install" not in v["query"]
    assert R.builder_state(recipe(MINIMAX), vocab(), v["state"],
                           {"type": "install", "value": "helm"})["deploy"] is None


def test_deployment_follows_the_selection_not_the_shown_node() -> None:
    """A follower node or instance shown in the command tabs does not change the files."""
    first = bs(MINIMAX, {"strategy": "pd_cluster", "install": "k8s"})
    follower = bs(MINIMAX,
                  {"strategy": "pd_cluster", "prefill_nodes": "2", "prefill_rank": "1", "install": "k8s"})
    leader = bs(MINIMAX, {"strategy": "pd_cluster", "prefill_nodes": "2", "install": "k8s"})
    assert follower["state"]["prefill_rank"] == 1 and follower["deploy"] == leader["deploy"]
    assert leader["deploy"] != first["deploy"]


def test_omni_shows_the_choices_disabled_with_the_reason() -> None:
    v = bs(OMNI, {"install": "k8s"})
    tabs = {t["id"]: t for t in v["install"]["tabs"]}
    assert (tabs["k8s"]["reason"] == tabs["compose"]["reason"]
            == "omni recipes have no deployment documents yet")
    assert v["install"]["active"] != "k8s" and v["deploy"] is None
    assert (v["install"]["unavailable"]
            == "Kubernetes, Compose and vLLM config: omni recipes have no deployment documents yet.")
    assert "Kubernetes" not in v["install"]["summary"]


def test_preset_point_uses_the_cli_preset_text() -> None:
    """A preset point's files are the ones ``resolve --preset P:POINT --format k8s`` prints under its
    title."""
    from builder.content.loader import load_content

    project = load_content(PROJECT_CONTENT)[0]
    key, preset = next(iter(project_recipe(MINIMAX)["presets"].items()))
    point = next(iter(preset["points"]))
    v = R.builder_state(project_recipe(MINIMAX), project_vocab(),
                        {"preset": key, "point": point, "install": "k8s"})
    printed = resolve_command(project, Choice(MINIMAX, preset=f"{key}:{point}", output="k8s"))
    assert printed.startswith(f"# {key}:{point} (") and printed.split("\n", 1)[1] == v["deploy"]["text"]
    assert "install=k8s" in v["query"]
