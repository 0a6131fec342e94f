"""The recipe page's "Performance" panel for the builder's default view, drawn at build time.

The figures are the resolver's: the view's ``performance`` section (:mod:`builder.resolver.ui.performance`)
of the page's default view with the recipe's stored predictions, per workload. The default workload is
drawn as static/builder.js draws it (the same chart elements, legend and table), so the builder's first
view with predictions replaces it without a visible change; the other workloads' tables follow in a
``<details>``, so every figure reads without JavaScript. Every figure says it is a prediction and by what;
a command without predictions says why.
"""

from __future__ import annotations

from html import escape
from typing import Any, TypedDict

from markupsafe import Markup

from builder import resolver
from builder.resolver.performance.store import WORKLOADS


class PanelView(TypedDict, total=False):
    """The panel: the default workload's section with its chart as markup, the other workloads' sections, and
    the query of the view it shows (the builder redraws it for any other)."""

    query: str
    section: dict[str, Any]
    chart: Markup
    others: list[dict[str, Any]]


def svg_markup(element: list[Any]) -> Markup:
    """An element of :func:`builder.resolver.performance.chart.chart_elements` as markup (escaped)."""
    tag, attributes, content = element
    attrs = "".join(f' {name}="{escape(str(value))}"' for name, value in attributes.items())
    inner = "".join(svg_markup(child) for child in content) if isinstance(content, list) else escape(content)
    return Markup(f"<{tag}{attrs}>{inner}</{tag}>")


def panel(recipe: dict[str, Any], vocab: dict[str, Any], stored: Any) -> PanelView | None:
    """The panel of the builder's default view; None when the recipe has no stored predictions."""
    if stored is None:
        return None
    views = [resolver.builder_state(recipe, vocab, {"perf_workload": name}, predictions=stored)
             for name in WORKLOADS]
    sections = [v["performance"] for v in views]
    if not sections[0]:
        return None
    chart = svg_markup(sections[0]["chart"]) if "chart" in sections[0] else Markup("")
    others = [s for s in sections[1:] if s and s.get("rows")]
    return PanelView(query=views[0]["query"], section=sections[0], chart=chart, others=others)
