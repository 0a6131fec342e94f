"""The builder views one click away from a recipe page's initial state, computed at build time.

A recipe page opens on :func:`resolver.builder_state` of a URL without parameters, no stored
preference, no stored choices and no saved endpoints (:data:`INITIAL_INPUTS`): :func:`initial_view`,
embedded in the page's HTML (``#builder-initial``) and painted as soon as builder.js runs.  Until Pyodide has
booted, the page answers a first click on a pill of :data:`FIRST_CLICK_ROWS` from
``builder-data/<hf_id>.clicks.json``: for every such click the resolver's own view, stored as a
patch against the initial view (:func:`view_patch`; the page applies it with the same rules,
``applyPatch`` in static/builder.js).  The page uses a stored view only while its inputs are exactly
:data:`INITIAL_INPUTS` and it still shows the initial view; any other click waits for the worker.

Patch format (JSON): ``{"=": value}`` replaces, ``{"-": 1}`` deletes a key, ``{"{": {key: patch}}``
patches an object key by key, ``{"[": {"index": patch}}`` patches a list of the same length.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

import orjson

from builder import resolver

# The rows whose pills are precomputed, and the event type each sends (static/builder.js handlers).
FIRST_CLICK_ROWS: dict[str, str] = {"hardware": "hardware", "variant": "variant", "strategy": "strategy",
                                    "nodes": "nodes", "task": "task"}
# What the page's inputs must be for the stored views to apply (static/builder.js pageInputs()).
INITIAL_INPUTS: dict[str, dict[str, Any]] = {"query": {}, "prefs": {}, "stored": {}, "endpoints": {}}

Patch = dict[str, Any]


class FirstClicks(TypedDict):
    """``builder-data/<hf_id>.clicks.json``."""

    inputs: dict[str, dict[str, Any]]  # the page inputs the initial view was computed from
    views: dict[str, Patch]  # event_key(event) -> view_patch(initial view, view after the click)


def event_key(event: dict[str, Any]) -> str:
    """The lookup key of one click: compact JSON with sorted keys (JSON.stringify with sorted keys in JS)."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def one_click_events(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The clicks the page can send from ``view``: every enabled pill of the precomputed rows."""
    events: list[dict[str, Any]] = []
    for row in view.get("rows") or []:
        kind = FIRST_CLICK_ROWS.get(row.get("id"))
        if row.get("axis"):
            events += [{"type": "axis", "axis": row["axis"], "value": p["value"]}
                       for p in row.get("pills") or [] if not p.get("disabled")]
        elif kind is not None:
            events += [{"type": kind, "value": p["value"]} for p in row.get("pills") or [] if not p.get("disabled")]
    return events


def view_patch(before: Any, after: Any) -> Patch:
    """The patch turning ``before`` into ``after`` (objects key by key, equal-length lists item by item)."""
    if isinstance(before, dict) and isinstance(after, dict):
        changes: dict[str, Patch] = {}
        for key, value in after.items():
            if key not in before:
                changes[key] = {"=": value}
            elif not _same(before[key], value):
                changes[key] = view_patch(before[key], value)
        for key in before:
            if key not in after:
                changes[key] = {"-": 1}
        return {"{": changes}
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        return {"[": {str(i): view_patch(a, b) for i, (a, b) in enumerate(zip(before, after, strict=True))
                      if not _same(a, b)}}
    return {"=": after}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON (``1`` and ``True`` differ; Python's ``==`` alone would call them equal)."""
    if type(a) is not type(b) or a != b:
        return False
    return not isinstance(a, (dict, list)) or orjson.dumps(a) == orjson.dumps(b)


def apply_patch(before: Any, patch: Patch) -> Any:
    """``before`` with ``patch`` applied (a new value; ``before`` is not changed)."""
    if "=" in patch:
        return patch["="]
    if "{" in patch:
        out = dict(before)
        for key, change in patch["{"].items():
            if "-" in change:
                out.pop(key, None)
            else:
                out[key] = apply_patch(out.get(key), change)
        return out
    out_list = list(before)
    for index, change in patch["["].items():
        out_list[int(index)] = apply_patch(out_list[int(index)], change)
    return out_list


def initial_view(recipe: dict[str, Any], vocab: Any) -> dict[str, Any] | None:
    """The view of :data:`INITIAL_INPUTS` as the page receives it (the recipe page embeds it and
    paints it first; the stored clicks are patches of it); None when ``builder_state`` fails."""
    try:
        view: dict[str, Any] = _as_json(resolver.builder_state(recipe, vocab, {}))
    except Exception:  # noqa: BLE001 - such a page waits for the worker, whose error it then shows
        return None
    return view


def first_clicks(recipe: dict[str, Any], vocab: Any, initial: dict[str, Any]) -> FirstClicks:
    """Every one-click view from ``initial`` (the view of :data:`INITIAL_INPUTS`), as patches.

    The state sent with each click is what the page sends: the view's state plus ``_endpoints``.
    """
    state = {**initial["state"], "_endpoints": {}}
    views: dict[str, Patch] = {}
    for event in one_click_events(initial):
        key = event_key(event)
        if key not in views:
            views[key] = view_patch(initial, _as_json(resolver.builder_state(recipe, vocab, state, event)))
    return {"inputs": INITIAL_INPUTS, "views": views}


def _as_json(value: Any) -> Any:
    """``value`` as the page receives it (through JSON: tuples become lists)."""
    return orjson.loads(orjson.dumps(value))
