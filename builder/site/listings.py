"""The listing pages: home, browse, provider (org) pages, 404, and redirect stubs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from builder.site.index import SITE_NAME, Org, SiteIndex
from builder.site.jinja import Page
from builder.site.views import (
    PRECISIONS,
    SIZE_BUCKETS,
    TASK_ORDER,
    RecipeView,
    date_key,
    fmt_ctx_short,
    size_bucket,
    text,
)

HOME_TITLE = "vLLM Recipes — Deploy any model on any hardware with vLLM"
DEFAULT_DESCRIPTION = (
    "Deploy any model on any hardware with vLLM: pick a model, get a working vllm serve command "
    "from the interactive command builder."
)


@dataclass
class HomePage:
    latest: list[dict[str, Any]]  # cards: {r, ctx, precision}


@dataclass
class OrgPage:
    org: Org
    count_label: str
    groups: list[tuple[str, list[dict[str, Any]]]]  # (task, rows) in TASK_ORDER


@dataclass
class BrowsePage:
    rows: list[dict[str, Any]]
    filters: dict[str, Any]
    crawl: list[RecipeView]


@dataclass
class NotFoundPage:
    latest: list[RecipeView]
    request_url: str


@dataclass
class RedirectStub:
    target: str
    keep_query: bool


def card(r: RecipeView) -> dict[str, Any]:
    """A recipe card of the home page."""
    return {"r": r, "ctx": fmt_ctx_short(r.ctx), "precision": r.precision.upper()}


def home_page(index: SiteIndex) -> Page:
    latest = [card(r) for r in index.latest(8, one_per_org=True)]
    return Page("home.html", HomePage(latest), title=HOME_TITLE, description=DEFAULT_DESCRIPTION,
                canonical="/", kind="home")


def org_page(index: SiteIndex, org: Org) -> Page:
    n = len(org["recipes"])
    noun = "recipe" if n == 1 else "recipes"
    groups: dict[str, list[RecipeView]] = {}
    for r in org["recipes"]:
        groups.setdefault(r.first_task, []).append(r)
    order = [t for t in TASK_ORDER if t in groups] + [t for t in groups if t not in TASK_ORDER]

    def row(r: RecipeView) -> dict[str, Any]:
        variants = [
            (text(v.get("label") or v.get("precision") or k).upper(), v.get("vram_minimum_gb"))
            for k, v in r.variants.items()
            if isinstance(v, dict)
        ]
        return {"r": r, "secondary": r.tasks[1:], "variants": variants}

    path = f"/{org['id']}"
    crumbs = [(SITE_NAME, "/"), (org["name"], path)]
    body = OrgPage(org, f"{n} {noun}", [(t, [row(r) for r in groups[t]]) for t in order])
    return Page(
        "org.html", body,
        title=f"{org['name']} on vLLM — {n} {noun}",
        description=f"Deploy {n} {org['name']} {noun} on NVIDIA and AMD GPUs with "
                    "ready-to-run vLLM commands.",
        canonical=path, kind="org", current_org=org["id"], breadcrumbs=crumbs,
        jsonld=[index.breadcrumb_ld(crumbs)],
    )


def browse_rows(index: SiteIndex) -> list[dict[str, Any]]:
    """Every recipe, last updated first, with its size bucket and verified hardware."""
    ranked = sorted(index.recipes, key=lambda r: (-date_key(r.date_updated), r.hf_id))
    return [
        {"r": r, "base": i, "size": size_bucket(r.params_b),
         "verified": [(h, index.hw_label(h)) for h in r.verified]}
        for i, r in enumerate(ranked)
    ]


def browse_filters(index: SiteIndex) -> dict[str, Any]:
    """The browse page's filter groups (only values some recipe has, for tasks and hardware)."""
    verified_ids = {h for r in index.recipes for h in r.verified}
    brands: dict[str, list[tuple[str, str]]] = {}
    for h, prof in index.profiles.items():
        if h in verified_ids and isinstance(prof, dict):
            brands.setdefault(text(prof.get("brand")) or "Other", []).append((h, index.hw_label(h)))
    order = ["NVIDIA", "AMD"]
    brand_list = [(b, brands[b]) for b in order if b in brands] + sorted(
        (b, v) for b, v in brands.items() if b not in order
    )
    present_tasks = {t for r in index.recipes for t in r.tasks}
    return {
        "task": [(t, index.task_labels.get(t, t.title()))
                 for t in TASK_ORDER[1:2] + TASK_ORDER[:1] + TASK_ORDER[2:]
                 if t in present_tasks],
        "arch": [("moe", "MoE"), ("dense", "Dense")],
        "size": [(k, label) for k, label, _lo, _hi in SIZE_BUCKETS],
        "precision": [(p, p.upper()) for p in PRECISIONS],
        "hardware": brand_list,
        "providers": sorted(((o["id"], o["name"]) for o in index.orgs.values()), key=lambda x: x[1].lower()),
    }


def browse_page(index: SiteIndex) -> Page:
    crawl = sorted(index.recipes, key=lambda r: r.hf_id.lower())
    body = BrowsePage(browse_rows(index), browse_filters(index), crawl)
    return Page(
        "browse.html", body,
        title=f"Browse all recipes | {SITE_NAME}",
        description=(
            "Browse every vLLM recipe: filter by task, architecture, size, precision, verified "
            "hardware and provider."
        ),
        canonical="/browse", kind="browse",
    )


def not_found_page(index: SiteIndex) -> Page:
    body = NotFoundPage(index.latest(8, one_per_org=False), index.request_issue_url(None))
    return Page("404.html", body, title=f"Page not found | {SITE_NAME}", description=DEFAULT_DESCRIPTION,
                kind="404")


def redirect_stub(target: str, keep_query: bool) -> Page:
    """A page that forwards to ``target`` (keeping ``?query`` when asked)."""
    return Page("redirect.html", RedirectStub(target, keep_query))
