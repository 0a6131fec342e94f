"""Per-call derived values of one resolution (cluster spec §5.1)."""

from __future__ import annotations

from typing import Any

from .hardware import gpu_count_of, profile_of, served_model_id, variant_of
from .strategies import strategy_catalogue
from .types import Vocab
from .values import as_dict


class RenderContext:
    """Per-call derived values (cluster §5.1)."""

    __slots__ = ("recipe", "taxonomy", "strategies", "hw", "profile", "variant_key", "variant",
                 "model_id", "gpus", "enabled", "modes", "advanced", "tp_override")

    def __init__(self, recipe: dict[str, Any], vocab: Vocab, variant_key: str, hw: str, enabled: list[str],
                 modes: dict[str, Any] | None = None, advanced: list[Any] | None = None, tp_override: Any = None):
        self.recipe = recipe
        self.taxonomy = as_dict(vocab.get("taxonomy"))
        self.strategies = strategy_catalogue(vocab)
        self.hw = hw
        self.profile = profile_of(self.taxonomy, hw)
        self.variant_key = variant_key
        self.variant = variant_of(recipe, variant_key)
        self.model_id = served_model_id(recipe, self.variant)
        self.gpus = gpu_count_of(self.profile)
        self.enabled = list(enabled)
        self.modes = as_dict(modes)
        self.advanced = list(advanced or [])
        self.tp_override = tp_override

    def so(self, strategy_id: str) -> dict[str, Any]:
        return as_dict(as_dict(self.recipe.get("strategy_overrides")).get(strategy_id))
