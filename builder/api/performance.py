"""The ``performance`` block of a rendering record: a recipe's stored predictions and measured results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from builder.content.model import RecipeFile
from builder.resolver.performance.results import with_measured
from builder.resolver.performance.store import Performance, entries_by_inputs, performance_for_record


class RecipePerformance:
    """What one recipe stores beside it (predictions keyed by inputs, measured results) and each record's
    block.

    Measured results name a selection (hardware, variant, strategy), so they join the records of that
    selection; a preset point is a command of its own and gets its prediction only.
    """

    def __init__(self, recipe: RecipeFile | None = None) -> None:
        self.hf_id = "" if recipe is None else recipe.hf_id
        self.stored = None if recipe is None else recipe.performance
        self.by_inputs = None if self.stored is None else entries_by_inputs(self.stored)
        self.measured = [] if recipe is None else recipe.measured

    def block(self, record: Mapping[str, Any], data: Mapping[str, Any], variant: Mapping[str, Any],
              profile: Mapping[str, Any], preset: bool = False) -> Performance | None:
        """The record's block; None when the recipe stores nothing for it."""
        stored, hf_id, by_inputs = self.stored, self.hf_id, self.by_inputs
        block = performance_for_record(record, data, variant, profile, stored, hf_id, by_inputs)
        return with_measured(block, record, [] if preset else self.measured)
