"""The second core at work: the command builder's data and half of the recipe pages rendered by
forked children straight into the build's staging folder, beside the main process."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

from builder.api.output import BuildOutput
from builder.content.model import Content
from builder.output.forked import ForkedJob, fork_job, on_two_cores
from builder.output.streaming import StreamedFiles
from builder.site.pages import SitePages


def site_pages_parallel(
    content: Content, output: BuildOutput, base_url: str | None = None,
    into: MutableMapping[str, bytes] | None = None
) -> MutableMapping[str, bytes]:
    """:func:`site_pages` on two cores: a forked child builds half of the recipe pages.

    ``into`` (default: a new dict) receives every page as it is rendered; when it is a
    :class:`~builder.output.streaming.StreamedFiles`, the child streams its share into the same staging
    folder and sends back only the paths (the parent keeps no page in memory).

    Forks only where :func:`~builder.output.forked.can_fork` allows; otherwise, with few recipes, or when
    the child fails, one process builds everything.
    """
    pages: MutableMapping[str, bytes] = {} if into is None else into
    site = SitePages(content, output, base_url)
    streamed = pages if isinstance(pages, StreamedFiles) else None

    def their_share() -> Any:
        if streamed is None:
            return site.recipe_pages(1, 2)
        share = streamed.sibling()
        site.recipe_pages(1, 2, share)
        return list(share) if streamed.staging.error is None else None

    child = None
    if len(site.index.recipes) >= 8:
        site.templates.compile_all()  # once, before the fork, not in each process
        child = fork_job(their_share)
    if child is None:
        site.recipe_pages(0, 1, pages)
        pages.update(site.shared())
        return pages
    mine: MutableMapping[str, bytes] = StreamedFiles(streamed.staging) if streamed is not None else {}
    site.recipe_pages(0, 2, mine)
    mine.update(site.shared())
    theirs = child.result()
    if theirs is None:
        theirs = site.recipe_pages(1, 2, StreamedFiles(streamed.staging) if streamed is not None else None)
    if streamed is not None:  # their paths first, then ours, as a dict of both would list them
        for share in (theirs, mine):
            streamed.adopt(share)
    else:
        pages.update(theirs)
        pages.update(mine)
    return pages


def builder_data_two_cores(content: Content, into: MutableMapping[str, bytes] | None = None
                           ) -> MutableMapping[str, bytes]:
    """:func:`~builder.site.browser.data.builder_data_files` (the same files, in the same order) with the
    recipes whose builder data are not cached yet (a fresh checkout: their stored clicks take half a
    minute) computed on two cores (:func:`~builder.output.forked.on_two_cores`)."""
    from builder.site.browser.data import builder_data_files, cold_recipe_files

    cold = cold_recipe_files(content)
    computed = dict(zip(cold, on_two_cores(list(cold.values())), strict=True)) if len(cold) >= 8 else {}
    return builder_data_files(content, into=into, computed=computed)


def builder_data_child(content: Content, into: StreamedFiles) -> ForkedJob[list[str]] | None:
    """The command builder's data, computed and streamed into ``into``'s staging folder by a forked
    child while this process resolves the JSON API (it needs only the content); None when the
    process cannot fork."""
    def job() -> list[str] | None:
        share = into.sibling()
        builder_data_two_cores(content, into=share)
        return list(share) if share.staging.error is None else None

    return fork_job(job)
