"""One recipe as the pages see it (:class:`RecipeView`) and the small formatting helpers of the site."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from typing import Any

from builder import resolver

TASK_ORDER = ["multimodal", "text", "omni", "embedding"]
TASK_LABELS = {"text": "Text", "multimodal": "Multimodal", "omni": "Omni", "embedding": "Embedding"}
SIZE_BUCKETS = [("xs", "<10B", 0, 10), ("s", "10–70B", 10, 70), ("m", "70–200B", 70, 200),
                ("l", "200B–1T", 200, 1000), ("xl", "≥1T", 1000, math.inf)]
PRECISIONS = ["bf16", "fp8", "fp4", "nvfp4", "mxfp4", "int4", "int8"]

_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def text(value: Any) -> str:
    """``value`` as display text ('' for None)."""
    return "" if value is None else str(value)


def parse_date(value: Any) -> date | None:
    """``YYYY-MM-DD`` (or a date) → date; anything else → None."""
    if isinstance(value, date):
        return value
    m = _DATE_RE.match(str(value or ""))
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def date_key(day: date | None) -> int:
    """Sort key of a date: undated sorts oldest."""
    return day.toordinal() if day else -1


def parse_params(value: Any) -> float | None:
    """Parameter count in billions: "120B" → 120, "1.2T" → 1200, "500M" → 0.5."""
    m = re.match(r"^\s*([\d.]+)\s*([KMBT]?)", str(value or ""), re.I)
    if not m:
        return None
    try:
        num = float(m.group(1))
    except ValueError:
        return None
    scale = {"": 1, "K": 1e-6, "M": 1e-3, "B": 1, "T": 1000}[m.group(2).upper()]
    return num * scale


def size_bucket(params: float | None) -> str:
    """Browse size bucket key for a parameter count in billions ('' when unknown)."""
    if params is None:
        return ""
    for key, _label, lo, hi in SIZE_BUCKETS:
        if lo <= params < hi:
            return key
    return ""


def fmt_ctx_short(ctx: Any) -> str:
    """Context as "1M ctx", "128K ctx" or raw; '' for 0/None."""
    try:
        n = int(ctx or 0)
    except (TypeError, ValueError):
        return ""
    if n <= 0:
        return ""
    if n >= 1_000_000:
        return f"{n // 1_000_000 if n % 1_000_000 == 0 else round(n / 1_000_000, 1)}M ctx"
    if n >= 1000:
        return f"{round(n / 1000)}K ctx"
    return f"{n} ctx"


def _text_property(section: str, key: str) -> cached_property[str]:
    """A cached property: ``text(self.<section>[key])`` (``section`` is ``meta`` or ``model``)."""

    def read(view: RecipeView) -> str:
        return text(getattr(view, section).get(key))

    return cached_property(read)


@dataclass
class RecipeView:
    """Everything a template needs about one recipe (its page, card, row, index entry).

    ``doc`` is the published document (``/<hf_id>.json``), ``raw`` the recipe file as loaded.
    """

    hf_id: str
    org: str
    repo: str
    doc: dict[str, Any]
    raw: dict[str, Any]
    rel_path: str
    provider_name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    variants: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, hf_id: str, rel_path: str, doc: dict[str, Any], raw: dict[str, Any]) -> RecipeView:
        """The view of a recipe from its document (or, unpublished, its file)."""
        src = doc or raw
        org, _, repo = hf_id.partition("/")
        meta = src.get("meta") if isinstance(src.get("meta"), dict) else {}
        model = src.get("model") if isinstance(src.get("model"), dict) else {}
        variants = src.get("variants") if isinstance(src.get("variants"), dict) else {}
        return cls(hf_id, org, repo, doc, raw, rel_path, "", meta, model, variants)

    @cached_property
    def url(self) -> str:
        return f"/{self.hf_id}"

    @cached_property
    def title(self) -> str:
        return text(self.meta.get("title")) or self.repo

    description = _text_property("meta", "description")
    headline = _text_property("meta", "performance_headline")

    @cached_property
    def tasks(self) -> list[str]:
        tasks = self.meta.get("tasks") or []
        return [str(t) for t in tasks] if isinstance(tasks, list) else []

    @cached_property
    def first_task(self) -> str:
        return self.tasks[0] if self.tasks else "other"

    @cached_property
    def is_omni(self) -> bool:
        return resolver.is_omni(self.raw)

    @cached_property
    def arch(self) -> str:
        return text(self.model.get("architecture")).lower()

    params = _text_property("model", "parameter_count")
    active = _text_property("model", "active_parameters")

    @cached_property
    def params_label(self) -> str:
        """"total / active" for MoE with a different active count, else total."""
        if self.active and self.active != self.params and self.params:
            return f"{self.params} / {self.active}"
        return self.params

    @cached_property
    def params_b(self) -> float | None:
        return parse_params(self.params)

    @cached_property
    def ctx(self) -> int:
        try:
            return int(self.model.get("context_length") or 0)
        except (TypeError, ValueError):
            return 0

    min_vllm = _text_property("model", "min_vllm_version")

    @cached_property
    def precision(self) -> str:
        default = self.variants.get("default")
        return text(default.get("precision")) if isinstance(default, dict) else ""

    @cached_property
    def precisions(self) -> list[str]:
        out: list[str] = []
        for v in self.variants.values():
            p = text(v.get("precision")).lower() if isinstance(v, dict) else ""
            if p and p not in out:
                out.append(p)
        return out

    @cached_property
    def hardware_marks(self) -> dict[str, str]:
        hw = self.meta.get("hardware")
        return {str(k): str(v) for k, v in hw.items()} if isinstance(hw, dict) else {}

    @cached_property
    def verified(self) -> list[str]:
        return [k for k, v in self.hardware_marks.items() if v == "verified"]

    @cached_property
    def date_added(self) -> date | None:
        return parse_date(self.meta.get("date_added")) or parse_date(self.meta.get("date_updated"))

    @cached_property
    def date_updated(self) -> date | None:
        return parse_date(self.meta.get("date_updated"))

    @cached_property
    def released(self) -> date | None:
        """HuggingFace release date when the recipe records one, else ``date_updated`` (ORG-06)."""
        return parse_date(self.meta.get("release_date")) or self.date_updated

    @cached_property
    def summary(self) -> str:
        return self.description or self.headline

    @cached_property
    def model_path(self) -> str:
        """The recipe file's path for edit links (``models/<org>/<repo>.yaml``)."""
        rel = self.rel_path.replace("\\", "/")
        return rel if rel.startswith("models/") else f"models/{self.hf_id}.yaml"
