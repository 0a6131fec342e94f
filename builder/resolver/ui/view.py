"""The interactive builder's view model: one call per click (site-features §6-§7)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, TypedDict

from ..docker import docker_run, source_checkout
from ..hardware import (
    fits_single_node,
    gpu_count_of,
    node_vram_gb,
    raw_generation,
    served_model_id,
    variant_of,
)
from ..install import initial_install_tab
from ..memory import import_command, memory_fallback, memory_for_record
from ..memory.memo import content_key
from ..omni import active_omni_task, omni_example, resolve_omni
from ..presets import resolve_preset
from ..resolve import applicable_notes
from ..shell import pip_view
from ..strategies import deploy_type_of, is_multi_node
from ..types import JSON, Selection, View, Vocab
from ..values import as_dict, as_list, get_key, int_if_integral, is_num, js_str
from .address import canonical_query, stored_choices
from .advanced import advanced_options
from .bench import bench_text, client_endpoint
from .commands import command_tabs, curl_command, substitute_endpoints
from .controls import add_tab_inputs, install_controls, preset_rows
from .deploy import INSTALL_CHOICES, DeployView, deploy_view
from .env_panel import command_values, curl_target, env_panel, placeholder_names
from .events import apply_event, apply_preset, event_rule
from .facts import (
    BuilderFacts,
    device_noun,
    hardware_name,
    make_pill,
    variant_label,
)
from .install import install_view
from .kv_rows import kv_rows
from .parsing import int_or
from .performance import performance_view, stored_block
from .rows import (
    feature_reason,
    features_rows,
    hardware_row,
    make_row,
    nodes_rows,
    omni_rows,
    strategy_row,
    variant_row,
)
from .state import enabled_features, initial_state, instance_count, parse_state, pd_pools, reconcile
from .summary import single_node_tp, summary_line


def omni_command(facts: BuilderFacts, hw: str, res: dict[str, Any], install: dict[str, Any]) -> tuple[str,
                                                                                                      str]:
    """The omni command card as (prelude, command): in Docker mode the ``docker run`` form with the install
    tab's image (a weights path bind-mounted read-only, ``model.docker_source`` mounted and prepended to
    ``PYTHONPATH``), else the env exports and ``vllm serve``."""
    p = facts.profile(hw)
    if install["active"] == "docker" and install["image"] is not None:
        port = get_key(facts.recipe.get("omni"), "port")
        return "", docker_run(res["command"], res["env"], install["image"], p,
                              port if type(port) is int else 8000, source=source_checkout(facts.recipe))
    prelude = (pip_view(res["command"], res["env"], p)[: -len(res["command"])].rstrip("\n") if res["env"]
               else "")
    return prelude, res["command"]


def hardware_note(facts: BuilderFacts, hw: str) -> dict[str, Any] | None:
    """The recipe's note for this hardware; its link is ``{label, href}`` (or a bare URL string)."""
    hn = as_dict(as_dict(facts.recipe.get("hardware_notes")).get(hw))
    if not hn.get("body"):
        return None
    link = hn.get("link") if hn.get("link") is not None else hn.get("url")
    href, text = (get_key(link, "href"), get_key(link, "label")) if isinstance(link, dict) else (link, None)
    return {"title": js_str(hn.get("title") or "Hardware note"), "body": js_str(hn["body"]),
            "link": href if isinstance(href, str) and href else None,
            "link_text": js_str(text or hn.get("link_text") or "Read guide")}


def memory_view(facts: BuilderFacts, record: dict[str, Any], selected: Hashable = None) -> JSON:
    """The record's memory block (as ``resolve --json`` shows it), or the vram_minimum_gb fallback note;
    recalled by ``selected``, the content of the selection ``record`` resolves (None: not recalled)."""
    if selected is not None:
        return facts.recall(("memory_view", selected), lambda: memory_view(facts, record))
    variant_key = str(record.get("variant") or "default")
    variant = variant_of(facts.recipe, variant_key)
    memory = (record.get("memory")
              or memory_for_record(record, facts.recipe, variant, facts.profile(str(record.get("hardware")))))
    if memory is not None:
        return dict(memory)
    fallback: JSON = {"fallback": memory_fallback(variant)}
    hf_id = facts.recipe.get("hf_id")
    if isinstance(hf_id, str):
        fallback["command"] = import_command(hf_id)
    return fallback


class Step(TypedDict):
    """One click (or the page load) applied to a state: what the view is computed from
    (:func:`step_view`, a function of the step and the facts alone)."""

    state: dict[str, Any]  # reconciled, with ``hw_pinned``
    storage: dict[str, Any]  # what the page stores: ``{"prefs", "recipe"}``
    endpoints: dict[str, Any]  # the saved Env values the commands show


def builder_state(recipe: dict[str, Any], vocab: Vocab, state: dict[str, Any] | None = None,
                  event: dict[str, Any] | None = None, facts: BuilderFacts | None = None,
                  predictions: Any = None) -> View:
    """The interactive builder's complete view for one UI state (site-features §6-§7).

    ``event`` None = page load: ``state`` holds the URL query parameters (strings, §7.1 names plus
    ``install``, ``cuda``, ``preset``, ``point``) and optionally ``_prefs`` (the stored global
    preference ``{"hardware": id}``), ``_stored`` (this recipe's stored choices) and ``_endpoints``
    (saved Env values).  Otherwise ``state`` is the ``state`` of the previous result (plus
    ``_endpoints``) and ``event`` one click: ``{"type": ..., "value": ..., "feature"/"role"/"axis":
    ...}`` of a type of ``events.EVENT_RULES`` (the view names the event each control sends).

    Returns ``{state, query, storage, rows, install, summary, tabs, tabs_numbered, curl, bench, target,
    notes, hardware_note, vram_warning, tp_hint, presets, preset, preset_rows, placeholders, omni}``.

    ``facts``: the :class:`BuilderFacts` of (``recipe``, ``vocab``), to share what they remember
    across calls (the build's stored clicks); a new one by default. ``predictions``: the recipe's stored
    predictions (its ``.performance.json``), which the view's ``performance`` section draws from.
    """
    facts = BuilderFacts(recipe, vocab, shared=False) if facts is None else facts
    facts.use_predictions(predictions)
    return step_view(facts, builder_step(facts, state, event))


def builder_step(facts: BuilderFacts, state: dict[str, Any] | None = None,
                 event: dict[str, Any] | None = None) -> Step:
    """The first half of :func:`builder_state`: ``event`` applied to ``state`` and reconciled."""
    raw = as_dict(state)
    endpoints = {k: v for k, v in as_dict(raw.get("_endpoints")).items() if isinstance(k, str)}
    storage: dict[str, Any] = {"prefs": None, "recipe": None}
    if event is None:
        current = initial_state(facts, raw, as_dict(raw.get("_prefs")), as_dict(raw.get("_stored")))
        current["hw_pinned"] = isinstance(raw.get("hardware"), str) and bool(raw.get("hardware"))
        if not facts.omni and raw.get("strategy") in facts.comp and current["nodes"] == 1 and \
                is_multi_node(facts.vocab, raw["strategy"]) and facts.clusterable(current["hardware"]):
            current["nodes"] = max(2, facts.floor_nodes(raw["strategy"], current["hardware"]))
        if raw.get("nodes") not in (None, "") and int_or(raw.get("nodes"), 1) in facts.node_pills(
                current["hardware"]) and not facts.omni:
            current["nodes"] = (int_or(raw.get("nodes"), 1)
                                if facts.clusterable(current["hardware"]) and facts.multi_capable() else 1)
        if current["preset"]:
            apply_preset(facts, current, current["preset"], current["point"])
            current["install"] = raw.get("install") if raw.get("install") in INSTALL_CHOICES else None
            current["cuda"] = "cu129" if raw.get("cuda") == "cu129" else "default"
    else:
        current = parse_state(facts, raw)
        current["hw_pinned"] = raw.get("hw_pinned") is True
        out: dict[str, Any] = {}
        apply_event(facts, current, as_dict(event), out)
        if out.get("prefs"):
            current["hw_pinned"] = True
            storage["prefs"] = out["prefs"]
    pinned = current.pop("hw_pinned", False)
    current = reconcile(facts, current)
    current["hw_pinned"] = pinned
    rule = None if event is None else event_rule(as_dict(event))
    if rule is not None and rule.stores_choices:
        storage["recipe"] = stored_choices(facts, current)
    return {"state": current, "storage": storage, "endpoints": endpoints}


def step_key(step: Step) -> str:
    """The fingerprint of a step (plain data): equal fingerprints, equal steps, equal views (the view is
    a function of the step and the facts alone)."""
    return repr(step)


def step_view(facts: BuilderFacts, step: Step) -> View:
    """The second half of :func:`builder_state`: the view of one step."""
    return _view(facts, step["state"], step["storage"], step["endpoints"])


def _apply_commands(install: dict[str, Any], deploy: DeployView) -> None:
    """The active deployment install tab shows how to start the files below (a file another one reads,
    such as an env file, has no command of its own)."""
    tab = next(t for t in install["tabs"] if t["id"] == deploy["format"])
    started = [f for f in deploy["files"] if f["apply"]]
    tab["command"] = "\n".join(f["apply"] for f in started)
    if len(started) > 1:
        tab["note"] = ("Each file runs on its own host: copy it there with the .env lines it "
                       "names, then start it.")
    elif started:
        tab["note"] = f"Download {' and '.join(f['filename'] for f in deploy['files'])} below, then start it."


def _view(facts: BuilderFacts, state: dict[str, Any], storage: dict[str, Any],
          endpoints: dict[str, Any]) -> View:
    hw, p = state["hardware"], facts.profile(state["hardware"])
    rows: list[dict[str, Any]] = [hardware_row(facts, state)]
    view: View = {"omni": facts.omni, "hardware_note": None, "vram_warning": None, "tp_hint": None,
                  "notes": [],
                  "preset": None, "presets": [], "curl": None, "bench": None, "target": None, "deploy": None,
                  "performance": None}
    presets = as_dict(facts.recipe.get("presets"))
    preset = as_dict(presets.get(state["preset"])) if state["preset"] else None
    if facts.omni:
        task = active_omni_task(facts.recipe, state["task"], hw)
        rows += omni_rows(facts, state, task)
        vrow = variant_row(facts, state)
        if vrow:
            rows.append(vrow)
        res = resolve_omni(facts.recipe, facts.taxonomy, state["variant"], task, hw)
        install = install_view(facts, state, None, None, "omni")
        prelude, command = omni_command(facts, hw, res, install)
        prelude, command = substitute_endpoints(prelude, endpoints), substitute_endpoints(command, endpoints)
        tabs = [
            {"id": "tab-0", "label": "vLLM Serve", "name": "vLLM Serve", "kind": "serve", "prelude": prelude,
             "command": command, "copy": f"{prelude}\n\n{command}" if prelude else command,
             "client": True, "inputs": []}]
        numbered = False
        host = js_str(endpoints.get("VLLM_HOST") or "localhost")
        port = endpoints.get("VLLM_PORT") or 8000
        view.update({"curl": omni_example(task, host, port, res["model_id"]) if task else None,
                     "target": {"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000}})
        summary = summary_line(facts, state, None, None, None, task)
        sid, kv = None, None
    else:
        vrow = variant_row(facts, state)
        if vrow:  # always a row outside omni
            rows.append(vrow)
        sid = facts.active_strategy(hw, state["nodes"], state["strategy"])
        rows.append(strategy_row(facts, state, sid))
        kv = state["kv_offload"]
        if kv is not None and kv not in facts.kv_ids and facts.kv_reason(kv, hw, sid) is not None:
            kv = None  # CB-KV-11: remembered but inactive
        rows += kv_rows(facts, state, sid, kv)
        rows += nodes_rows(facts, state, sid)
        rows += features_rows(facts, state, sid)
        adv = advanced_options(facts, sid)
        rows.append(make_row("advanced", "Advanced", [
            make_pill(a["id"], a["label"], a["id"] in state["advanced"], None, a["description"],
                      shown=a["shown"])
            for a in adv], kind="checkbox", event={"type": "advanced"},
            count=sum(1 for a in adv if a["id"] in state["advanced"] and a["shown"])))
        enabled = [f for f in enabled_features(facts, state) if feature_reason(facts, state, f, sid) is None]
        effective = {k: facts.mode(k, state["variant"], hw, state["fmode"].get(k)) for k in facts.features}
        modes = {k: m for k, m in effective.items() if m is not None}
        advanced_args = [a for o in adv if o["id"] in state["advanced"] and o["shown"] for a in o["args"]]
        if preset is not None:
            resolved = resolve_preset(facts.recipe, facts.vocab, state["preset"])
            point = resolved["points"].get(state["point"])
            record = dict(point) if point else None
            if record is None:
                view["warnings"] = resolved["warnings"]
        else:
            record = None
        selection: Selection | None = None
        selected = None  # the selection's content (content_key) when the record is of one
        if record is None:
            selection = {"hardware": hw, "variant": state["variant"], "substitute": False, "strategy": sid,
                         "nodes": state["nodes"], "features": enabled, "modes": modes,
                         "advanced_args": advanced_args, "kv_offload": kv, "cuda": state["cuda"],
                         "docker": False}  # the view's docker text is its tabs' (builder_tabs)
            if sid == "pd_cluster":
                selection["pd_nodes"] = {r: {k: v for k, v in pool.items() if k != "modes"}
                                         for r, pool in pd_pools(facts, state).items()}
            if kv in facts.kv_ids:
                count = instance_count(facts, state, kv)
                selection["kv_instances"] = {"count": count, "current": state["kv_instance"]}
            selected = content_key(selection)
            record = facts.resolved(selection, selected)
            kv = record.get("kv_offload")
        view["memory"] = memory_view(facts, record, selected)
        block = stored_block(facts, record)  # the selection's predictions: the panel and the Bench popover
        view["performance"] = performance_view(facts, state, sid, record, selection, block)
        install = install_view(facts, state, kv if preset is None else None, preset,
                               record.get("deploy_type"))
        docker = install["active"] == "docker"
        if install["active"] not in ("pip", "docker"):
            view["deploy"] = deploy_view(facts, install["active"], record, selection)
            _apply_commands(install, view["deploy"])
        target = curl_target(facts, state, record)
        tabs, numbered = command_tabs(facts, state, record, kv, docker, command_values(target, endpoints),
                                      selected)
        add_tab_inputs(tabs, rows, state)
        tp = None
        if preset is not None:
            point_cfg = as_dict(as_dict(preset.get("points")).get(state["point"]))
            tp = point_cfg["tp"] if "tp" in point_cfg else preset.get("tp")
        summary = summary_line(facts, state, sid, kv, tp, None)
        host, port = client_endpoint(target, endpoints)
        model = served_model_id(facts.recipe, variant_of(facts.recipe, state["variant"]))
        hf_id = js_str(facts.recipe.get("hf_id"))
        bench = bench_text(hf_id, record, block, state, target, endpoints, model)
        curl = (facts.recall(("curl", host, port, model), lambda: curl_command(host, port, model))
                if type(port) in (int, str) and type(model) is str else curl_command(host, port, model))
        view.update({"curl": curl, "bench": bench, "target": target})
        variant = variant_of(facts.recipe, state["variant"])
        need = variant.get("vram_minimum_gb")
        if (state["nodes"] == 1 and deploy_type_of(get_key(facts.strategies, sid)) == "single_node"
            and not fits_single_node(p, variant)):
            view["vram_warning"] = (
                f"{hardware_name(facts.taxonomy, hw)} provides {gpu_count_of(p)} × "
                f"{round(node_vram_gb(p) / max(1, gpu_count_of(p)))} GB = "
                f"{js_str(int_if_integral(node_vram_gb(p)))} GB, but "
                f"{variant_label(state['variant'], variant)} needs at least {js_str(need)} GB for the "
                "weights alone (more for the KV cache). Pick a bigger GPU, multi-node Tensor Parallel, or a "
                "lower --max-model-len.")
        if state["nodes"] == 1 and sid == "single_node_tp" and preset is None:
            tp = single_node_tp(facts, state["variant"], hw, tp)
            cpu = raw_generation(p) == "cpu"
            if cpu or (is_num(tp) and tp < gpu_count_of(p)):
                unit = "NUMA nodes" if cpu else f"{device_noun(p)}s"
                view["tp_hint"] = (
                    f"This command uses {js_str(tp)} of the node's {gpu_count_of(p)} {unit}. Raise "
                    "--tensor-parallel-size in the command to use more.")
                rows[0]["note"] = view["tp_hint"]  # shown under the Hardware row
    view["hardware_note"] = hardware_note(facts, hw)
    sel = {"hardware": hw, "variant": state["variant"], "strategy": sid}
    all_notes = as_list(facts.recipe.get("notes"))
    applicable = applicable_notes(facts.recipe, sel) if all_notes else []
    view["notes"] = [
        {"index": i, "title": js_str(get_key(n, "title") or "Note"), "body": js_str(get_key(n, "body") or "")}
        for i, n in enumerate(all_notes) if n in applicable]
    for key, pr in presets.items():
        pr = as_dict(pr)
        view["presets"].append({"key": key, "label": js_str(pr.get("label") or key),
                                "hardware": hardware_name(facts.taxonomy, js_str(pr.get("hardware"))),
                                "selected": key == state["preset"],
                                "points": [{"key": k, "label": js_str(get_key(pt, "label") or k),
                                            "concurrency": get_key(pt, "concurrency"),
                                            "selected": key == state["preset"] and k == state["point"]}
                                           for k, pt in as_dict(pr.get("points")).items()]})
    if preset is not None:
        view["preset"] = {"key": state["preset"], "point": state["point"],
                          "label": js_str(preset.get("label") or state["preset"]),
                          "description": js_str(preset.get("description") or ""),
                          "workload": js_str(preset.get("workload") or ""),
                          "anchor": f"preset-{state['preset']}"}
    names = placeholder_names(tabs)
    target = view["target"] or {}
    for name in (target.get("host_var"), target.get("port_var")):
        if name and name not in names:
            names.append(name)
    view["env"] = env_panel(target, names)
    install_controls(install)
    view["preset_rows"] = preset_rows(view["presets"], view["preset"])
    view["tabs_numbered"] = numbered
    view.update(
        {"state": state, "query": canonical_query(facts, state, sid, initial_install_tab(facts.recipe)),
         "storage": storage, "rows": rows, "install": install, "summary": summary, "tabs": tabs,
         "placeholders": names, "strategy": sid, "kv_offload": kv, "hf_id": facts.recipe.get("hf_id")})
    return view


