"""builder/resolver.py is stdlib-only and loads in isolation; shared corpus helpers for the resolver tests.

The other ``test_resolver_*`` modules import the helpers below (``from test_resolver_module import ...``).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
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


@functools.cache
def _content_at(root: str) -> tuple[dict, dict[str, dict]]:
    """The resolver vocabulary and the recipes (by hf id) of a content root, via the real loader."""
    from builder.loader import load_content

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
