"""The static command blocks of a recipe page: one rendering record as head/worker/serve blocks."""

from __future__ import annotations

from typing import Any, TypedDict

from builder import resolver
from builder.checks import vllm_lint
from builder.resolver.deploy import FORMATS
from builder.resolver.records import iter_commands
from builder.resolver.ui.deploy import DeployView
from builder.site.index import SiteIndex
from builder.site.views import RecipeView, text

Block = tuple[str, str, str]  # (id, label, command)


class CliCheck(TypedDict):
    """What vLLM's CLI says about the record's argvs (found once, by the JSON API's lint)."""

    version: str
    problems: list[str]


class CommandView(TypedDict):
    """One recommended record as the page shows it."""

    hardware: str
    hardware_label: str
    strategy: str
    strategy_label: str
    variant: str
    nodes: Any
    deploy_type: str
    env: str
    docker_image: str
    blocks: list[Block]
    docker_blocks: list[Block]
    alternatives: list[tuple[str, str]]
    hw_json: list[tuple[str, str]]
    check: CliCheck


def env_exports(env: dict[str, Any] | None) -> str:
    """The record's ``export KEY=VALUE`` lines, as the builder's pip view prints them."""
    return "\n".join(resolver.export_lines(env or {}))


def record_env(record: dict[str, Any]) -> str:
    """The ``export`` lines of a record's environment."""
    return env_exports(record.get("env") if isinstance(record.get("env"), dict) else {})


def record_commands(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, command) pairs of one rendering record: the single command or head + workers."""
    found = list(iter_commands(record))
    for entry in found:
        if entry["role"] == "serve" and entry["command"]:
            return [("", text(entry["command"]))]
    if not any(entry["role"] == "head" and entry["command"] for entry in found):
        return []
    return [
        ("Head node" if entry["role"] == "head" else f"Worker node {entry['number']}", text(entry["command"]))
        for entry in found if entry["role"] in ("head", "worker")]


def _blocks(record: dict[str, Any], docker: bool) -> list[Block]:
    """The blocks of a multi-node record: the head node then one block per worker."""
    key = "docker_command" if docker else "command"
    blocks: list[Block] = []
    for entry in iter_commands(record):
        if entry["role"] == "head" and (entry[key] or not docker):
            blocks.append(("head", "Head node (rank 0)", text(entry[key])))
        elif entry["role"] == "worker":
            blocks.append((f"worker-{entry['number']}", f"Worker node {entry['number']}", text(entry[key])))
    return blocks


def command_view(index: SiteIndex, record: dict[str, Any] | None) -> CommandView | None:
    """Static rendering of one recommended record (single- or multi-node)."""
    if not isinstance(record, dict):
        return None
    hw = text(record.get("hardware"))
    deploy = text(record.get("deploy_type")) or "single_node"
    by_hw = record.get("by_hardware") if isinstance(record.get("by_hardware"), dict) else {}
    own = by_hw.get(hw)
    findings = index.output.findings.get(own.lstrip("/"), []) if isinstance(own, str) else []
    view: CommandView = {
        "hardware": hw,
        "hardware_label": index.hw_label(hw),
        "strategy": text(record.get("strategy")),
        "strategy_label": index.strategy_label(text(record.get("strategy"))),
        "variant": text(record.get("variant")),
        "nodes": record.get("node_count") or 1,
        "deploy_type": deploy,
        "env": record_env(record),
        "docker_image": text(record.get("docker_image")),
        "blocks": [],
        "docker_blocks": [],
        "alternatives": [],
        "hw_json": [],
        "check": {"version": vllm_lint.VLLM_VERSION, "problems": [f.message() for f in findings]},
    }
    if deploy == "multi_node":
        view["blocks"], view["docker_blocks"] = _blocks(record, False), _blocks(record, True)
    else:
        for entry in iter_commands(record):
            if entry["role"] == "serve" and entry["command"]:
                view["blocks"].append(("serve", "", text(entry["command"])))
            if entry["role"] == "serve" and entry["docker_command"]:
                view["docker_blocks"].append(("serve", "", text(entry["docker_command"])))
    alts = record.get("alternatives") if isinstance(record.get("alternatives"), dict) else {}
    for sid, url in alts.items():
        if isinstance(url, str) and index.has_file(url):
            view["alternatives"].append((index.strategy_label(sid), url))
    for h, url in by_hw.items():
        if isinstance(url, str) and index.has_file(url):
            view["hw_json"].append((index.hw_label(h), url))
    return view


def install_view(r: RecipeView) -> dict[str, Any]:
    """The install block of a recipe document (pip, docker, required and optional extras)."""
    inst = r.model.get("install") if isinstance(r.model.get("install"), dict) else {}
    pip = inst.get("pip") if isinstance(inst.get("pip"), dict) else {}
    docker = inst.get("docker") if isinstance(inst.get("docker"), dict) else {}
    extras = [e for e in (inst.get("extras") or []) if isinstance(e, dict)]
    return {
        "pip": text(pip.get("command")),
        "pip_note": text(pip.get("note")),
        "docker": text(docker.get("command")),
        "docker_note": text(docker.get("note")),
        "required": [e for e in extras if not e.get("optional")],
        "optional": [e for e in extras if e.get("optional")],
    }


def default_deployments(index: SiteIndex, r: RecipeView) -> list[DeployView]:
    """The builder's default view's Kubernetes and Compose files: what the page shows before (or without)
    JavaScript."""
    recipe = {**r.raw, "hf_id": r.hf_id}
    vocab = index.content.vocab.resolver_vocab()
    out: list[DeployView] = []
    for fmt in FORMATS:
        try:
            deploy = resolver.builder_state(recipe, vocab, {"install": fmt}).get("deploy")
        except resolver.ResolveError:
            continue
        if deploy and deploy["files"]:
            out.append(deploy)
    return out
