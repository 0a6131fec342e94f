"""The site's index of the built content: recipes, orgs, slugs, latest, labels and links."""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable
from typing import Any, TypedDict
from urllib.parse import quote, urlencode

from builder import resolver
from builder.api.output import BuildOutput
from builder.content.base_path import base_path, site_base_url
from builder.content.model import Content
from builder.site.views import TASK_LABELS, RecipeView, date_key, text

SITE_NAME = "vLLM Recipes"
REPO_URL = "https://github.com/vllm-project/recipes"
HF = "https://huggingface.co"


class Org(TypedDict):
    """One provider: its id, display name, initial and recipes (newest release first)."""

    id: str
    name: str
    recipes: list[RecipeView]
    initial: str


class BuilderStart(TypedDict):
    """A recipe page's start of the command builder (:meth:`SiteIndex.builder_start`)."""

    initial: dict[str, Any] | None  # the default view, None when the resolver has none
    data: str  # site path of builder-data/<hf_id>.json with ?v=
    vocab: str  # site path of builder-data/vocab.json with ?v=
    performance: str | None  # site path of builder-data/<hf_id>.performance.json with ?v=, None without one


class VariantDoc(TypedDict):
    """One variant of a recipe with its own published document (promoted) when there is one."""

    key: str
    label: str
    precision: str
    vram: Any
    description: str
    model_id: str
    doc: dict[str, Any] | None
    json: str
    supported: list[str]


class SiteIndex:
    """Lookups over one build: every recipe view, orgs, slugs, labels, and the API's records."""

    def __init__(self, content: Content, output: BuildOutput, base_url: str | None = None) -> None:
        self.content = content
        self.output = output
        site = content.site or {}
        self.base_url = site_base_url(base_url, site)
        # "" at a host's root, "/recipes" under a sub-path (--base-url and site.yaml's are validated before)
        self.base_path = base_path(self.base_url)
        self.repo_url = str(site.get("repo_url") or REPO_URL).rstrip("/")
        self.taxonomy: dict[str, Any] = content.vocab.taxonomy or {}
        self.profiles: dict[str, Any] = dict(self.taxonomy.get("hardware_profiles") or {})
        self.hw_labels = resolver.hardware_labels(self.taxonomy)
        self.strategies: dict[str, Any] = content.vocab.strategy_map
        self.task_labels = dict(TASK_LABELS)
        for t in self.taxonomy.get("tasks") or []:
            if isinstance(t, dict) and t.get("id"):
                self.task_labels[str(t["id"])] = str(t.get("display_name") or t["id"])
        self.platforms = {
            str(p.get("id")): p
            for p in ((content.vocab.platforms or {}).get("platforms") or [])
            if isinstance(p, dict)
        }
        self.recipes = [
            RecipeView.of(rf.hf_id, rf.rel_path, output.documents.get(rf.hf_id) or {}, rf.data or {})
            for rf in content.recipes
        ]
        self.by_id = {r.hf_id: r for r in self.recipes}
        self.by_slug = {text(r.meta.get("slug")): r for r in self.recipes if r.meta.get("slug")}
        self.orgs = self._orgs()
        self.pages: set[str] = {"/", "/browse"} | {f"/{o}" for o in self.orgs} | {r.url for r in self.recipes}

    @functools.cached_property
    def builder_vocab(self) -> dict[str, Any]:
        """The vocabulary as the in-browser resolver reads it (for the views the pages embed)."""
        from builder.site.browser.data import builder_vocab

        return builder_vocab(self.content)

    @functools.cached_property
    def builder_vocab_url(self) -> str:
        """Site path of ``builder-data/vocab.json``, versioned by its content."""
        from builder.site.browser.data import vocab_data
        from builder.site.versions import versioned

        return versioned("builder-data/vocab.json", vocab_data(self.content, self.builder_vocab))

    def predictions(self, hf_id: str) -> Any:
        """A recipe's stored predictions (its ``.performance.json`` as loaded) and measured results
        (``RecipeFile.performance_data``), None without either."""
        return next((rf.performance_data for rf in self.content.recipes if rf.hf_id == hf_id), None)

    def builder_start(self, r: RecipeView) -> BuilderStart:
        """What ``r``'s page starts the command builder with: its default view (embedded in the page
        and painted first) and the versioned site paths of the data the builder's worker fetches."""
        from builder.site.browser.data import builder_recipe, predictions_data, recipe_data
        from builder.site.browser.stored_clicks import initial_view
        from builder.site.versions import versioned

        recipe = builder_recipe(r.hf_id, r.raw)
        stored = self.predictions(r.hf_id)
        return {
            "performance": None if stored is None else versioned(f"builder-data/{r.hf_id}.performance.json",
                                                                 predictions_data(stored)),
            "initial": initial_view(recipe, self.builder_vocab),
            "data": versioned(f"builder-data/{r.hf_id}.json", recipe_data(r.hf_id, recipe)),
            "vocab": self.builder_vocab_url,
        }

    def _orgs(self) -> dict[str, Org]:
        """Org id → display name and recipes, ordered by org id case-insensitively."""
        names: dict[str, str] = {}
        for r in self.recipes:
            names.setdefault(r.org.lower(), text(r.meta.get("provider")) or r.org)
        orgs: dict[str, Org] = {}
        for r in self.recipes:
            r.provider_name = names[r.org.lower()]
            orgs.setdefault(r.org, {"id": r.org, "name": r.provider_name, "recipes": [], "initial": ""})
            orgs[r.org]["recipes"].append(r)
        for o in orgs.values():
            o["recipes"].sort(key=lambda r: (-date_key(r.released), r.repo.lower()))
            o["initial"] = (o["name"] or o["id"])[:1].upper()
        return dict(sorted(orgs.items(), key=lambda kv: (kv[0].lower(), kv[0])))

    # -- labels and URLs ------------------------------------------------------

    def hw_label(self, hw_id: str) -> str:
        """Label of a hardware profile, unique among the profiles (raw id when unknown)."""
        return self.hw_labels.get(hw_id) or hw_id

    def strategy_label(self, sid: str) -> str:
        """Display name of a serving strategy (raw id when unknown)."""
        spec = self.strategies.get(sid)
        return text(spec.get("display_name")) if isinstance(spec, dict) and spec.get("display_name") else sid

    def task_label(self, task: str) -> str:
        return self.task_labels.get(task, str(task).title())

    def abs_url(self, path: str) -> str:
        return self.base_url + path

    def has_file(self, url: str) -> bool:
        """True when the JSON API wrote ``url`` (a site-absolute path)."""
        return url.lstrip("/") in self.output.files

    def record(self, url: str) -> dict[str, Any] | None:
        """The object the JSON API published at ``url`` (no re-parsing of its bytes)."""
        value = self.output.objects.get(url.lstrip("/"))
        return value if isinstance(value, dict) else None

    def request_issue_url(self, hf_id: str | None) -> str:
        """A prefilled "recipe request" issue on the site's repository."""
        title = f"Recipe request: {hf_id}" if hf_id else "Recipe request: <org>/<repo>"
        body = (
            "## Model\n\n" + (f"{HF}/{hf_id}" if hf_id else "https://huggingface.co/<org>/<repo>")
            + "\n\n## Target hardware\n\n\n## Precision / variant\n\n\n## Notes\n\n"
        )
        return (f"{self.repo_url}/issues/new?"
                + urlencode({"title": title, "body": body, "labels": "recipe-request"}))

    def breadcrumb_ld(self, crumbs: list[tuple[str, str]]) -> dict[str, Any]:
        """schema.org BreadcrumbList of a page."""
        return {
            "@context": "https://schema.org",
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": i + 1, "name": name, "item": self.abs_url(path)}
                for i, (name, path) in enumerate(crumbs)
            ],
        }

    # -- orderings ----------------------------------------------------------

    def latest(self, limit: int, one_per_org: bool) -> list[RecipeView]:
        """HOME-04: date_added desc (date_updated fallback; bad dates oldest), ties hf_id asc."""
        ranked = sorted(self.recipes, key=lambda r: (-date_key(r.date_added), r.hf_id))
        out: list[RecipeView] = []
        seen: set[str] = set()
        for r in ranked:
            if one_per_org and r.org in seen:
                continue
            seen.add(r.org)
            out.append(r)
            if len(out) >= limit:
                break
        return out

    def variant_docs(self, r: RecipeView) -> list[VariantDoc]:
        """Variants in YAML order with their own document (promoted) when there is one."""
        out: list[VariantDoc] = []
        for key, v in r.variants.items():
            if not isinstance(v, dict):
                continue
            doc: dict[str, Any] | None = r.doc if key == "default" else None
            pointer = v.get("json")
            if key != "default" and isinstance(pointer, str):
                model_id = pointer.lstrip("/").removesuffix(".json")
                candidate = self.output.documents.get(model_id)
                if candidate and self.has_file(pointer):
                    doc = candidate
            out.append(
                {
                    "key": key,
                    "label": text(v.get("label") or v.get("precision") or key).upper(),
                    "precision": text(v.get("precision")).lower(),
                    "vram": v.get("vram_minimum_gb"),
                    "description": text(v.get("description")),
                    "model_id": text(v.get("model_id")) or text(r.model.get("model_id")) or r.hf_id,
                    "doc": doc,
                    "json": pointer if isinstance(pointer, str) and self.has_file(pointer) else "",
                    "supported": [str(h) for h in v.get("supported_hardware") or []],
                }
            )
        return out

    def aliases(self) -> dict[str, str]:
        """Variant checkpoint id → recipe URL (with ``?variant=``) for RCP-02."""
        out: dict[str, str] = {}
        for r in self.recipes:
            for key, v in r.variants.items():
                mid = v.get("model_id") if isinstance(v, dict) else None
                if not isinstance(mid, str) or "/" not in mid or mid == r.hf_id or mid in self.by_id:
                    continue
                if len(mid.split("/")) != 2 or not all(mid.split("/")):
                    continue
                out.setdefault(mid, r.url + ("" if key == "default" else f"?variant={quote(str(key))}"))
        return out

    def link_resolver(self, recipe: RecipeView) -> Callable[[str], str | None]:
        """Map Markdown hrefs: relative paths → known site pages (else dropped), externals kept."""

        def resolve(href: str) -> str | None:
            if href.startswith("#"):
                return href
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("//"):
                return href if re.match(r"^(https?|mailto):", href, re.I) else None
            path, _, frag = href.partition("#")
            path = path.split("?", 1)[0]
            candidates = []
            if path.startswith("/"):
                candidates.append(path)
            else:
                candidates.append(posixpath.normpath(posixpath.join(f"/{recipe.org}/{recipe.repo}/", path)))
                candidates.append(posixpath.normpath(posixpath.join(f"/{recipe.org}/", path)))
            for cand in candidates:
                cand = re.sub(r"\.ya?ml$", "", cand.rstrip("/")) or "/"
                if cand.startswith("/models/"):
                    cand = cand[len("/models"):]
                if cand in self.pages:
                    return cand + (f"#{frag}" if frag and cand != recipe.url else "")
                if cand.endswith(".json") and self.has_file(cand):
                    return cand
            return None

        return resolve
