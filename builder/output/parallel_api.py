"""The JSON API resolved on two cores: a forked child and this process take the recipes one at a time
(:class:`~builder.output.turns.Turns`), each streaming its files into the build's staging folder; what
each recipe added to the builder's state is then put together in walk order, so the output, the
warnings and the documents are those of :meth:`~builder.api.publish.ApiBuilder.build` (the child
is forked before the catalogues, so what it sends back is its recipes' alone).

Only when no two recipes publish the same base (a duplicate promoted variant: there walk order
decides which one wins) and the process can fork; else one process resolves everything.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, TypedDict

from builder.api.output import BuildOutput
from builder.api.publish import ApiBuilder
from builder.content.model import RecipeFile
from builder.output.forked import fork_job
from builder.output.streaming import StreamedFiles
from builder.output.turns import Turns

MIN_RECIPES = 8  # fewer: a fork costs more than it saves


class RecipeAdditions(TypedDict):
    """What resolving one recipe added to the builder's ordered output, in insertion order."""

    warnings: list[str]
    documents: dict[str, dict[str, Any]]
    objects: dict[str, Any]
    findings: dict[str, Any]


class Share(TypedDict):
    """One process's recipes resolved: their additions (by walk position) and the builder's keyed state."""

    additions: dict[int, RecipeAdditions]
    index: dict[str, list[dict[str, Any]]]
    owned: dict[str, set[str]]
    base_files: dict[str, set[str]]
    base_owners: dict[str, list[str]]
    lint_problems: dict[str, Any]
    paths: list[str]


def bases_of(recipes: list[RecipeFile]) -> list[set[str]]:
    """Per recipe, every base it may publish: its own id and the ids its variants are promoted to."""
    standalone = {recipe.hf_id for recipe in recipes}
    out = []
    for recipe in recipes:
        bases = {recipe.hf_id}
        for variant in (recipe.data.get("variants") or {}).values():
            model_id = variant.get("model_id") if isinstance(variant, dict) else None
            if isinstance(model_id, str) and "/" in model_id and model_id not in standalone:
                bases.add(model_id)
        out.append(bases)
    return out


def disjoint(bases: list[set[str]]) -> bool:
    """No base in two of ``bases``."""
    seen: set[str] = set()
    for own in bases:
        if own & seen:
            return False
        seen |= own
    return True


def _tail(mapping: dict[str, Any], start: int) -> dict[str, Any]:
    return {key: mapping[key] for key in list(mapping)[start:]}


def _resolve(api: ApiBuilder, positions: Iterable[int], standalone: set[str]) -> dict[int, RecipeAdditions]:
    """Resolve the recipes at ``positions`` in ``api``; what each added to its ordered output."""
    out = api.out
    recipes = api.content.recipes
    additions: dict[int, RecipeAdditions] = {}
    for position in positions:
        sizes = len(out.warnings), len(out.documents), len(out.objects), len(out.findings)
        api.recipe(recipes[position], standalone)
        additions[position] = {"warnings": out.warnings[sizes[0]:],
                               "documents": _tail(out.documents, sizes[1]),
                               "objects": _tail(out.objects, sizes[2]),
                               "findings": _tail(out.findings, sizes[3])}
    return additions


def _share(api: ApiBuilder, additions: dict[int, RecipeAdditions], paths: list[str]) -> Share:
    return {"additions": additions, "index": api.index, "owned": api.owned, "base_files": api.base_files,
            "base_owners": api.base_owners, "lint_problems": api.lint_problems, "paths": paths}


def build_api_parallel(api: ApiBuilder) -> BuildOutput:
    """``api.build()`` with some of the recipes resolved by a forked child (see the module docstring);
    ``api`` streams its files (``files`` a :class:`StreamedFiles`)."""
    streamed = api.out.files
    recipes = api.content.recipes
    if (not isinstance(streamed, StreamedFiles) or len(recipes) < MIN_RECIPES
            or not disjoint(bases_of(recipes))):
        return api.build()
    turns = Turns.open(len(recipes))
    if turns is None:
        return api.build()
    standalone = {recipe.hf_id for recipe in recipes}

    def their_share() -> Share | None:  # forked before anything is resolved: its state holds only its own
        share = streamed.sibling()
        api.out.files = share
        additions = _resolve(api, turns.take(), standalone)
        return _share(api, additions, list(share)) if share.staging.error is None else None

    try:
        child = fork_job(their_share)
        if child is None:
            return api.build()
        api.catalogues()
        out = api.out
        before = (list(out.warnings), dict(out.documents), dict(out.objects), dict(out.findings))
        mine = _resolve(api, turns.take(), standalone)
        share = child.result()
    finally:
        turns.close()
    if share is None:  # the child failed: resolve here what this process did not
        additions = _resolve(api, [p for p in range(len(recipes)) if p not in mine], standalone)
    else:
        streamed.adopt(share["paths"])
        additions = share["additions"]
        api.index.update(share["index"])
        api.owned.update(share["owned"])
        api.base_files.update(share["base_files"])
        api.base_owners.update(share["base_owners"])
        api.lint_problems.update(share["lint_problems"])
    _in_walk_order(out, before, {**mine, **additions})
    return api.finish()


def _in_walk_order(out: BuildOutput, before: tuple[list[str], dict[str, Any], dict[str, Any], dict[str, Any]],
                   additions: dict[int, RecipeAdditions]) -> None:
    """``out``'s ordered parts as one process resolving the recipes in walk order leaves them."""
    warnings, documents, objects, findings = before
    out.warnings[:] = warnings
    out.documents.clear()
    out.documents.update(documents)
    out.objects.clear()
    out.objects.update(objects)
    out.findings.clear()
    out.findings.update(findings)
    for position in sorted(additions):
        added = additions[position]
        out.warnings.extend(added["warnings"])
        out.documents.update(added["documents"])
        out.objects.update(added["objects"])
        out.findings.update(added["findings"])
