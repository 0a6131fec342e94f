"""json-api §5.1 rendering records and the §4.3-§4.5 support matrix of one base."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, TypedDict

from .context import RenderContext
from .docker import docker_argv, docker_image, docker_run
from .features import default_enabled_features
from .hardware import fits_single_node, offered_hardware, profile_of, used_variant
from .strategies import (
    deploy_type_of,
    effective_compatible_strategies,
    is_multi_node,
    kv_store_ids,
    nodes_for,
    nodes_for_strategy,
    offered_strategies,
    pick_pd_nodes,
    recommend_from,
    recommend_strategy,
    strategy_catalogue,
)
from .topologies.mooncake import kv_option, kv_result
from .topologies.multi_node import serve_result
from .topologies.pd import pd_result
from .types import ResolveError, Vocab
from .values import as_dict, get_key, is_num, is_omni


class RecordCommand(TypedDict):
    """One command of a rendering record, as :func:`iter_commands` finds it."""

    role: str  # "serve" (single node); "head", "worker" (multi-node); "vllm", "vllm_worker" (kv_store);
    # "prefill", "decode", "router" (PD); "companion"
    number: int  # worker node number from 1 (0 for the other roles)
    # where the argv (else the command) sits in the record: "argv", "worker_argvs[0]", "prefill.argv"
    path: str
    label: str  # a companion's own label ("" for the other roles)
    command: Any  # the command text (untrusted published JSON: not checked to be a string)
    argv: Any
    docker_command: Any
    env: dict[str, Any] | None  # None for a command that is not ``vllm serve`` (router, companion)
    port: int  # the port a docker rendering publishes


def _entry(role: str, path: str, command: Any, argv: Any = None, docker_command: Any = None,
           env: dict[str, Any] | None = None, number: int = 0, port: int = 8000,
           label: str = "") -> RecordCommand:
    return {"role": role, "number": number, "path": path, "label": label, "command": command, "argv": argv,
            "docker_command": docker_command, "env": env, "port": port}


def _listed(record: dict[str, Any], key: str) -> list[Any]:
    value = record.get(key)
    return value if isinstance(value, list) else []


def _workers(record: dict[str, Any], prefix: str, env: dict[str, Any],
             aliases: bool) -> Iterator[RecordCommand]:
    role = f"{prefix}worker"
    """The worker nodes of ``<prefix>worker_commands``/``_argvs`` (else the single
    ``<prefix>worker_command``)."""
    commands, argvs = _listed(record, f"{prefix}worker_commands"), _listed(record, f"{prefix}worker_argvs")
    dockers = _listed(record, f"{prefix}worker_docker_commands")
    if not commands and not argvs:
        if record.get(f"{prefix}worker_command") or record.get(f"{prefix}worker_argv") is not None:
            yield _entry(role, f"{prefix}worker_argv", record.get(f"{prefix}worker_command"),
                         record.get(f"{prefix}worker_argv"), record.get(f"{prefix}worker_docker_command"),
                         env, 1)
        return
    if aliases and record.get(f"{prefix}worker_argv") is not None:  # the first worker again, as published
        yield _entry(role, f"{prefix}worker_argv", record.get(f"{prefix}worker_command"),
                     record.get(f"{prefix}worker_argv"), record.get(f"{prefix}worker_docker_command"), env, 1)
    for index in range(max(len(commands), len(argvs))):
        yield _entry(role, f"{prefix}worker_argvs[{index}]",
                     commands[index] if index < len(commands) else None,
                     argvs[index] if index < len(argvs) else None,
                     dockers[index] if index < len(dockers) else None, env, index + 1)


def iter_commands(record: Any, aliases: bool = False) -> Iterator[RecordCommand]:
    """Every command of a §5.1 rendering record, in the order a user runs them.

    The one walker of the record shapes: single node (``command``/``argv`` and its companions),
    multi-node (``head_*`` then the workers), PD (``prefill``, ``decode``, then the ``router``),
    Mooncake kv_store (``vllm_*``, its workers, the ``router``). Works on published JSON of any
    shape (missing or mistyped keys are skipped). ``aliases`` also yields the singular
    ``worker_argv``/``vllm_worker_argv`` copy of the first worker, as the record publishes it.
    """
    if not isinstance(record, dict):
        return
    env: dict[str, Any] = as_dict(record.get("env"))
    if "command" in record or "argv" in record:
        yield _entry("serve", "argv", record.get("command"), record.get("argv"), record.get("docker_command"),
                     env)
    if "head_command" in record or "head_argv" in record:
        yield _entry("head", "head_argv", record.get("head_command"), record.get("head_argv"),
                     record.get("head_docker_command"), env)
    yield from _workers(record, "", env, aliases)
    if "vllm_command" in record or "vllm_argv" in record:
        yield _entry("vllm", "vllm_argv", record.get("vllm_command"), record.get("vllm_argv"),
                     record.get("vllm_docker_command"), env)
    yield from _workers(record, "vllm_", env, aliases)
    for role, port in (("prefill", 8001), ("decode", 8002)):
        part = record.get(role)
        if isinstance(part, dict):
            yield _entry(role, f"{role}.argv", part.get("command"), part.get("argv"),
                         part.get("docker_command"), as_dict(part.get("env")), port=port)
    router = record.get("router")
    if isinstance(router, dict) and router:
        yield _entry("router", "router.command", router.get("command"))
    for index, companion in enumerate(_listed(record, "companions")):
        if isinstance(companion, dict):
            yield _entry("companion", f"companions[{index}].command", companion.get("command"),
                         label=companion.get("label") or "")


def resolve_core(ctx: RenderContext, strategy_id: str, nodes: int = 1, pd_nodes: Any = None,
                 kv_offload: Any = None, kv_instances: Any = None) -> dict[str, Any]:
    """Cluster §5 dispatch: PD, Mooncake composition, multi-node, or single-node."""
    strategy = as_dict(ctx.strategies.get(strategy_id))
    nodes = nodes if is_num(nodes) else 1
    kv_store = ctx.strategies.get(kv_offload) if isinstance(kv_offload, str) else None
    kv_store = kv_store if deploy_type_of(kv_store) == "kv_store_lb" and isinstance(kv_store, dict) else None
    kv_opt = kv_option(ctx, kv_offload, strategy_id, strategy)
    if deploy_type_of(strategy) == "pd_cluster":
        return pd_result(ctx, strategy, nodes, pd_nodes, kv_store)
    if kv_store is not None:
        return kv_result(ctx, strategy_id, strategy, nodes, kv_opt, kv_store, kv_instances)
    return serve_result(ctx, strategy_id, strategy, nodes, kv_opt, None, "$HEAD_IP")


def _docker_pair(command: str, argv: list[Any], env: dict[str, Any], image: str | None,
                 profile: dict[str, Any], port: int = 8000) -> tuple[str, list[Any]]:
    return docker_run(command, env, image, profile, port), docker_argv(argv, env, image, profile, port)


def build_record(ctx: RenderContext, strategy_id: str, node_count: int, result: dict[str, Any],
                 image: str | None, docker: bool = True) -> dict[str, Any]:
    """Build the §5.1 record (key order matters) from a resolver result (``docker`` False: without the
    ``docker run`` forms, ``*docker_command*`` and ``*docker_argv*``)."""
    deploy = result["deploy_type"]
    rec: dict[str, Any] = {"hardware": ctx.hw, "strategy": strategy_id, "variant": ctx.variant_key,
                           "node_count": node_count, "deploy_type": deploy, "env": {}}
    if image is not None:
        rec["docker_image"] = image
    p = ctx.profile
    if deploy == "multi_node" and "head_command" in result:
        env = result["env"]
        rec["env"] = env
        rec.update(head_command=result["head_command"], worker_command=result["worker_command"],
                   worker_commands=result["worker_commands"], head_argv=result["head_argv"],
                   worker_argv=result["worker_argv"], worker_argvs=result["worker_argvs"])
        if docker:
            head = _docker_pair(result["head_command"], result["head_argv"], env, image, p)
            workers = [_docker_pair(cmd, a, env, image, p)
                       for cmd, a in zip(result["worker_commands"], result["worker_argvs"], strict=True)]
            rec.update(head_docker_command=head[0], worker_docker_command=workers[0][0],
                       worker_docker_commands=[w[0] for w in workers], head_docker_argv=head[1],
                       worker_docker_argv=workers[0][1], worker_docker_argvs=[w[1] for w in workers])
    elif deploy == "pd_cluster":
        for role, port in (("prefill", 8001), ("decode", 8002)):
            role_rec = dict(result[role])
            if docker:
                dc, da = _docker_pair(role_rec["command"], role_rec["argv"], role_rec["env"], image, p, port)
                role_rec.update(docker_command=dc, docker_argv=da)
            rec[role] = role_rec
        rec["router"] = result["router"]
        rec["router_config"] = result["router_config"]
    elif deploy == "kv_store_lb":
        vllm = result["vllm"]
        env = vllm["env"]
        rec.update(strategy=result.get("kv_id", strategy_id), node_count=result["node_count"], env=env)
        main = _docker_pair(vllm["command"], vllm["argv"], env, image, p) if docker else ("", [])
        multi = "workerCommands" in vllm
        workers = [_docker_pair(cmd, a, env, image, p)
                   for cmd, a in zip(vllm.get("workerCommands", []), vllm.get("workerArgvs", []),
                                     strict=True)] if docker else [("", [])]
        kv_store = dict(
            serving_strategy=result["serving_strategy"],
            kv_min_vllm_version=result.get("kv_min_vllm_version"),
            instances=result["instances"], vllm_command=vllm["command"], vllm_argv=vllm["argv"],
            vllm_worker_command=vllm.get("workerCommand"), vllm_worker_commands=vllm.get("workerCommands"),
            vllm_worker_argv=vllm.get("workerArgv"), vllm_worker_argvs=vllm.get("workerArgvs"),
            vllm_worker_docker_command=workers[0][0] if multi else None,
            vllm_worker_docker_argv=workers[0][1] if multi else None,
            vllm_worker_docker_commands=[w[0] for w in workers] if multi else None,
            vllm_worker_docker_argvs=[w[1] for w in workers] if multi else None,
            vllm_install=vllm.get("install"), vllm_docker_command=main[0], vllm_docker_argv=main[1],
            master=result["master"], store=result["store"], router=result["router"],
            mooncake_config=result["mooncake_config"], mooncake_config_note=result["mooncake_config_note"])
        rec.update(kv_store if docker else {k: v for k, v in kv_store.items() if "docker" not in k})
    else:
        env = result["env"]
        rec["env"] = env
        rec.update(command=result["command"], argv=result["argv"])
        if docker:
            dc, da = _docker_pair(result["command"], result["argv"], env, image, p)
            rec.update(docker_command=dc, docker_argv=da)
        if result.get("companions"):
            rec["companions"] = result["companions"]
    return rec


def render_record(ctx: RenderContext, strategy_id: str, nodes: int, pd_nodes: Any = None,
                  kv_id: str | None = None,
            kv_instances: Any = None, image: str | None = None, extras: bool = False,
                  docker: bool = True) -> dict[str, Any]:
    """Resolve one combination and build its record.

    ``kv_id`` is a taxonomy KV-offload key or a Mooncake id (then a kv_store record is built).
    ``extras`` keeps builder-only result keys (``current_instance``, ``mooncake``); ``docker`` False
    leaves out the ``docker run`` forms (:func:`build_record`).
    """
    if image is None:
        image = docker_image(ctx.recipe, ctx.variant, ctx.profile, ctx.hw)
    result = resolve_core(ctx, strategy_id, nodes, pd_nodes, kv_id, kv_instances)
    if result["deploy_type"] == "kv_store_lb":
        result["kv_id"] = kv_id
        result["kv_min_vllm_version"] = as_dict(get_key(ctx.strategies, kv_id)).get("min_vllm_version")
    record = build_record(ctx, strategy_id, nodes, result, image, docker)
    if extras:
        for key in ("current_instance", "mooncake"):
            if key in result:
                record[key] = result[key]
    return record


def _serving_for(recipe: dict[str, Any], vocab: Vocab, nc: int) -> str | None:
    """Cluster §10.5 ``servingFor``."""
    strategies = strategy_catalogue(vocab)

    def ok(sid: str) -> bool:
        dt = deploy_type_of(strategies.get(sid)) if sid in strategies else None
        return dt is not None and dt not in ("pd_cluster", "kv_store_lb") and (dt == "multi_node") == (nc > 1)

    rec = recommend_strategy(recipe, nc)
    if ok(rec):
        return rec
    return next((s for s in effective_compatible_strategies(recipe) if ok(s)), None)


def kv_serving(recipe: dict[str, Any], vocab: Vocab, profile: dict[str, Any], variant: dict[str, Any],
               hw: str) -> tuple[str, int] | None:
    """Cluster §10.5 steps 1-4: (serving strategy, nodes per instance) for a kv-store id."""
    nc = 1 if fits_single_node(profile, variant) else 2
    serving = _serving_for(recipe, vocab, nc)
    if serving is None and nc == 2:
        nc = 1
        serving = _serving_for(recipe, vocab, nc)
    if serving is None:
        return None
    if is_multi_node(vocab, serving):
        nc = max(nc, nodes_for_strategy(recipe, serving, profile.get("gpu_count"), hw))
    return serving, nc


def _render_alternative(ctx: RenderContext, vocab: Vocab, sid: str, kv_ids: list[str],
                        kv_pick: dict[str, tuple[str, int] | None]) -> dict[str, Any] | None:
    """Cluster §10.5 rendering of one non-recommended offered id (None = skipped); ``kv_ids`` are
    :func:`kv_store_ids`, ``kv_pick`` keeps the hardware's :func:`kv_serving` (the same for every kv id)."""
    if sid == "pd_cluster":
        pools = pick_pd_nodes(ctx.recipe, vocab, ctx.profile, ctx.variant, ctx.hw)
        return None if pools == "skip" else render_record(ctx, sid, 1, pools)
    if sid in kv_ids:
        if "pick" not in kv_pick:
            kv_pick["pick"] = kv_serving(ctx.recipe, vocab, ctx.profile, ctx.variant, ctx.hw)
        pick = kv_pick["pick"]
        return None if pick is None else render_record(ctx, pick[0], pick[1], kv_id=sid)
    return render_record(ctx, sid, nodes_for(ctx.recipe, vocab, sid, ctx.profile, ctx.hw))


def failure_warning(recipe: dict[str, Any], hf_id: str, variant_key: str, sid: str, err: Exception) -> str:
    name = recipe.get("hf_id") or hf_id
    return f"resolver failed for {name} variant {variant_key!r} strategy {sid!r}: {err}"


def render_matrix(recipe: dict[str, Any], vocab: Vocab, variant_key: str, hf_id: str) -> dict[str, Any]:
    """json-api §4.3-§4.5: recommended + alternative records per hardware of one base."""
    warnings: list[str] = []
    out: dict[str, Any] = {"hardware": [], "warnings": warnings}
    if variant_key not in as_dict(recipe.get("variants")) or is_omni(recipe):
        return out
    taxonomy = as_dict(vocab.get("taxonomy"))
    hardware = offered_hardware(recipe, taxonomy, variant_key)
    for index, hw in enumerate(hardware):
        entry = _render_hardware(recipe, vocab, taxonomy, variant_key, hw, hf_id, warnings)
        if entry is None:
            if index == 0:
                out["hardware"] = []
                return out
            continue
        out["hardware"].append(entry)
    return out


def _render_hardware(recipe: dict[str, Any], vocab: Vocab, taxonomy: dict[str, Any], variant_key: str,
                     hw: str, hf_id: str, warnings: list[str]) -> dict[str, Any] | None:
    """json-api §4.4 for one hardware; None when it yields no rendering."""
    profile = profile_of(taxonomy, hw)
    used = used_variant(recipe, profile, hw, variant_key)
    if used is None:
        return None
    ctx = RenderContext(recipe, vocab, used, hw, default_enabled_features(recipe, hw, used))
    offered = offered_strategies(recipe, vocab, used, hw)
    rec, nodes = recommend_from(recipe, vocab, offered, profile, hw, ctx.variant)
    try:
        if rec == "pd_cluster":
            pools = pick_pd_nodes(recipe, vocab, profile, ctx.variant, hw)
            if pools == "skip":
                return None
            record = render_record(ctx, rec, 1, pools)
        else:
            record = render_record(ctx, rec, nodes)
    except ResolveError as err:  # json-api §9.2: a content failure is a warning
        warnings.append(failure_warning(recipe, hf_id, used, rec, err))
        return None
    alternatives = []
    kv_ids = kv_store_ids(vocab)
    kv_pick: dict[str, tuple[str, int] | None] = {}
    for sid in offered:
        if sid == rec:
            continue
        try:
            alt = _render_alternative(ctx, vocab, sid, kv_ids, kv_pick)
        except ResolveError as err:
            warnings.append(failure_warning(recipe, hf_id, used, sid, err))
            continue
        if alt is not None:
            alternatives.append([sid, alt])
    return {"hardware": hw, "recommended": record, "alternatives": alternatives}
