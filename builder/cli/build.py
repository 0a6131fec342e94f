"""The build: read and validate everything, publish and build pages, streamed into a staging folder."""

from __future__ import annotations

import functools
import subprocess
import sys
from collections import ChainMap
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.api.form_schema import FORM_SCHEMA_PATH, form_schema
from builder.api.output import BuildOutput
from builder.api.publish import ApiBuilder, dumps
from builder.content.loader import load_content, reload_recipe
from builder.content.log_text import log_text
from builder.content.model import Content, RecipeFile
from builder.content.problems import ContentError, Problem
from builder.content.schemas.json_schema import (
    PERFORMANCE_SCHEMA_PATH,
    SCHEMA_PATH,
    performance_schema,
    recipe_schema,
)
from builder.output.collisions import API, check_outputs, incremental_clash
from builder.output.forked import ForkedJob, can_fork, fork_job
from builder.output.streaming import StreamedFiles
from builder.output.writer import Staging, UnsafeOutput, UnsafePath, check_out
from builder.resolver import memory_coverage
from builder.resolver.performance.store import block_coverage

SOURCE_KEYS = ("name", "repo", "ref", "sha", "prefix")


@dataclass
class BuildOptions:
    """What to build and how."""

    content: Path
    out: Path
    strict: bool = False
    html: bool = True
    # the command builder's data (``diff`` leaves them out: they follow the documents)
    builder_data: bool = True
    source: dict[str, str | None] = field(default_factory=dict)  # command-line provenance overrides
    # where the site is published (default: site.yaml base_url, else http://127.0.0.1:8000)
    base_url: str | None = None


@dataclass
class BuildResult:
    """The in-memory site plus what the build reported."""

    content: Content
    output: BuildOutput
    files: MutableMapping[str, bytes]  # a dict, or the paths streamed into a staging folder
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

    def run(self, html: bool | None = None, parallel: bool = False,
            staging: Staging | None = None) -> BuildResult:
        """Everything (raises ContentError); ``html`` defaults to the options'.

        Without ``staging`` the site stays in memory (``result.files``, for ``serve`` and tests);
        with it every file is streamed into that staging folder as it is rendered and only the
        paths stay in memory (the caller commits the folder)."""
        streams = (StreamedFiles(staging), StreamedFiles(staging)) if staging is not None else None
        return self._run(html, parallel, streams)

    def _run(self, html: bool | None, parallel: bool,
             streams: tuple[StreamedFiles, StreamedFiles] | None) -> BuildResult:
        options = self.options
        html = options.html if html is None else html
        warming: list[ForkedJob[bool]] = []
        if html:
            from builder.site.browser.bundle import check_browser_files

            check_browser_files()  # raises BrowserFilesMissing now: no site goes out without its builder
            warming = warm_up()
        reader = None
        if parallel:
            from builder.output.parallel_load import read_on_two_cores

            reader = read_on_two_cores
        content, problems = load_content(options.content, strict=options.strict, reader=reader)
        source = source_settings(content, options.source)
        builder_data = None
        if html and parallel and streams is not None:
            from builder.output.parallel import builder_data_child

            builder_data = builder_data_child(content, streams[1])
        if streams is None:
            api = ApiBuilder(content, source)
        else:
            api = ApiBuilder(content, source, files=streams[0], keep_alternatives=False)
        if parallel and not html and streams is not None:  # with pages, a child computes builder data
            from builder.output.parallel_api import build_api_parallel

            output = build_api_parallel(api)
        else:
            output = api.build()
        problems = problems + output.problems
        if options.strict and output.problems:
            raise ContentError(problems)
        files: MutableMapping[str, bytes] = (dict(output.files) if streams is None
                                             else ChainMap(streams[1], output.files))
        schemas = dict(schema_files())
        files.update(schemas)
        schema_part = (schemas, "the JSON Schemas")
        check_outputs([(output.files, API), schema_part], content, api)
        result = BuildResult(content, output, files, problems, api)
        if html:
            parts = _pages(content, output, parallel, options.base_url,
                           streams[1].sibling() if streams is not None else None, builder_data,
                           options.builder_data)
            check_outputs([(files, API), *parts], content, api)
            anchors = anchor_problems(content.recipes, parts[0][0])
            if options.strict and anchors:
                raise ContentError(result.problems + anchors)
            result.problems += anchors
            for part, _ in parts:
                if isinstance(files, ChainMap) and isinstance(part, StreamedFiles):
                    files.maps.append(part)  # already written
                else:
                    files.update(part)
        for job in warming:  # done: the pages waited for what they computed
            job.result()
        self.result = result
        return result

    def rebuild(self, rel: str) -> tuple[dict[str, bytes], list[Problem]] | None:
        """Every file after an edit of the recipe file ``rel`` alone, and the problems of that recipe.

        None when only a full :meth:`run` is exact (no previous run, a new or removed recipe, or a
        base another recipe also publishes). Raises ContentError for a broken edit.
        """
        from builder.site.browser.data import builder_data_files
        from builder.site.pages import edited_pages

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


@functools.cache
def schema_files() -> tuple[tuple[str, bytes], ...]:
    """The published JSON Schemas (path, bytes): generated from the models once per process (about 40 ms
    each time), since they depend on the code alone."""
    return ((SCHEMA_PATH, dumps(recipe_schema())), (PERFORMANCE_SCHEMA_PATH, dumps(performance_schema())),
            (FORM_SCHEMA_PATH, dumps(form_schema())))


def warm_up() -> list[ForkedJob[bool]]:
    """The slow parts of the in-browser builder's files that are not cached yet (the runtime's
    Brotli twins, its compiled zips: :func:`~builder.site.browser.bundle.warm_up_jobs`), started in
    forked children, one per job, while this process reads, resolves and renders; nothing when the
    process cannot fork (it then computes them itself when the pages need them).  A build that fails
    leaves them running: they only fill the caches."""
    from builder.site.browser.bundle import warm_up_jobs

    if not can_fork():
        return []
    return [job for job in map(fork_job, warm_up_jobs()) if job is not None]


def _pages(content: Content, output: BuildOutput, parallel: bool,
           base_url: str | None = None,
           into: MutableMapping[str, bytes] | None = None,
           builder_data: ForkedJob[list[str]] | None = None,
           with_data: bool = True) -> list[tuple[Mapping[str, bytes], str]]:
    """Every HTML page and asset, and what the in-browser builder loads: the tool's browser files
    (the Pyodide runtime and the resolver, :func:`~builder.site.browser.bundle.browser_files`) and
    each recipe's builder data; each part named for collision reports.

    The pages go into ``into`` (default: a new dict) as they are rendered. ``parallel`` builds
    on two cores (it forks: only while no other thread runs). ``builder_data`` is the child
    already computing the builder data into the same staging folder as ``into``
    (:func:`~builder.output.parallel.builder_data_child`); without it, or when it failed, this process
    computes them (unless ``with_data`` is false)."""
    from builder.output.parallel import builder_data_two_cores, site_pages_parallel
    from builder.site.browser.bundle import browser_files
    from builder.site.pages import site_pages

    if parallel:
        pages = site_pages_parallel(content, output, base_url, into=into)
    elif into is None:
        pages = site_pages(content, output, base_url)
    else:
        into.update(site_pages(content, output, base_url))
        pages = into
    written = builder_data.result() if builder_data is not None else None
    data: Mapping[str, bytes]
    if written is not None and isinstance(into, StreamedFiles):
        data = adopted = into.sibling()  # the child wrote them
        adopted.adopt(written)
    else:
        data = builder_data_two_cores(content) if with_data else {}
    return [
        (pages, "the site's pages"),
        (browser_files(), "the in-browser builder's runtime"),
        (data, "the command builder's data"),
    ]


def anchor_problems(recipes: list[RecipeFile], pages: Mapping[str, bytes]) -> list[Problem]:
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

    Exit status 0, 1 (content errors, a failed write, or no runtime to ship; ``out`` unchanged) or 2 (an
    ``out`` that :func:`~builder.output.writer.check_out` refuses, checked before anything is read).

    Every file is written into a staging folder as soon as it is rendered (the builder data and
    half of the HTML pages are computed, and written, by forked children); the folder is swapped
    in once everything is written and checked.
    """
    from builder.site.browser.bundle import BrowserFilesMissing

    try:
        check_out(options.out, options.content)
    except UnsafeOutput as exc:
        print(log_text(f"error: {exc}"), file=sys.stderr)
        return 2
    try:
        with Staging(options.out, background=True) as staging:
            result = Pipeline(options).run(parallel=True, staging=staging)
            for problem in result.problems:
                print(problem, file=sys.stderr)
            for warning in result.output.warnings:
                print(log_text(f"warning: {warning}"), file=sys.stderr)
            staging.commit()
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        errors = sum(1 for p in exc.problems if not p.warning or options.strict)
        print(f"build failed: {errors} error(s); {options.out} left unchanged", file=sys.stderr)
        return 1
    except UnsafeOutput as exc:  # the folder changed since the check above
        print(log_text(f"error: {exc}"), file=sys.stderr)
        return 2
    except BrowserFilesMissing as exc:
        print(log_text(f"error: {exc}; {options.out} left unchanged"), file=sys.stderr)
        return 1
    except (OSError, UnsafePath) as exc:
        print(log_text(f"error: cannot write the site to {options.out} ({exc}); it is left unchanged"),
              file=sys.stderr)
        return 1
    docs = result.output.documents
    print(
        f"built {len(result.content.recipes)} recipes, {len(docs)} documents, "
        f"{len(result.files)} files into {options.out}"
    )
    print(memory_coverage(recipe.data for recipe in result.content.recipes))
    stored = sum(1 for recipe in result.content.recipes if recipe.performance is not None)
    if stored:
        bodies = [body for body in result.output.objects.values() if isinstance(body, dict)]
        points = [body["points"] for body in bodies if isinstance(body.get("points"), dict)]
        records = [*bodies, *(point for group in points for point in group.values())]
        print(block_coverage(records, stored))
    return 0
