"""The Performance panel's chart as data: SVG elements with their coordinates, computed once here so the
build-time page (Python) and the builder (static/builder.js) draw the same picture without deciding
anything.

An element is ``[tag, attributes, content]``: content is a text or a list of child elements. The chart
plots tokens/s per GPU (y) against tokens/s per user (x), InferenceX's axes: one line per curve (a
strategy's predicted points, hollow markers labelled by concurrency on the selected curve) and the
measured points as filled markers; every marker carries a ``<title>`` (its tooltip).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

WIDTH, HEIGHT = 360, 220
LEFT, BOTTOM, TOP, RIGHT = 54, 36, 12, 16  # plot margins (axis labels and tick values)

Element = list[Any]  # [tag, {attribute: value}, text | [Element, ...]]


class Marker(TypedDict):
    """One point of a curve: where it is plotted and what its tooltip says."""

    user: float  # tokens/s per user (x)
    gpu: float  # tokens/s per GPU (y)
    label: str  # drawn beside the marker ("" for none)
    title: str  # its tooltip
    current: bool  # the selected point


class Curve(TypedDict):
    """A strategy's predicted points (or the measured points: ``measured`` true)."""

    name: str
    selected: bool
    measured: bool
    markers: list[Marker]


def nice_top(values: Sequence[float]) -> float:
    """A round upper bound for an axis (the next 1, 2 or 5 times a power of ten above the largest value)."""
    top = max(values, default=1.0) or 1.0
    power = 10 ** (len(str(int(top))) - 1) if top >= 1 else 1
    for step in (1, 2, 5, 10):
        if top <= step * power:
            return float(step * power)
    return float(10 * power)


def _number(value: float) -> str:
    return f"{value:,.0f}"


def chart_elements(curves: list[Curve], title: str) -> Element:
    """The ``<svg>`` element of ``curves`` (the selected curve drawn last, on top)."""
    markers = [m for curve in curves for m in curve["markers"]]
    x_top = nice_top([m["user"] for m in markers])
    y_top = nice_top([m["gpu"] for m in markers])
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def at(marker: Marker) -> tuple[float, float]:
        return (round(LEFT + marker["user"] / x_top * plot_w, 1),
                round(TOP + plot_h - marker["gpu"] / y_top * plot_h, 1))

    base = TOP + plot_h
    children: list[Element] = [["title", {}, title]]
    for share in (0.5, 1.0):
        y = round(base - share * plot_h, 1)
        x = round(LEFT + share * plot_w, 1)
        children += [["line", {"class": "perf-grid", "x1": LEFT, "y1": y, "x2": LEFT + plot_w, "y2": y}, ""],
                     ["text", {"class": "perf-tick", "x": LEFT - 4, "y": y + 3, "text-anchor": "end"},
                      _number(y_top * share)],
                     ["text", {"class": "perf-tick", "x": x, "y": base + 12, "text-anchor": "middle"},
                      _number(x_top * share)]]
    children += [
        ["line", {"class": "perf-axis", "x1": LEFT, "y1": base, "x2": LEFT + plot_w, "y2": base}, ""],
        ["line", {"class": "perf-axis", "x1": LEFT, "y1": TOP, "x2": LEFT, "y2": base}, ""],
        ["text", {"class": "perf-tick", "x": LEFT - 4, "y": base + 3, "text-anchor": "end"}, "0"],
        ["text", {"class": "perf-label", "x": LEFT + plot_w / 2, "y": HEIGHT - 6, "text-anchor": "middle"},
         "tok/s per user"],
        ["text", {"class": "perf-label", "x": 12, "y": TOP + plot_h / 2, "text-anchor": "middle",
                  "transform": f"rotate(-90 12 {TOP + plot_h / 2})"}, "tok/s per GPU"],
    ]
    ordered = sorted(enumerate(curves), key=lambda item: (item[1]["selected"], item[0]))
    for index, curve in ordered:
        kind = "perf-measured" if curve["measured"] else f"perf-c{index % 4}"
        selected = " is-selected" if curve["selected"] else ""
        coords = [at(m) for m in curve["markers"]]
        group: list[Element] = []
        if len(coords) > 1 and not curve["measured"]:
            line = " ".join(f"{x},{y}" for x, y in coords)
            group.append(["polyline", {"class": "perf-line", "points": line}, ""])
        for (x, y), marker in zip(coords, curve["markers"], strict=True):
            dot = "perf-dot is-current" if marker["current"] else "perf-dot"
            group.append(["circle", {"class": dot, "cx": x, "cy": y, "r": 4 if marker["current"] else 3},
                          [["title", {}, marker["title"]]]])
            if marker["label"]:
                group.append(["text", {"class": "perf-point-label", "x": x + 4, "y": y - 5}, marker["label"]])
        children.append(["g", {"class": f"perf-curve {kind}{selected}", "data-curve": curve["name"]}, group])
    svg: Element = ["svg", {"class": "perf-chart", "viewBox": f"0 0 {WIDTH} {HEIGHT}", "role": "img",
                            "aria-label": title}, children]
    return _plain(svg)


def _plain(element: Element) -> Element:
    """Whole coordinates as integers (``113``, not ``113.0``: the text a browser gives a JSON number)."""
    tag, attributes, content = element
    attrs = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in attributes.items()}
    return [tag, attrs, [_plain(child) for child in content] if isinstance(content, list) else content]
