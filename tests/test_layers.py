"""The house: every package of ``builder/`` imports only from packages beneath it, the resolver only
from itself, each package says its job in its ``__init__`` docstring, and no module grows past ~400
lines."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.paths import ROOT

BUILDER = ROOT / "builder"
# The pipeline, bottom to top: a package may import from its own level and those below it.
LEVELS = {"resolver": 0, "content": 1, "checks": 2, "api": 3, "site": 4, "output": 5, "cli": 6}
ENTRY_POINTS = {"__init__", "__main__"}  # builder/__init__.py and builder/__main__.py sit above everything
MAX_LINES = 410


def modules() -> list[Path]:
    return sorted(p for p in BUILDER.rglob("*.py") if "__pycache__" not in p.parts)


def package_of(path: Path) -> str:
    """The top-level package a file of ``builder/`` belongs to (or its name for a root module)."""
    rel = path.relative_to(BUILDER)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def imported(path: Path) -> Iterator[tuple[int, str]]:
    """(line, absolute dotted name) of every ``builder`` import in a file, relative ones resolved,
    including those inside functions."""
    package = ["builder", *path.relative_to(BUILDER).with_suffix("").parts][:-1]  # what ``from .`` names
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{name}.{alias.name}" if name == "builder" else name


def test_every_package_is_on_a_level_and_says_its_job() -> None:
    packages = {p.name for p in BUILDER.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert packages == set(LEVELS)
    loose = {p.stem for p in BUILDER.glob("*.py")}
    assert loose == ENTRY_POINTS, "modules belong in a package of the pipeline"
    for name in LEVELS:
        doc = ast.get_docstring(ast.parse((BUILDER / name / "__init__.py").read_text(encoding="utf-8")))
        assert doc and len(doc) > 40, f"builder/{name}/__init__.py needs a docstring saying the package's job"


def test_imports_only_run_downward() -> None:
    wrong: list[str] = []
    for path in modules():
        own = package_of(path)
        if own in ENTRY_POINTS:
            continue
        for line, name in imported(path):
            parts = name.split(".")
            if parts[0] != "builder":
                continue
            target = parts[1] if len(parts) > 1 else ""
            if target not in LEVELS:
                wrong.append(
                    f"{path.relative_to(ROOT)}:{line}: imports {name}, which is no package of the pipeline")
            elif LEVELS[target] > LEVELS[own]:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {name} from {target}, a "
                             "package above it")
    assert wrong == []


def test_the_resolver_imports_nothing_outside_itself() -> None:
    outside = [f"{path.relative_to(ROOT)}:{line}: {name}"
               for path in modules() if package_of(path) == "resolver"
               for line, name in imported(path)
               if name.split(".")[0] == "builder" and name.split(".")[:2] != ["builder", "resolver"]]
    assert outside == []


@pytest.mark.parametrize("path", modules(), ids=lambda p: p.relative_to(BUILDER).as_posix())
def test_modules_stay_small(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)} has {lines} lines; split it along a seam"


def module_name(path: Path) -> str:
    parts = ["builder", *path.relative_to(BUILDER).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_imports(path: Path, known: set[str]) -> set[str]:
    """The modules of ``builder`` a file imports (``from pkg import mod`` names the module ``pkg.mod``)."""
    package = ["builder", *path.relative_to(BUILDER).with_suffix("").parts][:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                found.add(f"{name}.{alias.name}" if f"{name}.{alias.name}" in known else name)
    return found & known


def test_no_import_circle() -> None:
    """Modules import one way: no module reaches itself through its imports (function-level ones included)."""
    paths = {module_name(p): p for p in modules()}
    known = set(paths)
    graph = {name: module_imports(path, known) - {name} for name, path in paths.items()}
    circles: list[str] = []
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        if name in trail:
            circles.append(" -> ".join(trail[trail.index(name):] + [name]))
            return
        if name in done:
            return
        for target in sorted(graph[name]):
            if not target.startswith(name + "."):  # a package's __init__ may re-export its own modules
                visit(target, [*trail, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert circles == []
