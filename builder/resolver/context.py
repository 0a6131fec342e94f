"""Per-call derived values of one resolution (cluster spec §5.1)."""

from __future__ import annotations

from typing import Any

from .hardware import _gpus, _model_id, _profile, _variant
from .strategies import _strategies
from .values import _dict


class _Ctx:
    """Per-call derived values (cluster §5.1)."""

    __slots__ = ("recipe", "taxonomy", "strategies", "hw", "profile", "variant_key", "variant",
                 "model_id", "gpus", "enabled", "modes", "advanced", "tp_override")

    def __init__(self, recipe: dict[str, Any], vocab: dict[str, Any], variant_key: str, hw: str, enabled: list[str],
                 modes: dict[str, Any] | None = None, advanced: list[Any] | None = None, tp_override: Any = None):
        self.recipe = recipe
        self.taxonomy = _dict(vocab.get("taxonomy"))
        self.strategies = _strategies(vocab)
        self.hw = hw
        self.profile = _profile(self.taxonomy, hw)
        self.variant_key = variant_key
        self.variant = _variant(recipe, variant_key)
        self.model_id = _model_id(recipe, self.variant)
        self.gpus = _gpus(self.profile)
        self.enabled = list(enabled)
        self.modes = _dict(modes)
        self.advanced = list(advanced or [])
        self.tp_override = tp_override

    def so(self, strategy_id: str) -> dict[str, Any]:
        return _dict(_dict(self.recipe.get("strategy_overrides")).get(strategy_id))
