"""The command builder's data, what the worker resolves against and what the page answers early from.

:func:`builder_data_files` writes ``builder-data/vocab.json`` (taxonomy + strategy catalogue, shared
by every page), and per recipe ``builder-data/<hf_id>.json`` (the raw recipe the resolver takes) and
``builder-data/<hf_id>.clicks.json``, the views of the first two clicks from the default view
(:mod:`builder.site.browser.stored_clicks`), and for a recipe with stored predictions
``builder-data/<hf_id>.performance.json`` (:func:`predictions_data`, loaded lazily by the worker).
A recipe's first two files and their twins depend only on the recipe, the vocabulary and the code
computing them, so they are kept in the build cache (:data:`CACHE`) by a hash of those: a rebuild
computes only the recipes that changed.
"""

from __future__ import annotations

import functools
import hashlib
import json
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from pathlib import Path
from typing import Any

from builder.content.model import RecipeFile
from builder.site import compression
from builder.site.browser import stored_clicks as stored_clicks_module
from builder.site.browser.bundle import sources_key
from builder.site.browser.stored_clicks import initial_view, stored_clicks
from builder.site.compression import with_twins
from builder.site.disk_cache import cached_files
from builder.site.paths import CACHE_DIR

CACHE = CACHE_DIR / "builder-data"
CACHE_KEEP_BYTES = 512 * 1024 * 1024  # least recently used entries beyond this go
# the code whose output the cache holds, besides the resolver (sources_key): this module, the stored
# clicks and the compression of the twins
CODE = tuple(Path(module.__file__ or "")
             for module in (sys.modules[__name__], stored_clicks_module, compression))


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
    """The vocabulary as the resolver reads it in the browser (``builder-data/vocab.json``)."""
    vocab: dict[str, Any] = _plain(content.vocab.resolver_vocab())
    return vocab


def builder_recipe(hf_id: str, data: Mapping[str, Any]) -> dict[str, Any]:
    """One recipe as the resolver reads it in the browser (the ``recipe`` of its builder data)."""
    recipe: dict[str, Any] = _plain({**data, "hf_id": hf_id})
    return recipe


def vocab_data(content: Any, vocab: Mapping[str, Any] | None = None) -> bytes:
    """The bytes of ``builder-data/vocab.json``: :func:`builder_vocab` (``vocab`` when given)."""
    return _compact_json(builder_vocab(content) if vocab is None else vocab)


def recipe_data(hf_id: str, recipe: Mapping[str, Any]) -> bytes:
    """The bytes of ``builder-data/<hf_id>.json`` for ``recipe`` (a :func:`builder_recipe`)."""
    return _compact_json({"hf_id": hf_id, "recipe": recipe})


def predictions_data(stored: Mapping[str, Any]) -> bytes:
    """The bytes of ``builder-data/<hf_id>.performance.json``: the recipe's stored predictions, which the
    worker loads after the page's first view (the view's ``performance`` section draws from them)."""
    return _compact_json(_plain(stored))


def builder_data_files(content: Any, only: set[str] | None = None,
                       into: MutableMapping[str, bytes] | None = None,
                       computed: Mapping[Path, dict[str, bytes]] | None = None) -> MutableMapping[str, bytes]:
    """``builder-data/vocab.json`` and each recipe's two files, with their ``.br`` and ``.gz`` twins.

    ``content`` is a loaded :class:`builder.content.model.Content`; ``only`` limits the recipe files
    to those hf ids (incremental rebuilds); ``into`` (default: a new dict) receives the files recipe
    by recipe, so a stream into the staging folder holds no more than one recipe's in memory.  Each
    recipe file holds ``{"hf_id", "recipe"}`` (what the worker loads); beside it
    ``<hf_id>.clicks.json`` holds the stored clicks
    (:func:`builder.site.browser.stored_clicks.stored_clicks`, patches of
    :func:`builder.site.browser.stored_clicks.initial_view`, which the recipe page embeds; no views
    when the default view failed).  ``computed``: files of :func:`cold_recipe_files` computed
    elsewhere (another process), by cache entry, stored as this process would have computed them.
    """
    out: MutableMapping[str, bytes] = {} if into is None else into
    vocab = builder_vocab(content)
    vocab_bytes = vocab_data(content, vocab)
    out.update(with_twins({"builder-data/vocab.json": vocab_bytes}, quick=True))
    done = computed or {}
    for rf, entry, compute in _cached_recipes(content, vocab, vocab_bytes, only):
        if entry in done:
            compute = functools.partial(dict, done[entry])
        out.update(cached_files(entry, compute, CACHE_KEEP_BYTES))
        if rf.performance_data is not None:
            predictions = {f"builder-data/{rf.hf_id}.performance.json": predictions_data(rf.performance_data)}
            out.update(with_twins(predictions, quick=True))
    return out


def cold_recipe_files(content: Any) -> dict[Path, Callable[[], dict[str, bytes]]]:
    """The recipes whose cached builder data :func:`builder_data_files` would compute (the stored
    clicks: about a fifth of a second each), in walk order: their cache entry and how to compute it."""
    vocab = builder_vocab(content)
    recipes = _cached_recipes(content, vocab, vocab_data(content, vocab))
    return {entry: compute for _, entry, compute in recipes if not entry.is_file()}


def _cached_recipes(content: Any, vocab: dict[str, Any], vocab_bytes: bytes, only: set[str] | None = None
                    ) -> Iterator[tuple[RecipeFile, Path, Callable[[], dict[str, bytes]]]]:
    """Per recipe (of ``only``): the recipe file, the cache entry of its builder data, how to compute it."""
    vocab_hash = hashlib.sha256(vocab_bytes).hexdigest()
    for rf in content.recipes:
        if only is not None and rf.hf_id not in only:
            continue
        recipe = builder_recipe(rf.hf_id, rf.data)
        data = recipe_data(rf.hf_id, recipe)
        key = hashlib.sha256(f"{_code_key()}\0{vocab_hash}\0".encode() + data).hexdigest()
        yield rf, CACHE / f"{key}.bin", functools.partial(_recipe_files, rf.hf_id, recipe, data, vocab)


def _recipe_files(hf_id: str, recipe: dict[str, Any], data: bytes, vocab: dict[str, Any]) -> dict[str, bytes]:
    """One recipe's builder data and stored clicks, with their twins."""
    initial = initial_view(recipe, vocab)
    clicks: Mapping[str, Any] = {"views": {}}  # always published: the recipe page fetches it
    if initial is not None:
        clicks = stored_clicks(recipe, vocab, initial)
    return with_twins(
        {f"builder-data/{hf_id}.json": data, f"builder-data/{hf_id}.clicks.json": _compact_json(clicks)},
        quick=True)


@functools.cache
def _code_key() -> str:
    """A hash of the code the cached files come from (the resolver, the glue and :data:`CODE`)."""
    digest = hashlib.sha256(sources_key().encode())
    for path in CODE:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _compact_json(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()
