"""KV-offload options and Mooncake kv-store results (cluster spec §8-§9)."""

from __future__ import annotations

import json
import math
from typing import Any

from ..context import RenderContext
from ..strategies import deploy_type_of
from ..values import as_dict, get_key, is_num, js_str
from .multi_node import serve_result


def kv_option(ctx: RenderContext, key: Any, strategy_id: str,
              strategy: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """Cluster §8.2 gates; returns (key, option) or None."""
    if not isinstance(key, str):
        return None
    opt = as_dict(ctx.taxonomy.get("kv_offload")).get(key)
    if not isinstance(opt, dict):
        return None
    if deploy_type_of(strategy) in ("pd_cluster", "kv_store_lb"):
        return None
    allow = opt.get("strategies")
    if isinstance(allow, list) and allow and strategy_id not in allow:
        return None
    support = as_dict(ctx.recipe.get("kv_offload_support")).get(key)
    if support == "unsupported" or (opt.get("requires_opt_in") is True and support != "verified"):
        return None
    brands = opt.get("brands")
    if isinstance(brands, list) and brands and ctx.profile.get("brand") not in brands:
        return None
    return key, opt


def kv_install(deployment: dict[str, Any], profile: dict[str, Any]) -> Any:
    """Cluster §9.5 brand-keyed install command."""
    inst = get_key(deployment.get("vllm"), "install")
    if isinstance(inst, dict):
        brand = profile.get("brand")
        key = "amd" if brand == "AMD" else "nvidia" if brand == "NVIDIA" else None
        return inst.get(key) if key else None
    return inst if isinstance(inst, str) else None


def _kv_instances(deployment: dict[str, Any], spec: Any) -> tuple[int, Any]:
    """Cluster §9.2: (count, current)."""
    count_in = spec.get("count") if isinstance(spec, dict) else spec
    if is_num(count_in) and count_in >= 1:
        count = int(math.floor(count_in))
    else:
        default = deployment.get("default_instances")
        count = default if default is not None else 2
    current = spec.get("current") if isinstance(spec, dict) else None
    current = current if is_num(current) else 0
    return count, min(max(current, 0), count - 1)


def mooncake_parts(deployment: dict[str, Any]) -> dict[str, Any]:
    master = as_dict(deployment.get("mooncake_master"))
    store_src = deployment.get("mooncake_store_config")
    store = None
    if isinstance(store_src, dict):
        store = {"command": store_src.get("command"), "description": store_src.get("description") or "",
                 "config": store_src.get("config") or None, "note": store_src.get("note") or ""}
    cfg = as_dict(deployment.get("mooncake_vllm_config"))
    return {
        "master": {"command": master.get("command") or "mooncake_master",
                   "description": master.get("description") or ""},
        "store": store,
        "config": cfg.get("template") or {},
        "config_note": cfg.get("note") or "",
    }


def _kv_router(deployment: dict[str, Any], count: int) -> dict[str, Any] | None:
    """Cluster §9.4 cache-aware router (only with more than one instance)."""
    if count <= 1:
        return None
    router = as_dict(deployment.get("router"))
    port = get_key(deployment.get("vllm"), "port") or 8000
    lines = [f"vllm-router --policy {router.get('policy') or 'cache_aware'}"]
    lines += [f"--backend-url http://$VLLM_INSTANCE_{i}:{js_str(port)}" for i in range(1, count + 1)]
    lines += ["--host $ROUTER_HOST", "--port $ROUTER_PORT", "--cache-threshold 0.5",
              "--balance-abs-threshold 4", "--balance-rel-threshold 1.1"]
    return {"command": " \\\n    ".join(lines),
            "install": router.get("install") or "uv pip install vllm-router",
            "port": router.get("port") or 30080}


def kv_result(ctx: RenderContext, serving_id: str, strategy: dict[str, Any], nodes: int,
              kv_opt: tuple[str, dict[str, Any]] | None,
               deployment: dict[str, Any], instances: Any) -> dict[str, Any]:
    """Cluster §9.3-§9.6 kv-store result."""
    count, current = _kv_instances(deployment, instances)
    master = f"$VLLM_INSTANCE_{js_str(current + 1)}" if count > 1 else "$HEAD_IP"
    served = serve_result(ctx, serving_id, strategy, nodes, kv_opt, deployment, master)
    vllm: dict[str, Any] = {}
    if served["deploy_type"] == "multi_node" and "head_command" in served:
        vllm.update(command=served["head_command"], argv=served["head_argv"],
                    workerCommand=served["worker_command"], workerArgv=served["worker_argv"],
                    workerCommands=served["worker_commands"], workerArgvs=served["worker_argvs"])
    else:
        vllm.update(command=served["command"], argv=served["argv"])
    vllm.update(env=served["env"], install=kv_install(deployment, ctx.profile))
    parts = mooncake_parts(deployment)
    return {"deploy_type": "kv_store_lb", "serving_strategy": serving_id, "node_count": nodes,
            "instances": count, "current_instance": current, "master": parts["master"],
            "store": parts["store"],
            "vllm": vllm, "router": _kv_router(deployment, count), "mooncake_config": parts["config"],
            "mooncake_config_note": parts["config_note"]}


def mooncake_config_script(deployment: dict[str, Any]) -> str:
    """Cluster §9.10 "Mooncake Config" tab script."""
    parts = mooncake_parts(deployment)
    store = parts["store"]
    has_store = store is not None and store.get("config") is not None
    exports = ["export MOONCAKE_CONFIG_PATH=${MOONCAKE_CONFIG_PATH:-/etc/mooncake/mooncake_vllm_config.json}"]
    if has_store:
        exports.append("export MOONCAKE_STORE_CONFIG_PATH="
                       "${MOONCAKE_STORE_CONFIG_PATH:-/etc/mooncake/mooncake_store_config.json}")

    def heredoc(note: str, path: str, config: Any) -> str:
        notes = [f"# {line}" for line in note.rstrip().split("\n")] if note.rstrip() else []
        body = json.dumps(config, indent=2, ensure_ascii=False)
        return "\n".join([*notes, f"cat > {path} <<EOF", body, "EOF"])

    blocks = ["\n".join(exports), heredoc(parts["config_note"], "$MOONCAKE_CONFIG_PATH", parts["config"])]
    if has_store:
        blocks.append(heredoc(store["note"], "$MOONCAKE_STORE_CONFIG_PATH", store["config"]))
    return "\n\n".join(blocks)
