"""The reference builder's click paths (``../shared/interactive/cases.jsonl``) replayed through ours, and
their comparison modulo the deviation table (``builder/site/reference_deviations.py``).

Shared by the CPython replay (tests/resolver/test_reference_replay.py) and the Chromium sample
(tests/browser/test_reference_sample.py)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, TypedDict

from builder.resolver.hardware import gpu_count_of, raw_generation
from builder.resolver.strategies import deploy_type_of
from builder.resolver.ui.facts import BuilderFacts
from builder.resolver.ui.view import builder_state
from builder.site.reference_deviations import DEVIATIONS, Deviation
from tests.support.paths import CASES_DIR

CASES_FILE = CASES_DIR / "cases.jsonl"
MODES = ("serve", "docker")  # the reference's pip / uv install mode, and its Docker mode
INSTALL = {"serve": "pip", "docker": "docker"}

# the event each builder row's pill sends (static/builder.js renderRow)
ROW_EVENTS = ("hardware", "variant", "strategy", "kv_offload", "kv_member", "topology", "nodes", "task")


class Click(TypedDict):
    row: str
    pill: str
    reference_pill: str


class Case(TypedDict):
    recipe: str
    clicks: list[Click]
    reference: dict[str, Any]  # {serve: {tab: text}, docker: {tab: text}, summary: str | None}


def load_cases() -> list[Case]:
    return [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines() if line.strip()]


def case_id(index: int, case: Case) -> str:
    path = " > ".join(f"{c['row']}={c['pill']}" for c in case["clicks"]) or "default"
    return f"{index:02d} {case['recipe']}: {path}"


def click_event(view: dict[str, Any], click: Click) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the pill's row, the event our page sends when the reader clicks it).

    Rows are found by label (a PD pool row is labelled "Prefill" / "Decode", the reference
    "Prefill parallelism"). Where a radio row has several pills of one label (gpt-oss-120b's two
    "MXFP4" variants, gemma-4's two "NVFP4"), the recording clicked the last one not already selected."""
    for row in view["rows"]:
        if (row["label"] != click["row"]
            and not (row["id"].endswith("_pool") and click["row"].startswith(row["label"]))):
            continue
        same = [p for p in row.get("pills") or [] if p["label"] == click["pill"]]
        if len(same) > 1 and row["id"] != "features":
            same = ([p for p in same if not p["selected"]] or same)[-1:]
        if not same:
            continue
        value = same[0]["value"]
        if row["id"] == "features":
            return row, {"type": "feature", "value": value}
        if row["id"] in ROW_EVENTS:
            return row, {"type": row["id"], "value": value}
        if row.get("feature"):
            return row, {"type": "mode", "feature": row["feature"], "value": value}
        if row.get("axis"):
            return row, {"type": "axis", "axis": row["axis"], "value": value}
        if row.get("role"):
            return row, {"type": "pool_mode", "role": row["role"], "value": value}
    raise LookupError(f"no pill {click['pill']!r} in a row {click['row']!r}: "
                      f"{[(r['label'], [p['label'] for p in r.get('pills') or []]) for r in view['rows']]}")


@dataclass
class Replay:
    """A case replayed through ``builder_state``: the final view in each install mode."""

    facts: BuilderFacts
    events: list[tuple[str, dict[str, Any]]]  # (row id, event) per click
    views: dict[str, dict[str, Any]]  # mode -> view after the clicks and that install click


def replay(facts: BuilderFacts, case: Case) -> Replay:
    view = builder_state(facts.recipe, facts.vocab, {}, facts=facts)
    events = []
    for click in case["clicks"]:
        row, event = click_event(view, click)
        events.append((row["id"], event))
        view = builder_state(facts.recipe, facts.vocab, view["state"], event, facts=facts)
    views = {mode: builder_state(facts.recipe, facts.vocab, view["state"],
                                 {"type": "install", "value": INSTALL[mode]}, facts=facts) for mode in MODES}
    return Replay(facts, events, views)


def tab_texts(tabs: list[dict[str, Any]]) -> dict[str, str]:
    """The reference's shape: the displayed text of every command tab, ``(single)`` for a lone tab."""
    if len(tabs) == 1:
        return {"(single)": tabs[0]["copy"]}
    return {t["name"]: t["copy"] for t in tabs}


def conditions(rep: Replay, case: Case) -> set[str]:
    """The deviation conditions (``Deviation.when``) that hold for the replayed state."""
    facts, view = rep.facts, rep.views["docker"]
    tabs = view["tabs"]
    names = {t["name"] for t in tabs}
    kinds = {t["kind"] for t in tabs}
    held = {"always"}
    if kinds & {"companion", "helper", "router"} or names & {"Head", "Prefill", "Decode"}:
        held.add("host_network")
    if "Head" in names:
        held.add("multi_node")
    if names & {"Head", "Prefill"}:
        held.add("cluster")
    if kinds & {"helper", "router"}:
        held.add("kv_or_pd")
    if raw_generation(facts.profile(view["state"]["hardware"])) == "tpu":
        held.add("tpu")
    if facts.omni:
        held.add("omni")
        if (facts.recipe.get("model") or {}).get("docker_source"):
            held.add("docker_source")
    if any(c["row"] == "Features" for c in case["clicks"]):
        held.add("feature_clicked")
    sid = view.get("strategy")
    if (sid != "single_node_tp" and not kinds & {"helper", "router"} and view["state"]["nodes"] == 1
            and deploy_type_of(facts.strategies.get(sid)) == "single_node"):
        held.add("single_node_not_tp")
    return held


def _arg_lines(text: str) -> list[str]:
    return sorted(line.rstrip(" \\").strip() for line in text.split("\n"))


@dataclass
class Comparison:
    """One case against the reference: ``exact`` (no deviation needed), ``diffs`` (what the table does
    not explain: empty when the case matches) and ``used`` (the rows that explained a difference)."""

    exact: bool = True
    diffs: list[str] = field(default_factory=list)
    used: set[str] = field(default_factory=set)


def _rows(mode: str, held: set[str]) -> list[Deviation]:
    return [d for d in DEVIATIONS if mode in d["modes"] and d["when"] in held]


def _rewrite(text: str, rows: list[Deviation], used: set[str]) -> str:
    for row in rows:
        for pattern, replacement in row["rewrite"]:
            new = re.sub(pattern, replacement, text)
            if new != text:
                used.add(row["id"])
            text = new
    return text


def compare(rep: Replay, case: Case) -> Comparison:
    """Every command tab (both install modes), the summary and the clicked pills' labels, modulo the table."""
    out = Comparison()
    held = conditions(rep, case)
    ours = {mode: tab_texts(rep.views[mode]["tabs"]) for mode in MODES}
    for mode in MODES:
        ref = case["reference"][mode]
        if list(ours[mode]) != list(ref):
            out.exact = False
            out.diffs.append(f"{mode}: tabs {list(ours[mode])} != reference {list(ref)}")
            continue
        rows = _rows(mode, held)
        normalisers = {r["normalise"]: r["id"] for r in rows if r["normalise"]}
        for name, want in ref.items():
            got = ours[mode][name]
            if got == want:
                continue
            out.exact = False
            used: set[str] = set()
            if "docker_mode_text" in normalisers:
                got = ours["docker"][name]
                used.add(normalisers["docker_mode_text"])
            got = _rewrite(got, _rows("docker", held) if used else rows, used)
            if got != want and "sorted_args" in normalisers and _arg_lines(got) == _arg_lines(want):
                got = want
                used.add(normalisers["sorted_args"])
            if got == want:
                out.used |= used
            else:
                out.diffs.append(f"{mode} {name}:\n--- ours (normalised)\n{got}\n--- reference\n{want}")
    want_summary = case["reference"].get("summary")
    summary = rep.views["docker"]["summary"]
    if want_summary is None:  # the reference showed its "Verified on" badge instead of a summary
        badge = next((r for r in _rows("summary", held) if r["normalise"] == "verified_badge"), None)
        if not summary["verified"] and badge is None:
            out.diffs.append(f"summary: {summary['text']!r} where the reference shows the verified badge")
        elif not summary["verified"]:
            out.exact = False
            out.used.add(badge["id"])
    elif summary["text"] != want_summary:
        out.exact = False
        got = summary["text"]
        row = next((r for r in _rows("summary", held) if r["normalise"] == "summary_tp"), None)
        if row is not None:
            parts = got.split(" · ")
            parts[1] = f"TP={gpu_count_of(rep.facts.profile(rep.views['docker']['state']['hardware']))}"
            got = " · ".join(parts)
        if got == want_summary and row is not None:
            out.used.add(row["id"])
        else:
            out.diffs.append(f"summary: {summary['text']!r} != reference {want_summary!r}")
    for click, (_, event) in zip(case["clicks"], rep.events, strict=True):
        if click["reference_pill"] == click["pill"]:
            continue
        out.exact = False
        held_pill = held | ({"multi_gpu_profile"} if event["type"] == "hardware"
                            and gpu_count_of(rep.facts.profile(event["value"])) > 1 else set())
        used = set()
        if _rewrite(click["pill"], _rows("pill", held_pill), used) == click["reference_pill"]:
            out.used |= used
        else:
            out.diffs.append(f"pill {click['pill']!r} != reference {click['reference_pill']!r}")
    return out
