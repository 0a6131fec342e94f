"""Our code zip (static/resolver.zip) and the glue in it, driven as the worker drives them (in CPython).

A fresh interpreter imports ``recipes_worker_glue`` from the zip with the worker's own loader (the
Python of static/builder-worker.js), loads the vocabulary and a recipe, and answers ``view``: the
JSON equals ``builder_state`` of the build's own resolver.  A second zip gets its own glue and
resolver, with data of its own."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from builder import resolver
from builder.site.browser.bundle import _code_members, _deterministic_zip
from tests.support.paths import ROOT

RECIPE = {"hf_id": "a/b", "model": {"model_id": "a/b"}, "variants": {"default": {}},
          "compatible_strategies": ["single_node_tp"]}
VOCAB = {"taxonomy": {"hardware_profiles": {"h200": {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 1128}}},
         "strategies": {"single_node_tp": {"deploy_type": "single_node"}}}


def worker_loader() -> str:
    """The Python the worker runs to import a code zip (the LOADER of static/builder-worker.js)."""
    source = (ROOT / "static" / "builder-worker.js").read_text(encoding="utf-8")
    loader = re.search(r"const LOADER = `(.*?)`;", source, re.S)
    assert loader is not None
    return loader.group(1).replace("${GLUE}", "recipes_worker_glue")


DRIVER = """
import json, sys
first, second = sys.argv[1:3]
exec(json.loads(sys.stdin.readline()))  # the worker's loader
vocab, recipe = sys.stdin.readline(), sys.stdin.readline()
load_code("one", first)
glue = CODE["one"]
glue.set_vocab(vocab)
glue.set_recipe("a/b", recipe)
out = {"view": json.loads(glue.view("a/b", json.dumps({"hardware": "h200"}), "null"))}
load_code("two", second)
out["second_has_no_recipe"] = "a/b" not in CODE["two"]._recipes
out["first_still_answers"] = (json.loads(glue.view("a/b", json.dumps({"hardware": "h200"}), "null"))
                              == out["view"])
out["resolvers"] = [CODE[k].resolver.__file__.replace(p, "ZIP") for k, p in (("one", first), ("two", second))]
out["apart"] = CODE["one"].resolver is not CODE["two"].resolver
glue.drop_recipe("a/b")
out["recipes"] = sorted(glue._recipes)
print(json.dumps(out))
"""


def test_the_glue_loads_from_the_code_zip_and_answers_like_the_resolver(tmp_path: Path) -> None:
    zips = []
    for name in ("one.zip", "two.zip"):
        path = tmp_path / name
        path.write_bytes(_deterministic_zip(_code_members(ROOT / "builder" / "resolver")))
        zips.append(str(path))
    stdin = json.dumps(worker_loader()) + "\n" + json.dumps(VOCAB) + "\n" + json.dumps(RECIPE) + "\n"
    run = subprocess.run([sys.executable, "-I", "-c", DRIVER, *zips], input=stdin, capture_output=True,
                         text=True, check=True)
    out = json.loads(run.stdout)
    assert out["view"] == json.loads(json.dumps(resolver.builder_state(RECIPE, VOCAB, {"hardware": "h200"})))
    assert out["second_has_no_recipe"] and out["first_still_answers"] and out["apart"]
    assert out["resolvers"] == ["ZIP/resolver/__init__.py", "ZIP/resolver/__init__.py"]
    assert out["recipes"] == []


def test_the_published_code_zip_holds_the_compiled_resolver_and_glue(built_site: dict) -> None:
    """Byte-compiled (no sources to compile in the browser), stored, and nothing but our code."""
    data = (built_site["dir"] / "static" / "resolver.zip").read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as zin:
        infos = zin.infolist()
    names = {i.filename for i in infos}
    sources = {name + "c" for name in _code_members(ROOT / "builder" / "resolver")}
    assert names == sources
    assert {i.compress_type for i in infos} == {zipfile.ZIP_STORED}


CHANGES = """
import json, sys
exec(json.loads(sys.stdin.readline()))  # the worker's loader
vocab, recipe, other_recipe, other_vocab = (sys.stdin.readline() for _ in range(4))
load_code("one", sys.argv[1])
glue = CODE["one"]
state = json.dumps({"hardware": "h200"})
glue.set_vocab(vocab)
glue.set_recipe("a/b", recipe)
out = {"first": [json.loads(glue.view("a/b", state, "null")) for _ in range(2)]}
out["texts"] = len(glue._texts["a/b"])
glue.set_recipe("a/b", other_recipe)
out["new_recipe"] = json.loads(glue.view("a/b", state, "null"))
glue.set_vocab(other_vocab)
out["new_vocab"] = json.loads(glue.view("a/b", state, "null"))
glue.set_predictions("a/b", "{}")
out["predictions"] = json.loads(glue.view("a/b", state, "null"))
print(json.dumps(out))
"""


def test_the_glue_answers_a_changed_recipe_or_vocabulary_with_fresh_facts(tmp_path: Path) -> None:
    """The glue keeps one BuilderFacts per recipe for its clicks, and the JSON text of each step's view
    (a step met again is answered with it): a recipe or vocabulary set anew is answered from its own
    (the model id is in the resolved command, the VRAM in the Hardware row), and so are the recipe's
    predictions when they arrive (the Performance section no longer loading)."""
    path = tmp_path / "one.zip"
    path.write_bytes(_deterministic_zip(_code_members(ROOT / "builder" / "resolver")))
    other_recipe = {**RECIPE, "model": {"model_id": "a/c"}}
    other_vocab = json.loads(json.dumps(VOCAB))
    other_vocab["taxonomy"]["hardware_profiles"]["h200"]["vram_gb"] = 640
    stdin = "".join(json.dumps(x) + "\n" for x in (worker_loader(), VOCAB, RECIPE, other_recipe, other_vocab))
    run = subprocess.run([sys.executable, "-I", "-c", CHANGES, str(path)], input=stdin, capture_output=True,
                         text=True, check=True)
    out = json.loads(run.stdout)

    def expected(recipe: dict, vocab: dict, predictions: dict | None = None) -> dict:
        view = resolver.builder_state(recipe, vocab, {"hardware": "h200"}, predictions=predictions)
        return json.loads(json.dumps(view))

    assert out["first"] == [expected(RECIPE, VOCAB)] * 2
    assert out["texts"] == 1
    assert out["new_recipe"] == expected(other_recipe, VOCAB) != out["first"][0]
    assert out["new_vocab"] == expected(other_recipe, other_vocab) != out["new_recipe"]
    assert out["predictions"] == expected(other_recipe, other_vocab, {}) != out["new_vocab"]
    assert out["predictions"]["performance"]["status"] != "loading"
