"""The build: read and validate everything, render in memory, then write."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.api import ApiBuilder, dumps
from builder.collisions import API, check_outputs
from builder.content import BuildOutput, Content
from builder.errors import ContentError, Problem
from builder.loader import load_content
from builder.schema import SCHEMA_PATH, recipe_schema
from builder.writer import Staging, UnsafeOutput, UnsafePath, check_out

SOURCE_KEYS = ("name", "repo", "ref", "sha", "prefix")
PROJECT_ROOT = Path(__file__).resolve().parents[1]


@dataclass
class BuildOptions:
    """What to build and how."""

    content: Path
    out: Path
    strict: bool = False
    html: bool = True
    source: dict[str, str | None] = field(default_factory=dict)  # command-line provenance overrides


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


def render_api(options: BuildOptions) -> BuildResult:
    """Read, validate and build the JSON API in memory (raises ContentError)."""
    content, problems = load_content(options.content, strict=options.strict)
    api = ApiBuilder(content, source_settings(content, options.source))
    output = api.build()
    problems = problems + output.problems
    if options.strict and output.problems:
        raise ContentError(problems)
    files = dict(output.files)
    files[SCHEMA_PATH] = dumps(recipe_schema())
    check_outputs([(output.files, API), ({SCHEMA_PATH: files[SCHEMA_PATH]}, "the recipe JSON Schema")], content, api)
    return BuildResult(content, output, files, problems, api)


def render_html(result: BuildResult, parallel: bool = False) -> dict[str, bytes]:
    """Every HTML page and asset of a rendered API, and what the in-browser builder loads:
    the Pyodide runtime, the resolver itself, and each recipe's builder data. Raises
    ContentError when any of them would overwrite another output (:mod:`builder.collisions`).

    ``parallel`` renders on two cores (it forks: only while no other thread runs)."""
    from builder.pyodide_assets import builder_data_files, pyodide_files, resolver_files
    from builder.render import render_site, render_site_parallel

    parts = [
        ((render_site_parallel if parallel else render_site)(result.content, result.output), "the site's pages"),
        (pyodide_files(PROJECT_ROOT), "the Pyodide runtime"),
        (resolver_files(PROJECT_ROOT), "the in-browser resolver"),
        (builder_data_files(result.content), "the command builder's data"),
    ]
    check_outputs([(result.files, API), *parts], result.content, result.api)
    return {path: data for files, _ in parts for path, data in files.items()}


def render(options: BuildOptions) -> BuildResult:
    """Read, validate and render everything in memory (raises ContentError)."""
    result = render_api(options)
    if options.html:
        result.files.update(render_html(result))
    return result


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
        result = render_api(options)
        pages = render_html(result, parallel=True) if options.html else {}
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
    try:
        with Staging(options.out) as staging:
            writing = staging.write_in_background(result.files)
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
    result.files.update(pages)
    docs = result.output.documents
    print(
        f"built {len(result.content.recipes)} recipes, {len(docs)} documents, "
        f"{len(result.files)} files into {options.out}"
    )
    return 0
