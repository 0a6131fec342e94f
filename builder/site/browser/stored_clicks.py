"""The builder views the first two clicks on a recipe page reach, computed at build time.

A recipe page opens on :func:`resolver.builder_state` of a URL without parameters, no stored
preference, no stored choices and no saved endpoints (:data:`INITIAL_INPUTS`): :func:`initial_view`,
embedded in the page's HTML (``#builder-initial``) and painted as soon as builder.js runs.  Until Pyodide
has booted, the page answers a click on a pill of a row whose event is one of :data:`STORED_EVENTS` from
``builder-data/<hf_id>.clicks.json`` (:class:`StoredClicks`), the resolver's own views:

- ``views``: for every such pill of the initial view (the *first click*), the view after it, as a
  patch of the initial view (:func:`view_patch`);
- ``next``: for every first click, the views after a second click on a pill of those rows of *its*
  view, as patches of the first click's view, or ``{"@": 1}`` where the view is the one the same
  click makes from the initial view (``views`` holds it; most clicks on hardware or on the row just
  clicked are such, and :func:`resolver.builder_step` tells them apart without computing a view).

The page applies them with the same rules (``applyPatch`` in static/builder.js) while its inputs are
exactly :data:`INITIAL_INPUTS` and it still shows the initial view or a first click's view; any other
click waits for the worker.  A click whose view fails is not stored (the worker then reports it),
and a recipe stores at most :data:`MAX_STORED_VIEWS` views.

Patch format (JSON): ``{"=": value}`` replaces, ``{"-": 1}`` deletes a key, ``{"{": {key: patch}}``
patches an object key by key, ``{"[": {"index": patch}}`` patches a list of the same length.
"""

from __future__ import annotations

import json
from typing import Any, NamedTuple, TypedDict

import orjson

from builder import resolver

# The clicks whose views are precomputed: the pills of the rows whose ``event`` is of these types.
STORED_EVENTS: frozenset[str] = frozenset({"hardware", "variant", "strategy", "nodes", "task", "axis"})
# What the page's inputs must be for the stored views to apply (static/builder.js pageInputs()).
INITIAL_INPUTS: dict[str, dict[str, Any]] = {"query": {}, "prefs": {}, "stored": {}, "endpoints": {}}

# A bound on the views one recipe stores (first and second clicks together): the largest recipe of
# ../shared/upstream stores about 700; a recipe with hundreds of pills can't make the build run for minutes.
MAX_STORED_VIEWS = 2000
SAME_AS_FIRST: dict[str, int] = {"@": 1}  # a second click whose view is that click's first-click view
_SCALARS = frozenset({str, int, float, bool, type(None)})  # JSON values no patch looks into

Patch = dict[str, Any]


class StoredClicks(TypedDict):
    """``builder-data/<hf_id>.clicks.json``."""

    inputs: dict[str, dict[str, Any]]  # the page inputs the initial view was computed from
    views: dict[str, Patch]  # event_key(first click) -> view_patch(initial view, view after it)
    # event_key(first click) -> event_key(second click) -> view_patch(first click's view, view after
    # both) or SAME_AS_FIRST
    next: dict[str, dict[str, Patch]]


def event_key(event: dict[str, Any]) -> str:
    """The lookup key of one click: compact JSON with sorted keys (JSON.stringify with sorted keys in JS)."""
    return json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def one_click_events(view: dict[str, Any]) -> list[dict[str, Any]]:
    """The clicks the page can send from ``view``: the event of every enabled pill of the rows whose
    event is of :data:`STORED_EVENTS` (as the page sends it: ``resolver.pill_event``)."""
    return [dict(resolver.pill_event(row, pill)) for row in view.get("rows") or []
            if (row.get("event") or {}).get("type") in STORED_EVENTS
            for pill in row.get("pills") or [] if not pill.get("disabled")]


def view_patch(before: Any, after: Any) -> Patch:
    """The patch turning ``before`` into ``after`` (objects key by key, equal-length lists item by item)."""
    if isinstance(before, dict) and isinstance(after, dict):
        changes: dict[str, Patch] = {}
        for key, value in after.items():
            if key not in before:
                changes[key] = {"=": value}
                continue
            old, kind = before[key], type(value)
            if kind in _SCALARS and type(old) is kind:  # the common case, without a call
                if old != value:
                    changes[key] = {"=": value}
            elif not _same(old, value):
                changes[key] = view_patch(old, value)
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


def stored_clicks(recipe: dict[str, Any], vocab: Any, initial: dict[str, Any]) -> StoredClicks:
    """The views of every first click from ``initial`` (the view of :data:`INITIAL_INPUTS`) and of
    every second click after each, as patches (see the module docstring).

    The state sent with each click is what the page sends: the shown view's state plus ``_endpoints``.
    One :class:`resolver.BuilderFacts` serves every click, and a second click whose step
    (:func:`resolver.builder_step`) is the one the same click makes from the initial view is
    ``SAME_AS_FIRST`` without computing its view: the view is a function of the step, so a step met
    before (a second click reaching the state another order of the same clicks reached) reuses its view.
    """
    facts = resolver.BuilderFacts(recipe, vocab)
    budget = [MAX_STORED_VIEWS]
    seen: dict[str, Any] = {}
    first = _clicks_after(facts, initial, budget, {}, seen)
    first_steps = {key: click.step for key, click in first.items()}
    views = {key: view_patch(initial, click.view) for key, click in first.items()}
    following: dict[str, dict[str, Patch]] = {}
    for key, click in first.items():
        after = click.view
        following[key] = {
            key2: SAME_AS_FIRST if second.view is None else view_patch(after, second.view)
            for key2, second in _clicks_after(facts, after, budget, first_steps, seen).items()}
    return {"inputs": INITIAL_INPUTS, "views": views, "next": following}


class _Click(NamedTuple):
    step: str  # resolver.step_key of the click's step: equal keys, equal views
    view: Any  # None: the view is that of the same click from the initial view


def _clicks_after(facts: resolver.BuilderFacts, shown: dict[str, Any], budget: list[int],
                  first_steps: dict[str, str], seen: dict[str, Any]) -> dict[str, _Click]:
    """event_key -> that click on ``shown``, for each of its stored clicks while ``budget[0]``
    (decremented per click) lasts; a click whose step or view fails is left out, and a click whose
    step is ``first_steps[event_key]`` gets no view. ``seen``: step fingerprint -> its view, the views
    computed so far (shared, never changed: the patches are written out as they are)."""
    state = {**shown["state"], "_endpoints": {}}
    out: dict[str, _Click] = {}
    for event in one_click_events(shown):
        key = event_key(event)
        if key in out or budget[0] <= 0:
            continue
        budget[0] -= 1
        try:
            step = resolver.builder_step(facts, state, event)
            fingerprint = resolver.step_key(step)
            if first_steps.get(key) == fingerprint:
                view = None
            elif fingerprint in seen:
                view = seen[fingerprint]
            else:
                view = seen[fingerprint] = _as_json(resolver.step_view(facts, step))
        except Exception:  # noqa: BLE001 - the page waits for the worker, whose error it then shows
            continue
        out[key] = _Click(fingerprint, view)
    return out


def _as_json(value: Any) -> Any:
    """``value`` as the page receives it (through JSON: tuples become lists)."""
    return orjson.loads(orjson.dumps(value))
