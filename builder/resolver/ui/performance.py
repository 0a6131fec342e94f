"""The builder view's ``performance`` section: the predicted speed of the reader's selection.

For the current GPU and variant, one curve per strategy the Strategy row offers (the selected one
emphasised, its points labelled by concurrency), on the workload of the switch (``perf_workload``); a
table of the selected strategy's points at a few concurrencies (TTFT, TPOT, tok/s per user, tok/s per
GPU and the cost per million output tokens at the GPU-hour price, ``perf_price`` or the hardware's
default); the "Pick for me" form and its last answer. The chart is data (:mod:`..performance.chart`):
the build-time page and static/builder.js draw the same elements.

The stored predictions arrive after the builder's first view (``BuilderFacts.predictions``); until then
the section is ``{"status": "loading"}``. A command without a prediction says why
(``"unavailable"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from ..hardware import gpu_hour_price, variant_of
from ..performance.chart import Curve, Marker, chart_elements
from ..performance.results import with_measured
from ..performance.store import Performance, Point, entries_by_inputs, performance_for_record
from ..performance.workloads import WORKLOADS
from ..resolve import resolve
from ..strategies import strategy_supported
from ..types import Selection
from ..values import as_dict, js_str
from .facts import BuilderFacts, hardware_name, make_pill, variant_label
from .perf_state import PRICE_MAX
from .rows import make_row

DEFAULT_CONCURRENCY = 16  # the selected point unless the reader picks one: the largest sweep value up to this
TABLE_ROWS = (1, 4, 16, 64, 256, 1024)  # the table's concurrencies (and the selected one and the last)


# A table row: its cells, whether it is the selected point or a measurement, the click selecting it, its class
Row = TypedDict("Row", {"cells": list[str], "current": bool, "measured": bool, "event": dict[str, Any] | None,
                        "class": str})


def stored_block(facts: BuilderFacts, record: dict[str, Any]) -> Performance | None:
    """A record's ``performance`` block from the loaded predictions and measured results (``results``)."""
    stored = facts.predictions
    if stored is None:
        return None
    predicted = stored if "predictions" in stored else None
    if facts.perf_table is None and predicted is not None:
        facts.perf_table = entries_by_inputs(predicted)
    variant = variant_of(facts.recipe, js_str(record.get("variant") or "default"))
    profile = facts.profile(js_str(record.get("hardware")))
    hf_id = js_str(facts.recipe.get("hf_id"))
    block = performance_for_record(record, facts.recipe, variant, profile, predicted, hf_id, facts.perf_table,
                                   reproducers=False)
    return with_measured(block, record, stored.get("results") or [])


def _strategy_label(facts: BuilderFacts, sid: Any) -> str:
    return js_str(as_dict(facts.strategies.get(sid)).get("display_name") or sid)


def _curves(facts: BuilderFacts, state: dict[str, Any], sid: str | None, record: dict[str, Any],
            selection: Selection | None, block: Performance | None) -> list[tuple[str, Performance | None]]:
    """(strategy, block) per strategy of the Strategy row (the selected one's is ``block``); only the
    selected command when a preset is applied."""
    hw = state["hardware"]
    if selection is None or sid is None:
        return [(js_str(sid or record.get("strategy")), block)]
    out = []
    for strategy in facts.row_strategies(hw, state["nodes"]):
        if not strategy_supported(facts.recipe, strategy, facts.profile(hw), hw):
            continue
        if strategy == sid:
            out.append((strategy, block))
        elif strategy != "pd_cluster":
            other = resolve(facts.recipe, facts.vocab, {**selection, "strategy": strategy}, with_views=False)
            out.append((strategy, stored_block(facts, other)))
    return out


def point_title(name: str, point: Point, kind: str = "predicted") -> str:
    return (f"{name} at concurrency {point['concurrency']}: TTFT {point['ttft_ms']:,.0f} ms, TPOT "
            f"{point['tpot_ms']:.1f} ms, {point['tokens_per_s_per_user']:,.1f} tok/s per user, "
            f"{point['tokens_per_s_per_gpu']:,.0f} tok/s per GPU ({kind})")


def measured_title(m: Mapping[str, Any]) -> str:
    """A measured point's tooltip: its figures, how it compares with the prediction, where it comes from."""
    ratio = m.get("measured_over_predicted")
    known = isinstance(ratio, (int, float))
    versus = f"{ratio:.2f}x the prediction" if known else "no prediction at this point"
    prov = as_dict(m.get("provenance"))
    facts = [js_str(prov.get(k)) for k in ("format", "file", "vllm_version", "image", "gpu", "date", "source")
             if prov.get(k)]
    return f"{point_title('Measured', m, 'measured')}; {versus}; {', '.join(facts)}"  # type: ignore[arg-type]


def current_concurrency(points: list[Point], wanted: int | None) -> int | None:
    """The selected point: ``wanted`` when the sweep has it, else the largest up to DEFAULT_CONCURRENCY."""
    values = [p["concurrency"] for p in points]
    if wanted in values:
        return wanted
    below = [c for c in values if c <= DEFAULT_CONCURRENCY]
    return max(below) if below else (values[0] if values else None)


def cost_text(price: float | None, point: Point) -> str:
    """US dollars per million output tokens at ``price`` per GPU-hour."""
    if price is None or point["tokens_per_s_per_gpu"] <= 0:
        return "—"
    return f"${price * 1e6 / (point['tokens_per_s_per_gpu'] * 3600):,.3f}"


def _rows(points: list[Point], measured: Sequence[Mapping[str, Any]], current: int | None,
          price: float | None) -> list[Row]:
    def cells(p: Point, first: str) -> list[str]:
        return [first, f"{p['ttft_ms']:,.0f}", f"{p['tpot_ms']:.1f}", f"{p['tokens_per_s_per_user']:,.1f}",
                f"{p['tokens_per_s_per_gpu']:,.0f}", cost_text(price, p)]

    rows = [Row({"cells": cells(p, str(p["concurrency"])), "current": p["concurrency"] == current,
                 "measured": False, "event": {"type": "perf_concurrency", "value": p["concurrency"]},
                 "class": "is-current" if p["concurrency"] == current else ""})
            for p in points
            if p["concurrency"] in TABLE_ROWS or p["concurrency"] == current or p is points[-1]]
    rows += [Row({"cells": cells(m, f"{m['concurrency']} (measured)"),  # type: ignore[arg-type]
                  "current": False, "measured": True, "event": None, "class": "perf-measured-row"})
             for m in measured]
    return rows


def legend_key(index: int, curve: Curve) -> dict[str, Any]:
    """A curve's legend entry: its label and class (its colour; bold when selected)."""
    kind = "perf-measured" if curve["measured"] else f"perf-c{index % 4}"
    return {"label": f"{curve['name']} (filled markers)" if curve["measured"] else curve["name"],
            "selected": curve["selected"], "measured": curve["measured"],
            "class": f"{kind} is-selected" if curve["selected"] else kind}


def workload_row(state: dict[str, Any]) -> dict[str, Any]:
    pills = [make_pill(name, name, name == state["perf_workload"], None,
                       f"{isl:,} input and {osl:,} output tokens per request")
             for name, (isl, osl) in WORKLOADS.items()]
    return make_row("perf_workload", "Workload", pills, event={"type": "perf_workload"})


def _source(block: Performance) -> str:
    tool = block["predictor"]
    db = tool["database"]
    return (f"Predicted by {tool['name']} {tool['version']} from {db['system']} kernel measurements of "
            f"{db['backend']} {db['version']}: predictions, not measurements.")


def performance_view(facts: BuilderFacts, state: dict[str, Any], sid: str | None, record: dict[str, Any],
                     selection: Selection | None, selected: Performance | None) -> dict[str, Any] | None:
    """The view's ``performance`` section (None for omni recipes); ``selected`` is the record's block
    (:func:`stored_block`, which the Bench popover reads too)."""
    if facts.omni:
        return None
    if facts.predictions is None:
        return {"status": "loading"}
    hw, workload = state["hardware"], state["perf_workload"]
    name = hardware_name(facts.taxonomy, hw)
    variant = variant_of(facts.recipe, state["variant"])
    precision = variant_label(state["variant"], variant)
    heading = f"For this selection: {name} · {_strategy_label(facts, sid)} · {precision}"
    default_price, price_source = gpu_hour_price(facts.taxonomy, hw)
    price = state["perf_price"] or default_price
    view: dict[str, Any] = {"status": "ready", "heading": heading, "workloads": workload_row(state),
                            "price": price_view(name, state["perf_price"], default_price, price_source),
                            "pick": pick_view(state)}
    curves = _curves(facts, state, sid, record, selection, selected)
    block = selected or Performance(unavailable="no stored prediction for this command")
    if "unavailable" in block and not block.get("measured"):
        view.update(status="unavailable", text=f"No prediction for {name}: {block['unavailable']}.")
        return view
    points = (block.get("workloads") or {}).get(workload) or []
    measured = [m for m in block.get("measured") or [] if m["workload"] == workload]
    current = current_concurrency(points, state["perf_concurrency"])
    drawn: list[Curve] = []
    for strategy, other in curves:
        other_points = (other or {}).get("workloads", {}).get(workload) or []
        if not other_points:
            continue
        label = _strategy_label(facts, strategy)
        chosen = other is block
        drawn.append(Curve(name=label, selected=chosen, measured=False, markers=[
            Marker(user=p["tokens_per_s_per_user"], gpu=p["tokens_per_s_per_gpu"],
                   label=str(p["concurrency"]) if chosen else "", title=point_title(label, p),
                   current=chosen and p["concurrency"] == current) for p in other_points]))
    if measured:
        drawn.append(Curve(name="Measured", selected=False, measured=True, markers=[
            Marker(user=m["tokens_per_s_per_user"], gpu=m["tokens_per_s_per_gpu"], label="",
                   title=measured_title(m), current=False) for m in measured]))
    source = _source(block) if "predictor" in block else (
        f"No prediction for {name}" + (f": {block['unavailable']}" if "unavailable" in block else "")
        + "; measured results only.")
    view.update(source=source, badge="measured" if block.get("measured") else "not yet benchmarked",
                legend=[legend_key(i, c) for i, c in enumerate(drawn)],
                columns=["Concurrency", "TTFT (ms)", "TPOT (ms)", "tok/s per user", "tok/s per GPU",
                         "$ per M output tokens"],
                rows=_rows(points, measured, current, price), concurrency=current,
                caption=f"Predicted speed at {workload} tokens (input/output), by concurrency")
    if not drawn:
        view.update(status="unavailable", text=f"No prediction for {name} at {workload}: no concurrency fits "
                    "the KV cache.")
        return view
    title = (f"{workload} tokens (input/output) on {name}: tokens/s per GPU against tokens/s per user, one "
             "line per strategy, points labelled by concurrency (predicted)")
    view["chart"] = chart_elements(drawn, title)
    return view


def price_view(name: str, chosen: float | None, default: float | None, source: str) -> dict[str, Any]:
    """The GPU-hour price input: its value, the default and where that comes from."""
    stated = (f"Default ${default:,.2f} per GPU-hour for {name}: {source}." if default is not None else
              f"No default price for {name}: enter one to see the cost per million output tokens.")
    value = chosen or default
    return {"label": "GPU-hour price (USD)", "value": "" if value is None else f"{value:g}",
            "min": 0, "max": PRICE_MAX, "step": "any", "note": stated, "input_event": {"type": "perf_price"}}


PICK_FIELDS = (("ttft", "TTFT at most (s)"), ("tps_user", "tok/s per user at least"),
               ("gpus", "GPUs at most (optional)"))


def pick_view(state: dict[str, Any]) -> dict[str, Any]:
    """The "Pick for me" form: its fields (with the last target) and the last answer."""
    note = state["perf_pick"] or {}
    target = as_dict(note.get("target"))
    fields = [{"name": key, "label": label, "value": f"{target[key]:g}" if key in target else ""}
              for key, label in PICK_FIELDS]
    answer = {"text": note["text"], "ok": note["ok"],
              "class": "perf-answer" if note["ok"] else "perf-answer perf-miss"} if note else None
    return {"label": "Pick for me", "fields": fields, "submit": "Pick", "event": {"type": "pick"},
            "answer": answer}
