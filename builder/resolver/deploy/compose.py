"""Compose files of a plan: one file per host (a pool's node, the router, a Mooncake helper)."""

from __future__ import annotations

import json
from typing import Any

from ..values import HF_CACHE_MOUNT
from .devices import device_settings
from .placeholders import DEFAULTS, MOONCAKE_DIR, compose_shell, compose_token, names_in, placeholder_name
from .plan import Plan, Workload
from .types import ComposeFile, ComposeService


def _gpu_reservation(plan: Plan) -> dict[str, Any] | None:
    devices = device_settings(plan["profile"])
    if not devices["gpus_all"]:
        return None
    return {"resources": {
        "reservations": {"devices": [{"driver": "nvidia", "count": "all", "capabilities": ["gpu"]}]}}}


def _serve_service(plan: Plan, workload: Workload, argv: list[str],
                   multi_host: bool) -> tuple[ComposeService, dict[str, Any]]:
    devices = device_settings(plan["profile"])
    env = {key: compose_token(value) for key, value in workload["env"].items()}
    env.setdefault("HF_TOKEN", "${HF_TOKEN:-}")
    service: ComposeService = {"image": plan["image"] or "vllm/vllm-openai:latest", "entrypoint": [argv[0]],
                               "command": [compose_token(t) for t in argv[1:]], "environment": env,
                               "ipc": "host"}
    if devices["shm_size"]:
        service["shm_size"] = devices["shm_size"]
    if devices["host_network"] or multi_host:
        service["network_mode"] = "host"
    else:
        service["ports"] = [f"{workload['port']}:{workload['port']}"]
    volumes = [HF_CACHE_MOUNT, *(f"{h}:{c}" for h, c in devices["mounts"])]
    service["volumes"] = volumes
    if devices["devices"]:
        service["devices"] = list(devices["devices"])
    if devices["security_opt"]:
        service["security_opt"] = list(devices["security_opt"])
    if devices["group_add"]:
        service["group_add"] = list(devices["group_add"])
    if devices["privileged"]:
        service["privileged"] = True
    reservation = _gpu_reservation(plan)
    if reservation:
        service["deploy"] = reservation
    configs: dict[str, Any] = {}
    if plan["mooncake_config"] is not None:
        service["configs"] = [{"source": n.removesuffix(".json"), "target": f"{MOONCAKE_DIR}/{n}"}
                              for n in plan["mooncake_config"]]
        configs = {
            n.removesuffix(".json"): {"content": compose_shell(json.dumps(c, indent=2, ensure_ascii=False))}
            for n, c in plan["mooncake_config"].items()}
    service["restart"] = "unless-stopped"
    return service, configs


def _file(name: str, service_name: str, service: ComposeService, configs: dict[str, Any]) -> ComposeFile:
    out: ComposeFile = {"name": name, "services": {service_name: service}}
    if configs:
        out["configs"] = configs
    return out


def compose_files(plan: Plan) -> list[tuple[str, ComposeFile, list[str]]]:
    """(file name, compose file, placeholder names it interpolates) per host."""
    out: list[tuple[str, ComposeFile, list[str]]] = []
    single = len(plan["workloads"]) == 1 and not plan["workloads"][0]["worker_argvs"]
    for workload in plan["workloads"]:
        if workload["shell"] is not None:
            script = (workload["shell"] if not workload["install"]
                      else f"set -e\n{workload['install']}\n{workload['shell']}")
            service: ComposeService = {"image": plan["image"] or "vllm/vllm-openai:latest",
                                       "entrypoint": ["/bin/sh", "-c"],
                                       "command": [compose_shell(script)],
                                       "environment": {"UV_SYSTEM_PYTHON": "1"},
                                       "network_mode": "host", "restart": "unless-stopped"}
            configs: dict[str, Any] = {}
            if workload["role"] == "mooncake-store" and plan["mooncake_config"]:
                service["configs"] = [{"source": "mooncake_store_config",
                                       "target": f"{MOONCAKE_DIR}/mooncake_store_config.json"}]
                configs = {"mooncake_store_config": {"content": compose_shell(json.dumps(
                    plan["mooncake_config"].get("mooncake_store_config.json", {}), indent=2,
                    ensure_ascii=False))}}
            out.append((f"compose.{workload['name']}.yaml",
                        _file(workload["name"], workload["role"], service, configs), names_in(script)))
            continue
        argvs = [workload["head_argv"], *workload["worker_argvs"]]
        for rank, argv in enumerate(argvs):
            service, configs = _serve_service(plan, workload, argv, len(argvs) > 1)
            names = [n for t in [*argv, *workload["env"].values()] if (n := placeholder_name(t)) is not None]
            if plan["mooncake_config"]:
                names += [n for c in plan["mooncake_config"].values() for n in names_in(json.dumps(c))]
            suffix = "" if len(argvs) == 1 else f"-node-{rank}"
            filename = "compose.yaml" if single else f"compose.{workload['name']}{suffix}.yaml"
            out.append((filename, _file(f"{workload['name']}{suffix}", "vllm", service, configs),
                        list(dict.fromkeys(names))))
    return out


def env_note(names: list[str]) -> list[str]:
    """The ``.env`` lines a host needs beside its compose file."""
    if not names:
        return []
    lines = ["Put these in a .env file beside this compose file (the address of each named host):"]
    lines += [f"  {name}={DEFAULTS.get(name, '')}" for name in names]
    return lines
