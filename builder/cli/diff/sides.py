"""One side of a diff: a content root built in memory by the build's own :class:`~builder.cli.build.Pipeline`,
and the two sides built at once, one in a forked child, so a diff costs about one build on two cores.

A side leaves out the command builder's data (a third of a build's time): they are the recipe and
the vocabulary as the resolver reads them, with the views one click away, so they change only where
a recipe's documents or the published vocabulary do, which the report shows already."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from builder.cli.build import BuildOptions, Pipeline
from builder.cli.diff.inputs import Tree
from builder.content.problems import ContentError, Problem
from builder.output.forked import fork_job
from builder.resolver.types import Vocab
from builder.site.browser.bundle import browser_files

# Provenance is the same on both sides: a commit id the build would detect (each revision has its own)
# would otherwise change every recipe document.
SAME_SHA = "0" * 40


class RecipeSide(TypedDict):
    """What one side publishes for one recipe file."""

    file: str  # path relative to the content root
    ids: list[str]  # the recipe's own id, then the ids of its promoted variants (each a document)
    endpoints: list[str]  # the JSON API paths its processing wrote


@dataclass
class Side:
    """One built content root, in memory."""

    label: str
    root: Path
    # every published file but the tool's own (runtime, resolver zip) and the builder data
    files: dict[str, bytes]
    recipes: dict[str, RecipeSide]  # by recipe id
    problems: list[Problem]  # the warnings; with ``failed``, every problem
    unlocated: list[str]  # warnings without a file (variants not promoted...)
    failed: bool  # the content has errors: nothing would be published
    vocab: Vocab  # the vocabulary as the resolver reads it (command texts, deployment files)


def build_side(tree: Tree) -> Side:
    """``tree`` built as ``vllm-recipes build`` would publish it, without writing anything."""
    options = BuildOptions(content=tree.root, out=Path(), source={"sha": SAME_SHA}, builder_data=False)
    try:
        result = Pipeline(options).run()
    except ContentError as exc:
        return Side(tree.label, tree.root, {}, {}, exc.problems, [], True, Vocab())
    tool = browser_files()
    files = {path: data for path, data in result.files.items() if path not in tool}
    owned = result.api.owned
    recipes: dict[str, RecipeSide] = {}
    for recipe in result.content.recipes:
        endpoints = sorted(owned.get(recipe.hf_id, set()))
        promoted = [p.removesuffix(".json") for p in endpoints
                    if p.count("/") == 1 and p.endswith(".json") and p != f"{recipe.hf_id}.json"]
        recipes[recipe.hf_id] = {"file": recipe.rel_path, "ids": [recipe.hf_id, *promoted],
                                 "endpoints": endpoints}
    return Side(tree.label, tree.root, files, recipes, result.problems, list(result.output.warnings), False,
                result.content.vocab.resolver_vocab())


def build_sides(base: Tree, head: Tree) -> tuple[Side, Side]:
    """Both sides: the base in a forked child while this process builds the head (one after the other
    where the process can't fork, or when the child fails)."""
    browser_files()  # read once before the fork (both processes need it); raises BrowserFilesMissing
    child = fork_job(lambda: build_side(base))
    head_side = build_side(head)
    base_side = child.result() if child is not None else None
    return base_side if base_side is not None else build_side(base), head_side
