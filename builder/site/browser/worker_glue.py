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
# hf_id -> step fingerprint (resolver.step_key) -> the JSON text of its view: a view is a function of its
# step and the facts, so a click back to a state shown before computes only its step; at most VIEW_TEXTS
# per recipe (the oldest goes first), dropped with the facts and when the recipe's predictions arrive
_texts: dict[str, dict[str, str]] = {}
VIEW_TEXTS = 256


def _forget(hf_id: str) -> None:
    _facts.pop(hf_id, None)
    _texts.pop(hf_id, None)


def set_vocab(text: str) -> None:
    global _vocab
    _vocab = json.loads(text)
    _facts.clear()
    _texts.clear()


def set_recipe(hf_id: str, text: str) -> None:
    _recipes[hf_id] = json.loads(text)
    _forget(hf_id)


def set_predictions(hf_id: str, text: str) -> None:
    _predictions[hf_id] = json.loads(text)
    _texts.pop(hf_id, None)


def drop_recipe(hf_id: str) -> None:
    _recipes.pop(hf_id, None)
    _predictions.pop(hf_id, None)
    _forget(hf_id)


def view(hf_id: str, state: str, event: str) -> str:
    """The JSON text of ``builder_state`` for a loaded recipe, the page's state and its event."""
    facts = _facts.get(hf_id)
    if facts is None:
        facts = _facts[hf_id] = resolver.BuilderFacts(_recipes[hf_id], _vocab)
    facts.use_predictions(_predictions.get(hf_id))
    step = resolver.builder_step(facts, json.loads(state), json.loads(event))
    texts = _texts.setdefault(hf_id, {})
    key = resolver.step_key(step)
    text = texts.get(key)
    if text is None:
        if len(texts) >= VIEW_TEXTS:
            del texts[next(iter(texts))]
        text = texts[key] = json.dumps(resolver.step_view(facts, step), ensure_ascii=False)
    return text
