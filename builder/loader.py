"""Read and validate a content root: vocabulary, recipes and overlays.

Everything is read first and every problem collected; :func:`load_content` raises
:class:`ContentError` with all of them when any is an error (or, with ``strict``,
a warning).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from builder import schemas
from builder.content import Content, RecipeFile, Vocabulary
from builder.fieldpaths import join_path, locate
from builder.problems import ContentError, Problem
from builder.validate import validate_recipe
from builder.yaml12 import YamlError, load


class _Collector:
    """Collects problems while the content is read."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, path: str, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(path, line, field, message))

    def warn(self, path: str, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(path, line, field, message, warning=True))


def list_sorted(folder: Path) -> list[str]:
    """Entry names of a folder in byte-wise ascending order (json-api §1.1)."""
    return sorted(os.listdir(folder), key=lambda name: name.encode())


def read_yaml(root: Path, rel: str, out: _Collector) -> tuple[Any, dict[str, int]] | None:
    """Load one YAML file, reporting load problems."""
    try:
        text = (root / rel).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        out.error(rel, 0, "", f"cannot read file: {exc}")
        return None
    try:
        return load(text)
    except YamlError as exc:
        out.error(rel, exc.line, exc.field, exc.message)
        return None


def read_mapping(root: Path, rel: str, out: _Collector) -> tuple[dict[str, Any], dict[str, int]] | None:
    """Load one YAML file whose top level must be a mapping."""
    loaded = read_yaml(root, rel, out)
    if loaded is None:
        return None
    if not isinstance(loaded[0], dict):
        out.error(rel, 1, "", "expected a mapping at the top level")
        return None
    return loaded


def mappings_in(
    root: Path, folder: str, out: _Collector, suffixes: tuple[str, ...] = (".yaml",)
) -> Iterator[tuple[str, dict[str, Any], dict[str, int]]]:
    """(relative path, data, lines) of every YAML mapping file in a folder, in byte-wise name order."""
    for name in list_sorted(root / folder):
        if name.endswith(suffixes):
            rel = f"{folder}/{name}"
            loaded = read_mapping(root, rel, out)
            if loaded is not None:
                yield rel, *loaded


# ── pydantic errors as problems ───────────────────────────────────────────

_NOUNS = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "none_required": "null",
}


def _describe(value: Any) -> str:
    """A short description of a wrong value, for messages."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _data_path(data: Any, loc: tuple[Any, ...]) -> tuple[str, Any]:
    """Follow a pydantic location through the data; drop union-member tags."""
    path, node = "", data
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            path, node = join_path(path, part), node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path, node = join_path(path, part), node[part]
        elif isinstance(node, dict) and isinstance(part, str) and part not in node and not _is_tag(part):
            return join_path(path, part), _MISSING
    return path, node


_MISSING = object()


def _is_tag(part: str) -> bool:
    """pydantic adds the member type of a union to locations (``str``, ``dict[str,int]``...)."""
    return part in {"str", "int", "float", "bool", "none"} or "[" in part or part[:1].isupper()


def validation_problems(exc: ValidationError, data: Any, rel: str, where: Any) -> list[Problem]:
    """One problem per field path, merging the alternatives of union types."""
    grouped: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
    for err in exc.errors():
        path, value = _data_path(data, tuple(err["loc"]))
        grouped.setdefault(path, (value, []))[1].append(err)
    problems = []
    for path, (value, errors) in grouped.items():
        file, line = where(path)
        problems.append(Problem(file, line, path, _message(value, errors)))
    return problems


def _message(value: Any, errors: list[dict[str, Any]]) -> str:
    """Turn the pydantic errors of one field into one sentence."""
    types = [e["type"] for e in errors]
    if value is _MISSING or "missing" in types:
        return "required field is missing"
    if "too_short" in types:
        return "must not be empty"
    bound = next((e for e in errors if e["type"] in ("greater_than_equal", "greater_than")), None)
    if bound is not None:
        sign = ">=" if bound["type"] == "greater_than_equal" else ">"
        return f"must be {sign} {next(iter(bound['ctx'].values()))}, got {_describe(value)}"
    if "literal_error" in types:
        expected = next(e for e in errors if e["type"] == "literal_error")["ctx"]["expected"]
        return f"expected one of {expected}, got {_describe(value)}"
    nouns = list(dict.fromkeys(_NOUNS[t] for t in types if t in _NOUNS))
    if "a number" in nouns and "an integer" in nouns:
        nouns.remove("an integer")
    if nouns:
        return f"expected {' or '.join(nouns)}, got {_describe(value)}"
    return "; ".join(dict.fromkeys(e["msg"] for e in errors))


def check_model(
    model: type[BaseModel], data: Any, rel: str, where: Any, out: _Collector
) -> BaseModel | None:
    """Validate ``data`` against ``model``; unknown keys become warnings."""
    try:
        instance = model.model_validate(data)
    except ValidationError as exc:
        out.problems.extend(validation_problems(exc, data, rel, where))
        return None
    for path in schemas.unknown_keys(instance):
        file, line = where(path)
        out.warn(file, line, path, f"unknown key {path.rsplit('.', 1)[-1]!r}")
    return instance


def _where_in(rel: str, lines: dict[str, int]) -> Any:
    """A locator for a single-file document."""
    locations = {path: (rel, line) for path, line in lines.items()}
    return lambda path: locate(locations, path, rel)


# ── vocabulary ────────────────────────────────────────────────────────────


def _load_catalogue(
    root: Path, folder: str, model: type[BaseModel], out: _Collector
) -> dict[str, Any]:
    """Every ``<folder>/*.yaml`` keyed by its ``name`` field, in file order."""
    result: dict[str, Any] = {}
    if not (root / folder).is_dir():
        out.error(folder, 0, "", "folder is missing")
        return result
    for rel, data, lines in mappings_in(root, folder, out):
        if check_model(model, data, rel, _where_in(rel, lines), out) is not None:
            result[data["name"]] = data
    return result


def _checked_file(root: Path, rel: str, model: type[BaseModel], out: _Collector) -> dict[str, Any] | None:
    """A top-level vocabulary file read and checked against its schema (None when broken)."""
    loaded = read_mapping(root, rel, out)
    if loaded is None:
        return None
    data, lines = loaded
    return data if check_model(model, data, rel, _where_in(rel, lines), out) is not None else None


def load_vocabulary(root: Path, out: _Collector) -> Vocabulary:
    """taxonomy.yaml, platforms.yaml, strategies/ and kv_store/."""
    taxonomy: dict[str, Any] = {"hardware_profiles": {}}
    if not (root / "taxonomy.yaml").is_file():
        out.error("taxonomy.yaml", 0, "", "file is missing")
    else:
        checked = _checked_file(root, "taxonomy.yaml", schemas.Taxonomy, out)
        taxonomy = taxonomy if checked is None else checked
    platforms = None
    if (root / "platforms.yaml").is_file():
        platforms = _checked_file(root, "platforms.yaml", schemas.Platforms, out)
    strategies = _load_catalogue(root, "strategies", schemas.Strategy, out)
    kv_store = _load_catalogue(root, "kv_store", schemas.KvStore, out)
    return Vocabulary(taxonomy=taxonomy, strategies=strategies, kv_store=kv_store, platforms=platforms)


# ── recipes and overlays ──────────────────────────────────────────────────


def recipe_paths(root: Path) -> list[str]:
    """Recipe files under ``models/`` in walk order (json-api §1.1), relative to root."""
    found: list[str] = []

    def walk(folder: Path, rel: str) -> None:
        for name in list_sorted(folder):
            child = folder / name
            if child.is_dir():
                walk(child, f"{rel}/{name}")
            elif name.endswith((".yaml", ".yml")):
                found.append(f"{rel}/{name}")

    if (root / "models").is_dir():
        walk(root / "models", "models")
    return found


def hf_id_of(rel: str) -> str | None:
    """``models/<org>/.../<repo>.yaml`` -> ``<org>/<repo>``; None without an org folder."""
    parts = rel.split("/")[1:]
    if len(parts) < 2:
        return None
    repo = parts[-1].removesuffix(".yaml").removesuffix(".yml")
    return f"{parts[0]}/{repo}"


def merge_overlay(
    base: Any, overlay: Any, path: str, locations: dict[str, tuple[str, int]], rel: str, lines: dict[str, int]
) -> Any:
    """Deep-merge ``overlay`` onto ``base``: mappings merge, lists and scalars replace, null deletes."""
    if not (isinstance(base, dict) and isinstance(overlay, dict)):
        _relocate(locations, path, rel, lines)
        return overlay
    merged = dict(base)
    for key, value in overlay.items():
        child = join_path(path, key)
        if value is None:
            merged.pop(key, None)
            _drop_locations(locations, child)
        elif key in merged:
            merged[key] = merge_overlay(merged[key], value, child, locations, rel, lines)
        else:
            merged[key] = value
            _relocate(locations, child, rel, lines)
    return merged


def _drop_locations(locations: dict[str, tuple[str, int]], path: str) -> None:
    for key in [k for k in locations if k == path or k.startswith((path + ".", path + "["))]:
        del locations[key]


def _relocate(locations: dict[str, tuple[str, int]], path: str, rel: str, lines: dict[str, int]) -> None:
    """Point ``path`` and everything below it at the overlay file."""
    _drop_locations(locations, path)
    for key, line in lines.items():
        if key == path or key.startswith((path + ".", path + "[")):
            locations[key] = (rel, line)


def load_recipe(root: Path, rel: str, out: _Collector) -> RecipeFile | None:
    """Load one recipe and merge its overlays (``overlays/<org>/<repo>/*.yaml``)."""
    hf_id = hf_id_of(rel)
    if hf_id is None:
        out.error(rel, 0, "", "a recipe file must be inside an organisation folder: models/<org>/<repo>.yaml")
        return None
    loaded = read_mapping(root, rel, out)
    if loaded is None:
        return None
    data, lines = loaded
    locations = {path: (rel, line) for path, line in lines.items()}
    overlays: list[str] = []
    if (root / "overlays" / hf_id).is_dir():
        for orel, odata, olines in mappings_in(root, f"overlays/{hf_id}", out, (".yaml", ".yml")):
            data = merge_overlay(data, odata, "", locations, orel, olines)
            overlays.append(orel)
    return RecipeFile(hf_id=hf_id, rel_path=rel, data=data, locations=locations, overlays=overlays)


def read_recipe(
    root: Path, rel: str, vocab: Vocabulary, out: _Collector, vocab_ok: bool = True
) -> RecipeFile | None:
    """Load, merge overlays, validate shape and cross-references of one recipe."""
    recipe = load_recipe(root, rel, out)
    if recipe is None or check_model(schemas.Recipe, recipe.data, rel, recipe.where, out) is None:
        return None
    out.problems.extend(validate_recipe(recipe, vocab, cross_references=vocab_ok))
    return recipe


def reload_recipe(content: Content, rel: str, strict: bool = False) -> tuple[RecipeFile, list[Problem]]:
    """Re-read one recipe of already loaded content (incremental rebuilds); raises ContentError."""
    out = _Collector()
    recipe = read_recipe(Path(content.root), rel, content.vocab, out)
    if recipe is None or any(not p.warning or strict for p in out.problems):
        raise ContentError(out.problems)
    return recipe, out.problems


def load_content(root: str | Path, strict: bool = False) -> tuple[Content, list[Problem]]:
    """Read and validate a whole content root.

    Returns the content and its warnings; raises :class:`ContentError` listing every
    problem when there is an error (with ``strict``, when there is any problem).
    """
    root = Path(root)
    out = _Collector()
    vocab = load_vocabulary(root, out)
    # with a broken vocabulary, checks against it would only repeat its errors in every recipe
    vocab_ok = not any(not p.warning for p in out.problems)
    recipes: list[RecipeFile] = []
    for rel in recipe_paths(root):
        recipe = read_recipe(root, rel, vocab, out, vocab_ok)
        if recipe is not None:
            recipes.append(recipe)
    site: dict[str, Any] = {}
    if (root / "site.yaml").is_file():
        loaded = read_mapping(root, "site.yaml", out)
        if loaded is not None and check_model(schemas.Site, loaded[0], "site.yaml", _where_in("site.yaml", loaded[1]), out):
            site = loaded[0]
    quickstarts: list[dict[str, Any]] = []
    if (root / "quickstart").is_dir():
        for rel, data, lines in mappings_in(root, "quickstart", out):
            if check_model(schemas.Quickstart, data, rel, _where_in(rel, lines), out):
                quickstarts.append(data)
    problems = out.problems
    if any(not p.warning or strict for p in problems):
        raise ContentError(problems)
    content = Content(root=str(root), vocab=vocab, recipes=recipes, site=site, quickstarts=quickstarts)
    return content, problems
