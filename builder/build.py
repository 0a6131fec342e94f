"""The build: read and validate everything, publish and build pages in memory, then write."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.api import ApiBuilder, dumps
from builder.collisions import API, check_outputs, incremental_clash
from builder.content import BuildOutput, Content, RecipeFile
from builder.loader import load_content, reload_recipe
from builder.paths import PROJECT_ROOT
from builder.problems import ContentError, Problem
from builder.schema import SCHEMA_PATH, recipe_schema
from builder.writer import Staging, UnsafeOutput, UnsafePath, check_out

SOURCE_KEYS = ("name", "repo", "ref", "sha", "prefix")


@dataclass
class BuildOptions:
    """What to build and how."""

    content: Path
    out: Path
    strict: bool = False
    html: bool = True
    source: dict[str, str | None] = field(default_factory=dict)  # command-line provenance overrides
    base_url: str | None = None  # where the site is published (default: site.yaml base_url, else http://127.0.0.1:8000)


@dataclass
class BuildResult:
    """The in-memory site plus what the build reported."""

    content: Content
    output: BuildOutput
    files: dict[str, bytes]
    problems: list[Problem]
    api: ApiBuilder  # kept for incremental rebuilds


def source_settings(content: Content, overrides: dict[str, str | None]) -> dict[str, Any] | None:
    """Provenance: site.yaml ``source`` defaults, command-line overrides, git for the sha."""
    settings = dict(content.site.get("source") or {})
    settings.update({k: v for k, v in overrides.items() if v is not None})
    if not settings.get("name") and not settings.get("repo"):
        return None
    if not settings.get("sha"):
        settings["sha"] = git_head(Path(content.root))
    return settings


def git_head(folder: Path) -> str | None:
    """The commit of the git checkout holding ``folder``, if any."""
    try:
        done = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


class Pipeline:
    """One content root through the one-way build: load and validate → resolve and publish the
    JSON API (records and lint findings as objects) → pages from those objects → anchor check.

    Kept by ``serve`` for :meth:`rebuild`; nothing outside the pipeline touches its stages.
    """

    def __init__(self, options: BuildOptions) -> None:
        self.options = options
        self.result: BuildResult | None = None

    def run(self, html: bool | None = None, parallel: bool = False) -> BuildResult:
        """Everything in memory (raises ContentError); ``html`` defaults to the options'."""
        options = self.options
        content, problems = load_content(options.content, strict=options.strict)
        api = ApiBuilder(content, source_settings(content, options.source))
        output = api.build()
        problems = problems + output.problems
        if options.strict and output.problems:
            raise ContentError(problems)
        files = dict(output.files)
        files[SCHEMA_PATH] = dumps(recipe_schema())
        schema_part = ({SCHEMA_PATH: files[SCHEMA_PATH]}, "the recipe JSON Schema")
        check_outputs([(output.files, API), schema_part], content, api)
        result = BuildResult(content, output, files, problems, api)
        if options.html if html is None else html:
            parts = _pages(content, output, parallel, options.base_url)
            check_outputs([(files, API), *parts], content, api)
            pages = {path: data for part, _ in parts for path, data in part.items()}
            anchors = anchor_problems(content.recipes, pages)
            if options.strict and anchors:
                raise ContentError(result.problems + anchors)
            result.problems += anchors
            files.update(pages)
        self.result = result
        return result

    def rebuild(self, rel: str) -> tuple[dict[str, bytes], list[Problem]] | None:
        """Every file after an edit of the recipe file ``rel`` alone, and the problems of that recipe.

        None when only a full :meth:`run` is exact (no previous run, a new or removed recipe, or a
        base another recipe also publishes). Raises ContentError for a broken edit.
        """
        from builder.browser_bundle import builder_data_files
        from builder.site import edited_pages

        if self.result is None:
            return None
        content, api = self.result.content, self.result.api
        recipe, problems = reload_recipe(content, rel, strict=self.options.strict)
        api_before = set(api.out.files)
        previous = self.result.files
        paths = api.rebuild_recipe(recipe)
        if paths is None:
            return None
        output = api.out
        files = dict(self.result.files)
        for path in paths:
            if path in output.files:
                files[path] = output.files[path]
            else:
                files.pop(path, None)
        pages = edited_pages(content, output, {recipe.hf_id}, self.options.base_url)
        files.update(pages)
        files.update(builder_data_files(content, {recipe.hf_id}))
        if incremental_clash(files, previous, api_before, content, api):
            return None  # the full run reports the outputs that collide
        problems = problems + anchor_problems([recipe], pages)
        self.result.files = files
        return files, problems


def _pages(content: Content, output: BuildOutput, parallel: bool,
           base_url: str | None = None) -> list[tuple[dict[str, bytes], str]]:
    """Every HTML page and asset, and what the in-browser builder loads: the Pyodide runtime,
    the resolver itself, and each recipe's builder data; each part named for collision reports.

    ``parallel`` builds on two cores (it forks: only while no other thread runs)."""
    from builder.browser_bundle import builder_data_files, pyodide_files, resolver_files
    from builder.site import site_pages, site_pages_parallel

    return [
        ((site_pages_parallel if parallel else site_pages)(content, output, base_url), "the site's pages"),
        (pyodide_files(PROJECT_ROOT), "the Pyodide runtime"),
        (resolver_files(PROJECT_ROOT), "the in-browser resolver"),
        (builder_data_files(content), "the command builder's data"),
    ]


def anchor_problems(recipes: list[RecipeFile], pages: dict[str, bytes]) -> list[Problem]:
    """Broken ``#fragment`` links of the built recipe pages (none without pages)."""
    if not pages:
        return []
    from builder.site.anchors import anchor_problems as check

    return check(recipes, pages)


def render(options: BuildOptions) -> BuildResult:
    """Read, validate and build everything in memory (raises ContentError)."""
    return Pipeline(options).run()


def build(options: BuildOptions) -> int:
    """Build and write the site; print problems as ``path:line: field: message``.

    Exit status 0, 1 (content errors or a failed write; ``out`` unchanged) or 2 (an ``out``
    that :func:`~builder.writer.check_out` refuses, checked before anything is read).

    The HTML pages render on two processes; the JSON files and the pages are then written
    to the staging folder by two threads (file I/O releases the GIL), which is swapped in.
    """
    try:
        check_out(options.out, options.content)
    except UnsafeOutput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        result = Pipeline(options).run(parallel=True)
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        errors = sum(1 for p in exc.problems if not p.warning or options.strict)
        print(f"build failed: {errors} error(s); {options.out} left unchanged", file=sys.stderr)
        return 1
    for problem in result.problems:
        print(problem, file=sys.stderr)
    for warning in result.output.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    pages = {path: data for path, data in result.files.items() if path not in result.output.files}
    try:
        with Staging(options.out) as staging:
            writing = staging.write_in_background(result.output.files)
            try:
                staging.write(pages)
            finally:
                writing.join()
            staging.commit()
    except UnsafeOutput as exc:  # the folder changed since the check above
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnsafePath) as exc:
        print(f"error: cannot write the site to {options.out} ({exc}); it is left unchanged", file=sys.stderr)
        return 1
    docs = result.output.documents
    print(
        f"built {len(result.content.recipes)} recipes, {len(docs)} documents, "
        f"{len(result.files)} files into {options.out}"
    )
    return 0
