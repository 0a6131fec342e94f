"""The interactive resolver call (cluster spec §5 entry point for the builder and CLI) and notes.

Vocabulary
----------
``vocab = {"taxonomy": <taxonomy.yaml mapping>, "strategies": <mapping>}`` where
``strategies`` holds the serving strategies keyed by ``name`` (sorted file order)
followed by the Mooncake kv_store deployments keyed by ``name``.

Selection keys accepted by :func:`resolve` (every key is optional)
------------------------------------------------------------------
``hardware``        hardware profile id; default: :func:`default_hardware` for the variant.
``variant``         variant key; default ``"default"``.
``substitute``      bool, default True: when the variant does not *run on* the hardware
                    (precision, allowlist, non-scalable VRAM) switch to
                    :func:`pick_fitting_variant` (single-node spec §4.4/§4.5).
``strategy``        strategy id (a serving strategy, ``pd_cluster`` or a kv_store id);
                    default: the recommended strategy of cluster spec §10.3.
``nodes``           node count N (nodes per instance under Mooncake); default: the
                    recommended node count of §10.3 (alternatives rule for an explicit
                    strategy: ``nodes_for``).
``features``        ordered list of enabled feature keys; default
                    :func:`default_enabled_features`.
``modes``           ``{feature: mode}`` selected feature modes; default ``{}``.
``advanced_args``   list of extra serve arguments (pipeline step 8); default ``[]``.
``pd_nodes``        ``{"prefill": R, "decode": R}`` with ``R`` an int or
                    ``{"nodes", "rank", "parallelism"}``; default for ``pd_cluster``: the
                    builder pool defaults of cluster §11 (:func:`pd_pool_defaults`); pass
                    ``{}`` for co-located pools or :func:`pick_pd_nodes` for the API sizing.
``kv_offload``      taxonomy ``kv_offload`` key or kv_store id; ``None``/``"off"`` = none.
                    When ``strategy`` itself is a kv_store id it is used as the kv id and the
                    serving strategy is chosen as in §10.5 unless ``serving_strategy`` is given.
``serving_strategy`` serving strategy for a kv_store id given as ``strategy``.
``kv_instances``    int or ``{"count", "current"}`` (Mooncake instances); default: deployment's.
``tp``              int: render as if ``variants.<v>.tp`` were this number (presets).
``image``           docker image override (presets).
``cuda``            ``"default"`` or ``"cu129"`` (builder CUDA toggle, §12.7).
``task``            omni task key or id (omni recipes only).
``docker``          bool, default True: include docker forms in the result.

The result of :func:`resolve` is a rendering record in the json-api §5.1 shape plus
builder-only extras (``companions``, ``current_instance``, ``mooncake``, ``install``, ...).
"""

from __future__ import annotations

from typing import Any

from .context import RenderContext
from .docker import docker_image
from .features import default_enabled_features
from .hardware import default_hardware, pick_fitting_variant, profile_of, runs_on, variant_of
from .install import interactive_install
from .memory import memory_for_record
from .omni import active_omni_task, omni_example, omni_tasks, resolve_omni
from .records import kv_serving, render_record
from .strategies import kv_store_ids, nodes_for, offered_strategies, pd_pool_defaults, recommend_from
from .tabs import builder_tabs
from .topologies.mooncake import kv_option
from .types import JSON, Selection, Vocab
from .values import as_dict, as_list, get_key, is_num, is_omni


def node_count_value(v: Any) -> int | None:
    return int(v) if is_num(v) and v >= 1 and float(v).is_integer() else None


def resolve(recipe: JSON, vocab: Vocab, selection: Selection | None = None,
            with_views: bool = True) -> dict[str, Any]:
    """Resolve one builder selection (keys documented in the module docstring).

    ``with_views=False`` leaves out ``install`` and ``tabs`` of non-omni records (the builder view
    computes its own, once).

    Returns the json-api §5.1 record for the selection plus builder extras: ``kv_offload``
    (effective key or None), ``companions`` (single node), ``current_instance`` (Mooncake),
    ``mooncake`` (Mooncake x PD), ``install`` (§13.2) and ``tabs`` (§9.10 / §11.3).
    Omni recipes return ``{deploy_type: "omni", hardware, variant, task, command, env,
    model_id, example, tasks, install}``.
    """
    sel = as_dict(selection)
    taxonomy = as_dict(vocab.get("taxonomy"))
    variant_key = sel.get("variant") or "default"
    hw = sel.get("hardware") or default_hardware(recipe, taxonomy, variant_key)
    profile = profile_of(taxonomy, hw)
    if sel.get("substitute", True) and not runs_on(profile, variant_of(recipe, variant_key), hw):
        variant_key = pick_fitting_variant(recipe, profile, hw) or variant_key
    cuda = sel.get("cuda") or "default"
    if is_omni(recipe):
        task = active_omni_task(recipe, sel.get("task"), hw)
        out = resolve_omni(recipe, taxonomy, variant_key, task, hw)
        return {"deploy_type": "omni", "hardware": hw, "variant": variant_key, "task": task,
                **out, "example": omni_example(task, model_id=out["model_id"]) if task else None,
                "tasks": omni_tasks(recipe),
                "install": interactive_install(recipe, vocab, hw, variant_key, cuda)}
    features = sel.get("features")
    features = default_enabled_features(recipe, hw, variant_key) if features is None else list(features)
    kv = sel.get("kv_offload")
    kv = None if kv in (None, "off") else kv
    strategy = sel.get("strategy")
    nodes = node_count_value(sel.get("nodes"))
    ctx = RenderContext(recipe, vocab, variant_key, hw, features, sel.get("modes"), sel.get("advanced_args"),
                        sel.get("tp"))
    if strategy is None:
        offered = offered_strategies(recipe, vocab, variant_key, hw)
        strategy, rec_nodes = recommend_from(recipe, vocab, offered, profile, hw, ctx.variant)
        nodes = nodes or rec_nodes
    serving = strategy
    if strategy in kv_store_ids(vocab):
        kv = strategy
        pick = kv_serving(recipe, vocab, profile, ctx.variant, hw)
        serving = sel.get("serving_strategy") or (pick[0] if pick else "single_node_tp")
        nodes = nodes or (pick[1] if pick else 1)
    nodes = nodes or nodes_for(recipe, vocab, serving, profile, hw)
    pd_nodes = sel.get("pd_nodes")
    if serving == "pd_cluster" and pd_nodes is None:
        pd_nodes = pd_pool_defaults(recipe, vocab, variant_key, hw)
    image = sel.get("image") or docker_image(recipe, ctx.variant, profile, hw, cuda)
    record = render_record(ctx, serving, nodes, pd_nodes, kv, sel.get("kv_instances"), image, extras=True,
                           docker=sel.get("docker") is not False)
    mooncake_active = record["deploy_type"] == "kv_store_lb" or "mooncake" in record
    option_active = kv_option(ctx, kv, serving, as_dict(ctx.strategies.get(serving))) is not None
    record["kv_offload"] = kv if mooncake_active or option_active else None
    memory = memory_for_record(record, recipe, ctx.variant, ctx.profile)
    if memory is not None:
        record["memory"] = memory
    if not with_views:
        return record
    record["install"] = interactive_install(recipe, vocab, hw, variant_key, cuda, record["kv_offload"])
    if sel.get("docker") is not False:
        record["tabs"] = builder_tabs(record, vocab, kv if record["kv_offload"] == kv else None)
    return record


def applicable_notes(recipe: dict[str, Any], selection: dict[str, Any]) -> list[dict[str, Any]]:
    """json-api §11.2: notes whose ``when`` lists (hardware, variant, strategy) all match.

    A ``when`` list for a key absent from ``selection`` does not match; a note without
    ``when`` always applies.
    """
    out = []
    for note in as_list(recipe.get("notes")):
        when = as_dict(get_key(note, "when"))
        if all(not isinstance(when.get(k), list) or selection.get(k) in when[k]
               for k in ("hardware", "variant", "strategy")):
            out.append(note)
    return out
