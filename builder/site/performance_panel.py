"""The recipe page's "Performance" panel for the default command, drawn at build time.

From the record's ``performance`` block: per workload a chart of tokens/s per GPU against tokens/s
per user (points labelled by concurrency, the axes InferenceX uses) and the same figures as a table,
all readable without JavaScript; the first workload open, the others one click away (``<details>``).
Every figure says it is a prediction and by what. A command without predictions says why.
"""

from __future__ import annotations

from html import escape
from typing import Any, TypedDict

from markupsafe import Markup

WIDTH, HEIGHT = 320, 200
LEFT, BOTTOM, TOP, RIGHT = 52, 34, 10, 14  # plot margins (axis labels and tick values)
TABLE_ROWS = (1, 4, 16, 64, 256, 1024)  # concurrencies the table shows (the chart shows every point)


class WorkloadView(TypedDict):
    """One workload: its chart and table rows."""

    name: str
    chart: Markup
    rows: list[tuple[int, str, str, str, str]]


class PanelView(TypedDict, total=False):
    """The panel: the provenance line and the workloads, or the reason there is none."""

    source: str
    workloads: list[WorkloadView]
    unavailable: str


def _scale(values: list[float]) -> float:
    """A round upper bound for an axis."""
    top = max(values, default=1.0) or 1.0
    step = 10 ** (len(str(int(top))) - 1)
    return float((int(top / step) + 1) * step)


def chart(points: list[dict[str, Any]], title: str) -> Markup:
    """An SVG line chart of tokens/s per GPU (y) against tokens/s per user (x), points labelled by concurrency."""
    xs = [float(p["tokens_per_s_per_user"]) for p in points]
    ys = [float(p["tokens_per_s_per_gpu"]) for p in points]
    x_top, y_top = _scale(xs), _scale(ys)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def at(x: float, y: float) -> tuple[float, float]:
        return round(LEFT + x / x_top * plot_w, 1), round(TOP + plot_h - y / y_top * plot_h, 1)

    coords = [at(x, y) for x, y in zip(xs, ys, strict=True)]
    line = " ".join(f"{x},{y}" for x, y in coords)
    parts = [
        f'<svg class="perf-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-label="{escape(title)}">',
        f'<line class="perf-axis" x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}"/>',
        f'<line class="perf-axis" x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}"/>',
        f'<text class="perf-tick" x="{LEFT}" y="{HEIGHT - 20}" text-anchor="middle">0</text>',
        f'<text class="perf-tick" x="{LEFT + plot_w}" y="{HEIGHT - 20}" text-anchor="end">{x_top:,.0f}</text>',
        f'<text class="perf-tick" x="{LEFT - 4}" y="{TOP + 8}" text-anchor="end">{y_top:,.0f}</text>',
        f'<text class="perf-label" x="{LEFT + plot_w / 2}" y="{HEIGHT - 4}" text-anchor="middle">tok/s per user</text>',
        f'<text class="perf-label" x="12" y="{TOP + plot_h / 2}" text-anchor="middle" '
        f'transform="rotate(-90 12 {TOP + plot_h / 2})">tok/s per GPU</text>',
        f'<polyline class="perf-line" points="{line}"/>',
    ]
    for (x, y), point in zip(coords, points, strict=True):
        parts.append(f'<circle class="perf-point" cx="{x}" cy="{y}" r="3"/>')
        parts.append(f'<text class="perf-point-label" x="{x + 4}" y="{y - 4}">{int(point["concurrency"])}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def panel(record: dict[str, Any] | None, hardware_label: str) -> PanelView | None:
    """The panel of the default command; None when the recipe has no stored predictions."""
    block = record.get("performance") if isinstance(record, dict) else None
    if not isinstance(block, dict):
        return None
    if "unavailable" in block:
        return PanelView(unavailable=f"No prediction for {hardware_label}: {block['unavailable']}.")
    tool, database = block["predictor"], block["predictor"]["database"]
    source = (f"Predicted by {tool['name']} {tool['version']} from {database['system']} kernel measurements of "
              f"{database['backend']} {database['version']}: predictions, not measurements.")
    workloads: list[WorkloadView] = []
    for name, points in block["workloads"].items():
        if not points:
            continue
        rows = [(int(p["concurrency"]), f"{p['ttft_ms']:,.0f}", f"{p['tpot_ms']:.1f}",
                 f"{p['tokens_per_s_per_user']:,.0f}", f"{p['tokens_per_s_per_gpu']:,.0f}")
                for p in points if p["concurrency"] in TABLE_ROWS or p is points[-1]]
        title = f"{name} tokens (input/output): tokens/s per GPU against tokens/s per user, by concurrency"
        workloads.append(WorkloadView(name=name, chart=chart(points, title), rows=rows))
    if not workloads:
        return PanelView(unavailable=f"No prediction for {hardware_label}: no concurrency fits the KV cache.")
    return PanelView(source=source, workloads=workloads)
