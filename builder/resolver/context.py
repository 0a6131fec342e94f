"""Per-call derived values of one resolution (cluster spec §5.1)."""

from __future__ import annotations

from typing import Any

from .hardware import gpu_count_of, lookup_generation, profile_of, served_model_id, variant_of
from .strategies import strategy_catalogue
from .types import Vocab
from .values import as_dict


class RenderContext:
    """Per-call derived values (cluster §5.1)."""

    __slots__ = ("recipe", "taxonomy", "strategies", "hw", "profile", "variant_key", "variant",
                 "model_id", "gpus", "enabled", "modes", "advanced", "tp_override", "_generations")

    def __init__(self, recipe: dict[str, Any], vocab: Vocab, variant_key: str, hw: str, enabled: list[str],
                 modes: dict[str, Any] | None = None, advanced: list[Any] | None = None,
                 tp_override: Any = None):
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
        self._generations: dict[str, tuple[Any, ...]] = {}

    def so(self, strategy_id: str) -> dict[str, Any]:
        return as_dict(as_dict(self.recipe.get("strategy_overrides")).get(strategy_id))

    def generation_blocks(self, strategy_id: str, overrides: dict[str, Any]) -> tuple[Any, ...]:
        """Discipline G override blocks of one strategy (``overrides`` = :meth:`so` of it): the
        strategy's when it has one, else the recipe's then the variant's. Asked for the args and
        the env of every command of that strategy, so found once per context."""
        found = self._generations.get(strategy_id) if isinstance(strategy_id, str) else None
        if found is None:
            strategy_gen = lookup_generation(overrides.get("hardware_overrides"), self.profile)
            found = (strategy_gen,) if strategy_gen is not None else (
                lookup_generation(self.recipe.get("hardware_overrides"), self.profile),
                lookup_generation(self.variant.get("hardware_overrides"), self.profile))
            if isinstance(strategy_id, str):
                self._generations[strategy_id] = found
        return found
