"""The view's controls besides its pill rows: the Preset rows, the install strip's event and CUDA
choice, and the number inputs above command tabs.  static/builder.js renders them as they are."""

from __future__ import annotations

from typing import Any, TypedDict

from ..tabs import POOL_TAB_ROLES
from ..types import JSON, ClickEvent
from ..values import js_str
from .facts import make_pill
from .rows import make_row

CUDA_CHOICES: tuple[tuple[str, str], ...] = (
    ("default", "Default CUDA 13 build"),
    ("cu129", "CUDA 12.9 build for older drivers"),
)
"""The CUDA builds an NVIDIA install offers: (value, tooltip); the value is the pill's label."""

PRESET_HINT = ("Measured serving configurations: selecting one applies its hardware, variant, strategy and "
               "features, and shows its exact command.")


class TabInput(TypedDict):
    """A number input shown above a command tab's text, as one label: ``prefix``, the input, ``suffix``."""

    prefix: str
    label: str  # the input's accessible name
    value: int
    min: int
    max: int
    suffix: str
    event: ClickEvent  # sent with the input's value


def install_controls(install: dict[str, Any]) -> None:
    """The install strip's tab event, and its CUDA choice as a row while the toggle shows (else None)."""
    install["event"] = {"type": "install"}
    pills = [make_pill(value, value, install["cuda"] == value, None, tip) for value, tip in CUDA_CHOICES]
    install["cuda_choices"] = (make_row("cuda", "CUDA build", pills, event={"type": "cuda"})
                               if install["cuda_toggle"] else None)


def add_tab_inputs(tabs: list[dict[str, Any]], rows: list[dict[str, Any]], state: dict[str, Any]) -> None:
    """Each command tab's ``inputs``: on a PD pool's tab, which of the pool's nodes it shows (a pool of
    more than one node); on a serve tab beside Mooncake instances, which instance (more than one)."""
    by_id = {row["id"]: row for row in rows}
    instances = by_id.get("instances")
    for tab in tabs:
        inputs: list[TabInput] = []
        role = POOL_TAB_ROLES.get(tab["name"])
        pool = by_id.get(f"{role}_pool") if role else None
        if role and pool is not None and pool["value"] > 1:
            inputs.append({"prefix": "node ", "label": f"Which {role} node is shown",
                           "value": (state.get(f"{role}_rank") or 0) + 1, "min": 1, "max": pool["value"],
                           "suffix": f" of {js_str(pool['value'])}",
                           "event": {"type": "pool_rank", "role": role}})
        if instances is not None and instances["value"] > 1 and tab["kind"] == "serve":
            cur = (state.get("kv_instance") or 0) + 1
            inputs.append({"prefix": "instance ", "label": "Which vLLM instance is shown", "value": cur,
                           "min": 1,
                           "max": instances["value"],
                           "suffix": f" (1–{js_str(instances['value'])}) on $VLLM_INSTANCE_{cur}",
                           "event": {"type": "kv_instance"}})
        tab["inputs"] = inputs


def preset_rows(presets: list[JSON], preset: JSON | None) -> list[dict[str, Any]]:
    """The Preset row (None, then each preset) and, while a preset is applied, its Point row."""
    if not presets:
        return []
    none = make_pill("", "None", preset is None, None, "Build the command yourself",
                     event={"type": "preset", "value": None})
    rows = [make_row("preset", "Preset", [none, *map(_preset_pill, presets)], hint=PRESET_HINT,
                     event={"type": "preset"})]
    if preset is not None:
        points = next(p["points"] for p in presets if p["key"] == preset["key"])
        rows.append(make_row("point", "Point", [_preset_pill(p) for p in points], nested=True,
                             below=preset["description"] or None, event={"type": "point"}))
    return rows


def _preset_pill(item: JSON) -> dict[str, Any]:
    """A preset (named with its hardware) or a point (with its concurrency) as a pill."""
    hardware, concurrency = item.get("hardware"), item.get("concurrency")
    if hardware:
        tooltip = f"{item['label']} on {hardware}"
    elif "concurrency" in item:
        tooltip = f"concurrency {js_str(concurrency)}"
    else:
        tooltip = ""
    sub = hardware or (f"c={js_str(concurrency)}" if concurrency is not None else None)
    return make_pill(item["key"], item["label"], item["selected"], None, tooltip, sub=sub)
