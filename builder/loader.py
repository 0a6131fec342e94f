"""Read and validate a content root: vocabulary, recipes and overlays.

Everything is read first and every problem collected; :func:`load_content` raises
:class:`ContentError` with all of them when any is an error (or, with ``strict``,
a warning).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from builder import schemas
from builder.content import Content, RecipeFile, Vocabulary
from builder.fieldpaths import join_path, locate
from builder.identifiers import CASE_CLASH, key_problems, recipe_problems, segment_problem
from builder.problems import ContentError, Problem
from builder.schema_problems import number_problems, validation_problems
from builder.shell_safety import document_problems as shell_problems
from builder.validate import validate_recipe
from builder.yaml12 import MAX_FILE_BYTES, YamlError, load


class _Collector:
    """Collects problems while the content is read."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def error(self, path: str, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(path, line, field, message))

    def warn(self, path: str, line: int, field: str, message: str) -> None:
        self.problems.append(Problem(path, line, field, message, warning=True))


def list_sorted(folder: Path) -> list[str]:
    """Entry names of a folder in byte-wise ascending order (json-api §1.1).

    Names that are not UTF-8 stay in (as ``os.listdir`` gives them); :func:`read_yaml`
    reports them."""
    return sorted(os.listdir(folder), key=os.fsencode)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def shown_name(rel: str) -> str:
    """A path fit to print: bytes that are not UTF-8 and control characters as ``\\xNN``."""
    text = os.fsencode(rel).decode("utf-8", "backslashreplace")
    return _CONTROL.sub(lambda match: f"\\x{ord(match.group()):02x}", text)


def read_yaml(root: Path, rel: str, out: _Collector) -> tuple[Any, dict[str, int]] | None:
    """Load one YAML file, reporting load problems.

    Only regular files inside the content root are opened (a FIFO would block the build):
    anything else is skipped with a warning."""
    shown = shown_name(rel)
    if shown != rel:
        invalid = os.fsencode(rel).decode("utf-8", "replace") != rel
        out.error(shown, 0, "", "file name is not valid UTF-8" if invalid else "file name contains control characters")
        return None
    data = _read_regular_file(root, rel, out)
    if data is None:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8")) + 1
        out.error(rel, line, "", f"not valid UTF-8 (byte 0x{data[exc.start]:02x} at column {column})")
        return None
    try:
        return load(text.replace("\r\n", "\n").replace("\r", "\n"))  # universal newlines, as open() reads
    except YamlError as exc:
        out.error(rel, exc.line, exc.field, exc.message)
        return None


def _read_regular_file(root: Path, rel: str, out: _Collector) -> bytes | None:
    """The bytes of ``root/rel`` when it is a regular file inside the root of at most MAX_FILE_BYTES."""
    path = root / rel
    try:
        info = os.stat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP) and os.path.lexists(path):  # a dangling or looping link
            out.warn(rel, 0, "", "not a regular file, skipped")
        else:
            out.error(rel, 0, "", f"cannot read file: {exc.strerror}")
        return None
    if not stat.S_ISREG(info.st_mode):
        out.warn(rel, 0, "", "not a regular file, skipped")
        return None
    real_root = os.path.realpath(root)
    if os.path.commonpath([real_root, os.path.realpath(path)]) != real_root:
        out.warn(rel, 0, "", "a link to a file outside the content root, skipped")
        return None
    too_large = f"file is too large: {{}} bytes (the limit is {MAX_FILE_BYTES:,})"
    if info.st_size > MAX_FILE_BYTES:
        out.error(rel, 0, "", too_large.format(f"{info.st_size:,}"))
        return None
    try:
        # O_NONBLOCK: should a FIFO have replaced the file since stat(), opening it does not wait
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                out.warn(rel, 0, "", "not a regular file, skipped")
                return None
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        out.error(rel, 0, "", f"cannot read file: {exc.strerror}")
        return None
    if len(data) > MAX_FILE_BYTES:
        out.error(rel, 0, "", too_large.format(f"more than {MAX_FILE_BYTES:,}"))
        return None
    return data


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
    try:
        names = list_sorted(root / folder)
    except OSError as exc:
        out.error(folder, 0, "", f"cannot read folder: {exc.strerror}")
        return
    for name in names:
        if name.endswith(suffixes):
            rel = f"{folder}/{name}"
            loaded = read_mapping(root, rel, out)
            if loaded is not None:
                yield rel, *loaded


def check_model(
    model: type[BaseModel], data: Any, rel: str, where: Any, out: _Collector
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
    root: Path, folder: str, model: type[BaseModel], out: _Collector
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
    root: Path, rel: str, model: type[BaseModel], out: _Collector
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
    value: str, rel: str, field: str, lines: dict[str, int], first_of: dict[str, tuple[str, str]], out: _Collector
) -> bool:
    """An id read from ``field`` that names an output file: the identifier pattern, and unique
    (also case-folded) among the files of its folder."""
    problem = segment_problem(value) or _earlier_use(value, rel, first_of, f"the {field} of")
    if problem is not None:
        out.error(rel, lines.get(field, 0), field, problem)
    return problem is None


def _earlier_use(value: str, rel: str, first_of: dict[str, tuple[str, str]], owner: str) -> str | None:
    """A message when ``value`` (or a case variant) was already taken by another file, else None."""
    earlier, earlier_rel = first_of.setdefault(value.casefold(), (value, rel))
    if earlier_rel == rel:
        return None
    if earlier == value:
        return f"{value!r} is also {owner} {earlier_rel}"
    return f"{value!r} differs only in case from {earlier!r}, {owner} {earlier_rel}{CASE_CLASH}"


def load_vocabulary(root: Path, out: _Collector) -> Vocabulary:
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


RECIPE_SUFFIXES = (".yaml", ".yml")
OUTSIDE_ORG = "a recipe file must be inside an organisation folder: models/<org>/<repo>.yaml"
IN_SUBFOLDER = "a recipe file must be directly inside its organisation folder: models/<org>/<repo>.yaml"
FOLDER_LINK = "a symbolic link to a folder is not followed: recipes must be real files under models/"


def recipe_paths(root: Path, out: _Collector | None = None) -> list[str]:
    """Recipe files ``models/<org>/<repo>.yaml|.yml`` in walk order (json-api §1.1), relative to root.

    Reported to ``out`` and left out: files directly in ``models/`` or in subfolders of an
    organisation folder, symbolic links to folders (never followed), ids that fail the
    identifier pattern (:mod:`builder.identifiers`), and a second file whose id equals an
    earlier one, exactly (``X.yaml`` beside ``X.yml``) or case-folded.
    """
    report = out or _Collector()
    models_dir = root / "models"
    if not models_dir.is_dir():
        return []
    found: list[str] = []
    first_of: dict[str, tuple[str, str]] = {}  # case-folded id -> (id, file)
    for org_entry in _entries(models_dir, "models", report):
        org_rel = f"models/{org_entry.name}"
        if org_entry.is_symlink() and os.path.isdir(org_entry.path):
            report.error(shown_name(org_rel), 0, "", FOLDER_LINK)
        elif not org_entry.is_dir(follow_symlinks=False):
            if org_entry.name.endswith(RECIPE_SUFFIXES):
                report.error(shown_name(org_rel), 0, "", OUTSIDE_ORG)
        else:
            for entry in _entries(Path(org_entry.path), org_rel, report):
                rel = f"{org_rel}/{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    _report_nested(Path(entry.path), rel, report)
                elif entry.is_symlink() and os.path.isdir(entry.path):
                    report.error(shown_name(rel), 0, "", FOLDER_LINK)
                elif entry.name.endswith(RECIPE_SUFFIXES) and _recipe_id_ok(rel, first_of, report):
                    found.append(rel)
    return found


def _entries(folder: Path, rel: str, out: _Collector) -> list[os.DirEntry[str]]:
    """The entries of a folder in byte-wise name order (json-api §1.1); none when it cannot be listed."""
    try:
        with os.scandir(folder) as scan:
            return sorted(scan, key=lambda entry: os.fsencode(entry.name))
    except OSError as exc:
        out.error(rel, 0, "", f"cannot list folder: {exc.strerror}")
        return []


def _report_nested(folder: Path, rel: str, out: _Collector) -> None:
    """Every YAML file and folder link below an organisation's subfolder is an error (never read)."""
    for entry in _entries(folder, rel, out):
        child = f"{rel}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            _report_nested(Path(entry.path), child, out)
        elif entry.is_symlink() and os.path.isdir(entry.path):
            out.error(shown_name(child), 0, "", FOLDER_LINK)
        elif entry.name.endswith(RECIPE_SUFFIXES):
            out.error(shown_name(child), 0, "", IN_SUBFOLDER)


def _recipe_id_ok(rel: str, first_of: dict[str, tuple[str, str]], out: _Collector) -> bool:
    """Check the id of ``models/<org>/<repo>.yaml``: the identifier pattern, and no earlier equal id."""
    hf_id = hf_id_of(rel)
    assert hf_id is not None
    for segment in hf_id.split("/"):
        problem = segment_problem(segment)
        if problem is not None:
            out.error(shown_name(rel), 0, "", f"recipe id {hf_id!r} comes from the file path, and {problem}")
            return False
    problem = _earlier_use(hf_id, rel, first_of, "the recipe id of")
    if problem is not None:
        out.error(shown_name(rel), 0, "", f"recipe id {problem}")
    return problem is None


def hf_id_of(rel: str) -> str | None:
    """``models/<org>/<repo>.yaml`` (or ``.yml``) -> ``<org>/<repo>``; None for any other path."""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] != "models" or not parts[2].endswith(RECIPE_SUFFIXES):
        return None
    return f"{parts[1]}/{parts[2].removesuffix('.yaml').removesuffix('.yml')}"


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
    return RecipeFile(hf_id=hf_id, rel_path=rel, data=data, locations=locations, overlays=overlays)


def read_recipe(
    root: Path, rel: str, vocab: Vocabulary, out: _Collector, vocab_ok: bool = True
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
    for rel in recipe_paths(root, out):
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
