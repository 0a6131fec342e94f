"""``vllm-recipes predict [<org>/<repo>] [--all] [--check] [--content DIR]``: predicted speed for every
published command, stored beside the recipe (``models/<org>/<repo>.performance.json``).

The published commands of a recipe are the records the API and the builder offer: every variant's
recommended and alternative strategy per hardware, and every preset point. Each maps to the
predictor's inputs (:mod:`builder.resolver.performance.mapping`) or to a named reason; distinct
inputs are predicted once (:mod:`builder.cli.predictor`, the optional ``perf`` extra). A recipe is
up to date when its stored inputs are exactly the current ones and the predictor's version is the
installed one; only then is it skipped, and ``--check`` lists the others without writing.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder import resolver
from builder.cli.import_config import write_atomically
from builder.cli.reporting import Refused, recipe_file
from builder.content.loader import load_content
from builder.content.log_text import log_text
from builder.content.model import Content, RecipeFile
from builder.resolver.performance.candidates import published_records as records_of
from builder.resolver.performance.mapping import PredictorInputs, record_inputs
from builder.resolver.performance.store import (
    Entry,
    StoredFile,
    Tool,
    dump_stored,
    inputs_key,
    stored_path,
)


def published_records(recipe: RecipeFile, content: Content) -> Iterator[dict[str, Any]]:
    """Every command a recipe publishes (:func:`builder.resolver.performance.candidates.published_records`),
    with the presets the loader resolved."""
    def preset(key: str) -> Any:
        return recipe.resolved_presets.get(key) or resolver.resolve_preset(recipe.data, vocab, key)

    vocab = content.vocab.resolver_vocab()
    return records_of(recipe.data, vocab, recipe.hf_id, preset)


@dataclass
class Commands:
    """A recipe's commands: the distinct predictor inputs and the reasons of the others."""

    inputs: dict[str, PredictorInputs] = field(default_factory=dict)  # inputs_key -> inputs
    predictable: int = 0
    reasons: Counter[str] = field(default_factory=Counter)


def recipe_commands(recipe: RecipeFile, content: Content) -> Commands:
    """Map every published command of a recipe."""
    out = Commands()
    profiles = content.vocab.taxonomy.get("hardware_profiles") or {}
    for record in published_records(recipe, content):
        variant = (recipe.data.get("variants") or {}).get(record.get("variant")) or {}
        profile = profiles.get(record.get("hardware")) or {}
        inputs = record_inputs(record, recipe.data, variant, profile)
        if "unavailable" in inputs:
            out.reasons[inputs["unavailable"]] += 1  # type: ignore[typeddict-item]
        else:
            out.predictable += 1
            out.inputs[inputs_key(inputs)] = inputs  # type: ignore[arg-type]
    return out


def stale_reasons(stored: StoredFile | None, commands: Commands, installed: Tool | None) -> list[str]:
    """Why a recipe's stored predictions are out of date (empty: up to date)."""
    if stored is None:
        return ["no stored predictions"] if commands.predictable else []
    reasons = []
    if installed is not None and stored["predictor"] != installed:
        old, new = stored["predictor"], installed
        reasons.append(f"predictor {old['name']} {old['version']} -> {new['name']} {new['version']}")
    keys = {inputs_key(entry["inputs"]) for entry in stored["predictions"]}
    missing, unused = len(set(commands.inputs) - keys), len(keys - set(commands.inputs))
    if missing:
        reasons.append(f"{missing} command input(s) without a stored prediction (recipe or facts changed)")
    if unused:
        reasons.append(f"{unused} stored prediction(s) no command uses")
    return reasons


def coverage_line(commands: list[Commands]) -> str:
    """How many commands have predictions, and the named reasons of the others (most frequent first)."""
    predicted = sum(c.predictable for c in commands)
    reasons: Counter[str] = Counter()
    for c in commands:
        reasons.update(c.reasons)
    total = predicted + sum(reasons.values())
    named = "; ".join(f"{count} {reason}" for reason, count in reasons.most_common(4))
    more = f"; {len(reasons) - 4} more reasons" if len(reasons) > 4 else ""
    tail = f" ({named}{more})" if named else ""
    return (f"performance: {predicted} of {total} commands predictable, {sum(reasons.values())} with a "
            f"named reason{tail}")


def _selected(content: Content, hf_id: str | None, every: bool) -> list[RecipeFile]:
    if every == (hf_id is not None):
        raise Refused("expected <org>/<repo> or --all")
    if hf_id is None:
        return [r for r in content.recipes if not resolver.is_omni(r.data)]
    recipe_file(hf_id)
    for recipe in content.recipes:
        if recipe.hf_id == hf_id:
            return [recipe]
    raise Refused(f"no recipe {hf_id} in this content root")


def predict(content_root: Path, hf_id: str | None, every: bool, check: bool) -> int:
    """Run ``predict``; returns the exit status."""
    from builder.cli.predictor import missing_predictor

    content, _ = load_content(content_root)
    recipes = _selected(content, hf_id, every)
    absent = missing_predictor()
    if absent is not None and not check:
        raise Refused(absent)
    from builder.cli import predictor as engine

    installed = None if absent is not None else engine.tool()
    mapped = [(recipe, recipe_commands(recipe, content)) for recipe in recipes]
    stale = 0
    runner: engine.Predictor | None = None
    try:
        for recipe, commands in mapped:
            reasons = stale_reasons(recipe.performance, commands, installed)
            if not reasons and recipe.performance is None and check:
                print(f"{recipe.hf_id}: nothing to predict")
                continue
            if not reasons and recipe.performance is not None:
                print(f"{recipe.hf_id}: up to date ({len(commands.inputs)} predictions)")
                continue
            stale += 1
            if check:
                print(log_text(f"{recipe.hf_id}: stale: {'; '.join(reasons)}"))
                continue
            assert installed is not None
            runner = runner or engine.Predictor()
            started = time.perf_counter()
            reuse = {} if recipe.performance is None or recipe.performance["predictor"] != installed else {
                inputs_key(entry["inputs"]): entry for entry in recipe.performance["predictions"]}
            entries: list[Entry] = []
            for key in sorted(commands.inputs):
                entries.append(reuse.get(key) or runner.predict(commands.inputs[key]))
            stored = StoredFile(predictor=installed, predictions=entries)
            write_atomically(content_root / stored_path(recipe.hf_id), dump_stored(stored))
            new = sum(1 for key in commands.inputs if key not in reuse)
            failed = sum(1 for entry in entries if "unavailable" in entry)
            print(f"{recipe.hf_id}: {len(entries)} predictions ({new} new, {failed} the predictor "
                  f"could not make) in {time.perf_counter() - started:.1f} s")
    finally:
        if runner is not None:
            runner.close()
    print(log_text(coverage_line([commands for _, commands in mapped])))  # reasons quote recipe values
    if check and stale:
        print(f"{stale} recipe(s) with stale predictions: run vllm-recipes predict", file=sys.stderr)
        return 1
    return 0
