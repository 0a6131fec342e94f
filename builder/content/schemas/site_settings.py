"""Settings of a content root that are not recipes: ``site.yaml`` and ``quickstart/*.yaml``."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from builder.content.schemas.common import BaseUrl, Open, SafeUrl, Text


class SourceSettings(Open):
    """``site.yaml`` ``source``: where the recipe files live, for each recipe's ``source`` block."""

    name: Text | None = None
    """Name of the source, published as ``source.source``."""
    repo: Text | None = None
    """GitHub ``owner/name`` of the repository; with it each recipe gets an ``edit_url``."""
    ref: Text | None = None
    """Branch or tag the edit links open (default ``main``)."""
    sha: Text | None = None
    """Commit of the content; the build asks git for it when absent."""
    prefix: Text | None = None
    """Folder of the content root inside the repository, put before each recipe's path."""


class Site(Open):
    """``site.yaml``: optional settings of a content root."""

    base_url: BaseUrl | None = None
    """Address the site is served from: canonical links, sitemap, feed; a path moves every link under it."""
    site_url: BaseUrl | None = None  # read when base_url is absent
    """Older name of ``base_url``, read when ``base_url`` is absent."""
    repo_url: SafeUrl | None = None
    """Repository of the recipes, for the edit and "request a recipe" links."""
    docs_url: SafeUrl | None = None
    """Documentation link; accepted, while the pages still link the vLLM docs."""
    source: SourceSettings | None = None
    """Provenance settings; without them recipe documents carry no ``source`` block."""


class Quickstart(BaseModel):
    """``quickstart/*.yaml``: a hardware quickstart, published verbatim."""

    model_config = ConfigDict(extra="allow", strict=True, use_attribute_docstrings=True)
    hardware_profile: Text
    """Hardware id the quickstart is for; it names the published ``/quickstart/<id>.json``."""
