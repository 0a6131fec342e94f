"""builder/site/browser/worker_glue.py, the worker's Python half, driven as the worker drives it (in CPython).

A fresh interpreter imports the glue, loads the published bundle zip with ``from_zip`` (the path a
stale precompiled copy takes), the vocabulary and a recipe, and answers ``view``; the JSON equals
``builder_state`` of the build's own resolver.  A second bundle replaces the first."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from builder import resolver
from builder.site.browser.bundle import WORKER_GLUE, resolver_bundle

RECIPE = {"hf_id": "a/b", "model": {"model_id": "a/b"}, "variants": {"default": {}},
          "compatible_strategies": ["single_node_tp"]}
VOCAB = {"taxonomy": {"hardware_profiles": {"h200": {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 1128}}},
         "strategies": {"single_node_tp": {"deploy_type": "single_node"}}, "resolver_bundle_sha256": "h1"}

DRIVER = """
import importlib.util, json, sys
home, glue_path, bundle_path = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("recipes_worker_glue", glue_path)
glue = importlib.util.module_from_spec(spec)
spec.loader.exec_module(glue)
glue.HOME = home
sys.path.insert(0, home)
bundle = open(bundle_path, "rb").read()
out = {"precompiled": glue.precompiled("h1"), "hash": glue.set_vocab(sys.stdin.readline())}
glue.set_recipe("a/b", sys.stdin.readline())
out["used_before"] = glue.use(out["hash"])
glue.from_zip(bundle, out["hash"])
out["view"] = json.loads(glue.view("a/b", json.dumps({"hardware": "h200"}), "null"))
glue.from_zip(bundle, "h2")
out["after_second"] = {"h1": glue.use("h1"), "h2": glue.use("h2")}
glue.drop_recipe("a/b")
out["recipes"] = sorted(glue._recipes)
print(json.dumps(out))
"""


def test_the_glue_loads_a_bundle_and_answers_like_the_resolver(tmp_path: Path) -> None:
    bundle = tmp_path / "resolver.zip"
    bundle.write_bytes(resolver_bundle())
    home = tmp_path / "home"
    home.mkdir()
    stdin = json.dumps(VOCAB) + "\n" + json.dumps(RECIPE) + "\n"
    run = subprocess.run([sys.executable, "-I", "-c", DRIVER, str(home), str(WORKER_GLUE), str(bundle)],
                         input=stdin, capture_output=True, text=True, check=True)
    out = json.loads(run.stdout)
    assert (out["precompiled"], out["hash"], out["used_before"]) == (False, "h1", False)
    assert out["view"] == json.loads(json.dumps(resolver.builder_state(RECIPE, VOCAB, {"hardware": "h200"})))
    assert out["after_second"] == {"h1": False, "h2": True}  # the second zip replaced the first
    assert out["recipes"] == []
    assert (home / "resolver" / "__init__.py").is_file()
