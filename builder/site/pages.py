"""Every page of the site, from one :class:`SiteIndex`: all at once, a share of the recipes, or those an edit
touches."""

from __future__ import annotations

import posixpath
from collections.abc import MutableMapping

from builder.api.output import BuildOutput
from builder.content.model import Content
from builder.site.brand import brand_files, with_versioned_fonts
from builder.site.index import Org, SiteIndex
from builder.site.jinja import Page, Templates
from builder.site.listings import browse_page, home_page, not_found_page, org_page, redirect_stub
from builder.site.minify import static_assets
from builder.site.og_image import OgCard, PreviewCache
from builder.site.previews import SITE_FILE, org_card, org_file, recipe_card, recipe_file, site_card
from builder.site.recipe_page import recipe_page
from builder.site.texts import index_texts
from builder.site.versions import versioned
from builder.site.views import RecipeView


class SitePages:
    """The pages of one build: the index, the templates and the static assets."""

    def __init__(self, content: Content, output: BuildOutput, base_url: str | None = None) -> None:
        self.index = SiteIndex(content, output, base_url)
        self.assets = static_assets()
        self.assets.update(brand_files(list(self.index.orgs), list(self.index.platforms)))
        if "static/site.css" in self.assets:
            self.assets["static/site.css"] = with_versioned_fonts(self.assets["static/site.css"], self.assets)
        self.templates = Templates(self.index, self.assets)
        self.previews = PreviewCache()

    def html(self, page: Page) -> bytes:
        return self.templates.render(page)

    def with_preview(self, out: MutableMapping[str, bytes], page: Page, card: OgCard, path: str) -> bytes:
        """``page``'s HTML, its og:image pointing at ``path``; the PNG is added to ``out``."""
        png = out[path] if path in out else self.previews.png(card)
        out[path] = png
        page.og_image = versioned(f"/{path}", png)
        return self.html(page)

    def recipe_html(self, out: MutableMapping[str, bytes], r: RecipeView) -> None:
        out[f"{r.hf_id}/index.html"] = self.with_preview(out, recipe_page(self.index, r),
                                                         recipe_card(self.index, r), recipe_file(r))

    def org_html(self, out: MutableMapping[str, bytes], org: Org) -> None:
        out[f"{org['id']}/index.html"] = self.with_preview(out, org_page(self.index, org),
                                                           org_card(self.index, org), org_file(org))

    def everything(self) -> dict[str, bytes]:
        """Every page, asset, redirect stub and text index."""
        return {**self.recipe_pages(0, 1), **self.shared()}

    def recipe_pages(self, part: int, parts: int,
                     into: MutableMapping[str, bytes] | None = None) -> MutableMapping[str, bytes]:
        """The recipe pages of one share of the recipes (every ``parts``-th from ``part``) with their
        previews, set into ``into`` (default: a new dict) one by one as they are rendered."""
        pages: MutableMapping[str, bytes] = {} if into is None else into
        for r in self.index.recipes[part::parts]:
            self.recipe_html(pages, r)
        return pages

    def listings(self) -> dict[str, bytes]:
        """Home, browse and 404 (the pages that list recipes across orgs) and their preview."""
        out: dict[str, bytes] = {}
        card = site_card(self.index)
        for path, page in (("index.html", home_page(self.index)),
                           ("browse/index.html", browse_page(self.index)),
                           ("404.html", not_found_page(self.index))):
            out[path] = self.with_preview(out, page, card, SITE_FILE)
        return out

    def shared(self) -> dict[str, bytes]:
        """Everything but the recipe pages: assets, home, browse, 404, providers, stubs, indexes."""
        index = self.index
        pages: dict[str, bytes] = dict(self.assets)
        pages.update(self.listings())
        for org in index.orgs.values():
            self.org_html(pages, org)
        taken = set(pages) | set(index.output.files) | {f"{r.hf_id}/index.html" for r in index.recipes}
        dirs = {posixpath.dirname(p) for p in taken}
        folded = {p.casefold() for p in taken}

        def stub(path: str, target: str, keep_query: bool) -> None:
            key = f"{path}/index.html"
            if key in taken or path in taken or path in dirs and key in taken:
                return
            if key.casefold() in folded or path.casefold() in folded:
                return  # it would overwrite that output on a case-insensitive disk; the 404 page redirects
            pages[key] = self.html(redirect_stub(target, keep_query))
            taken.add(key)
            folded.add(key.casefold())

        # Variant-checkpoint aliases only (RCP-02). Other casings of a recipe or provider page
        # (RCP-01, ORG-01) get no stub, as a stub would replace the page itself on a
        # case-insensitive disk: the 404 page's case-insensitive lookup redirects them (ERR-05).
        for alias, target in index.aliases().items():
            stub(alias, target, keep_query=False)
        pages.update(index_texts(index))
        return pages

    def after_edit(self, hf_ids: set[str]) -> dict[str, bytes]:
        """The pages an edit of the recipes ``hf_ids`` touches: their own pages and every listing."""
        index = self.index
        pages = self.listings()
        edited = [index.by_id[h] for h in hf_ids if h in index.by_id]
        for org_id in {r.org for r in edited}:
            self.org_html(pages, index.orgs[org_id])
        for r in edited:
            self.recipe_html(pages, r)
        pages.update(index_texts(index))
        return pages


def site_pages(content: Content, output: BuildOutput, base_url: str | None = None) -> dict[str, bytes]:
    """Every HTML page, redirect stub, text file and static asset, keyed by output-relative path.

    ``base_url`` (default: ``content.site['base_url']`` or ``http://127.0.0.1:8000``) is
    used for canonical URLs, Open Graph tags, the sitemap, robots.txt and llms.txt.
    """
    return SitePages(content, output, base_url).everything()


def edited_pages(content: Content, output: BuildOutput, hf_ids: set[str],
                 base_url: str | None = None) -> dict[str, bytes]:
    """Incremental: the pages of the edited recipes ``hf_ids`` plus every index listing them."""
    return SitePages(content, output, base_url).after_edit(hf_ids)
