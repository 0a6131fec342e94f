"""The Python half of the builder's worker (static/builder-worker.js), run by Pyodide in the browser.

Shipped beside the resolver package in ``static/resolver.zip`` as ``recipes_worker_glue``
(:mod:`builder.site.browser.bundle`), byte-compiled with it; the build itself never imports it.
The worker imports one copy of it per code zip (the ``resolver`` it imports is that zip's), so each
copy keeps the vocabulary and recipes of the pages using that zip.  Texts in and out are JSON: the
worker only moves strings.
"""

from __future__ import annotations

import json
from typing import Any

import resolver

_recipes: dict[str, Any] = {}
_predictions: dict[str, Any] = {}  # hf_id -> its stored predictions, loaded after the first view
_vocab: Any = {}
# hf_id -> the resolver.BuilderFacts of its recipe and the vocabulary: what they remember (rows, resolved
# selections) serves the recipe's next clicks; dropped whenever the recipe or the vocabulary changes
_facts: dict[str, Any] = {}


def set_vocab(text: str) -> None:
    global _vocab
    _vocab = json.loads(text)
    _facts.clear()


def set_recipe(hf_id: str, text: str) -> None:
    _recipes[hf_id] = json.loads(text)
    _facts.pop(hf_id, None)


def set_predictions(hf_id: str, text: str) -> None:
    _predictions[hf_id] = json.loads(text)


def drop_recipe(hf_id: str) -> None:
    _recipes.pop(hf_id, None)
    _predictions.pop(hf_id, None)
    _facts.pop(hf_id, None)


def view(hf_id: str, state: str, event: str) -> str:
    """The JSON text of ``builder_state`` for a loaded recipe, the page's state and its event."""
    facts = _facts.get(hf_id)
    if facts is None:
        facts = _facts[hf_id] = resolver.BuilderFacts(_recipes[hf_id], _vocab)
    view = resolver.builder_state(_recipes[hf_id], _vocab, json.loads(state), json.loads(event), facts=facts,
                                  predictions=_predictions.get(hf_id))
    return json.dumps(view, ensure_ascii=False)
