"""The builder's command tabs of a resolved record (cluster §9.10, single-node §11.3)."""

from __future__ import annotations

from typing import Any

from .docker import docker_run
from .hardware import profile_of, raw_generation
from .records import iter_commands
from .shell import pip_view
from .strategies import deploy_type_of, strategy_catalogue
from .topologies.mooncake import mooncake_config_script, mooncake_parts
from .types import Vocab
from .values import as_dict, get_key


def _tab(label: str, command: str, env: dict[str, Any] | None, profile: dict[str, Any], image: Any = None,
         argv: list[Any] | None = None, port: int = 8000, host_network: bool = False,
         only: str | None = None) -> dict[str, Any]:
    tab: dict[str, Any] = {"label": label, "command": command, "env": env or {}}
    if only != "docker" or argv is None:
        tab["pip"] = pip_view(command, env or {}, profile) if env is not None else command
    if argv is not None and only != "pip":
        tab["docker"] = docker_run(command, env or {}, image, profile, port, host_network)
    return tab


def needs_host_network(record: dict[str, Any], profile: dict[str, Any]) -> bool:
    """GAP-12: the builder's docker forms run on the host's network when the roles talk on more ports
    than the one ``-p`` publishes (multi-node, PD with its NIXL side channels, Mooncake, a companion such
    as the LMCache server), and on TPU, whose device flags already put the container there."""
    return (record.get("deploy_type") != "single_node" or bool(record.get("companions"))
            or raw_generation(profile) == "tpu")


_TAB_LABELS = {"serve": "vLLM Serve", "vllm": "vLLM Serve", "head": "Head", "prefill": "Prefill",
               "decode": "Decode", "router": "Router"}
POOL_TAB_ROLES = {_TAB_LABELS[role]: role for role in ("prefill", "decode")}
"""The tab of each PD pool: its label -> the pool's role."""


def builder_tabs(record: dict[str, Any], vocab: Vocab, kv_id: str | None = None,
                 only: str | None = None) -> list[dict[str, Any]]:
    """Cluster §9.10 / single-node §11.3: the builder's command tabs for a resolved record.

    Each tab is ``{label, command, env, pip}`` plus ``docker`` for ``vllm serve`` commands; ``only``
    (``"pip"`` or ``"docker"``): the one form a caller shows (a tab without a ``docker`` form keeps
    its ``pip`` one).
    """
    profile = profile_of(as_dict(vocab.get("taxonomy")), record.get("hardware"))
    image, deploy = record.get("docker_image"), record["deploy_type"]
    tabs: list[dict[str, Any]] = []
    host_network = needs_host_network(record, profile)
    dep = as_dict(get_key(strategy_catalogue(vocab), kv_id))
    if deploy in ("kv_store_lb", "pd_cluster") and deploy_type_of(dep) == "kv_store_lb":
        parts = mooncake_parts(dep)
        tabs.append(_tab("Mooncake Config", mooncake_config_script(dep), None, profile))
        tabs.append(_tab("Mooncake Master", parts["master"]["command"], None, profile))
        if parts["store"] is not None:
            tabs.append(_tab("Mooncake Store", parts["store"]["command"], None, profile))
    for found in iter_commands(record):
        label = _TAB_LABELS.get(found["role"]) or found["label"]
        if found["role"] in ("worker", "vllm_worker"):
            label = f"Node {found['number']}"
        elif found["role"] == "vllm" and record.get("vllm_worker_commands") is not None:
            label = "Head"
        tabs.append(_tab(label, found["command"], found["env"], profile, image, found["argv"], found["port"],
                         host_network, only))
    return tabs
