"""The builder's command tabs of a resolved record (cluster §9.10, single-node §11.3)."""

from __future__ import annotations

from typing import Any

from .docker import docker_run
from .hardware import profile_of
from .shell import pip_view
from .strategies import deploy_type_of, strategy_catalogue
from .topologies.mooncake import mooncake_config_script, mooncake_parts
from .types import Vocab
from .values import as_dict, get_key


def _tab(label: str, command: str, env: dict[str, Any] | None, profile: dict[str, Any], image: Any = None, argv: list[Any] | None = None,
         port: int = 8000) -> dict[str, Any]:
    tab = {"label": label, "command": command, "env": env or {},
           "pip": pip_view(command, env or {}, profile) if env is not None else command}
    if argv is not None:
        tab["docker"] = docker_run(command, env or {}, image, profile, port)
    return tab


def builder_tabs(record: dict[str, Any], vocab: Vocab, kv_id: str | None = None) -> list[dict[str, Any]]:
    """Cluster §9.10 / single-node §11.3: the builder's command tabs for a resolved record.

    Each tab is ``{label, command, env, pip}`` plus ``docker`` for ``vllm serve`` commands.
    """
    profile = profile_of(as_dict(vocab.get("taxonomy")), record.get("hardware"))
    image, deploy = record.get("docker_image"), record["deploy_type"]
    tabs: list[dict[str, Any]] = []
    dep = as_dict(get_key(strategy_catalogue(vocab), kv_id))
    if deploy in ("kv_store_lb", "pd_cluster") and deploy_type_of(dep) == "kv_store_lb":
        parts = mooncake_parts(dep)
        tabs.append(_tab("Mooncake Config", mooncake_config_script(dep), None, profile))
        tabs.append(_tab("Mooncake Master", parts["master"]["command"], None, profile))
        if parts["store"] is not None:
            tabs.append(_tab("Mooncake Store", parts["store"]["command"], None, profile))
    if deploy == "multi_node" and "head_command" in record:
        env = record["env"]
        tabs.append(_tab("Head", record["head_command"], env, profile, image, record["head_argv"]))
        for i, (cmd, argv) in enumerate(zip(record["worker_commands"], record["worker_argvs"], strict=True), 1):
            tabs.append(_tab(f"Node {i}", cmd, env, profile, image, argv))
    elif deploy == "pd_cluster":
        for role, port in (("prefill", 8001), ("decode", 8002)):
            r = record[role]
            tabs.append(_tab(role.capitalize(), r["command"], r["env"], profile, image, r["argv"], port))
        tabs.append(_tab("Router", record["router"]["command"], None, profile))
    elif deploy == "kv_store_lb":
        env = record["env"]
        multi = record.get("vllm_worker_commands") is not None
        tabs.append(_tab("Head" if multi else "vLLM Serve", record["vllm_command"], env, profile, image,
                         record["vllm_argv"]))
        for i, (cmd, argv) in enumerate(zip(record.get("vllm_worker_commands") or [],
                                            record.get("vllm_worker_argvs") or [], strict=True), 1):
            tabs.append(_tab(f"Node {i}", cmd, env, profile, image, argv))
        if record.get("router"):
            tabs.append(_tab("Router", record["router"]["command"], None, profile))
    else:
        tabs.append(_tab("vLLM Serve", record["command"], record["env"], profile, image, record["argv"]))
        for comp in record.get("companions") or []:
            tabs.append(_tab(comp["label"], comp["command"], None, profile))
    return tabs
