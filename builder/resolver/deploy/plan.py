"""The workloads of a rendering record: what runs where, before any document format is chosen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypedDict

from ..hardware import gpu_count_of, profile_of
from ..strategies import strategy_catalogue
from ..topologies.mooncake import mooncake_parts
from ..types import ResolveError, Vocab
from ..values import as_dict, as_list, get_key, js_str
from .names import model_base_name

RankRenderer = Callable[[str, int], dict[str, Any]]
"""``(pd role, rank) -> that role's record part`` rendered for a follower rank of its pool."""


class Sidecar(TypedDict):
    label: str
    command: str
    install: str | None


class Workload(TypedDict):
    """One process group: a ``vllm serve`` pool (one node or a leader and its workers) or a helper."""

    role: str  # serve, prefill, decode, instance-<k>, router, mooncake-master, mooncake-store
    name: str  # resource name (DNS-1035)
    shell: str | None  # a helper's shell text (router, Mooncake); None for vllm serve
    install: str | None  # what a helper installs first
    head_argv: list[str]
    worker_argvs: list[list[str]]  # one per follower rank 1..n-1
    env: dict[str, str]
    port: int
    gpus: int  # accelerators per pod (0: none)
    pool_role: str | None  # "prefill"/"decode" for PD pools (their own $<ROLE>_NODE_1)
    sidecars: list[Sidecar]
    notes: list[str]


class Plan(TypedDict):
    base: str
    image: str | None
    hardware: str
    profile: dict[str, Any]
    workloads: list[Workload]
    mooncake_config: dict[str, Any] | None  # file name -> config object, mounted at MOONCAKE_DIR
    notes: list[str]


def _strings(argv: Any, where: str) -> list[str]:
    if not isinstance(argv, list) or len(argv) < 2:
        raise ResolveError(f"{where}: no argv to deploy")
    return [js_str(token) for token in argv]


def _env(env: Any) -> dict[str, str]:
    return {str(k): js_str(v) for k, v in as_dict(env).items()}


def port_of(argv: list[str], default: int) -> int:
    """The ``--port`` an argv serves on (last one wins), else ``default``."""
    port = default
    for flag, value in zip(argv, argv[1:], strict=False):
        if flag == "--port" and value.isdigit() and 0 < int(value) < 65536:
            port = int(value)
    return port


def _serve(role: str, name: str, head: list[str], workers: list[list[str]], env: Any, gpus: int,
           default_port: int = 8000, pool_role: str | None = None) -> Workload:
    return {"role": role, "name": name, "shell": None, "install": None, "head_argv": head,
            "worker_argvs": workers,
            "env": _env(env), "port": port_of(head, default_port), "gpus": gpus, "pool_role": pool_role,
            "sidecars": [], "notes": []}


def _helper(role: str, name: str, command: Any, install: Any, port: int, notes: list[str]) -> Workload:
    return {"role": role, "name": name, "shell": js_str(command).rstrip(),
            "install": install if isinstance(install, str) else None,
            "head_argv": [], "worker_argvs": [], "env": {}, "port": port, "gpus": 0, "pool_role": None,
            "sidecars": [], "notes": notes}


def _companion_install(vocab: Vocab, feature: Any) -> str | None:
    key = js_str(feature).removeprefix("kv_offload:")
    install = get_key(get_key(get_key(as_dict(vocab.get("taxonomy")).get("kv_offload"), key), "companion"),
                      "install")
    return install if isinstance(install, str) else None


def _mooncake(plan: Plan, record: dict[str, Any], vocab: Vocab, kv_id: Any, source: Any) -> None:
    """Master (and store) helpers plus the instance config of a Mooncake deployment."""
    dep = as_dict(get_key(strategy_catalogue(vocab), kv_id))
    parts = mooncake_parts(dep) if dep else None
    master = as_dict(get_key(source, "master")) or as_dict(get_key(parts, "master"))
    store = as_dict(get_key(source, "store")) or as_dict(get_key(parts, "store"))
    install = record.get("vllm_install") if "vllm_install" in record else get_key(source, "install")
    base = plan["base"]
    plan["workloads"].insert(
        0, _helper("mooncake-master", f"{base}-mooncake-master", master.get("command") or "mooncake_master",
                   install, 50051, [js_str(master.get("description") or "")]))
    config = record.get("mooncake_config") if "mooncake_config" in record else get_key(source, "config")
    files: dict[str, Any] = {"mooncake_vllm_config.json": as_dict(config)}
    if store:
        plan["workloads"].insert(
            1, _helper("mooncake-store", f"{base}-mooncake-store", store.get("command"), install, 0,
                       [js_str(store.get("description") or "")]))
        files["mooncake_store_config.json"] = as_dict(store.get("config"))
    plan["mooncake_config"] = files
    if isinstance(install, str):
        plan["notes"].append(f"The vLLM image must include Mooncake: {install}")


def plan_of(record: dict[str, Any], vocab: Vocab, kv_id: Any = None,
            ranks: RankRenderer | None = None) -> Plan:
    """The workloads of a §5.1 rendering record (``kv_id``: the Mooncake id of a PD × Mooncake view)."""
    deploy = record.get("deploy_type")
    profile = profile_of(as_dict(vocab.get("taxonomy")), record.get("hardware"))
    g = gpu_count_of(profile)
    image = record.get("docker_image")
    argv0 = (record.get("argv") or record.get("head_argv") or record.get("vllm_argv")
             or get_key(record.get("prefill"), "argv"))
    base = model_base_name(as_list(argv0)[2] if len(as_list(argv0)) > 2 else "model")
    plan: Plan = {"base": base, "image": image if isinstance(image, str) else None,
                  "hardware": js_str(record.get("hardware")),
                  "profile": profile, "workloads": [], "mooncake_config": None, "notes": []}
    # one node of a multi-node strategy
    if deploy == "single_node" or (deploy == "multi_node" and "head_argv" not in record):
        serve = _serve("serve", base, _strings(record.get("argv"), "argv"), [], record.get("env"), g)
        for companion in as_list(record.get("companions")):
            companion = as_dict(companion)
            serve["sidecars"].append({"label": js_str(companion.get("label") or "companion"),
                                      "command": js_str(companion.get("command")).rstrip(),
                                      "install": _companion_install(vocab, companion.get("feature"))})
            if companion.get("description"):
                serve["notes"].append(f"{js_str(companion.get('label'))}: {js_str(companion['description'])}")
        plan["workloads"].append(serve)
    elif deploy == "multi_node":
        workers = [_strings(a, "worker_argvs") for a in as_list(record.get("worker_argvs"))]
        plan["workloads"].append(
            _serve("serve", base, _strings(record.get("head_argv"), "head_argv"), workers,
                   record.get("env"), g))
    elif deploy == "pd_cluster":
        for role, port in (("prefill", 8001), ("decode", 8002)):
            part = as_dict(record.get(role))
            nodes: int = part["nodes"] if isinstance(part.get("nodes"), int) else 1
            env = dict(as_dict(part.get("env")))
            gpus = g
            if nodes == 0:  # half a node each: the device plugin picks the GPUs, not CUDA_VISIBLE_DEVICES
                env.pop("CUDA_VISIBLE_DEVICES", None)
                gpus = max(1, g // 2)
            head_part = part
            if part.get("currentNode"):  # the builder shows a follower: the documents start from node 1
                if not ranks:
                    raise ResolveError(f"{role}: deployment documents are built from node 1 of each pool")
                head_part = ranks(role, 0)
            workers = ([_strings(ranks(role, r).get("argv"), f"{role} rank {r}") for r in range(1, nodes)]
                       if ranks else [])
            if nodes > 1 and not ranks:
                raise ResolveError(f"{role}: a {nodes}-node pool needs its follower ranks rendered")
            plan["workloads"].append(
                _serve(role, f"{base}-{role}", _strings(head_part.get("argv"), f"{role}.argv"), workers,
                       env, gpus, port, role))
        router = as_dict(record.get("router"))
        port = get_key(as_dict(get_key(strategy_catalogue(vocab), "pd_cluster")).get("router"), "port")
        plan["workloads"].append(
            _helper("router", f"{base}-router", router.get("command"), router.get("install"),
                    port if isinstance(port, int) else 30000, []))
        if kv_id is not None and record.get("mooncake"):
            _mooncake(plan, record, vocab, kv_id, record.get("mooncake"))
    elif deploy == "kv_store_lb":
        count: int = record["instances"] if isinstance(record.get("instances"), int) else 1
        workers = [_strings(a, "vllm_worker_argvs") for a in as_list(record.get("vllm_worker_argvs"))]
        head = _strings(record.get("vllm_argv"), "vllm_argv")
        for k in range(1, count + 1):
            name = f"{base}-instance-{k}" if count > 1 else base
            plan["workloads"].append(_serve(f"instance-{k}", name, head, workers, record.get("env"), g))
        lb = as_dict(record.get("router"))
        if lb:
            lb_port: int = lb["port"] if isinstance(lb.get("port"), int) else 30080
            plan["workloads"].append(
                _helper("router", f"{base}-router", lb.get("command"), lb.get("install"), lb_port, []))
        _mooncake(plan, record, vocab, record.get("strategy"),
                  {"master": record.get("master"), "store": record.get("store")})
    else:
        raise ResolveError(f"deploy type {deploy!r} has no deployment documents")
    return plan
