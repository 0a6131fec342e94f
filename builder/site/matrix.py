"""The support matrix of a recipe page: hardware × variant cells (verified, fits, N nodes, none)."""

from __future__ import annotations

import math
from typing import Any, TypedDict

from builder import resolver
from builder.site.index import SiteIndex, VariantDoc
from builder.site.views import RecipeView, text


class Cell(TypedDict, total=False):
    """One matrix cell: its state (a CSS class), text, tooltip, and the record it links to."""

    state: str
    text: str
    note: str
    title: str
    url: str


def _none(title: str) -> Cell:
    return {"state": "none", "text": "—", "title": title}


NOT_OFFERED = "Not offered for this variant on this hardware"


class MatrixBuilder:
    """Builds the matrix of one recipe; the resolver's offered hardware is asked once per variant."""

    def __init__(self, index: SiteIndex, recipe: RecipeView) -> None:
        self.index = index
        self.recipe = recipe
        self.offered: dict[str, set[str] | None] = {}

    def build(self, variants: list[VariantDoc]) -> dict[str, Any]:
        """``{"variants": ..., "rows": [{id, label, mark, per_gpu, cells}]}`` in taxonomy order."""
        index, marks = self.index, self.recipe.hardware_marks
        row_ids: list[str] = []
        per_variant_hw: dict[str, dict[str, str]] = {}
        for v in variants:
            rc = (v["doc"] or {}).get("recommended_command") if v["doc"] else None
            by_hw = (rc.get("by_hardware") if isinstance(rc, dict) and isinstance(rc.get("by_hardware"), dict)
                     else {})
            per_variant_hw[v["key"]] = {str(h): str(u) for h, u in by_hw.items()}
            row_ids.extend(by_hw)
        row_ids.extend(marks)
        order = list(index.profiles)
        ids = sorted(set(row_ids), key=lambda h: (order.index(h) if h in order else len(order), h))
        rows = []
        for h in ids:
            prof = index.profiles.get(h) if isinstance(index.profiles.get(h), dict) else {}
            cells = [self.cell(v, h, prof, marks.get(h, ""), per_variant_hw[v["key"]]) for v in variants]
            gpus = prof.get("gpu_count") or 0
            per_gpu = round((prof.get("vram_gb") or 0) / gpus) if gpus else 0
            rows.append(
                {
                    "id": h,
                    "label": index.hw_label(h),
                    "mark": marks.get(h, ""),
                    "per_gpu": (f"{per_gpu}G/{'CPU' if prof.get('generation') == 'cpu' else 'GPU'}"
                                if per_gpu else ""),
                    "cells": cells,
                }
            )
        return {"variants": variants, "rows": rows}

    def cell(self, v: VariantDoc, h: str, prof: dict[str, Any], mark: str, by_hw: dict[str, str]) -> Cell:
        """One cell: from the published record when there is one, else estimated from VRAM."""
        if mark == "unsupported":
            return {"state": "unsupported", "text": "Unsupported",
                    "title": "Marked unsupported for this model"}
        url = by_hw.get(h)
        if url:
            return self.rendered_cell(v, h, mark, url)
        if v["doc"] and v["doc"].get("recommended_command"):
            return _none(NOT_OFFERED)
        return self.estimated_cell(v, h, prof, mark)

    def rendered_cell(self, v: VariantDoc, h: str, mark: str, url: str) -> Cell:
        index = self.index
        rec = index.record(url) or {}
        nodes = rec.get("node_count") or 1
        deploy = text(rec.get("deploy_type"))
        strategy = index.strategy_label(text(rec.get("strategy")))
        used = text(rec.get("variant"))
        shown = "1 node" if nodes == 1 and deploy != "pd_cluster" else f"{nodes} nodes"
        if deploy == "pd_cluster":
            shown = "PD cluster"
        note = ""
        if used and used != v["key"] and not (v["key"] == "default" and used == "default"):
            note = f"uses {used.upper()}"
        cell: Cell = {
            "state": "verified" if mark == "verified" else ("fits" if nodes == 1 else "multi"),
            "text": shown,
            "note": note,
            "title": f"{strategy} on {index.hw_label(h)}" + (" (verified)" if mark == "verified" else ""),
            "url": url if index.has_file(url) else "",
        }
        return memory_cell(cell, rec.get("memory"))

    def estimated_cell(self, v: VariantDoc, h: str, prof: dict[str, Any], mark: str) -> Cell:
        """No rendered document (omni recipe or a variant without its own checkpoint): estimate."""
        if v["key"] not in self.offered:
            try:
                offered = resolver.offered_hardware(self.recipe.raw, self.index.taxonomy, v["key"])
                self.offered[v["key"]] = {str(hw) for hw in offered}
            except resolver.ResolveError:  # the VRAM estimate still says something
                self.offered[v["key"]] = None
        offered_here = self.offered[v["key"]]
        if offered_here is not None and h not in offered_here:
            return _none(NOT_OFFERED)
        variant = resolver.variant_of(self.recipe.raw, v["key"])
        if not resolver.allowlisted(variant, h):
            return _none("Outside this variant's hardware list")
        if not resolver.precision_ok(variant, prof):
            return _none(f"This precision needs {resolver.precision_hardware_name(variant)}")
        vram_node = resolver.node_vram_gb(prof)
        need = v["vram"]
        label = self.index.hw_label(h)
        if not isinstance(need, (int, float)) or not vram_node:
            return {"state": "verified" if mark == "verified" else "unknown",
                    "text": "✓" if mark == "verified" else "?", "title": "No VRAM figure"}
        if resolver.fits_single_node(prof, variant):
            return {"state": "verified" if mark == "verified" else "fits", "text": "1 node",
                    "title": f"{need} GB fits one {label} node ({vram_node} GB)"}
        if not resolver.runs_on(prof, variant, h):
            return {"state": "none", "text": "Doesn't fit",
                    "title": f"{need} GB exceeds {vram_node} GB and this hardware can't be clustered"}
        n = math.ceil(need / vram_node)
        return {"state": "multi", "text": f"{n} nodes",
                "title": f"{need} GB needs {n} × {vram_node} GB nodes"}


def memory_cell(cell: Cell, memory: Any) -> Cell:
    """The cell with the record's memory estimate: KV tokens at the default configuration, or why it won't
    start."""
    if not isinstance(memory, dict) or not isinstance(memory.get("summary"), str):
        return cell
    if memory.get("verdict") == "wont_start" or "error" in memory:
        return {**cell, "state": "none", "text": "Won't start", "title": memory["summary"]}
    tokens = f"{memory.get('kv_tokens', 0):,} KV tokens"
    note = f"{cell['note']} · {tokens}" if cell.get("note") else tokens
    return {**cell, "note": note, "title": f"{cell.get('title', '')}: {memory['summary']}"}


def support_matrix(index: SiteIndex, recipe: RecipeView, variants: list[VariantDoc]) -> dict[str, Any]:
    """Hardware × variant cells: verified, unsupported, fits one node, needs N nodes."""
    return MatrixBuilder(index, recipe).build(variants)
