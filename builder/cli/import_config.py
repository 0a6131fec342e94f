"""``import-config``: a ``config.json``'s architecture facts written into a recipe, as the
``architecture_config`` block of ``model:`` (or of one variant). The recipe is edited as text so that
its comments and layout stay; the edit is checked by loading the result and written atomically, or
not at all."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from builder.cli.config_json import architecture_problem, read_config
from builder.cli.reporting import Refused, recipe_file
from builder.content import schemas
from builder.content.log_text import log_text
from builder.content.problems import ContentError, Problem
from builder.content.yaml12 import YamlError, load
from builder.resolver.memory import ArchitectureError, architecture_facts

BLOCK_KEY = "architecture_config"


_KEY_LINE = re.compile(r"(?P<indent> *)(?P<quote>[\"']?)(?P<key>[^\"':#][^:#]*?)(?P=quote):(?P<rest>.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _span_end(lines: list[str], start: int) -> int:
    """Index after the last content line of the block whose key is on line ``start``."""
    indent, last = _indent(lines[start]), start
    for index in range(start + 1, len(lines)):
        if _is_content(lines[index]):
            if _indent(lines[index]) <= indent:
                break
            last = index
    return last + 1


def _find_key(lines: list[str], start: int, end: int, indent: int, key: str) -> int | None:
    """The line of ``key:`` at exactly ``indent`` between ``start`` and ``end``."""
    for index in range(start, end):
        match = _KEY_LINE.match(lines[index].rstrip("\r\n"))
        if match and len(match["indent"]) == indent and match["key"] == key:
            return index
    return None


def _child_indent(lines: list[str], start: int, end: int, where: str) -> int:
    """Indentation of the children of the block mapping on line ``start``."""
    match = _KEY_LINE.match(lines[start].rstrip("\r\n"))
    rest = match["rest"].strip() if match else ""
    if rest and not rest.startswith("#"):
        raise Refused(f"{where} is not written as a block mapping (one key per line); add the block by hand")
    for index in range(start + 1, end):
        if _is_content(lines[index]):
            return _indent(lines[index])
    raise Refused(f"{where} is empty")


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)  # a JSON string or list is a YAML 1.2 flow scalar/sequence


def _yaml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key) else json.dumps(key)


def _mapping_lines(facts: dict[str, Any], indent: int, step: int, newline: str) -> list[str]:
    lines = []
    pad = " " * indent
    for key, value in facts.items():
        if isinstance(value, dict):
            lines.append(f"{pad}{_yaml_key(key)}:{newline}")
            lines += _mapping_lines(value, indent + step, step, newline)
        else:
            lines.append(f"{pad}{_yaml_key(key)}: {_yaml_value(value)}{newline}")
    return lines


def block_lines(facts: dict[str, Any], indent: int, step: int, newline: str) -> list[str]:
    """``architecture_config:`` and its facts (nested mappings in block style) as YAML lines at ``indent``."""
    return [f"{' ' * indent}{BLOCK_KEY}:{newline}", *_mapping_lines(facts, indent + step, step, newline)]


def place_block(text: str, facts: dict[str, Any], variant: str | None) -> str:
    """The recipe text with ``architecture_config`` set under ``model:`` or ``variants.<variant>``."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    top = "variants" if variant else "model"
    parent = _find_key(lines, 0, len(lines), 0, top)
    if parent is None:
        raise Refused(f"the recipe has no {top}: block" + ("" if variant else "; add model.model_id first"))
    end = _span_end(lines, parent)
    where = top
    if variant:
        indent = _child_indent(lines, parent, end, top)
        parent = _find_key(lines, parent + 1, end, indent, variant)
        if parent is None:
            raise Refused(f"variant {variant!r} not found under variants:")
        end, where = _span_end(lines, parent), f"variants.{variant}"
    indent = _child_indent(lines, parent, end, where)
    step = indent - _indent(lines[parent])
    new = block_lines(facts, indent, step, newline)
    existing = _find_key(lines, parent + 1, end, indent, BLOCK_KEY)
    if existing is not None:
        lines[existing : _span_end(lines, existing)] = new
    else:
        comment = (f"{' ' * indent}# config.json facts for the memory model (python -m builder "
                   f"import-config){newline}")
        lines[end:end] = [comment, *new]
    return "".join(lines)


Blocks = dict[str | None, dict[str, Any]]  # variant (None: model) -> its new architecture_config


def edited(text: str, blocks: Blocks, rel: str) -> str:
    """The recipe text with every block set; refused unless it loads as the old data with exactly those
    blocks."""
    new_text = text
    for variant, facts in blocks.items():
        new_text = place_block(new_text, facts, variant)
    try:
        old, _ = load(text)
        new, _ = load(new_text)
    except YamlError as exc:
        raise ContentError([Problem(rel, exc.line, exc.field, exc.message)]) from None
    expected = json.loads(json.dumps(old))
    try:
        for variant, facts in blocks.items():
            (expected["variants"][variant] if variant else expected["model"])[BLOCK_KEY] = facts
    except (KeyError, TypeError):
        expected = None
    if expected is None or new != expected:
        raise Refused(f"could not place the block in {rel} without changing other keys; add it by hand")
    return new_text


def write_atomically(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` in one step (a temporary file beside it, renamed)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_recipe(content: Path, hf_id: str) -> tuple[str, Path, str, dict[str, Any]]:
    """(relative path, path, text, data) of ``models/<org>/<repo>.yaml``."""
    rel = recipe_file(hf_id)
    path = content / rel
    try:
        text = path.read_text(encoding="utf-8")
        data, _ = load(text)
    except FileNotFoundError:
        raise Refused(f"no recipe at {path}; write one with: vllm-recipes new {hf_id}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentError([Problem(rel, 0, "", f"cannot read file: {exc}")]) from None
    except YamlError as exc:
        raise ContentError([Problem(rel, exc.line, exc.field, exc.message)]) from None
    return rel, path, text, data if isinstance(data, dict) else {}


def checked_facts(facts: dict[str, Any]) -> dict[str, Any]:
    """``facts`` as the recipe schema accepts them; a disagreement between schema and model is a bug,
    refused."""
    try:
        schemas.Architecture.model_validate(facts)
    except ValidationError as exc:
        raise Refused(f"the facts do not pass the recipe schema: {exc.errors()[0]['msg']}") from None
    return facts


def holder(data: dict[str, Any], variant: str | None) -> dict[str, Any]:
    """``model`` or ``variants.<variant>`` of a recipe (empty when absent)."""
    block = ((data.get("variants") or {}).get(variant) if variant else data.get("model")) or {}
    return block if isinstance(block, dict) else {}


def import_config(content: Path, hf_id: str, config_path: Path, variant: str | None) -> int:
    """``import-config``: write ``architecture_config`` into ``models/<org>/<repo>.yaml``; the source is the
    checkpoint's repository without a revision (a file says nothing of its commit)."""
    rel, path, text, data = read_recipe(content, hf_id)
    try:
        facts = architecture_facts(read_config(config_path))
    except ArchitectureError as exc:
        raise architecture_problem(config_path, exc) from None
    owner = holder(data, variant)
    repo = owner.get("model_id") or holder(data, None).get("model_id") or hf_id
    old = owner.get(BLOCK_KEY) if isinstance(owner.get(BLOCK_KEY), dict) else {}
    block = {"source": {"repo": repo}, **facts} if isinstance(repo, str) and repo.count("/") == 1 else facts
    if old.get("drafts"):
        block["drafts"] = old["drafts"]
    write_atomically(path, edited(text, {variant: checked_facts(block)}, rel))
    target = f"variants.{variant}" if variant else "model"
    print(log_text(f"wrote {target}.{BLOCK_KEY} ({len(facts)} facts) to {path}"))
    return 0
