"""builder/resolver/ is stdlib-only and loads in isolation; shared corpus helpers for the resolver tests.

The other ``test_resolver_*`` modules import the helpers below
(``from tests.resolver.test_module import ...``).
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESOLVER = ROOT / "builder" / "resolver"
UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream"
PROJECT_CONTENT = ROOT / "recipes"


def _all_modules() -> list[ModuleType]:
    """Every module of the resolver package (the package itself first)."""
    import builder.resolver as package

    names = [info.name for info in pkgutil.walk_packages(package.__path__, "builder.resolver.")]
    return [package, *(importlib.import_module(name) for name in sorted(names))]


def _every_name() -> SimpleNamespace:
    """One namespace holding the top-level names of every resolver module (tests reach internals)."""
    merged: dict[str, Any] = {}
    for module in _all_modules():
        merged.update({k: v for k, v in vars(module).items() if not k.startswith("__")
                       and not isinstance(v, ModuleType)})
    return SimpleNamespace(**merged)


R = _every_name()


@functools.cache
def _content_at(root: str) -> tuple[dict, dict[str, dict]]:
    """The resolver vocabulary and the recipes (by hf id) of a content root, via the real loader."""
    from builder.content.loader import load_content

    content, _ = load_content(root)
    vocabulary = {"taxonomy": content.vocab.taxonomy, "strategies": content.vocab.strategy_map}
    return vocabulary, {r.hf_id: {**r.data, "hf_id": r.hf_id} for r in content.recipes}


def _vocab_at(root: str) -> dict:
    return _content_at(root)[0]


def require_upstream() -> None:
    if not UPSTREAM.is_dir():
        pytest.skip(f"../shared is absent: corpus tests need {UPSTREAM}")


def vocab() -> dict:
    """The upstream corpus vocabulary (skips when ../shared is absent)."""
    require_upstream()
    return _vocab_at(str(UPSTREAM))


def taxonomy() -> dict:
    return vocab()["taxonomy"]


def recipe(hf_id: str) -> dict:
    """A corpus recipe by hf id (read-only: shared between tests)."""
    require_upstream()
    return _content_at(str(UPSTREAM))[1][hf_id]


def project_vocab() -> dict:
    return _vocab_at(str(PROJECT_CONTENT))


def project_recipe(hf_id: str) -> dict:
    return _content_at(str(PROJECT_CONTENT))[1][hf_id]


def render(recipe_doc: dict, hw: str, strategy: str | None = None, **selection: Any) -> dict:
    """``resolve`` on the upstream vocabulary with a compact selection."""
    sel = {"hardware": hw, **selection}
    if strategy is not None:
        sel["strategy"] = strategy
    return R.resolve(recipe_doc, vocab(), sel)


def lines(command: str) -> list[str]:
    """Split a rendered command into its continuation lines (without `` \\``)."""
    return [line.strip() for line in command.split(" \\\n")]


# ---------------------------------------------------------------------------
# The module itself
# ---------------------------------------------------------------------------


def test_imports_only_the_standard_library_and_itself() -> None:
    modules = set()
    files = sorted(RESOLVER.rglob("*.py"))
    assert len(files) > 10
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules.add((node.module or "").split(".")[0])
    assert modules, "expected at least one import"
    assert "builder" not in modules
    assert not (modules - set(sys.stdlib_module_names)), modules - set(sys.stdlib_module_names)


def test_loads_in_an_isolated_interpreter() -> None:
    code = (
        "import sys\n"
        "assert not [p for p in sys.path if 'site-packages' in p]\n"
        f"sys.path.insert(0, {str(RESOLVER.parent)!r})\n"
        "import resolver as m\n"
        "assert 'yaml' not in sys.modules and 'builder' not in sys.modules\n"
        "assert sorted(k for k in sys.modules if k.startswith('resolver.'))\n"
        "from resolver.shell import format_command\n"
        "print(format_command('x/y', ['--a', 'b c']))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "vllm serve x/y \\\n  --a 'b c'\n"


def test_public_names_exist() -> None:
    import builder.resolver as package

    missing = [name for name in package.__all__ if not hasattr(package, name)]
    assert missing == []


def test_imports_with_only_the_standard_library_modules_the_page_ships() -> None:
    """Under a finder that refuses every pure-Python module outside ``browser_bundle.STDLIB_MODULES``
    (compiled-in and extension modules are part of Pyodide itself), the package imports and answers
    ``builder_state``: what the worker does with the reduced Pyodide library."""
    from builder.site.browser.bundle import STDLIB_MODULES

    code = (
        "import sys\n"
        "from importlib.machinery import PathFinder\n"
        f"shipped = set({sorted(STDLIB_MODULES)!r})\n"
        "class Refuse:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'resolver' or name in shipped:\n"
        "            return None\n"
        "        spec = PathFinder.find_spec(name, path)\n"
        "        if spec is not None and (spec.origin or '').endswith('.py'):\n"
        "            raise ImportError('not shipped: ' + name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Refuse())\n"
        f"sys.path.insert(0, {str(RESOLVER.parent)!r})\n"
        "import resolver\n"
        "recipe = {'hf_id': 'a/b', 'model': {'model_id': 'a/b'}, 'variants': {'default': {}},\n"
        "          'compatible_strategies': ['single_node_tp']}\n"
        "vocab = {'taxonomy': {'hardware_profiles': {'h200': {'brand': 'NVIDIA', 'gpu_count': 8, 'vram_gb': "
        "1128}}},\n         'strategies': {'single_node_tp': {'deploy_type': 'single_node'}}}\n"
        "view = resolver.builder_state(recipe, vocab, {})\n"
        "print(view['tabs'][0]['command'])\n"
        "try:\n"
        "    import csv\n"
        "except ImportError as err:\n"
        "    print(err)\n"
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "vllm serve a/b \\\n  --tensor-parallel-size 8\nnot shipped: csv\n"
