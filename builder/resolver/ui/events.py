"""Builder events: one click applied to the state, by a table of small named handlers.

:data:`EVENT_RULES` (markdown-it's ruler is the model: an ordered registry of named handlers) is the
one place that lists the clicks there are: per event ``type`` its handler, whether the click keeps an
applied preset and whether the page stores the recipe's choices after it.  :func:`apply_event` and
``view.builder_step`` read it; the view's rows say which event each pill sends (``row["event"]``).
A type the table does not list changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ..features import available_modes
from ..hardware import (
    fits_single_node,
    lookup_exact,
    pick_fitting_variant,
    variant_of,
)
from ..omni import active_omni_task, omni_task_for_hardware, omni_tasks
from ..presets import preset_point_selection
from ..resolve import node_count_value
from ..strategies import (
    deploy_type_of,
    initial_node_count,
    nodes_for,
    nodes_for_strategy,
)
from ..values import MAX_NODES, as_dict, as_list, get_key, js_str
from .deploy import INSTALL_CHOICES
from .facts import EXCLUSIVE_FEATURES, MAX_INSTANCES, BuilderFacts
from .parsing import int_or
from .perf_pick import pick_outcome
from .perf_state import perf_state
from .rows import feature_reason, node_reason
from .state import clamp, enabled_features, fresh_state, pd_pools


class Click(NamedTuple):
    """One click as its handler sees it."""

    event: dict[str, Any]  # as sent: ``{"type", "value"}`` and ``"feature"``/``"role"``/``"axis"``
    value: Any  # ``event["value"]``
    sid: str | None  # the active strategy before the click (None for omni)
    out: dict[str, Any]  # ``out["prefs"]``: a new global preference to store (a hardware click)


Handler = Callable[[BuilderFacts, dict[str, Any], Click], None]


class EventRule(NamedTuple):
    """One row of :data:`EVENT_RULES`."""

    type: str  # the event's ``type``
    handler: Handler  # changes the state in place
    keeps_preset: bool  # the click leaves an applied preset (and its point) selected
    stores_choices: bool  # the page stores this recipe's choices after the click


def _on_hardware(facts: BuilderFacts, state: dict[str, Any], hw: str, out: dict[str, Any]) -> None:
    """CB-HW-06."""
    if hw not in facts.profiles or hw not in facts.listed() or facts.declared.get(hw) == "unsupported":
        return
    if not facts.any_variant_runs(hw) and not facts.omni:
        return
    if facts.omni and not facts.usable(hw, state["variant"]):
        return
    old = state["hardware"]
    out["prefs"] = {"hardware": hw}
    state["hardware"] = hw
    if hw != old:
        state["perf_price"] = None  # a GPU-hour price is the old GPU's
    if facts.omni:
        return
    p = facts.profile(hw)
    if state["features"] is not None:
        hoi = facts.recipe.get("hardware_opt_in_features")
        new_out = set(as_list(lookup_exact(hoi, hw)))
        old_out = set(as_list(lookup_exact(hoi, old)))
        recipe_opt_in = set(as_list(facts.recipe.get("opt_in_features")))
        feats = [f for f in state["features"] if f not in new_out or f in facts.forced(state["variant"])]
        feats += [f for f in old_out - new_out if f not in recipe_opt_in and f not in feats]
        state["features"] = feats
    for fkey, mode in list(state["fmode"].items()):
        avail = available_modes(as_dict(facts.features.get(fkey)), state["variant"], p, hw)
        if mode not in avail:
            if avail:
                state["fmode"][fkey] = avail[0]
            else:
                del state["fmode"][fkey]
    if state["kv_offload"] in facts.kv_ids and facts.mooncake_reason(hw, state["kv_offload"]) is not None:
        state["kv_offload"], state["kv_instances"], state["kv_instance"] = None, None, 0
    if not facts.runs(hw, state["variant"]):
        state["variant"] = pick_fitting_variant(facts.recipe, p, hw) or state["variant"]
    variant = variant_of(facts.recipe, state["variant"])
    if not facts.clusterable(hw):
        state["nodes"] = 1
    elif not fits_single_node(p, variant) and facts.multi_capable():
        state["nodes"] = max(2, state["nodes"])
    elif _single_node_default(facts):
        state["nodes"] = 1
    # the reader's strategy stays while the new hardware offers it at this node count (else the
    # recommended one)
    if state["strategy"] not in facts.row_strategies(hw, state["nodes"]) or not facts.supported(
            state["strategy"], hw):
        state["strategy"] = None


def _hardware(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    _on_hardware(facts, state, js_str(click.value), click.out)


def _variant(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    _on_variant(facts, state, js_str(click.value))


def _single_node_default(facts: BuilderFacts) -> bool:
    """CB-HW-06: the recipe names a single-node ``default_strategy`` (a hardware switch then returns to one
    node when the model fits); a recipe without one keeps the reader's node count."""
    default = facts.recipe.get("default_strategy")
    return isinstance(default, str) and deploy_type_of(get_key(facts.strategies, default)) == "single_node"


def _on_variant(facts: BuilderFacts, state: dict[str, Any], vkey: str) -> None:
    """CB-VAR-05."""
    if vkey not in facts.variants or not any(facts.runs(hw, vkey) for hw in facts.listed()):
        return
    old = state["variant"]
    state["variant"] = vkey
    if not facts.usable(state["hardware"], vkey):
        state["hardware"] = facts.default_hw(vkey)
    state["fmode"] = {}
    if state["features"] is not None:
        normal = set(facts.defaults(state["hardware"], "default")) - facts.forced("default")
        feats = [f for f in state["features"]
                 if not (f in facts.forced(old) - facts.forced(vkey) and f not in normal)]
        feats += [f for f in facts.forced(vkey) if f not in feats]
        state["features"] = [f for f in facts.features if f in feats]


def apply_preset(facts: BuilderFacts, state: dict[str, Any], pkey: Any, point: Any) -> None:
    preset = as_dict(as_dict(facts.recipe.get("presets")).get(pkey))
    if not preset:
        state["preset"] = state["point"] = None
        return
    points = as_dict(preset.get("points"))
    point = point if point in points else next(iter(points), None)
    sel = preset_point_selection(facts.recipe, preset, as_dict(points.get(point)))
    fresh = fresh_state()
    fresh.update(perf_workload=state["perf_workload"], perf_price=state["perf_price"])
    fresh.update(install=state["install"], cuda=state["cuda"], preset=pkey, point=point,
                 variant=sel["variant"],
                 hardware=sel["hardware"], strategy=sel["strategy"], features=sel["features"],
                 fmode=dict(sel["modes"]), kv_offload=sel["kv_offload"])
    nodes = node_count_value(sel["nodes"])
    fresh["nodes"] = nodes or nodes_for(facts.recipe, facts.vocab, sel["strategy"],
                                        facts.profile(sel["hardware"]), sel["hardware"])
    state.clear()
    state.update(fresh)


def _strategy(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    hw, value = state["hardware"], click.value
    if value in facts.row_strategies(hw, state["nodes"]) and facts.supported(value, hw):
        state["strategy"] = value
        if value != "pd_cluster" and facts.clusterable(hw):
            state["nodes"] = max(state["nodes"], facts.floor_nodes(value, hw))


def _nodes(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    n = int_or(click.value)
    pills = facts.node_pills(state["hardware"])
    if n in pills and node_reason(facts, state, n) is None:
        state["nodes"], state["strategy"] = n, None


def _kv(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    _on_kv(facts, state, js_str(click.value) if click.value is not None else "off", click.sid)


def _kv_instances(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    n = int_or(click.value, None)
    state["kv_instances"] = 1 if n is None else min(max(n, 1), MAX_INSTANCES)


def _kv_instance(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    state["kv_instance"] = int_or(click.value, 1) - 1


def _feature(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    key = js_str(click.value)
    if key in facts.features and feature_reason(facts, state, key, click.sid) is None:
        feats = enabled_features(facts, state)
        if key in feats:
            feats.remove(key)
        else:
            feats.append(key)
            if EXCLUSIVE_FEATURES.get(key) in feats:
                feats.remove(EXCLUSIVE_FEATURES[key])
        state["features"] = [f for f in facts.features if f in feats]


def _mode(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    hw, fkey, mode = state["hardware"], js_str(click.event.get("feature")), js_str(click.value)
    if mode in available_modes(as_dict(facts.features.get(fkey)), state["variant"], facts.profile(hw), hw):
        state["fmode"][fkey] = mode


def _advanced(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    key, chosen = js_str(click.value), state["advanced"]
    state["advanced"] = [a for a in chosen if a != key] if key in chosen else chosen + [key]


def _pool_role(click: Click) -> str | None:
    """The PD pool a pool click names (``"prefill"`` or ``"decode"``), else None."""
    role = click.event.get("role")
    return role if role in ("prefill", "decode") else None


def _pool_nodes(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    role = _pool_role(click)
    if role is not None:
        state[f"{role}_nodes"] = clamp(click.value, 1, MAX_NODES, 1)
        state[f"{role}_rank"] = 0


def _pool_mode(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    role, value, hw = _pool_role(click), click.value, state["hardware"]
    if role is None:
        return
    pool = pd_pools(facts, state)[role]
    if value in pool["modes"]:
        state[f"{role}_mode"] = value
        state[f"{role}_rank"] = 0
        floor = nodes_for_strategy(facts.recipe, js_str(value), facts.profile(hw).get("gpu_count"), hw)
        state[f"{role}_nodes"] = max(pool["nodes"], floor)


def _pool_rank(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    role = _pool_role(click)
    if role is not None:
        state[f"{role}_rank"] = int_or(click.value, 1) - 1


def _task(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    state["task"] = js_str(click.value)


def _axis(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    _on_axis(facts, state, js_str(click.event.get("axis")), js_str(click.value))


def _install(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    if click.value in INSTALL_CHOICES:
        state["install"] = click.value


def _cuda(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    state["cuda"] = "cu129" if click.value == "cu129" else "default"


def _preset(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    apply_preset(facts, state, click.value, None)


def _point(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    apply_preset(facts, state, state["preset"], click.value)


def _reset(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    keep = {k: state[k] for k in ("install", "cuda")}
    state.clear()
    state.update(fresh_state(), **keep)
    # the recipe's own defaults; the stored global GPU preference is not touched (no ``out["prefs"]``)
    state["hardware"] = facts.default_hw(facts.vkey(None))
    state["nodes"] = initial_node_count(facts.recipe, facts.vocab, facts.vkey(None), state["hardware"])
    state["hw_pinned"] = False  # the hardware is the recipe's default again, not the reader's pick


def _refresh(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    """The saved Env values changed (or the predictions arrived): the same state, shown again."""


def _perf(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    """The Performance panel's workload, point or GPU-hour price (an invalid value restores the default)."""
    key = js_str(click.event.get("type"))
    state[key] = perf_state({key: click.value})[key]


def _pick(facts: BuilderFacts, state: dict[str, Any], click: Click) -> None:
    """"Pick for me": the command meeting the reader's target with the most tok/s per GPU, applied as the
    selection (variant, hardware, node count, strategy and point), or the note saying what no command
    meets."""
    choice, note = pick_outcome(facts, state["perf_workload"], click.value)
    if choice is not None:
        _on_variant(facts, state, choice["variant"])
        _on_hardware(facts, state, choice["hardware"], click.out)
        hw, strategy = state["hardware"], choice["strategy"]
        counts = [1] if not facts.clusterable(hw) else sorted(
            {max(1, facts.floor_nodes(strategy, hw)), *facts.node_pills(hw)})
        state["nodes"] = next((n for n in counts if strategy in facts.row_strategies(hw, n)), counts[0])
        state["strategy"], state["perf_concurrency"] = strategy, choice["concurrency"]
    state["perf_pick"] = note


def _on_kv(facts: BuilderFacts, state: dict[str, Any], value: str, sid: str | None) -> None:
    """CB-KV-05/06/08/10."""
    hw = state["hardware"]
    options = as_dict(facts.taxonomy.get("kv_offload"))
    if value == "off":
        state["kv_offload"], state["kv_instances"], state["kv_instance"] = None, None, 0
    elif value == "mooncake":
        if facts.mooncake_reason(hw) is None:
            first = next((t for t in facts.kv_ids if facts.mooncake_reason(hw, t) is None), None)
            if state["kv_offload"] not in facts.kv_ids:
                state["kv_offload"], state["kv_instance"] = first, 0
    elif value in facts.kv_ids:
        if facts.mooncake_reason(hw, value) is None:
            state["kv_offload"] = value
    elif value in as_dict(facts.taxonomy.get("kv_offload_groups")):
        members = sorted((k for k, o in options.items() if get_key(o, "group") == value),
                         key=lambda k: as_dict(options[k]).get("order") or 0)
        pick = next((m for m in members if facts.kv_reason(m, hw, sid) is None), None)
        if pick is not None:
            state["kv_offload"], state["kv_instances"], state["kv_instance"] = pick, None, 0
    elif value in options and facts.kv_reason(value, hw, sid) is None:
        state["kv_offload"], state["kv_instances"], state["kv_instance"] = value, None, 0


def _on_axis(facts: BuilderFacts, state: dict[str, Any], axis: str, option: str) -> None:
    tasks = [omni_task_for_hardware(t, state["hardware"]) for t in omni_tasks(facts.recipe)]
    cur = active_omni_task(facts.recipe, state["task"], state["hardware"])
    want = dict(as_dict(cur.get("axes")) if cur else {})
    want[axis] = option
    match = next((t for t in tasks if as_dict(t.get("axes")) == want), None) or next(
        (t for t in tasks if as_dict(t.get("axes")).get(axis) == option), None)
    if match is not None:
        state["task"] = match["key"]


EVENT_RULES: tuple[EventRule, ...] = (
    EventRule("hardware", _hardware, keeps_preset=False, stores_choices=True),
    EventRule("variant", _variant, keeps_preset=False, stores_choices=True),
    EventRule("strategy", _strategy, keeps_preset=False, stores_choices=True),
    EventRule("nodes", _nodes, keeps_preset=False, stores_choices=True),
    EventRule("kv_offload", _kv, keeps_preset=False, stores_choices=True),
    EventRule("kv_member", _kv, keeps_preset=False, stores_choices=True),
    EventRule("topology", _kv, keeps_preset=False, stores_choices=True),
    EventRule("kv_instances", _kv_instances, keeps_preset=False, stores_choices=True),
    EventRule("kv_instance", _kv_instance, keeps_preset=True, stores_choices=False),
    EventRule("feature", _feature, keeps_preset=False, stores_choices=True),
    EventRule("mode", _mode, keeps_preset=False, stores_choices=True),
    EventRule("advanced", _advanced, keeps_preset=False, stores_choices=True),
    EventRule("pool_nodes", _pool_nodes, keeps_preset=False, stores_choices=True),
    EventRule("pool_mode", _pool_mode, keeps_preset=False, stores_choices=True),
    EventRule("pool_rank", _pool_rank, keeps_preset=True, stores_choices=False),
    EventRule("task", _task, keeps_preset=False, stores_choices=False),
    EventRule("axis", _axis, keeps_preset=False, stores_choices=False),
    EventRule("install", _install, keeps_preset=True, stores_choices=False),
    EventRule("cuda", _cuda, keeps_preset=True, stores_choices=False),
    EventRule("preset", _preset, keeps_preset=True, stores_choices=True),
    EventRule("point", _point, keeps_preset=True, stores_choices=True),
    EventRule("reset", _reset, keeps_preset=False, stores_choices=True),
    EventRule("refresh", _refresh, keeps_preset=True, stores_choices=False),
    EventRule("perf_workload", _perf, keeps_preset=True, stores_choices=False),
    EventRule("perf_concurrency", _perf, keeps_preset=True, stores_choices=False),
    EventRule("perf_price", _perf, keeps_preset=True, stores_choices=False),
    EventRule("pick", _pick, keeps_preset=False, stores_choices=True),
)
_RULES: dict[str, EventRule] = {rule.type: rule for rule in EVENT_RULES}


def event_rule(event: dict[str, Any]) -> EventRule | None:
    """The rule of ``event``'s type; None for a type :data:`EVENT_RULES` does not list."""
    kind = event.get("type")
    return _RULES.get(kind) if isinstance(kind, str) else None


def apply_event(facts: BuilderFacts, state: dict[str, Any], ev: dict[str, Any],
                out: dict[str, Any]) -> None:
    """Apply one click (``{"type": ..., "value": ..., ...}``) to the state by its rule of
    :data:`EVENT_RULES` (``out["prefs"]``: a new global preference to store, set by a hardware click
    only).  A click of a type the table does not list changes nothing, not even the applied preset."""
    rule = event_rule(ev)
    if rule is None:
        return
    if not rule.keeps_preset:
        state["preset"] = state["point"] = None
    state["perf_pick"] = None  # the last "Pick for me" answer stays for the next view only
    sid = None if facts.omni else facts.active_strategy(state["hardware"], state["nodes"],
                                                          state["strategy"])
    rule.handler(facts, state, Click(ev, ev.get("value"), sid, out))
