"""The preview card of each page (SEO-01, SEO-05, ORG-02, RCP-04) and where its PNG is published."""

from __future__ import annotations

from urllib.parse import urlsplit

from builder.site.brand import logo_svg, provider_logo
from builder.site.index import SITE_NAME, Org, SiteIndex
from builder.site.og_image import OgCard
from builder.site.recipe_page import spec_line
from builder.site.views import RecipeView

SITE_FILE = "og/site.png"
SITE_SUBTITLE = "Deploy any model on any hardware"
SITE_CTA = "Pick a model, copy its vllm serve command"


def _footer(index: SiteIndex, path: str) -> str:
    return (urlsplit(index.base_url).netloc or index.base_url) + path


def _logo(org: str) -> str:
    logo = provider_logo(org)
    return logo_svg(logo).decode("utf-8") if logo else ""


def site_card(index: SiteIndex) -> OgCard:
    """The default card (home, browse, 404): the site's name and promise."""
    return {"title": SITE_NAME, "subtitle": SITE_SUBTITLE, "meta": "", "pill": "", "cta": SITE_CTA,
            "footer": _footer(index, ""), "logo_svg": ""}


def org_card(index: SiteIndex, org: Org) -> OgCard:
    """A provider page's card: its name and recipe count (ORG-02)."""
    n = len(org["recipes"])
    return {"title": org["name"], "subtitle": f"{n} recipe" + ("" if n == 1 else "s"), "meta": "", "pill": "",
            "cta": "", "footer": _footer(index, f"/{org['id']}"), "logo_svg": _logo(org["id"])}


def recipe_card(index: SiteIndex, r: RecipeView) -> OgCard:
    """A recipe page's card: its id, spec line and minimum vLLM (RCP-04)."""
    return {"title": r.hf_id, "subtitle": "", "meta": spec_line(r),
            "pill": f"vLLM {r.min_vllm}+" if r.min_vllm else "",
            "cta": "", "footer": _footer(index, r.url), "logo_svg": _logo(r.org)}


def org_file(org: Org) -> str:
    return f"og/{org['id']}.png"


def recipe_file(r: RecipeView) -> str:
    return f"og/{r.hf_id}.png"
