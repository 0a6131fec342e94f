"""builder/resolver.py is stdlib-only and loads in isolation; shared corpus helpers for the resolver tests.

The other ``test_resolver_*`` modules import the helpers below (``from test_resolver_module import ...``).
"""

from __future__ import annotations

import ast
import datetime
import functools
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESOLVER = ROOT / "builder" / "resolver.py"
UPSTREAM = Path(__file__).resolve().parents[1].parent / "shared" / "upstream"
PROJECT_CONTENT = ROOT / "recipes"


def _load_resolver() -> Any:
    spec = importlib.util.spec_from_file_location("resolver_under_test", RESOLVER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


R = _load_resolver()


def _normalise(value: Any) -> Any:
    """Dates become ``YYYY-MM-DD``; mapping keys become strings."""
    if isinstance(value, dict):
        return {str(k): _normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.strftime("%Y-%m-%d")
    return value


def load_yaml(path: Path) -> Any:
    """``yaml.safe_load`` plus date normalisation (exact for the current corpus)."""
    import yaml

    return _normalise(yaml.safe_load(path.read_text(encoding="utf-8")))


@functools.cache
def _vocab_at(root: str) -> dict:
    base = Path(root)
    strategies: dict = {}
    for sub in ("strategies", "kv_store"):
        for name in sorted(os.listdir(base / sub)):
            if name.endswith(".yaml"):
                doc = load_yaml(base / sub / name)
                strategies[doc["name"]] = doc
    return {"taxonomy": load_yaml(base / "taxonomy.yaml"), "strategies": strategies}


def require_upstream() -> None:
    if not UPSTREAM.is_dir():
        pytest.skip(f"../shared is absent: corpus tests need {UPSTREAM}")


def vocab() -> dict:
    """The upstream corpus vocabulary (skips when ../shared is absent)."""
    require_upstream()
    return _vocab_at(str(UPSTREAM))


def taxonomy() -> dict:
    return vocab()["taxonomy"]


@functools.cache
def _recipe_at(path: str, hf_id: str) -> dict:
    doc = load_yaml(Path(path))
    doc["hf_id"] = hf_id
    return doc


def recipe(hf_id: str) -> dict:
    """A corpus recipe by hf id (read-only: shared between tests)."""
    require_upstream()
    return _recipe_at(str(UPSTREAM / "models" / f"{hf_id}.yaml"), hf_id)


def project_vocab() -> dict:
    return _vocab_at(str(PROJECT_CONTENT))


def project_recipe(hf_id: str) -> dict:
    path = PROJECT_CONTENT / "models" / f"{hf_id}.yaml"
    if not path.is_file():
        pytest.skip(f"{path} does not exist yet")
    return _recipe_at(str(path), hf_id)


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


def test_imports_only_the_standard_library() -> None:
    tree = ast.parse(RESOLVER.read_text(encoding="utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "relative imports are not allowed"
            modules.add((node.module or "").split(".")[0])
    assert modules, "expected at least one import"
    assert "builder" not in modules
    assert not (modules - set(sys.stdlib_module_names)), modules - set(sys.stdlib_module_names)


def test_loads_in_an_isolated_interpreter() -> None:
    code = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('resolver', {str(RESOLVER)!r})\n"
        "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
        "assert 'yaml' not in sys.modules and 'builder' not in sys.modules\n"
        "print(m.format_command('x/y', ['--a', 'b c']))\n"
    )
    out = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "vllm serve x/y \\\n  --a 'b c'\n"


def test_public_names_exist() -> None:
    missing = [name for name in R.__all__ if not hasattr(R, name)]
    assert missing == []
