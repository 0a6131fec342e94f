"""The views of the first two clicks from the default view (builder-data/<hf_id>.clicks.json) in CPython.

The browser side (JavaScript's applyPatch against Pyodide for every stored view, and when the page
uses the stored views) is tested in tests/browser/test_stored_clicks.py.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from builder import resolver
from builder.site.browser import data, stored_clicks
from builder.site.browser.data import builder_data_files
from builder.site.browser.stored_clicks import (
    INITIAL_INPUTS,
    SAME_AS_FIRST,
    apply_patch,
    event_key,
    initial_view,
    one_click_events,
    view_patch,
)
from tests.support.builder_page import embedded_view


def _as_json(value: Any) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False))


def _three_gpu_recipe() -> tuple[dict[str, Any], dict[str, Any]]:
    """A recipe with two variants and one strategy, and a vocabulary of three NVIDIA profiles."""
    recipe = {"hf_id": "a/b", "model": {"model_id": "a/b"}, "variants": {"default": {}, "fp8": {}},
              "compatible_strategies": ["single_node_tp"]}
    vocab = {"taxonomy": {"hardware_profiles": {h: {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 640}
                                                for h in ("h100", "h200", "b200")}},
             "strategies": {"single_node_tp": {"deploy_type": "single_node"}}}
    return recipe, vocab


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
            want = _as_json(
                resolver.builder_state(doc["recipe"], vocab, {**initial["state"], "_endpoints": {}}, event))
            assert apply_patch(initial, clicks["views"][event_key(event)]) == want, (path, event)
            checked += 1
        recipes += 1
    assert recipes == 150
    assert checked > 1500


def test_stored_second_clicks_are_the_resolvers_views(upstream_data: dict[str, bytes]) -> None:
    """Over ../shared/upstream: every first click stores the second clicks of its view's stored rows;
    the first first click of every recipe, and every one of MiniMax-M3's, is checked view by view
    (tests/browser/test_stored_clicks.py checks every stored view against Pyodide)."""
    vocab = json.loads(upstream_data["builder-data/vocab.json"])
    checked = same = 0
    for path in sorted(p for p in upstream_data if p.endswith(".clicks.json")):
        hf_id = path.removeprefix("builder-data/").removesuffix(".clicks.json")
        recipe = json.loads(upstream_data[f"builder-data/{hf_id}.json"])["recipe"]
        clicks = json.loads(upstream_data[path])
        initial = embedded_view(upstream_data[f"{hf_id}/index.html"])
        assert list(clicks["next"]) == list(clicks["views"]), path
        for number, (key, patch) in enumerate(clicks["views"].items()):
            first = apply_patch(initial, patch)
            events = one_click_events(first)
            assert list(clicks["next"][key]) == list(dict.fromkeys(event_key(e) for e in events)), (path, key)
            if number and hf_id != "MiniMaxAI/MiniMax-M3":
                continue
            for event in events:
                stored = clicks["next"][key][event_key(event)]
                want = _as_json(
                    resolver.builder_state(recipe, vocab, {**first["state"], "_endpoints": {}}, event))
                if stored == SAME_AS_FIRST:
                    stored_view = apply_patch(initial, clicks["views"][event_key(event)])
                    same += 1
                else:
                    stored_view = apply_patch(first, stored)
                assert stored_view == want, (path, key, event)
                checked += 1
    assert checked > 2000 and same > 500


def test_clicks_whose_view_fails_are_left_out_and_a_recipe_stores_a_bounded_number(
        monkeypatch: pytest.MonkeyPatch) -> None:
    recipe, vocab = _three_gpu_recipe()
    initial = _as_json(resolver.builder_state(recipe, vocab, {}))
    real_step, real_view = resolver.builder_step, resolver.step_view

    def step_failing_on_b200(facts: Any, state: Any, event: Any = None) -> Any:
        if event == {"type": "hardware", "value": "b200"}:
            raise ValueError("boom")
        return real_step(facts, state, event)

    def view_failing_on_fp8(facts: Any, step: Any) -> Any:
        if step["state"]["variant"] == "fp8":
            raise ValueError("boom")
        return real_view(facts, step)

    monkeypatch.setattr(resolver, "builder_step", step_failing_on_b200)
    monkeypatch.setattr(resolver, "step_view", view_failing_on_fp8)
    clicks = stored_clicks.stored_clicks(recipe, vocab, initial)
    failing = ({"type": "hardware", "value": "b200"}, {"type": "variant", "value": "fp8"})
    assert ([json.loads(k) for k in clicks["views"]]
            == [e for e in one_click_events(initial) if e not in failing])
    after_h200 = apply_patch(initial, clicks["views"]['{"type":"hardware","value":"h200"}'])
    assert [json.loads(k) for k in clicks["next"]['{"type":"hardware","value":"h200"}']] == [
        e for e in one_click_events(after_h200) if e not in failing]
    assert {"type": "variant", "value": "fp8"} in one_click_events(after_h200)
    monkeypatch.setattr(stored_clicks, "MAX_STORED_VIEWS", 5)
    bounded = stored_clicks.stored_clicks(recipe, vocab, initial)
    assert len(bounded["views"]) + sum(len(after) for after in bounded["next"].values()) <= 5


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


def test_the_stored_clicks_are_the_events_the_view_names() -> None:
    """The row's event decides, not its id: a pill's own event wins, other types and disabled pills
    are left out."""
    shown = {"rows": [
        {"id": "anything", "event": {"type": "hardware"}, "pills": [
            {"value": "h200", "disabled": False}, {"value": "b200", "disabled": True},
            {"value": "x", "disabled": False, "event": {"type": "hardware", "value": "y"}}]},
        {"id": "hardware", "event": {"type": "feature"}, "pills": [{"value": "h100", "disabled": False}]},
        {"id": "axis_stage", "event": {"type": "axis", "axis": "stage"},
         "pills": [{"value": "one", "disabled": False}]},
        {"id": "instances", "kind": "number", "input_event": {"type": "kv_instances"}, "pills": []}]}
    assert one_click_events(shown) == [
        {"type": "hardware", "value": "h200"}, {"type": "hardware", "value": "y"},
        {"type": "axis", "axis": "stage", "value": "one"}]


def test_event_key_is_compact_with_sorted_keys() -> None:
    assert (event_key({"value": "tp", "type": "axis", "axis": "x"})
            == '{"axis":"x","type":"axis","value":"tp"}')
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


def test_a_recipe_without_an_initial_view_gets_a_clicks_file_without_views(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The page then waits for the worker, as before (a failing builder_state is no build error); the
    file is still there because the page preloads it."""
    from builder.content.model import Content, RecipeFile, Vocabulary

    def failing(*args: Any) -> Any:
        raise ValueError("boom")

    monkeypatch.setattr(resolver, "builder_state", failing)
    monkeypatch.setattr(data, "CACHE", tmp_path / "cache")  # a cached entry would hide the failure
    content = Content(root=str(tmp_path), vocab=Vocabulary(taxonomy={}, strategies={}, kv_store={}),
                      recipes=[RecipeFile("org/repo", "models/org/repo.yaml", {"model": {}})])
    assert initial_view({"model": {}, "hf_id": "org/repo"}, {}) is None  # the page embeds no view
    files = builder_data_files(content)
    assert (json.loads(files["builder-data/org/repo.json"])
            == {"hf_id": "org/repo", "recipe": {"model": {}, "hf_id": "org/repo"}})
    assert json.loads(files["builder-data/org/repo.clicks.json"]) == {"views": {}}


def test_a_rebuild_reads_each_recipes_files_from_the_cache(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The second build of the same content computes no view (the cache is keyed by recipe, vocabulary
    and code), and gives the same bytes."""
    from builder.content.loader import load_content
    from tests.support.paths import RECIPES

    content, _ = load_content(RECIPES)
    monkeypatch.setattr(data, "CACHE", tmp_path / "cache")
    first = dict(builder_data_files(content))
    calls: list[int] = []
    real = resolver.builder_state
    monkeypatch.setattr(resolver, "builder_state", lambda *a: calls.append(1) or real(*a))
    assert dict(builder_data_files(content)) == first
    assert calls == []
    assert len(list((tmp_path / "cache").glob("*.bin"))) == len(content.recipes)


def test_a_second_click_with_the_first_clicks_step_computes_no_view(monkeypatch: pytest.MonkeyPatch) -> None:
    """Views are computed for the first clicks and for the second clicks stored as patches only, once
    per step (two orders of the same clicks reaching one step share its view)."""
    recipe, vocab = _three_gpu_recipe()
    initial = _as_json(resolver.builder_state(recipe, vocab, {}))
    real_view = resolver.step_view
    computed: list[dict[str, Any]] = []

    def counted(facts: Any, step: Any) -> Any:
        computed.append(step)
        return real_view(facts, step)

    monkeypatch.setattr(resolver, "step_view", counted)
    clicks = stored_clicks.stored_clicks(recipe, vocab, initial)
    patches = [p for after in clicks["next"].values() for p in after.values() if p != SAME_AS_FIRST]
    same = sum(p == SAME_AS_FIRST for after in clicks["next"].values() for p in after.values())
    assert same > 0 and patches
    firsts = {key: apply_patch(initial, patch) for key, patch in clicks["views"].items()}
    stored = [*firsts.values(), *(apply_patch(firsts[key], p) for key, after in clicks["next"].items()
                                  for p in after.values() if p != SAME_AS_FIRST)]
    distinct = {json.dumps(view, sort_keys=True) for view in stored}  # a view holds its state and storage
    assert len(computed) == len({repr(step) for step in computed}) == len(distinct) < len(stored)
