"""A record resolved with ``docker: False`` (what the builder view asks for) is the full record without its
``docker run`` forms: the same keys in the same order, the docker ones left out."""

from __future__ import annotations

from typing import Any

from builder.resolver.resolve import resolve
from builder.resolver.strategies import effective_compatible_strategies, kv_store_ids
from builder.resolver.types import ResolveError
from tests.resolver.test_module import _content_at, require_upstream
from tests.support.paths import UPSTREAM


def _without_docker(record: dict[str, Any]) -> dict[str, Any]:
    """The record less every key naming docker (but its image), in its PD roles too."""
    out = {k: v for k, v in record.items() if "docker" not in k or k == "docker_image"}
    for role in ("prefill", "decode"):
        if role in out:
            out[role] = {k: v for k, v in out[role].items() if "docker" not in k}
    return out


def test_every_upstream_strategy_resolves_without_docker_forms_to_the_record_less_them() -> None:
    require_upstream()
    vocabulary, recipes = _content_at(str(UPSTREAM))
    kinds: set[str] = set()
    for recipe in recipes.values():
        for strategy in [None, *effective_compatible_strategies(recipe), *kv_store_ids(vocabulary)]:
            selection = {"strategy": strategy}
            try:
                full = resolve(recipe, vocabulary, selection, with_views=False)
            except ResolveError as error:
                try:
                    resolve(recipe, vocabulary, {**selection, "docker": False}, with_views=False)
                except ResolveError as same:
                    assert str(same) == str(error)
                    continue
                raise AssertionError(f"{recipe['hf_id']} {strategy}: only the docker forms failed") from error
            lean = resolve(recipe, vocabulary, {**selection, "docker": False}, with_views=False)
            assert list(lean) == list(_without_docker(full)) and lean == _without_docker(full)
            kinds.add(full["deploy_type"])
    assert kinds == {"single_node", "multi_node", "pd_cluster", "kv_store_lb", "omni"}
