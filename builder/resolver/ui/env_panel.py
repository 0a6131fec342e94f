"""The Env panel (POP-03, POP-06): the curl / bench target, the placeholders of the current
commands with example values, and tips for the ones that need explaining."""

from __future__ import annotations

from typing import Any

from ..values import as_dict, get_key, js_str, truthy
from .commands import PLACEHOLDER
from .facts import BuilderFacts


def curl_target(facts: BuilderFacts, state: dict[str, Any], record: dict[str, Any] | None) -> dict[str, Any]:
    """POP-03: curl / bench host and port variables, with their defaults."""
    deploy = get_key(record, "deploy_type")
    if deploy == "pd_cluster":
        port = get_key(as_dict(facts.strategies.get("pd_cluster")).get("router"), "port") or 30000
        return {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": port}
    router = get_key(record, "router")
    if deploy == "kv_store_lb" and router:
        return {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": router.get("port") or 30080}
    if deploy == "multi_node" or (deploy == "kv_store_lb" and get_key(record, "vllm_worker_commands")):
        return {"host_var": "HEAD_IP", "port_var": "VLLM_PORT", "port": 8000}
    return {"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000}


def command_values(target: dict[str, Any], endpoints: dict[str, Any]) -> dict[str, Any]:
    """POP-03/POP-07: what the commands substitute: the saved Env values, and for a router's own ``--host`` /
    ``--port`` the curl target's defaults when nothing is saved (``localhost`` and the router's port: the
    kv_store file's ``router.port``, the PD strategy's, else 30080 / 30000)."""
    values = {k: v for k, v in endpoints.items() if truthy(v)}
    if target["host_var"] == "ROUTER_HOST":
        values.setdefault("ROUTER_HOST", "localhost")
        values.setdefault("ROUTER_PORT", target["port"])
    return values


def placeholder_names(tabs: list[dict[str, Any]]) -> list[str]:
    """POP-06: the ``$NAME``s of the current commands in first-appearance order (comment lines are prose)."""
    names: dict[str, None] = {}  # in first-appearance order
    for tab in tabs:
        text = tab["prelude"] + "\n" + tab["command"]
        if "$" not in text:
            continue
        for line in text.split("\n"):
            if "$" in line and not line.lstrip().startswith("#"):
                names.update(dict.fromkeys(PLACEHOLDER.findall(line)))
    return list(names)


def _example(name: str, target: dict[str, Any]) -> str:
    """An example value for an Env field (POP-06 hints)."""
    if name == target.get("port_var"):
        return js_str(target.get("port") or 8000)
    if "DEVICE" in name:
        return "blank = auto (e.g. mlx5_0,mlx5_1)"
    if "CONFIG_PATH" in name:
        return "/etc/mooncake/config.json"
    if "PORT" in name:
        return "8000"
    if "IFACE" in name or name.endswith("_IF"):
        return "bond0"
    if name == target.get("host_var") and "HOST" in name:
        return "localhost"
    if any(word in name for word in ("IP", "HOST", "NODE", "INSTANCE", "ADDR")):
        return "10.0.0.1"
    return ""


_ENV_TIPS = {
    "IFACE_NAME": "IFACE_NAME is the NIC on the fabric the nodes share: `ip -br addr` lists "
                  "them; pick the one holding the address the other nodes reach (often bond0 or an "
                  "InfiniBand ib0, not docker0 or lo).",
    "HEAD_IP": "HEAD_IP is the head node's address on that network: run `hostname -I` on the head "
               "node and use the address the workers can reach.",
}


def env_panel(target: dict[str, Any], names: list[str]) -> dict[str, Any]:
    """POP-06: the Env panel's "Curl / bench target" fields, one field per other placeholder, and tips."""
    target_vars = [n for n in (target.get("host_var"), target.get("port_var")) if n]
    return {"target": [{"name": n, "example": _example(n, target)} for n in target_vars],
            "fields": [{"name": n, "example": _example(n, target)} for n in names if n not in target_vars],
            "tips": [tip for key, tip in _ENV_TIPS.items() if key in names]}
