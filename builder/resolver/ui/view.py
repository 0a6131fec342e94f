"""The interactive builder's view model: one call per click (site-features §6-§7)."""

from __future__ import annotations

import re
from typing import Any

from ..context import _Ctx
from ..features import effective_mode
from ..hardware import _gpus, _model_id, _raw_generation, _variant, _vram, default_hardware, fits_single_node
from ..install import initial_install_tab
from ..omni import active_omni_task, omni_example, resolve_omni
from ..pipeline import _single_parallel_size
from ..presets import resolve_preset
from ..resolve import applicable_notes, resolve
from ..shell import pip_view
from ..strategies import _deploy_type, _is_multi, node_pills
from ..values import _dict, _get, _int_if_integral, _is_num, _list, js_str
from .commands import _PLACEHOLDER, _bench, _command_tabs, _curl, _substitute
from .events import _apply_preset, _event
from .facts import _B, _advanced_options, _hw_name, _int_or, _pill, _variant_label
from .install import _install_view
from .rows import (
    _feature_reason,
    _features_rows,
    _hardware_row,
    _kv_rows,
    _nodes_rows,
    _omni_rows,
    _row,
    _strategy_row,
    _variant_row,
)
from .state import _enabled, _init, _parse, _pools, _reconcile


def _summary(b: _B, s: dict[str, Any], sid: str | None, kv: str | None, c: _Ctx | None, task: dict[str, Any] | None) -> dict[str, Any]:
    hw, p = s["hardware"], b.profile(s["hardware"])
    name = _hw_name(b.taxonomy, hw)
    precision = js_str(_variant(b.recipe, s["variant"]).get("precision") or s["variant"]).upper()
    if b.omni:
        parts = [name, js_str(task["label"]) if task else "Omni", precision]
        return {"verified": False, "text": " · ".join(parts)}
    if b.declared.get(hw) == "verified" and kv is None and s["preset"] is None:
        return {"verified": True, "text": f"Verified on {js_str(p.get('brand'))} {name}".strip()}
    count = 1
    if kv in b.kv_ids:
        count = s["kv_instances"] or _dict(b.strategies.get(kv)).get("default_instances") or 1
    total = s["nodes"] * count if sid != "pd_cluster" else 1
    hw_part = f"{total}× {name}" if total > 1 else name
    st = _dict(b.strategies.get(sid))
    if sid == "pd_cluster":
        strat = "PD cluster"
    elif _deploy_type(st) == "multi_node" or sid != "single_node_tp":
        strat = js_str(st.get("display_name") or sid)
    else:
        strat = f"TP={js_str(_single_parallel_size(c, sid))}" if c else "TP"
    parts = [hw_part, strat, precision]
    if kv in b.kv_ids:
        dep = _dict(b.strategies.get(kv))
        parts.append(f"Mooncake ({js_str(dep.get('label') or kv).split(' ')[0]})")
    elif kv is not None:
        opt = _dict(_dict(b.taxonomy.get("kv_offload")).get(kv))
        grp = _dict(_dict(b.taxonomy.get("kv_offload_groups")).get(opt.get("group")))
        if grp:
            parts.append(f"{js_str(grp.get('label'))} ({js_str(opt.get('label') or kv)})")
        else:
            parts.append(js_str(opt.get("display_name") or opt.get("label") or kv))
    return {"verified": False, "text": " · ".join(parts)}


def _target(b: _B, s: dict[str, Any], record: dict[str, Any] | None) -> dict[str, Any]:
    """POP-03: curl / bench host and port variables, with their defaults."""
    deploy = _get(record, "deploy_type")
    if deploy == "pd_cluster":
        port = _get(_dict(b.strategies.get("pd_cluster")).get("router"), "port") or 30000
        return {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": port}
    if deploy == "kv_store_lb" and _get(record, "router"):
        return {"host_var": "ROUTER_HOST", "port_var": "ROUTER_PORT", "port": record["router"].get("port") or 30080}
    if deploy == "multi_node" or (deploy == "kv_store_lb" and _get(record, "vllm_worker_commands")):
        return {"host_var": "HEAD_IP", "port_var": "VLLM_PORT", "port": 8000}
    return {"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000}


def _query(b: _B, s: dict[str, Any], sid: str | None, initial_tab: str | None) -> str:
    """§7.1 canonical query string (defaults omitted; install/cuda/preset/point added)."""
    q: list[tuple[str, str]] = []
    if s["preset"]:
        q += [("preset", s["preset"]), ("point", s["point"] or "")]
    else:
        if s["variant"] != "default":
            q.append(("variant", s["variant"]))
        if s.get("hw_pinned") or s["hardware"] != default_hardware(b.recipe, b.taxonomy, s["variant"]):
            q.append(("hardware", s["hardware"]))
        if not b.omni:
            if s["strategy"] and s["strategy"] == sid and sid != b.recommended(s["hardware"], s["nodes"]):
                q.append(("strategy", sid))
            if s["nodes"] != 1:
                q.append(("nodes", str(s["nodes"])))
            if s["features"] is not None and set(s["features"]) != set(b.defaults(s["hardware"], s["variant"])):
                q.append(("features", ",".join(s["features"]) or "none"))
            p = b.profile(s["hardware"])
            fm = [f"{k}:{m}" for k, m in s["fmode"].items()
                  if m != effective_mode(b.recipe, k, s["variant"], p, s["hardware"])]
            if fm:
                q.append(("fmode", ",".join(fm)))
            if s["advanced"]:
                q.append(("advanced", ",".join(s["advanced"])))
            if s["kv_offload"]:
                q.append(("kv_offload", s["kv_offload"]))
            if s["kv_instances"] is not None:
                q.append(("kv_instances", str(s["kv_instances"])))
            if s["kv_instance"]:
                q.append(("kv_instance", str(s["kv_instance"])))
            for role in ("prefill", "decode"):
                if s[f"{role}_nodes"] is not None:
                    q.append((f"{role}_nodes", str(s[f"{role}_nodes"])))
            for role in ("prefill", "decode"):
                if s[f"{role}_mode"]:
                    q.append((f"{role}_mode", s[f"{role}_mode"]))
            for role in ("prefill", "decode"):
                if s[f"{role}_rank"]:
                    q.append((f"{role}_rank", str(s[f"{role}_rank"])))
        if s["task"]:
            q.append(("task", s["task"]))
    if s["install"] and s["install"] != initial_tab:
        q.append(("install", s["install"]))
    if s["cuda"] == "cu129":
        q.append(("cuda", "cu129"))

    def enc(v: str) -> str:
        return re.sub(r"[^A-Za-z0-9_.~:,-]", lambda m: "".join(f"%{x:02X}" for x in m.group(0).encode()), v)
    return "&".join(f"{k}={enc(v)}" for k, v in q)


def _stored(b: _B, s: dict[str, Any]) -> dict[str, Any]:
    """§7.4 per-recipe storage object (empty values pruned)."""
    out: dict[str, Any] = {}
    if s["strategy"]:
        out["strategy"] = s["strategy"]
    if s["nodes"] != 1:
        out["nodes"] = s["nodes"]
    if s["features"]:
        out["features"] = list(s["features"])
    if s["fmode"]:
        out["featureModes"] = dict(s["fmode"])
    if s["kv_offload"]:
        out["kvOffload"] = s["kv_offload"]
    if s["kv_instances"] is not None:
        out["kvInstances"] = s["kv_instances"]
    return out


def builder_state(recipe: dict[str, Any], vocab: dict[str, Any], state: dict[str, Any] | None = None, event: dict[str, Any] | None = None) -> dict[str, Any]:
    """The interactive builder's complete view for one UI state (site-features §6-§7).

    ``event`` None = page load: ``state`` holds the URL query parameters (strings, §7.1 names plus
    ``install``, ``cuda``, ``preset``, ``point``) and optionally ``_prefs`` (the stored global
    preference ``{"hardware": id}``), ``_stored`` (this recipe's stored choices) and ``_endpoints``
    (saved Env values).  Otherwise ``state`` is the ``state`` of the previous result (plus
    ``_endpoints``) and ``event`` one click: ``{"type": "hardware"|"variant"|"strategy"|"nodes"|
    "kv_offload"|"kv_member"|"topology"|"kv_instances"|"kv_instance"|"feature"|"mode"|"advanced"|
    "pool_nodes"|"pool_mode"|"pool_rank"|"task"|"axis"|"install"|"cuda"|"preset"|"point"|"reset"|
    "refresh", "value": ..., "feature"/"role"/"axis": ...}``.

    Returns ``{state, query, storage, rows, install, summary, tabs, curl, bench, target, notes,
    hardware_note, vram_warning, tp_hint, presets, preset, placeholders, omni}``.
    """
    b = _B(recipe, vocab)
    raw = _dict(state)
    endpoints = {k: v for k, v in _dict(raw.get("_endpoints")).items() if isinstance(k, str)}
    storage: dict[str, Any] = {"prefs": None, "recipe": None}
    if event is None:
        s = _init(b, raw, _dict(raw.get("_prefs")), _dict(raw.get("_stored")))
        s["hw_pinned"] = isinstance(raw.get("hardware"), str) and bool(raw.get("hardware"))
        if not b.omni and raw.get("strategy") in b.comp and s["nodes"] == 1 and \
                _is_multi(b.vocab, raw["strategy"]) and b.clusterable(s["hardware"]):
            s["nodes"] = max(2, b.floor_nodes(raw["strategy"], s["hardware"]))
        if raw.get("nodes") not in (None, "") and _int_or(raw.get("nodes"), 1) in node_pills(
                recipe, vocab, s["hardware"]) and not b.omni:
            s["nodes"] = _int_or(raw.get("nodes"), 1) if b.clusterable(s["hardware"]) and b.multi_capable() else 1
        if s["preset"]:
            _apply_preset(b, s, s["preset"], s["point"])
            s["install"] = raw.get("install") if raw.get("install") in ("pip", "docker") else None
            s["cuda"] = "cu129" if raw.get("cuda") == "cu129" else "default"
    else:
        s = _parse(b, raw)
        s["hw_pinned"] = raw.get("hw_pinned") is True
        out: dict[str, Any] = {}
        _event(b, s, _dict(event), out)
        if out.get("prefs"):
            s["hw_pinned"] = True
            storage["prefs"] = out["prefs"]
        if _dict(event).get("type") == "reset":
            s["hw_pinned"] = False
    pinned = s.pop("hw_pinned", False)
    s = _reconcile(b, s)
    s["hw_pinned"] = pinned
    if event is not None and _dict(event).get("type") not in ("refresh", "install", "cuda", "kv_instance",
                                                                "pool_rank", "task", "axis"):
        storage["recipe"] = _stored(b, s)
    return _view(b, s, storage, endpoints)


def _view(b: _B, s: dict[str, Any], storage: dict[str, Any], endpoints: dict[str, Any]) -> dict[str, Any]:
    hw, p = s["hardware"], b.profile(s["hardware"])
    rows: list[dict[str, Any]] = [_hardware_row(b, s)]
    view: dict[str, Any] = {"omni": b.omni, "hardware_note": None, "vram_warning": None, "tp_hint": None, "notes": [],
                  "preset": None, "presets": [], "curl": None, "bench": None, "target": None}
    presets = _dict(b.recipe.get("presets"))
    preset = _dict(presets.get(s["preset"])) if s["preset"] else None
    if b.omni:
        task = active_omni_task(b.recipe, s["task"], hw)
        rows += _omni_rows(b, s, task)
        vrow = _variant_row(b, s)
        if vrow:
            rows.append(vrow)
        res = resolve_omni(b.recipe, b.taxonomy, s["variant"], task, hw)
        install = _install_view(b, s, None, None)
        prelude = pip_view(res["command"], res["env"], p)[: -len(res["command"])].rstrip("\n") if res["env"] else ""
        command = res["command"]
        prelude, command = _substitute(prelude, endpoints), _substitute(command, endpoints)
        tabs = [{"id": "tab-0", "label": "vLLM Serve", "name": "vLLM Serve", "kind": "serve", "prelude": prelude,
                 "command": command, "copy": f"{prelude}\n\n{command}" if prelude else command, "client": True}]
        host = js_str(endpoints.get("VLLM_HOST") or "localhost")
        port = endpoints.get("VLLM_PORT") or 8000
        view.update(curl=omni_example(task, host, port, res["model_id"]) if task else None,
                    target={"host_var": "VLLM_HOST", "port_var": "VLLM_PORT", "port": 8000})
        summary = _summary(b, s, None, None, None, task)
        sid, kv = None, None
    else:
        vrow = _variant_row(b, s)
        rows.append(vrow)
        sid = b.active_strategy(hw, s["nodes"], s["strategy"])
        rows.append(_strategy_row(b, s, sid))
        kv = s["kv_offload"]
        if kv is not None and kv not in b.kv_ids and b.kv_reason(kv, hw, sid) is not None:
            kv = None  # CB-KV-11: remembered but inactive
        rows += _kv_rows(b, s, sid, kv)
        rows += _nodes_rows(b, s, sid)
        rows += _features_rows(b, s, sid)
        adv = _advanced_options(b, sid)
        rows.append(_row("advanced", "Advanced", [
            _pill(a["id"], a["label"], a["id"] in s["advanced"], None, a["description"], shown=a["shown"])
            for a in adv], kind="checkbox", count=sum(1 for a in adv if a["id"] in s["advanced"] and a["shown"])))
        enabled = [f for f in _enabled(b, s) if _feature_reason(b, s, f, sid) is None]
        modes = {k: effective_mode(b.recipe, k, s["variant"], p, hw, s["fmode"].get(k)) for k in b.features}
        modes = {k: m for k, m in modes.items() if m is not None}
        advanced_args = [a for o in adv if o["id"] in s["advanced"] and o["shown"] for a in o["args"]]
        if preset is not None:
            resolved = resolve_preset(b.recipe, b.vocab, s["preset"])
            point = resolved["points"].get(s["point"])
            record = dict(point) if point else None
            if record is None:
                view["warnings"] = resolved["warnings"]
        else:
            record = None
        if record is None:
            selection = {"hardware": hw, "variant": s["variant"], "substitute": False, "strategy": sid,
                         "nodes": s["nodes"], "features": enabled, "modes": modes, "advanced_args": advanced_args,
                         "kv_offload": kv, "cuda": s["cuda"]}
            if sid == "pd_cluster":
                selection["pd_nodes"] = {r: {k: v for k, v in pool.items() if k != "modes"}
                                         for r, pool in _pools(b, s).items()}
            if kv in b.kv_ids:
                count = s["kv_instances"] or _dict(b.strategies.get(kv)).get("default_instances") or 1
                selection["kv_instances"] = {"count": count, "current": s["kv_instance"]}
            record = resolve(b.recipe, b.vocab, selection, with_views=False)
            kv = record.get("kv_offload")
        install = _install_view(b, s, kv if preset is None else None, preset)
        docker = install["active"] == "docker"
        tabs = _command_tabs(b, s, record, kv, docker, endpoints)
        tp = None
        if preset is not None:
            point_cfg = _dict(_dict(preset.get("points")).get(s["point"]))
            tp = point_cfg["tp"] if "tp" in point_cfg else preset.get("tp")
        c = _Ctx(b.recipe, b.vocab, s["variant"], hw, enabled, modes, advanced_args, tp)
        summary = _summary(b, s, sid, kv, c, None)
        target = _target(b, s, record)
        host = js_str(endpoints.get(target["host_var"]) or "localhost")
        port = endpoints.get(target["port_var"]) or target["port"]
        model = _model_id(b.recipe, _variant(b.recipe, s["variant"]))
        view.update(curl=_curl(host, port, model), bench=_bench(host, port, model), target=target)
        variant = _variant(b.recipe, s["variant"])
        need = variant.get("vram_minimum_gb")
        if s["nodes"] == 1 and _deploy_type(b.strategies.get(sid)) == "single_node" and not fits_single_node(p, variant):
            view["vram_warning"] = (
                f"{_hw_name(b.taxonomy, hw)} provides {_gpus(p)} × {round(_vram(p) / max(1, _gpus(p)))} GB = "
                f"{js_str(_int_if_integral(_vram(p)))} GB, but {_variant_label(s['variant'], variant)} needs at least "
                f"{js_str(need)} GB for the weights alone (more for the KV cache). Pick a bigger GPU, multi-node "
                "Tensor Parallel, or a lower --max-model-len.")
        if s["nodes"] == 1 and sid == "single_node_tp" and preset is None:
            tp = _single_parallel_size(c, sid)
            cpu = _raw_generation(p) == "cpu"
            if cpu or (_is_num(tp) and tp < _gpus(p)):
                unit = "NUMA nodes" if cpu else "GPUs"
                view["tp_hint"] = (f"This command uses {js_str(tp)} of the node's {_gpus(p)} {unit}. Raise "
                                   "--tensor-parallel-size in the command to use more.")
    hn = _dict(_dict(b.recipe.get("hardware_notes")).get(hw))
    if hn.get("body"):
        view["hardware_note"] = {"title": js_str(hn.get("title") or "Hardware note"), "body": js_str(hn["body"]),
                                 "link": hn.get("link") or hn.get("url"),
                                 "link_text": js_str(hn.get("link_text") or "Read guide")}
    sel = {"hardware": hw, "variant": s["variant"], "strategy": sid}
    all_notes = _list(b.recipe.get("notes"))
    view["notes"] = [{"index": i, "title": js_str(_get(n, "title") or "Note"), "body": js_str(_get(n, "body") or "")}
                     for i, n in enumerate(all_notes) if n in applicable_notes(b.recipe, sel)]
    for key, pr in presets.items():
        pr = _dict(pr)
        view["presets"].append({"key": key, "label": js_str(pr.get("label") or key),
                                "hardware": _hw_name(b.taxonomy, js_str(pr.get("hardware"))),
                                "selected": key == s["preset"],
                                "points": [{"key": k, "label": js_str(_get(pt, "label") or k),
                                            "concurrency": _get(pt, "concurrency"),
                                            "selected": key == s["preset"] and k == s["point"]}
                                           for k, pt in _dict(pr.get("points")).items()]})
    if preset is not None:
        view["preset"] = {"key": s["preset"], "point": s["point"], "label": js_str(preset.get("label") or s["preset"]),
                          "description": js_str(preset.get("description") or ""),
                          "workload": js_str(preset.get("workload") or ""), "anchor": f"preset-{s['preset']}"}
    texts = [t["prelude"] + "\n" + t["command"] for t in tabs]
    names: list[str] = []
    for text in texts:
        for m in _PLACEHOLDER.finditer(text):
            if m.group(1) not in names:
                names.append(m.group(1))
    target = view["target"] or {}
    for name in (target.get("host_var"), target.get("port_var")):
        if name and name not in names:
            names.append(name)
    view.update(state=s, query=_query(b, s, sid, initial_install_tab(b.recipe)), storage=storage, rows=rows,
                install=install, summary=summary, tabs=tabs, placeholders=names, strategy=sid, kv_offload=kv,
                hf_id=b.recipe.get("hf_id"))
    return view


