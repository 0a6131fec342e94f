"""The recipes read and validated on two cores: a forked child reads every other recipe and sends
back what each gave (the recipe and its problems), while this process reads the rest; they are put
together in walk order, so the content and the problems are those of one process reading them all.

Reading is the part of a build that runs before the JSON API is split across the two cores
(:mod:`builder.output.parallel_api`); done in one process it held the second core idle for a
fifth of a ``--json-only`` build.
"""

from __future__ import annotations

from collections.abc import Callable

from builder.content.loader import RecipeRead, read_in_order
from builder.output.forked import fork_job

MIN_RECIPES = 8  # fewer: a fork costs more than it saves


def read_on_two_cores(rels: list[str], read: Callable[[str], RecipeRead]) -> list[RecipeRead]:
    """A :data:`~builder.content.loader.RecipeReader`: ``read(rel)`` of every path, the odd
    positions in a forked child; :func:`~builder.content.loader.read_in_order` where the process
    cannot fork, with few recipes, or when the child fails (this process then reads its share)."""
    if len(rels) < MIN_RECIPES:
        return read_in_order(rels, read)
    theirs = range(1, len(rels), 2)
    child = fork_job(lambda: {position: read(rels[position]) for position in theirs})
    if child is None:
        return read_in_order(rels, read)
    got = {position: read(rels[position]) for position in range(0, len(rels), 2)}
    shared = child.result()
    got.update(shared if shared is not None else {position: read(rels[position]) for position in theirs})
    return [got[position] for position in range(len(rels))]
