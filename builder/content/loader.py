"""Read and validate a content root: vocabulary, recipes and overlays.

Everything is read first and every problem collected; :func:`load_content` raises
:class:`ContentError` with all of them when any is an error (or, with ``strict``,
a warning).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from builder.content import schemas
from builder.content.fieldpaths import locate
from builder.content.files import (
    IN_SUBFOLDER,
    OUTSIDE_ORG,
    Collector,
    earlier_use,
    hf_id_of,
    mappings_in,
    read_mapping,
    recipe_paths,
)
from builder.content.identifiers import key_problems, recipe_problems, segment_problem
from builder.content.model import Content, RecipeFile, Vocabulary
from builder.content.overlays import merge_overlay
from builder.content.problems import ContentError, Problem
from builder.content.schemas.errors import number_problems, validation_problems
from builder.content.shell_safety import document_problems as shell_problems
from builder.content.validate import validate_recipe
from builder.content.written_json import written_json
from builder.resolver.performance.measured import ResultsFile, dump_results, results_path
from builder.resolver.performance.store import StoredFile, dump_stored, stored_path

# one recipe read and validated: the recipe (None when its shape is broken) and its problems
RecipeRead = tuple[RecipeFile | None, list[Problem]]
# reads every recipe path with the function given, returning what each read gave in the paths' order
RecipeReader = Callable[[list[str], Callable[[str], RecipeRead]], list[RecipeRead]]


def check_model(
    model: type[BaseModel], data: Any, rel: str, where: Any, out: Collector
) -> BaseModel | None:
    """Validate ``data`` against ``model``; unknown keys become warnings.

    Numbers are checked everywhere first, free-form places included (:func:`number_problems`);
    the schema's own complaint about such a number is not repeated.
    """
    bad_numbers = number_problems(data, where)
    try:
        instance = model.model_validate(data)
    except ValidationError as exc:
        flagged = {p.field for p in bad_numbers}
        out.problems.extend(bad_numbers)
        out.problems.extend(p for p in validation_problems(exc, data, rel, where) if p.field not in flagged)
        return None
    if bad_numbers:
        out.problems.extend(bad_numbers)
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
    root: Path, folder: str, model: type[BaseModel], out: Collector
) -> dict[str, Any]:
    """Every ``<folder>/*.yaml`` keyed by its ``name`` field, in file order."""
    result: dict[str, Any] = {}
    if not (root / folder).is_dir():
        out.error(folder, 0, "", "folder is missing")
        return result
    first_of: dict[str, tuple[str, str]] = {}
    for rel, data, lines in mappings_in(root, folder, out):
        if check_model(model, data, rel, _where_in(rel, lines), out) is not None and _file_id_ok(
            data["name"], rel, "name", lines, first_of, out
        ):
            result[data["name"]] = data
            out.problems.extend(shell_problems(data, _where_in(rel, lines)))
    return result


def _checked_file(
    root: Path, rel: str, model: type[BaseModel], out: Collector
) -> tuple[dict[str, Any], dict[str, int]] | None:
    """A top-level vocabulary file read and checked against its schema and the shell rules
    (None when broken)."""
    loaded = read_mapping(root, rel, out)
    if loaded is None:
        return None
    data, lines = loaded
    where = _where_in(rel, lines)
    if check_model(model, data, rel, where, out) is None:
        return None
    out.problems.extend(shell_problems(data, where))
    return data, lines


def _file_id_ok(
    value: str, rel: str, field: str, lines: dict[str, int], first_of: dict[str, tuple[str, str]],
    out: Collector
) -> bool:
    """An id read from ``field`` that names an output file: the identifier pattern, and unique
    (also case-folded) among the files of its folder."""
    problem = segment_problem(value) or earlier_use(value, rel, first_of, f"the {field} of")
    if problem is not None:
        out.error(rel, lines.get(field, 0), field, problem)
    return problem is None


def load_vocabulary(root: Path, out: Collector) -> Vocabulary:
    """taxonomy.yaml, platforms.yaml, strategies/ and kv_store/."""
    taxonomy: dict[str, Any] = {"hardware_profiles": {}}
    if not (root / "taxonomy.yaml").is_file():
        out.error("taxonomy.yaml", 0, "", "file is missing")
    else:
        checked = _checked_file(root, "taxonomy.yaml", schemas.Taxonomy, out)
        if checked is not None:
            taxonomy, lines = checked
            for field, message in key_problems(taxonomy["hardware_profiles"], "hardware_profiles"):
                out.error("taxonomy.yaml", lines.get(field, 0), field, message)
    platforms = None
    if (root / "platforms.yaml").is_file():
        checked = _checked_file(root, "platforms.yaml", schemas.Platforms, out)
        platforms = None if checked is None else checked[0]
    strategies = _load_catalogue(root, "strategies", schemas.Strategy, out)
    kv_store = _load_catalogue(root, "kv_store", schemas.KvStore, out)
    return Vocabulary(taxonomy=taxonomy, strategies=strategies, kv_store=kv_store, platforms=platforms)


# ── recipes and overlays ──────────────────────────────────────────────────


def load_recipe(root: Path, rel: str, out: Collector) -> RecipeFile | None:
    """Load one recipe and merge its overlays (``overlays/<org>/<repo>/*.yaml``)."""
    hf_id = hf_id_of(rel)
    if hf_id is None:
        out.error(rel, 0, "", OUTSIDE_ORG if rel.count("/") < 2 else IN_SUBFOLDER)
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
    return RecipeFile(hf_id=hf_id, rel_path=rel, data=data, locations=locations, overlays=overlays,
                      performance=read_performance(root, hf_id, out),
                      benchmarks=read_benchmarks(root, hf_id, out))


def _read_beside(root: Path, rel: str, model: type[BaseModel], dump: Callable[[Any], str],
                 out: Collector) -> Any:
    """A JSON file the tool writes beside a recipe (by ``dump``), validated strictly; None when there is
    none or it is broken (reported to ``out``). Read as JSON when that gives the YAML loader's data and no
    problem; else as YAML, whose problems have their line."""
    if not (root / rel).is_file():
        return None
    written = written_json(root, rel, dump)
    if written is not None:
        quiet = Collector()
        if check_model(model, written, rel, lambda _path: (rel, 0), quiet) is not None and not quiet.problems:
            return written
    loaded = read_mapping(root, rel, out)  # JSON is YAML 1.2: problems get their line
    if loaded is None:
        return None
    data, lines = loaded
    return None if check_model(model, data, rel, _where_in(rel, lines), out) is None else data


def read_performance(root: Path, hf_id: str, out: Collector) -> StoredFile | None:
    """The predictions stored beside a recipe (``models/<org>/<repo>.performance.json``)."""
    stored: StoredFile | None = _read_beside(root, stored_path(hf_id), schemas.PerformanceFile,
                                               dump_stored, out)
    return stored


def read_benchmarks(root: Path, hf_id: str, out: Collector) -> ResultsFile | None:
    """The measured results stored beside a recipe (``models/<org>/<repo>.benchmarks.json``)."""
    results: ResultsFile | None = _read_beside(root, results_path(hf_id), schemas.BenchmarksFile,
                                                lambda data: dump_results(data["results"]), out)
    return results


def read_recipe(
    root: Path, rel: str, vocab: Vocabulary, out: Collector, vocab_ok: bool = True
) -> RecipeFile | None:
    """Load, merge overlays, validate shape and cross-references of one recipe."""
    recipe = load_recipe(root, rel, out)
    if recipe is None or check_model(schemas.Recipe, recipe.data, rel, recipe.where, out) is None:
        return None
    for field, message in recipe_problems(recipe.data):
        out.error(*recipe.where(field), field, message)
    out.problems.extend(shell_problems(recipe.data, recipe.where))
    out.problems.extend(validate_recipe(recipe, vocab, cross_references=vocab_ok))
    return recipe


def reload_recipe(content: Content, rel: str, strict: bool = False) -> tuple[RecipeFile, list[Problem]]:
    """Re-read one recipe of already loaded content (incremental rebuilds); raises ContentError."""
    out = Collector()
    recipe = read_recipe(Path(content.root), rel, content.vocab, out)
    if recipe is None or any(not p.warning or strict for p in out.problems):
        raise ContentError(out.problems)
    return recipe, out.problems


def read_in_order(rels: list[str], read: Callable[[str], RecipeRead]) -> list[RecipeRead]:
    """The default :data:`RecipeReader`: every recipe read here, one after the other."""
    return [read(rel) for rel in rels]


def load_content(root: str | Path, strict: bool = False,
                 reader: RecipeReader | None = None) -> tuple[Content, list[Problem]]:
    """Read and validate a whole content root.

    Returns the content and its warnings; raises :class:`ContentError` listing every
    problem when there is an error (with ``strict``, when there is any problem). ``reader``
    (default :func:`read_in_order`) reads the recipes; the build reads them on two cores.
    """
    root = Path(root)
    out = Collector()
    vocab = load_vocabulary(root, out)
    # with a broken vocabulary, checks against it would only repeat its errors in every recipe
    vocab_ok = not any(not p.warning for p in out.problems)
    recipes: list[RecipeFile] = []

    def read(rel: str) -> RecipeRead:
        own = Collector()
        return read_recipe(root, rel, vocab, own, vocab_ok), own.problems

    for recipe, found in (reader or read_in_order)(recipe_paths(root, out), read):
        out.problems.extend(found)
        if recipe is not None:
            recipes.append(recipe)
    site: dict[str, Any] = {}
    if (root / "site.yaml").is_file():
        loaded = read_mapping(root, "site.yaml", out)
        if (loaded is not None
            and check_model(schemas.Site, loaded[0], "site.yaml", _where_in("site.yaml", loaded[1]), out)):
            site = loaded[0]
    quickstarts: list[dict[str, Any]] = []
    if (root / "quickstart").is_dir():
        first_of: dict[str, tuple[str, str]] = {}
        for rel, data, lines in mappings_in(root, "quickstart", out):
            if check_model(schemas.Quickstart, data, rel, _where_in(rel, lines), out) and _file_id_ok(
                data["hardware_profile"], rel, "hardware_profile", lines, first_of, out
            ):
                quickstarts.append(data)
    problems = out.problems
    if any(not p.warning or strict for p in problems):
        raise ContentError(problems)
    content = Content(root=str(root), vocab=vocab, recipes=recipes, site=site, quickstarts=quickstarts)
    return content, problems
