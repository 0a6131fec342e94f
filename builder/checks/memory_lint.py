"""Sharding rules of the memory model as located warnings, one per (recipe, rule, message)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from builder.content.model import RecipeFile
from builder.content.problems import Problem
from builder.resolver import Memory

# the flag whose value breaks a rule (located at the recipe argument that writes it)
RULE_FLAGS = {
    "attention-heads-tp": "--tensor-parallel-size",
    "kv-heads-tp": "--tensor-parallel-size",
    "quant-block-tp": "--tensor-parallel-size",
    "experts-ep": "--enable-expert-parallel",
    "layers-pp": "--pipeline-parallel-size",
    "gpus-strategy": "--tensor-parallel-size",
}
SETTING_FIELDS = {"--tensor-parallel-size": "tp", "--pipeline-parallel-size": "pp"}


class MemoryLint:
    """Collects the sharding findings and estimate errors of every published rendering of a recipe."""

    def __init__(self, arg_origin: Callable[[dict[str, Any], str], str]) -> None:
        self.arg_origin = arg_origin  # field path of the recipe argument that writes a flag
        self.recipe: RecipeFile | None = None
        self.found: dict[tuple[str, str, str], list[str]] = {}  # (variant, rule, message) -> selections

    def start(self, recipe: RecipeFile) -> None:
        self.recipe, self.found = recipe, {}

    def record(self, record: dict[str, Any], memory: Memory | None, preset: str | None = None) -> None:
        """Remember the findings of one rendering's memory block."""
        if memory is None:
            return
        selection = (
            f"hardware {record.get('hardware')}, variant {record.get('variant')}, "
            f"strategy {record.get('strategy')}" + (f", {preset}" if preset else "")
        )
        lines = list((memory.get("roles") or {"serve": memory}).items())
        for role, line in lines:
            where = f"{selection}, {role}" if len(lines) > 1 else selection
            variant = str(record.get("variant"))
            if "error" in line:
                self.found.setdefault((variant, "estimate", line["error"]), []).append(where)
            for finding in line.get("findings", []):
                self.found.setdefault((variant, finding["rule"], finding["message"]), []).append(where)

    def field_of(self, variant: str, rule: str) -> str:
        """Where a finding is located: the argument that sets the flag, else the variant's setting or
        block."""
        assert self.recipe is not None
        data = self.recipe.data
        variant_block = (data.get("variants") or {}).get(variant)
        variant_block = variant_block if isinstance(variant_block, dict) else {}
        if rule == "estimate":
            owner = f"variants.{variant}" if "architecture_config" in variant_block else "model"
            return f"{owner}.architecture_config"
        flag = RULE_FLAGS.get(rule, "--tensor-parallel-size")
        found = self.arg_origin(data, flag)
        if found:
            return found
        setting = SETTING_FIELDS.get(flag)
        if setting and setting in variant_block:
            return f"variants.{variant}.{setting}"
        return f"variants.{variant}"

    def problems(self) -> list[Problem]:
        """Located warnings for the current recipe (errors under --strict)."""
        assert self.recipe is not None
        out = []
        for (variant, rule, message), selections in self.found.items():
            field = self.field_of(variant, rule)
            file, line = self.recipe.where(field)
            more = f" (+{len(selections) - 1} more renderings)" if len(selections) > 1 else ""
            out.append(Problem(file, line, field, f"memory model ({rule}): {message} [{selections[0]}{more}]",
                               warning=True))
        return out
