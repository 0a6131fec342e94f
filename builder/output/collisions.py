"""Outputs that would overwrite each other once written: found in memory, before any write.

Refused: an output path that is not a plain path inside the output folder, one path
produced by two sources (the JSON API, the pages, the Pyodide runtime...), two paths equal
case-folded (they would overwrite each other on a case-insensitive disk), and a file where
another output needs a folder. Each problem names both outputs and where they came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from builder.api.publish import ApiBuilder
from builder.content.identifiers import output_path_problem
from builder.content.model import Content
from builder.content.problems import ContentError, Problem

API = "the JSON API"
CATALOGUE_FILES = {"taxonomy.json": "taxonomy.yaml", "platforms.json": "platforms.yaml"}
CATALOGUE_FOLDERS = ("strategies", "kv_store", "quickstart")


@dataclass(frozen=True)
class Origin:
    """Where one output came from."""

    file: str  # the content file (relative to the content root) that produced it; "" for the site itself
    what: str  # how messages name it


class Origins:
    """Finds the origin of an output path: the recipe that produced it, else its group's label."""

    def __init__(self, content: Content, api: ApiBuilder | None = None):
        self.recipe_file = {recipe.hf_id: recipe.rel_path for recipe in content.recipes}
        self.orgs = {recipe.hf_id.split("/")[0] for recipe in content.recipes}
        self.api_owner: dict[str, str] = {}  # API path -> hf_id of the recipe that wrote it ("" catalogues)
        for owner, paths in (api.owned if api is not None else {}).items():
            for path in paths:
                self.api_owner[path] = owner

    def recipe(self, hf_id: str) -> Origin:
        rel = self.recipe_file.get(hf_id, "")
        return Origin(rel, f"recipe {rel}" if rel else f"recipe {hf_id}")

    def catalogue(self, path: str) -> Origin:
        """The origin of a JSON API file that no recipe wrote (catalogues, quickstarts, the index)."""
        top = path.split("/", 1)[0]
        if top in CATALOGUE_FOLDERS and "/" in path:
            return Origin(top, f"the {top} folder")
        return Origin(CATALOGUE_FILES.get(path, ""), API)

    def of(self, path: str, group: str) -> Origin:
        """The origin of ``path``, one of the outputs of ``group`` (e.g. :data:`API`)."""
        if group == API:
            owner = self.api_owner.get(path, "")
            return self.recipe(owner) if owner else self.catalogue(path)
        for prefix, suffix in (("", "/index.html"), ("builder-data/", ".json")):
            if path.startswith(prefix) and path.endswith(suffix):
                hf_id = path[len(prefix) : len(path) - len(suffix)]
                if hf_id in self.recipe_file:
                    return self.recipe(hf_id)
                if prefix == "" and hf_id in self.orgs:
                    return Origin("", f"the provider page /{hf_id}")
        return Origin("", group)


class _Clashes:
    """Collisions grouped by kind and by the two origins: one problem per group, naming its
    first outputs and counting the rest (a promoted variant clashes in every file it renders)."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, Origin, Origin], list[tuple[str, str]]] = {}

    def add(self, kind: str, first: str, first_origin: Origin, second: str, second_origin: Origin) -> None:
        self.groups.setdefault((kind, first_origin, second_origin), []).append((first, second))

    def problems(self) -> list[Problem]:
        found = []
        for (kind, first, second), pairs in self.groups.items():
            a, b = pairs[0]
            more = f" (and {len(pairs) - 1} more)" if len(pairs) > 1 else ""
            message = {
                "twice": f"output {a}{more} is written by both {first.what} and {second.what}",
                "refused": f"output {a!r}{more} of {first.what} is refused: {b}",
                "case": f"outputs {a} ({first.what}) and {b} ({second.what}){more} differ only in case: "
                "one would overwrite the other on a case-insensitive disk",
                "folder": f"output {a} ({first.what}) is a file{more}, but {b} ({second.what}) "
                          "needs a folder there",
            }[kind]
            found.append(Problem(second.file or first.file or "models", 0, "", message))
        return found


def output_problems(parts: Iterable[tuple[Mapping[str, bytes], str]], origins: Origins) -> list[Problem]:
    """Every collision among the outputs of ``parts`` (files, group label), in path order."""
    clashes = _Clashes()
    groups: list[str] = []
    part_of: dict[str, int] = {}  # path -> index of the first part that has it
    for index, (files, group) in enumerate(parts):
        groups.append(group)
        for path in files:
            earlier = part_of.setdefault(path, index)
            if earlier != index:
                clashes.add("twice", path, origins.of(path, groups[earlier]), path, origins.of(path, group))

    def origin(path: str) -> Origin:
        return origins.of(path, groups[part_of[path]])

    folded: dict[str, str] = {}  # case-folded path -> first path
    for path in sorted(part_of):
        reason = output_path_problem(path)
        if reason is not None:
            clashes.add("refused", path, origin(path), reason, origin(path))
            continue
        first = folded.setdefault(path.casefold(), path)
        if first != path:
            clashes.add("case", first, origin(first), path, origin(path))
    folders: dict[str, str] = {}  # case-folded folder -> the first path inside it
    for key, path in folded.items():
        parent = key.rpartition("/")[0]
        while parent and parent not in folders:
            folders[parent] = path
            parent = parent.rpartition("/")[0]
    for key, path in folded.items():
        inner = folders.get(key)
        if inner is not None:
            clashes.add("folder", path, origin(path), inner, origin(inner))
    return clashes.problems()


def api_overwrites(api: ApiBuilder, origins: Origins) -> list[Problem]:
    """Paths the JSON API wrote for two different recipes (or a recipe and a catalogue): the later
    write replaced the earlier one. Only duplicate promoted variants (json-api §6.4) may do that."""
    owners: dict[str, list[str]] = {}
    for owner, paths in api.owned.items():
        for path in paths:
            owners.setdefault(path, []).append(owner)
    clashes = _Clashes()
    for path in sorted(p for p, found in owners.items() if len(found) > 1):
        found = owners[path]
        if any(
            (path == f"{base}.json" or path.startswith(f"{base}/")) and set(found) <= set(shared)
            for base, shared in api.base_owners.items()
            if len(shared) > 1
        ):
            continue
        first, second = (origins.recipe(o) if o else origins.catalogue(path) for o in found[:2])
        clashes.add("twice", path, first, path, second)
    return clashes.problems()


def check_outputs(parts: Iterable[tuple[Mapping[str, bytes], str]], content: Content,
                  api: ApiBuilder) -> None:
    """Raise :class:`ContentError` listing every collision of the outputs (see the module docstring)."""
    origins = Origins(content, api)
    problems = api_overwrites(api, origins) + output_problems(parts, origins)
    if problems:
        raise ContentError(problems)


def incremental_clash(
    files: Mapping[str, bytes],
    previous: Mapping[str, bytes],
    api_before: set[str],
    content: Content,
    api: ApiBuilder,
) -> bool:
    """True when the file set of an incremental rebuild has a collision (a full render reports it).

    ``previous`` is the site before the rebuild and ``api_before`` its JSON API paths: an API path
    that was another kind of output before has just replaced that output in ``files``."""
    if any(path in previous and path not in api_before for path in api.out.files.keys() - api_before):
        return True
    origins = Origins(content, api)
    return bool(api_overwrites(api, origins) or output_problems([(files, "the site")], origins))
