"""The recipes read and validated on two cores: a forked child and this process take the recipes one at
a time (:class:`~builder.output.turns.Turns`), the child sending back what each gave (the recipe and its
problems); they are put together in walk order, so the content and the problems are those of one
process reading them all.

Reading is the part of a build that runs before the JSON API is split across the two cores
(:mod:`builder.output.parallel_api`); done in one process it held the second core idle for a
fifth of a ``--json-only`` build.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from builder.content.loader import RecipeRead, read_in_order
from builder.output.forked import on_two_cores

MIN_RECIPES = 8  # fewer: a fork costs more than it saves


def read_on_two_cores(rels: list[str], read: Callable[[str], RecipeRead]) -> list[RecipeRead]:
    """A :data:`~builder.content.loader.RecipeReader`: ``read(rel)`` of every path on two cores
    (:func:`~builder.output.forked.on_two_cores`); :func:`~builder.content.loader.read_in_order` with few
    recipes."""
    if len(rels) < MIN_RECIPES:
        return read_in_order(rels, read)
    return on_two_cores([functools.partial(read, rel) for rel in rels])
