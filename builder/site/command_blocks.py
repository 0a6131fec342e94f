"""The static command blocks of a recipe page: one rendering record as head/worker/serve blocks."""

from __future__ import annotations

from typing import Any, TypedDict

from builder import resolver, vllm_lint
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


def _nodes(record: dict[str, Any], key: str) -> list[Any]:
    """``<key>s`` (a list), else the single ``<key>``: the worker commands of a multi-node record."""
    many = record.get(f"{key}s") if isinstance(record.get(f"{key}s"), list) else []
    return many or ([record[key]] if record.get(key) else [])


def record_commands(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, command) pairs of one rendering record: the single command or head + workers."""
    if record.get("command"):
        return [("", text(record["command"]))]
    if record.get("head_command"):
        out = [("Head node", text(record["head_command"]))]
        out += [(f"Worker node {i}", text(c)) for i, c in enumerate(_nodes(record, "worker_command"), 1)]
        return out
    return []


def _blocks(record: dict[str, Any], head_key: str, worker_key: str, head_always: bool = False) -> list[Block]:
    """The head block (always, or when the record has one) then one block per worker."""
    blocks: list[Block] = []
    if head_always or record.get(head_key):
        blocks.append(("head", "Head node (rank 0)", text(record[head_key])))
    for i, cmd in enumerate(_nodes(record, worker_key), 1):
        blocks.append((f"worker-{i}", f"Worker node {i}", text(cmd)))
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
        view["blocks"] = _blocks(record, "head_command", "worker_command", head_always=True)
        view["docker_blocks"] = _blocks(record, "head_docker_command", "worker_docker_command")
    else:
        if record.get("command"):
            view["blocks"].append(("serve", "", text(record["command"])))
        if record.get("docker_command"):
            view["docker_blocks"].append(("serve", "", text(record["docker_command"])))
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
