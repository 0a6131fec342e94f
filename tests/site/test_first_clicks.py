"""The views one click away from the default view (builder-data/<hf_id>.clicks.json) in CPython.

The browser side (JavaScript's applyPatch against the Pyodide worker, and when the page uses the
stored views) is tested in tests/browser/test_first_clicks.py.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from builder import resolver
from builder.site.browser.data import builder_data_files
from builder.site.browser.first_clicks import (
    INITIAL_INPUTS,
    apply_patch,
    event_key,
    initial_view,
    one_click_events,
    view_patch,
)
from tests.support.builder_page import embedded_view


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


@pytest.fixture(scope="module")
def upstream_data(upstream_build: dict[str, Any]) -> dict[str, bytes]:
    """The builder data and the HTML pages of the session's build of ../shared/upstream."""
    pages: dict[str, bytes] = upstream_build["pages"]
    return pages


def test_every_stored_click_is_the_resolvers_view(upstream_data: dict[str, bytes]) -> None:
    """Over ../shared/upstream: the page's embedded view is builder_state of the build's inputs, and
    embedded view + patch == builder_state(initial state, click), for every click."""
    vocab = json.loads(upstream_data["builder-data/vocab.json"])
    checked = recipes = 0
    for path in sorted(p for p in upstream_data if p.endswith(".clicks.json")):
        hf_id = path.removeprefix("builder-data/").removesuffix(".clicks.json")
        doc = json.loads(upstream_data[f"builder-data/{hf_id}.json"])
        assert sorted(doc) == ["hf_id", "recipe"]  # the default view lives in the page
        clicks = json.loads(upstream_data[path])
        assert clicks["inputs"] == INITIAL_INPUTS
        initial = embedded_view(upstream_data[f"{hf_id}/index.html"])
        assert initial == _as_json(resolver.builder_state(doc["recipe"], vocab, {}))
        events = one_click_events(initial)
        assert sorted(clicks["views"]) == sorted({event_key(e) for e in events}), path
        for event in events:
            want = _as_json(resolver.builder_state(doc["recipe"], vocab, {**initial["state"], "_endpoints": {}}, event))
            assert apply_patch(initial, clicks["views"][event_key(event)]) == want, (path, event)
            checked += 1
        recipes += 1
    assert recipes == 150
    assert checked > 1500


def test_pages_name_their_builder_data_by_its_content_hash(upstream_build: dict[str, Any]) -> None:
    """Over ../shared/upstream: every recipe page names (and preloads) its recipe's builder data and the
    vocabulary with ``?v=`` the file's own SHA-256 prefix, which the serve marks immutable, so the
    worker's fetch of what the page preloaded is an HTTP-cache hit."""
    from builder.cli.static_host import IMMUTABLE, cache_control

    files: dict[str, bytes] = upstream_build["pages"]
    pages = 0
    for path in sorted(p for p in files if p.startswith("builder-data/") and p.endswith(".clicks.json")):
        hf_id = path.removeprefix("builder-data/").removesuffix(".clicks.json")
        html = files[f"{hf_id}/index.html"].decode()
        named = {}
        for name, rel in ((f"builder-data/{hf_id}.json", "data"), ("builder-data/vocab.json", "vocab")):
            url = f"/{name}?v={hashlib.sha256(files[name]).hexdigest()[:10]}"
            assert f'data-builder-{rel}="{url}"' in html, (hf_id, rel)
            assert f'<link rel="preload" href="{url}" as="fetch" crossorigin>' in html, (hf_id, rel)
            named[name] = url
        for name, url in named.items():
            assert cache_control(url, upstream_build["dir"] / name) == IMMUTABLE
        pages += 1
    assert pages == 150


def test_stored_rows_are_hardware_variant_strategy_and_more(upstream_data: dict[str, bytes]) -> None:
    kinds: set[str] = set()
    for path in (p for p in upstream_data if p.endswith(".clicks.json")):
        kinds |= {json.loads(key)["type"] for key in json.loads(upstream_data[path])["views"]}
    assert {"hardware", "variant", "strategy", "nodes"} <= kinds


def test_event_key_is_compact_with_sorted_keys() -> None:
    assert event_key({"value": "tp", "type": "axis", "axis": "x"}) == '{"axis":"x","type":"axis","value":"tp"}'
    assert event_key({"type": "nodes", "value": 2}) == '{"type":"nodes","value":2}'


@pytest.mark.parametrize(("before", "after", "patch"), [
    ({"a": 1, "b": [1, 2]}, {"a": 1, "b": [1, 3]}, {"{": {"b": {"[": {"1": {"=": 3}}}}}),
    ({"a": 1, "gone": 2}, {"a": 1, "new": None}, {"{": {"new": {"=": None}, "gone": {"-": 1}}}),
    ([1, 2], [1, 2, 3], {"=": [1, 2, 3]}),  # lists of another length are replaced
    ({"flag": 1}, {"flag": True}, {"{": {"flag": {"=": True}}}),  # JSON types differ
    ({"x": {"y": "same"}}, {"x": {"y": "same"}}, {"{": {}}),
    ("text", {"k": 1}, {"=": {"k": 1}}),
])
def test_view_patch_round_trip(before: Any, after: Any, patch: dict[str, Any]) -> None:
    assert view_patch(before, after) == patch
    assert apply_patch(before, patch) == after
    assert type(apply_patch(before, patch)) is type(after)


def test_a_recipe_without_an_initial_view_gets_a_clicks_file_without_views(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The page then waits for the worker, as before (a failing builder_state is no build error); the
    file is still there because the page preloads it."""
    from builder.content.model import Content, RecipeFile, Vocabulary

    def failing(*args: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(resolver, "builder_state", failing)
    content = Content(root=str(tmp_path), vocab=Vocabulary(taxonomy={}, strategies={}, kv_store={}),
                      recipes=[RecipeFile("org/repo", "models/org/repo.yaml", {"model": {}})])
    assert initial_view({"model": {}, "hf_id": "org/repo"}, {}) is None  # the page embeds no view
    files = builder_data_files(content)
    assert json.loads(files["builder-data/org/repo.json"]) == {"hf_id": "org/repo", "recipe": {"model": {}, "hf_id": "org/repo"}}
    assert json.loads(files["builder-data/org/repo.clicks.json"]) == {"views": {}}
