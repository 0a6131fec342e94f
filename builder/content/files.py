"""Reading a content root's files as untrusted input: regular files inside the root only, at most
:data:`~builder.content.yaml12.MAX_FILE_BYTES`, valid UTF-8 names and text, YAML 1.2 with lines; the
recipe files ``models/<org>/<repo>.yaml`` in walk order, their ids checked; every problem collected."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from builder.content.identifiers import CASE_CLASH, segment_problem
from builder.content.problems import Problem
from builder.content.yaml12 import MAX_FILE_BYTES, YamlError, load


class Collector:
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


def read_yaml(root: Path, rel: str, out: Collector) -> tuple[Any, dict[str, int]] | None:
    """Load one YAML file, reporting load problems.

    Only regular files inside the content root are opened (a FIFO would block the build):
    anything else is skipped with a warning."""
    shown = shown_name(rel)
    if shown != rel:
        invalid = os.fsencode(rel).decode("utf-8", "replace") != rel
        out.error(shown, 0, "",
                  "file name is not valid UTF-8" if invalid else "file name contains control characters")
        return None
    data = read_regular_file(root, rel, out)
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


def read_regular_file(root: Path, rel: str, out: Collector) -> bytes | None:
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


def read_mapping(root: Path, rel: str, out: Collector) -> tuple[dict[str, Any], dict[str, int]] | None:
    """Load one YAML file whose top level must be a mapping."""
    loaded = read_yaml(root, rel, out)
    if loaded is None:
        return None
    if not isinstance(loaded[0], dict):
        out.error(rel, 1, "", "expected a mapping at the top level")
        return None
    return loaded


def mappings_in(
    root: Path, folder: str, out: Collector, suffixes: tuple[str, ...] = (".yaml",)
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


def earlier_use(value: str, rel: str, first_of: dict[str, tuple[str, str]], owner: str) -> str | None:
    """A message when ``value`` (or a case variant) was already taken by another file, else None."""
    earlier, earlier_rel = first_of.setdefault(value.casefold(), (value, rel))
    if earlier_rel == rel:
        return None
    if earlier == value:
        return f"{value!r} is also {owner} {earlier_rel}"
    return f"{value!r} differs only in case from {earlier!r}, {owner} {earlier_rel}{CASE_CLASH}"


RECIPE_SUFFIXES = (".yaml", ".yml")
OUTSIDE_ORG = "a recipe file must be inside an organisation folder: models/<org>/<repo>.yaml"
IN_SUBFOLDER = "a recipe file must be directly inside its organisation folder: models/<org>/<repo>.yaml"
FOLDER_LINK = "a symbolic link to a folder is not followed: recipes must be real files under models/"


def recipe_paths(root: Path, out: Collector | None = None) -> list[str]:
    """Recipe files ``models/<org>/<repo>.yaml|.yml`` in walk order (json-api §1.1), relative to root.

    Reported to ``out`` and left out: files directly in ``models/`` or in subfolders of an
    organisation folder, symbolic links to folders (never followed), ids that fail the
    identifier pattern (:mod:`builder.content.identifiers`), and a second file whose id equals an
    earlier one, exactly (``X.yaml`` beside ``X.yml``) or case-folded.
    """
    report = out or Collector()
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


def _entries(folder: Path, rel: str, out: Collector) -> list[os.DirEntry[str]]:
    """The entries of a folder in byte-wise name order (json-api §1.1); none when it cannot be listed."""
    try:
        with os.scandir(folder) as scan:
            return sorted(scan, key=lambda entry: os.fsencode(entry.name))
    except OSError as exc:
        out.error(rel, 0, "", f"cannot list folder: {exc.strerror}")
        return []


def _report_nested(folder: Path, rel: str, out: Collector) -> None:
    """Every YAML file and folder link below an organisation's subfolder is an error (never read)."""
    for entry in _entries(folder, rel, out):
        child = f"{rel}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            _report_nested(Path(entry.path), child, out)
        elif entry.is_symlink() and os.path.isdir(entry.path):
            out.error(shown_name(child), 0, "", FOLDER_LINK)
        elif entry.name.endswith(RECIPE_SUFFIXES):
            out.error(shown_name(child), 0, "", IN_SUBFOLDER)


def _recipe_id_ok(rel: str, first_of: dict[str, tuple[str, str]], out: Collector) -> bool:
    """Check the id of ``models/<org>/<repo>.yaml``: the identifier pattern, and no earlier equal id."""
    hf_id = hf_id_of(rel)
    assert hf_id is not None
    for segment in hf_id.split("/"):
        problem = segment_problem(segment)
        if problem is not None:
            out.error(shown_name(rel), 0, "", f"recipe id {hf_id!r} comes from the file path, and {problem}")
            return False
    problem = earlier_use(hf_id, rel, first_of, "the recipe id of")
    if problem is not None:
        out.error(shown_name(rel), 0, "", f"recipe id {problem}")
    return problem is None


def hf_id_of(rel: str) -> str | None:
    """``models/<org>/<repo>.yaml`` (or ``.yml``) -> ``<org>/<repo>``; None for any other path."""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] != "models" or not parts[2].endswith(RECIPE_SUFFIXES):
        return None
    return f"{parts[1]}/{parts[2].removesuffix('.yaml').removesuffix('.yml')}"
