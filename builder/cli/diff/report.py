"""The diff of two built sides: what a reviewer of a recipes pull request must see.

Recipes added, removed and renamed (a removed and an added file whose YAML is mostly the same); per
recipe, the JSON API endpoints added and removed, each changed command in every published form as a
unified diff (endpoints showing the very same change grouped), the flags that changed and memory
verdicts; new warnings with ``file:line``; every other published file that changed. Only files whose
bytes differ are parsed.
"""

from __future__ import annotations

import difflib
import json
import re
from typing import Any, TypedDict

from builder.cli.diff.commands import (
    FORMS,
    changed_lines,
    command_forms,
    flag_changes,
    memory_changed,
    memory_line,
    unified,
)
from builder.cli.diff.results import ResultChange, result_changes
from builder.cli.diff.sides import Side
from builder.content.problems import Problem

RENAME_SIMILARITY = 0.6  # share of the YAML a removed and an added recipe have in common
_OWNER = re.compile(r"^(?:og/)?([^/]+)/([^/]+?)(?:\.json|\.png)?(?:/.*)?$")
_RECORD = re.compile(r"/(?:hw|strategies)/[^/]+\.json$")
_ENDPOINT = re.compile(r"^(?!og/).*\.json$")  # a JSON API path


class CommandChange(TypedDict):
    """One change of one published form, with every endpoint that shows it."""

    form: str  # shell, docker, kubernetes, compose
    endpoints: list[str]  # "/<org>/<repo>/hw/h200.json", a preset point as "…/presets/<p>.json#<point>"
    flags: list[str]  # the flag changes of the first endpoint
    diff: str  # the unified diff of the first endpoint


class MemoryChange(TypedDict):
    """One change of the memory estimate, with every endpoint that shows it."""

    endpoints: list[str]
    before: str  # "fits, 1,038,720 KV tokens"
    after: str


class RecipeChange(TypedDict):
    """What changed in what one recipe publishes."""

    recipe: str
    file: str
    renamed_from: str | None
    endpoints_added: list[str]
    endpoints_removed: list[str]
    commands: list[CommandChange]
    memory: list[MemoryChange]
    results: list[ResultChange]  # measured results added, removed, or changed by more than 10 %
    fields: list[str]  # top-level keys of the recipe's documents that changed
    files: list[str]  # its other changed files: page, preview image


class RecipeRef(TypedDict):
    recipe: str
    file: str
    endpoints: int
    command: str  # the default command (added recipes), "" when none
    memory: str  # the default configuration's memory verdict, "" without one


class Rename(TypedDict):
    before: str
    after: str
    similarity: float


class FileChanges(TypedDict):
    added: list[str]
    removed: list[str]
    changed: list[str]


class DiffReport(TypedDict):
    """The whole comparison (``--format json`` prints it)."""

    base: str
    head: str
    changed: bool  # anything published differs (or a side has errors)
    errors: dict[str, list[str]]  # "base"/"head" → problems, when that side does not build
    added: list[RecipeRef]
    removed: list[RecipeRef]
    renamed: list[Rename]
    recipes: list[RecipeChange]
    new_warnings: list[str]
    fixed_warnings: int
    other_files: FileChanges  # published files that belong to no recipe (listings, catalogues, search...)


def _source(side: Side, rel: str) -> list[str]:
    try:
        return (side.root / rel).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def renames(base: Side, head: Side, removed: list[str], added: list[str]) -> list[Rename]:
    """Removed and added recipes whose files are alike, best pairs first."""
    pairs = []
    for old in removed:
        before = _source(base, base.recipes[old]["file"])
        for new in added:
            matcher = difflib.SequenceMatcher(None, before, _source(head, head.recipes[new]["file"]),
                                              autojunk=False)
            if matcher.real_quick_ratio() >= RENAME_SIMILARITY and matcher.quick_ratio() >= RENAME_SIMILARITY:
                ratio = matcher.ratio()
                if ratio >= RENAME_SIMILARITY:
                    pairs.append((ratio, old, new))
    found: list[Rename] = []
    taken: set[str] = set()
    for ratio, old, new in sorted(pairs, key=lambda p: (-p[0], p[1], p[2])):
        if old not in taken and new not in taken:
            taken |= {old, new}
            found.append({"before": old, "after": new, "similarity": round(ratio, 3)})
    return found


def owner_ids(side: Side) -> dict[str, str]:
    """Every document id a side publishes → the recipe publishing it."""
    return {doc_id: hf_id for hf_id, recipe in side.recipes.items() for doc_id in recipe["ids"]}


def owner(path: str, ids: dict[str, str]) -> str | None:
    """The recipe a published path belongs to (its documents, endpoints, page, preview, builder data)."""
    match = _OWNER.match(path.removesuffix(".br").removesuffix(".gz"))
    return ids.get(f"{match.group(1)}/{match.group(2)}") if match else None


def renamed_path(path: str, moves: dict[str, str]) -> str:
    """A base path under the head's ids of renamed recipes (``moves``: old document id → new)."""
    match = _OWNER.match(path.removesuffix(".br").removesuffix(".gz"))
    if match is None:
        return path
    old = f"{match.group(1)}/{match.group(2)}"
    return path.replace(old, moves[old], 1) if old in moves else path


def _json(data: bytes | None) -> Any:
    try:
        return json.loads(data) if data is not None else None
    except ValueError:
        return None


def _records(path: str, value: Any) -> dict[str, Any]:
    """The rendering records of an endpoint: itself, or a preset's points (``#<point>``)."""
    if _RECORD.search(path):
        return {f"/{path}": value}
    if "/presets/" in path and isinstance(value, dict) and isinstance(value.get("points"), dict):
        return {f"/{path}#{name}": point for name, point in value["points"].items()}
    return {}


class RecipeDiff:
    """The changes of one recipe between two sides."""

    def __init__(self, base: Side, head: Side, old: str, new: str, moves: dict[str, str]) -> None:
        self.base, self.head, self.moves = base, head, moves
        self.change: RecipeChange = {
            "recipe": new, "file": head.recipes[new]["file"], "renamed_from": old if old != new else None,
            "endpoints_added": [], "endpoints_removed": [], "commands": [], "memory": [], "results": [],
            "fields": [], "files": []}
        self.groups: dict[tuple[str, tuple[str, ...]], CommandChange] = {}
        self.memory: dict[tuple[str, str], MemoryChange] = {}
        self.endpoints(old, new)

    def endpoints(self, old: str, new: str) -> None:
        before = {renamed_path(p, self.moves) for p in self.base.recipes[old]["endpoints"]}
        after = set(self.head.recipes[new]["endpoints"])
        self.change["endpoints_added"] = [f"/{p}" for p in sorted(after - before)]
        self.change["endpoints_removed"] = [f"/{p}" for p in sorted(before - after)]

    def changed_file(self, path: str, before: bytes, after: bytes) -> None:
        """One of the recipe's published files whose bytes differ (``path`` as the head names it)."""
        if not path.endswith(".json"):
            self.change["files"].append(path)
            return
        old, new = _json(before), _json(after)
        if path.count("/") == 1 and isinstance(old, dict) and isinstance(new, dict):
            keys = [k for k in dict.fromkeys([*old, *new]) if k != "recommended_command"
                    and old.get(k) != new.get(k)]
            self.change["fields"].extend(f"{path.removesuffix('.json')}: {k}" for k in keys)
            return
        was, now = _records(path, old), _records(path, new)
        for endpoint in sorted(was.keys() & now.keys()):
            self.record(endpoint, was[endpoint], now[endpoint])

    def record(self, endpoint: str, before: Any, after: Any) -> None:
        old_forms = command_forms(before, self.base.vocab, deploy=False)
        new_forms = command_forms(after, self.head.vocab, deploy=False)
        if old_forms != new_forms:
            old_forms = command_forms(before, self.base.vocab, deploy=True)
            new_forms = command_forms(after, self.head.vocab, deploy=True)
        flags = flag_changes(before, after)
        for form in FORMS:
            if old_forms.get(form, "") == new_forms.get(form, ""):
                continue
            diff = unified(old_forms.get(form, ""), new_forms.get(form, ""), endpoint)
            key = (form, changed_lines(diff))  # a change repeated on several nodes is still the same change
            if key in self.groups:
                self.groups[key]["endpoints"].append(endpoint)
            else:
                self.groups[key] = {"form": form, "endpoints": [endpoint], "flags": flags, "diff": diff}
        if memory_changed(before, after):
            was, now = memory_line(before), memory_line(after)
            self.memory.setdefault((was, now), {"endpoints": [], "before": was, "after": now})[
                "endpoints"].append(endpoint)
        for result in result_changes(before, after):  # listed once however many records show it
            if result not in self.change["results"]:
                self.change["results"].append(result)

    def result(self) -> RecipeChange:
        order = {form: i for i, form in enumerate(FORMS)}
        self.change["commands"] = sorted(self.groups.values(),
                                         key=lambda g: (order[g["form"]], -len(g["endpoints"])))
        self.change["memory"] = list(self.memory.values())
        return self.change


def _warning_key(problem: Problem, files: dict[str, str]) -> tuple[str, str, str, bool]:
    return files.get(problem.path, problem.path), problem.field, problem.message, problem.warning


def _reference(side: Side, hf_id: str) -> RecipeRef:
    recipe = side.recipes[hf_id]
    document = _json(side.files.get(f"{hf_id}.json"))
    default = document.get("recommended_command") if isinstance(document, dict) else None
    command = command_forms(default, side.vocab, deploy=False).get("shell", "") if default else ""
    by_hardware = default.get("by_hardware") if isinstance(default, dict) else None
    url = by_hardware.get(default.get("hardware")) if isinstance(by_hardware, dict) and default else None
    # it holds the memory block
    record = _json(side.files.get(url.lstrip("/"))) if isinstance(url, str) else None
    memory = memory_line(record or default) if default else ""
    return {"recipe": hf_id, "file": recipe["file"], "endpoints": len(recipe["endpoints"]),
            "command": command, "memory": "" if memory == "no estimate" else memory}


def compare(base: Side, head: Side) -> DiffReport:
    """Everything that differs between what ``base`` and ``head`` publish."""
    report: DiffReport = {"base": base.label, "head": head.label, "changed": False, "errors": {}, "added": [],
                          "removed": [], "renamed": [], "recipes": [], "new_warnings": [],
                          "fixed_warnings": 0, "other_files": {"added": [], "removed": [], "changed": []}}
    if base.failed or head.failed:
        report["errors"] = {name: [str(p) for p in side.problems if not p.warning]
                            for name, side in (("base", base), ("head", head)) if side.failed}
        report["changed"] = True
        return report
    pairs = _match_recipes(report, base, head)
    moves = {old_id: new_id for old, new in pairs.items()
             for old_id, new_id in zip(base.recipes[old]["ids"], head.recipes[new]["ids"], strict=False)}
    kept = [(r, r) for r in sorted(base.recipes.keys() & head.recipes.keys())]
    diffs = {new: RecipeDiff(base, head, old, new, moves) for old, new in [*kept, *pairs.items()]}
    _compare_files(report, base, head, diffs, pairs, moves)
    other = report["other_files"]
    for change in (d.result() for d in diffs.values()):
        if _has_news(change):
            report["recipes"].append(change)
        # only its page changed, with what every page shares (the sidebar, counts): not news of the
        # recipe
        else:
            other["changed"].extend(change["files"])
    other["changed"].sort()
    _compare_warnings(report, base, head, pairs)
    return report


def _match_recipes(report: DiffReport, base: Side, head: Side) -> dict[str, str]:
    """Recipes added, removed and renamed into ``report``; returns the renames (old id → new id)."""
    removed = sorted(base.recipes.keys() - head.recipes.keys())
    added = sorted(head.recipes.keys() - base.recipes.keys())
    report["renamed"] = renames(base, head, removed, added)
    pairs = {r["before"]: r["after"] for r in report["renamed"]}
    report["removed"] = [_reference(base, r) for r in removed if r not in pairs]
    report["added"] = [_reference(head, r) for r in added if r not in pairs.values()]
    return pairs


def _compare_files(report: DiffReport, base: Side, head: Side, diffs: dict[str, RecipeDiff],
                   pairs: dict[str, str], moves: dict[str, str]) -> None:
    """Every published path whose bytes differ: to its recipe's diff, or to the other files."""
    mapped = {renamed_path(p, moves): p for p in base.files}  # base paths as the head names them
    head_ids, base_ids = owner_ids(head), owner_ids(base)
    other = report["other_files"]
    for path in sorted(mapped.keys() | head.files.keys()):
        before = base.files.get(mapped[path]) if path in mapped else None
        after = head.files.get(path)
        if before == after:
            continue
        report["changed"] = True
        recipe = owner(path, head_ids) if after is not None else owner(mapped[path], base_ids)
        recipe = pairs.get(recipe, recipe) if recipe is not None and after is None else recipe
        if recipe in diffs and before is not None and after is not None:
            diffs[recipe].changed_file(path, before, after)
        elif recipe in diffs and not _ENDPOINT.search(path):  # endpoints are listed already
            diffs[recipe].change["files"].append(f"{path} ({'added' if before is None else 'removed'})")
        elif recipe is None:
            other["added" if before is None else "removed" if after is None else "changed"].append(path)


def _compare_warnings(report: DiffReport, base: Side, head: Side, pairs: dict[str, str]) -> None:
    """The head's warnings the base didn't have (a renamed recipe's under its new file), and how many went."""
    files = {base.recipes[old]["file"]: head.recipes[new]["file"] for old, new in pairs.items()}
    old_warnings = {_warning_key(p, files) for p in base.problems} | set(base.unlocated)
    report["new_warnings"] = [str(p) for p in head.problems if _warning_key(p, {}) not in old_warnings]
    report["new_warnings"] += [w for w in head.unlocated if w not in old_warnings]
    new_keys = {_warning_key(p, {}) for p in head.problems} | set(head.unlocated)
    report["fixed_warnings"] = len(old_warnings - new_keys)


def _has_news(change: RecipeChange) -> bool:
    """Whether a recipe changed beyond its page and preview (which follow any change of the listings)."""
    return bool(change["renamed_from"] or change["endpoints_added"] or change["endpoints_removed"]
                or change["commands"] or change["memory"] or change["results"] or change["fields"])
