"""The recipes read and validated on two cores: a forked child and this process take the recipes one at
a time (:class:`~builder.output.turns.Turns`), the child sending back what each gave (the recipe and its
problems); they are put together in walk order, so the content and the problems are those of one
process reading them all.

Reading is the part of a build that runs before the JSON API is split across the two cores
(:mod:`builder.output.parallel_api`); done in one process it held the second core idle for a
fifth of a ``--json-only`` build.
"""

from __future__ import annotations

from collections.abc import Callable

from builder.content.loader import RecipeRead, read_in_order
from builder.output.forked import fork_job
from builder.output.turns import Turns

MIN_RECIPES = 8  # fewer: a fork costs more than it saves


def read_on_two_cores(rels: list[str], read: Callable[[str], RecipeRead]) -> list[RecipeRead]:
    """A :data:`~builder.content.loader.RecipeReader`: ``read(rel)`` of every path, some of them in a
    forked child; :func:`~builder.content.loader.read_in_order` where the process cannot fork or with
    few recipes. When the child fails, this process reads what it did not read itself."""
    turns = Turns.open(len(rels)) if len(rels) >= MIN_RECIPES else None
    if turns is None:
        return read_in_order(rels, read)
    try:
        child = fork_job(lambda: {position: read(rels[position]) for position in turns.take()})
        got = {position: read(rels[position]) for position in turns.take()}
        shared = child.result() if child is not None else None
    finally:
        turns.close()
    got.update(shared if shared is not None else
               {position: read(rels[position]) for position in range(len(rels)) if position not in got})
    return [got[position] for position in range(len(rels))]
