"""The Python half of the builder's worker (static/builder-worker.js), run by Pyodide in the browser.

Shipped inside the reduced standard library as ``recipes_worker_glue`` (:mod:`builder.browser_bundle`),
byte-compiled with it; the build itself never imports it.  It keeps the vocabulary and recipes the
worker loaded, and the resolver package of each bundle hash: the precompiled ``recipes_resolver``
beside it when the hash matches, else the bundle zip the worker fetched, unpacked under ``HOME``.
Texts in and out are JSON: the worker only moves strings.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import zipfile
from types import ModuleType
from typing import Any

HOME = "/home/pyodide"
sys.path.insert(0, HOME)
try:  # warm: importing the precompiled package now puts it into the interpreter snapshot
    import recipes_resolver  # noqa: F401
except ImportError:
    pass

resolver: Any = None  # the package answering now
_modules: dict[str, ModuleType] = {}  # bundle hash -> the imported resolver package of that bundle
_recipes: dict[str, Any] = {}
_vocab: Any = {}


def use(bundle_hash: str) -> bool:
    """Resolve with the package of this bundle when it is imported already; True on success."""
    global resolver
    if bundle_hash in _modules:
        resolver = _modules[bundle_hash]
        return True
    return False


def precompiled(bundle_hash: str) -> bool:
    """Import the precompiled package when it is this very bundle; True on success."""
    try:
        import recipes_resolver_hash
    except ImportError:
        return False
    if not bundle_hash or recipes_resolver_hash.SHA256 != bundle_hash:
        return False
    import recipes_resolver as module

    _modules[bundle_hash] = module
    return use(bundle_hash)


def from_zip(data: Any, bundle_hash: str) -> None:
    """Unpack the fetched bundle (``resolver/...``) under ``HOME`` and import it, replacing an earlier one."""
    for name in [m for m in sys.modules if m == "resolver" or m.startswith("resolver.")]:
        del sys.modules[name]
    for key in [k for k, m in _modules.items() if m.__name__ == "resolver"]:
        del _modules[key]
    shutil.rmtree(HOME + "/resolver", ignore_errors=True)
    # metadata_encoding: names are ASCII; without it zipfile looks up cp437, which the page does not ship
    zipfile.ZipFile(io.BytesIO(bytes(data)), metadata_encoding="utf-8").extractall(HOME)
    import resolver as module

    _modules[bundle_hash] = module
    use(bundle_hash)


def set_vocab(text: str) -> str:
    """Parse the vocabulary; returns its resolver bundle hash ("" when it names none)."""
    global _vocab
    _vocab = json.loads(text)
    value = _vocab.get("resolver_bundle_sha256") if isinstance(_vocab, dict) else None
    return value if isinstance(value, str) else ""


def set_recipe(hf_id: str, text: str) -> None:
    _recipes[hf_id] = json.loads(text)


def drop_recipe(hf_id: str) -> None:
    _recipes.pop(hf_id, None)


def view(hf_id: str, state: str, event: str) -> str:
    """The JSON text of ``builder_state`` for a loaded recipe, the page's state and its event."""
    return json.dumps(resolver.builder_state(_recipes[hf_id], _vocab, json.loads(state), json.loads(event)),
                      ensure_ascii=False)
