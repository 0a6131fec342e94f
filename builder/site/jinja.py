"""The thin Jinja layer: one environment, the static assets, and :class:`Page` → bytes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from jinja2 import (
    BytecodeCache,
    Environment,
    FileSystemBytecodeCache,
    FileSystemLoader,
    StrictUndefined,
    select_autoescape,
)
from jinja2.bccache import Bucket
from markupsafe import Markup

from builder.content.base_path import prefix_links
from builder.site.brand import PRELOADED, platform_logo, provider_logo
from builder.site.index import HF, SITE_NAME, SiteIndex
from builder.site.paths import CACHE_DIR, TEMPLATES_DIR
from builder.site.versions import versioned
from builder.site.views import fmt_ctx_short

DOCS_URL = "https://docs.vllm.ai"
INSTALL_URL = "https://docs.vllm.ai/en/latest/getting_started/installation/"
SUPPORTED_MODELS_URL = "https://docs.vllm.ai/en/latest/models/supported_models.html"
OMNI_REPO_URL = "https://github.com/vllm-project/vllm-omni"


@dataclass
class Page:
    """One HTML page: the template, what every page has (title, canonical, crumbs...), and its body.

    ``body`` is a page builder's dataclass (:class:`~builder.site.recipe_page.RecipePage`...) or a
    mapping; its fields become the template's variables beside the common ones.
    """

    template: str
    body: Any
    title: str = ""
    description: str = ""
    canonical: str = ""
    kind: str = ""
    og_type: str = "website"
    og_image: str = ""  # site path of the page's preview PNG (with ?v=), set by SitePages
    current_org: str | None = None
    current_recipe: str | None = None
    breadcrumbs: list[tuple[str, str]] = field(default_factory=list)
    jsonld: list[dict[str, Any]] = field(default_factory=list)

    def context(self) -> dict[str, Any]:
        """The template variables."""
        body = (self.body if isinstance(self.body, dict)
                else {f.name: getattr(self.body, f.name) for f in fields(self.body)})
        if not self.kind:  # a bare template (the redirect stub) gets its body only
            return dict(body)
        return {
            "page_title": self.title,
            "description": self.description,
            "canonical": self.canonical,
            "og_type": self.og_type,
            "og_image": self.og_image,
            "page_kind": self.kind,
            "current_org": self.current_org,
            "current_recipe": self.current_recipe,
            "breadcrumbs": self.breadcrumbs,
            "jsonld": self.jsonld,
            **body,
        }


def json_for_script(obj: Any) -> Markup:
    """JSON safe to embed inside a <script> element."""
    dumped = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    dumped = dumped.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    dumped = dumped.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(dumped)


class _TemplateBytecodeCache(BytecodeCache):
    """Compiled templates kept for the life of the process (the dev server renders many times) and
    in ``.cache/jinja/`` across builds. Jinja checks each entry against its template's source
    (and the Python version), so an edited template is compiled afresh; a folder that can't be
    written only loses the second level."""

    def __init__(self, folder: Path) -> None:
        self.store: dict[str, bytes] = {}
        self.disk: FileSystemBytecodeCache | None = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            self.disk = FileSystemBytecodeCache(str(folder))
        except OSError:
            pass

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])
        elif self.disk is not None:
            self.disk.load_bytecode(bucket)

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()
        if self.disk is not None:
            try:
                self.disk.dump_bytecode(bucket)
            except OSError:
                pass


_BYTECODE = _TemplateBytecodeCache(CACHE_DIR / "jinja")


def site_url(path: str) -> str:
    """The URL of the output file ``path`` (output-relative, no leading slash): the one place that
    knows where the site is mounted."""
    return f"/{path}"


def runtime_url() -> str:
    """URL of the Pyodide runtime folder (``pyodide/<hash>/``); raises
    :class:`~builder.site.browser.bundle.BrowserFilesMissing` when the tool has no runtime to ship."""
    from builder.site.browser.bundle import runtime_dir

    return site_url(f"pyodide/{runtime_dir()}/")


def code_url() -> str:
    """URL of our code zip (``static/resolver.zip?v=<hash>``), as :func:`runtime_url` raising when absent."""
    from builder.site.browser.bundle import resolver_url

    return resolver_url(site_url)


class Templates:
    """The Jinja environment of one build, with the site-wide globals."""

    def __init__(self, index: SiteIndex, assets: dict[str, bytes]) -> None:
        self.assets = assets
        self.base_path = index.base_path
        self.orgs = index.orgs
        self._asset_urls: dict[str, str] = {}
        self._closed_rows: list[Markup] | None = None
        env = Environment(
            loader=FileSystemLoader(str(TEMPLATES_DIR)),
            bytecode_cache=_BYTECODE,
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.globals.update(
            site_name=SITE_NAME,
            base_url=index.base_url,
            base_path=index.base_path,
            repo_url=index.repo_url,
            docs_url=DOCS_URL,
            install_url=INSTALL_URL,
            supported_models_url=SUPPORTED_MODELS_URL,
            omni_repo_url=OMNI_REPO_URL,
            hf=HF,
            asset=self.asset,
            site_url=site_url,
            runtime_url=runtime_url(),
            code_url=code_url(),
            task_label=index.task_label,
            hw_label=index.hw_label,
            fmt_ctx_short=fmt_ctx_short,
            json_for_script=json_for_script,
            orgs=index.orgs,
            total_recipes=len(index.recipes),
            provider_logo=provider_logo,
            platform_logo=platform_logo,
            closed_org_rows=self.closed_org_rows,
            preload_fonts=[self.asset(f.url.lstrip("/")) for f in PRELOADED if f.url.lstrip("/") in assets],
        )
        env.filters["thousands"] = lambda n: f"{int(n):,}"
        self.env = env

    def asset(self, name: str) -> str:
        """Site-absolute URL of a static asset (``site.css``, ``static/logos/x.svg``) with a content hash."""
        url = self._asset_urls.get(name)
        if url is None:
            rel = name.removeprefix("static/")
            url = self._asset_urls[name] = site_url(
                versioned(f"static/{rel}", self.assets.get(f"static/{rel}", b"")))
        return url

    def closed_org_rows(self) -> list[Markup]:
        """The sidebar's row of every provider, closed, in sidebar order: the same on every page, so
        rendered once (a page renders only its own provider's row, open); without this the sidebar
        costs pages × providers macro calls."""
        if self._closed_rows is None:
            row = self.env.get_template("_sidebar_row.html").module.org_row  # type: ignore[attr-defined]
            self._closed_rows = [Markup(row(oid, o, i, False, None))
                                 for i, (oid, o) in enumerate(self.orgs.items(), 1)]
        return self._closed_rows

    def compile_all(self) -> None:
        """Load and compile every template now (a forked process then inherits them compiled)."""
        for name in self.env.list_templates(extensions=["html"]):
            self.env.get_template(name)

    def render(self, page: Page) -> bytes:
        """The page's HTML, its site-absolute links under the base path (:mod:`builder.content.base_path`)."""
        html = self.env.get_template(page.template).render(**page.context())
        return prefix_links(html, self.base_path).encode("utf-8")
