"""The command builder's data, what the worker resolves against.

:func:`builder_data_files` is what the worker resolves against: ``builder-data/vocab.json``
(taxonomy + strategy catalogue, shared by every page, plus the bundle hash) and
``builder-data/<hf_id>.json`` (the raw recipe the resolver takes, plus the default view so the
controls paint before Pyodide is ready) and ``builder-data/<hf_id>.clicks.json``, the views one
click away from that default view (:mod:`builder.site.browser.first_clicks`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from builder.site.browser.bundle import BUNDLE_HASH_KEY, bundle_hash, resolver_bundle
from builder.site.browser.first_clicks import first_clicks, initial_view
from builder.site.compression import with_twins


def _plain(value: Any) -> Any:
    """JSON-ready copy (dates as ``YYYY-MM-DD``, keys as strings)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat") and not isinstance(value, str):
        return value.isoformat()[:10]
    return value


def builder_vocab(content: Any) -> dict[str, Any]:
    """The vocabulary as the resolver reads it in the browser (``builder-data/vocab.json`` without
    the bundle hash)."""
    vocab: dict[str, Any] = _plain(content.vocab.resolver_vocab())
    return vocab


def builder_recipe(hf_id: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """One recipe as the resolver reads it in the browser (the ``recipe`` of its builder data)."""
    recipe: dict[str, Any] = _plain({**data, "hf_id": hf_id})
    return recipe


def vocab_data(content: Any, vocab: Mapping[str, Any] | None = None) -> bytes:
    """The bytes of ``builder-data/vocab.json``: :func:`builder_vocab` (``vocab`` when given) and the
    resolver bundle's hash."""
    vocab = builder_vocab(content) if vocab is None else vocab
    return _compact_json({**vocab, BUNDLE_HASH_KEY: bundle_hash(resolver_bundle())})


def recipe_data(hf_id: str, recipe: Mapping[str, Any]) -> bytes:
    """The bytes of ``builder-data/<hf_id>.json`` for ``recipe`` (a :func:`builder_recipe`)."""
    return _compact_json({"hf_id": hf_id, "recipe": recipe})


def builder_data_files(content: Any, only: set[str] | None = None) -> dict[str, bytes]:
    """``builder-data/vocab.json`` and one ``builder-data/<hf_id>.json`` per recipe.

    ``content`` is a loaded :class:`builder.content.model.Content`; ``only`` limits the recipe files
    to those hf ids (incremental rebuilds).  Each recipe file holds ``{"hf_id", "recipe"}`` (what
    the worker loads); beside it ``<hf_id>.clicks.json`` holds the views one click away from the
    default view (:func:`builder.site.browser.first_clicks.first_clicks`, patches of
    :func:`builder.site.browser.first_clicks.initial_view`, which the recipe page embeds; no views when the
    default view failed).
    The vocabulary file also names the resolver bundle (:data:`BUNDLE_HASH_KEY`); the resolver
    ignores that key.  Every file comes with its ``.br`` and ``.gz`` twins.
    """
    vocab = builder_vocab(content)
    out = {"builder-data/vocab.json": vocab_data(content, vocab)}
    for rf in content.recipes:
        if only is not None and rf.hf_id not in only:
            continue
        recipe = builder_recipe(rf.hf_id, rf.data)
        initial = initial_view(recipe, vocab)
        clicks: Mapping[str, Any] = {"views": {}}  # always published: the recipe page preloads it
        if initial is not None:
            try:
                clicks = first_clicks(recipe, vocab, initial)
            except Exception:  # noqa: BLE001 - every click then waits for the worker
                clicks = {"views": {}}
        out[f"builder-data/{rf.hf_id}.json"] = recipe_data(rf.hf_id, recipe)
        out[f"builder-data/{rf.hf_id}.clicks.json"] = _compact_json(clicks)
    return with_twins(out)


def _compact_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
