"""The answers BuilderFacts remembers across clicks (rows recalled per pattern, KV reasons per brand, …) give
the views that facts made for one view give: every hardware pill of a third of ../shared/upstream's
recipes, with each KV choice on two of them, asked in turn of one shared BuilderFacts."""

from __future__ import annotations

from typing import Any

from builder.resolver.types import ResolveError
from builder.resolver.ui.facts import BuilderFacts
from builder.resolver.ui.view import builder_state
from tests.resolver.test_module import _content_at, require_upstream
from tests.support.paths import UPSTREAM


def _view(recipe: dict[str, Any], vocab: dict[str, Any], state: dict[str, Any],
          facts: BuilderFacts | None) -> Any:
    try:
        return builder_state(recipe, vocab, state, facts=facts)
    except ResolveError as error:
        return f"error: {error}"


def test_views_from_shared_facts_equal_views_from_fresh_facts() -> None:
    require_upstream()
    vocab, recipes = _content_at(str(UPSTREAM))
    kv_choices = [*vocab["taxonomy"].get("kv_offload", {}),
                  *(k for k, s in vocab["strategies"].items() if s.get("deploy_type") == "kv_store_lb")]
    compared = 0
    for recipe in list(recipes.values())[::3]:
        shared = BuilderFacts(recipe, vocab)
        first = _view(recipe, vocab, {}, shared)
        if isinstance(first, str):
            continue
        pills = [p["value"] for p in first["rows"][0]["pills"] if not p["disabled"]]
        states = [{"hardware": hw} for hw in pills]
        states += [{"hardware": hw, "kv_offload": kv} for hw in pills[:2] for kv in kv_choices]
        for state in states:
            assert _view(recipe, vocab, state, shared) == _view(recipe, vocab, state, None), (recipe["hf_id"],
                                                                                               state)
            compared += 1
    assert compared > 600
