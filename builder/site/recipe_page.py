"""The recipe page (``/<org>/<repo>``) as data: :class:`RecipePage`, built from the published objects."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from builder import resolver
from builder.api.deploy_forms import API_FORMS, form_path
from builder.resolver.deploy import FORMAT_LABELS
from builder.resolver.ui.deploy import DeployView
from builder.site.browser.data import builder_recipe
from builder.site.command_blocks import (
    CommandView,
    command_view,
    default_deployments,
    install_view,
    record_commands,
    record_env,
)
from builder.site.index import HF, SITE_NAME, SiteIndex
from builder.site.jinja import Page
from builder.site.markdown import Slugger, render_markdown
from builder.site.matrix import support_matrix
from builder.site.performance_panel import PanelView, panel
from builder.site.views import RecipeView, text

# Ids of the recipe page's own sections, reserved so that Markdown headings get other slugs.
PAGE_IDS = frozenset(
    {"main", "builder", "command", "deploy", "install", "matrix", "guide", "presets", "notes", "variants",
     "related", "api", "self-host", "top", "search", "sidebar", "performance", "perf-title"}
)
HTTP_URL = re.compile(r"^https?://")


@dataclass
class RecipePage:
    """The variables of ``recipe.html``."""

    r: RecipeView
    og_title: str
    spec: str
    tasks: list[str]
    verified: list[tuple[str, str]]
    install: dict[str, Any]
    command: CommandView | None
    builder_data: dict[str, Any]
    builder_initial: dict[str, Any] | None  # the builder's default view, painted before any fetch
    other_variants: list[dict[str, Any]]
    matrix: dict[str, Any]
    guide: Markup
    presets: list[dict[str, Any]]
    notes: list[dict[str, Any]]
    omni_tasks: list[dict[str, Any]]
    edit_url: str
    related: list[RecipeView]
    same_org: list[RecipeView]
    same_task: list[RecipeView]
    platforms: list[dict[str, str]]
    api_links: list[tuple[str, str]]
    issues_url: str
    memory: dict[str, str] | None = None  # the memory line under the default command
    performance: PanelView | None = None  # the default command's predicted speed
    # the default configuration's Kubernetes/Compose files
    deploy: list[DeployView] = field(default_factory=list)


def default_record(index: SiteIndex, rc: dict[str, Any] | None) -> dict[str, Any] | None:
    """The published record of the recommended command's hardware (it holds the memory block), else ``rc``."""
    by_hardware = rc.get("by_hardware") if rc else None
    url = by_hardware.get(rc.get("hardware")) if rc and isinstance(by_hardware, dict) else None
    return (index.record(url) if isinstance(url, str) else None) or rc


def memory_note(r: RecipeView, record: dict[str, Any] | None) -> dict[str, str] | None:
    """The default command's memory line (the record's ``memory`` block), or the vram_minimum_gb fallback."""
    if record is None:
        return None
    memory = record.get("memory")
    if isinstance(memory, dict) and isinstance(memory.get("summary"), str):
        verdict = memory.get("verdict")
        kind = ("bad" if verdict == "wont_start" or "error" in memory else "tight" if verdict == "tight"
                else "")
        return {"text": memory["summary"], "kind": kind, "command": ""}
    variant = r.variants.get(text(record.get("variant")))
    return {"text": resolver.memory_fallback(variant if isinstance(variant, dict) else {}),
            "kind": "fallback", "command": resolver.import_command(r.hf_id)}


def spec_line(r: RecipeView) -> str:
    """"120B / 5B active · MOE · 128K ctx"."""
    parts = []
    if r.params:
        parts.append(r.params + (f" / {r.active} active" if r.active and r.active != r.params else ""))
    if r.arch:
        parts.append(r.arch.upper())
    if r.ctx:
        parts.append(f"{round(r.ctx / 1000)}K ctx")
    return " · ".join(parts)


def _points(preset: dict[str, Any]) -> list[dict[str, str]]:
    points = preset.get("points") if isinstance(preset.get("points"), dict) else {}
    return [
        {
            "key": pk,
            "label": text(pt.get("label") or pk),
            "concurrency": text(pt.get("concurrency")),
            "tp": text(pt.get("tp")),
            "args": " ".join(str(a) for a in pt.get("args") or []),
        }
        for pk, pt in points.items()
        if isinstance(pt, dict)
    ]


def preset_view(index: SiteIndex, key: str, preset: dict[str, Any]) -> dict[str, Any]:
    """One preset card; its sample command is the first point of the published preset file."""
    image = preset.get("image")
    if isinstance(image, dict):
        image_text, image_pip = text(image.get("vllm")), [str(x) for x in image.get("pip") or []]
    else:
        image_text, image_pip = text(image), []
    src = preset.get("source") if isinstance(preset.get("source"), dict) else {}
    href = text(src.get("href"))
    pointer = preset.get("json") if isinstance(preset.get("json"), str) else None
    published = index.record(pointer) if pointer else None
    published_points = (published.get("points") if published and isinstance(published.get("points"), dict)
                        else {})
    sample: tuple[str, list[tuple[str, str]], str] | None = None
    if published_points:
        first_key, first = next(iter(published_points.items()))
        if isinstance(first, dict):
            sample = (text(first.get("label") or first_key), record_commands(first), record_env(first))
    return {
        "key": str(key),
        "id": f"preset-{key}",
        "label": text(preset.get("label") or key),
        "hardware": index.hw_label(text(preset.get("hardware"))),
        "strategy": index.strategy_label(text(preset.get("strategy"))),
        "variants": [str(x).upper() for x in preset.get("variants") or []],
        "workload": text(preset.get("workload")),
        "description": text(preset.get("description")),
        "source_label": text(src.get("label") or href),
        "source_href": href if HTTP_URL.match(href) else "",
        "image": image_text,
        "image_pip": image_pip,
        "tp": text(preset.get("tp")),
        "args": " ".join(str(a) for a in preset.get("args") or []),
        "points": _points(preset),
        "json": pointer if pointer and index.has_file(pointer) else "",
        "sample": sample,
    }


def _platforms(index: SiteIndex, r: RecipeView) -> list[dict[str, str]]:
    """Hosted platforms the recipe lists, merged onto platforms.yaml."""
    out = []
    for p in r.meta.get("platforms") or []:
        pid = p.get("id") if isinstance(p, dict) else p
        base = index.platforms.get(str(pid))
        if base is None:
            continue
        merged = {**base, **(p if isinstance(p, dict) else {})}
        url, script = text(merged.get("url")), text(merged.get("script"))
        out.append(
            {
                "id": str(pid),
                "name": text(merged.get("name") or pid),
                "blurb": text(merged.get("blurb")),
                "url": url if HTTP_URL.match(url) else "",
                "script": script if HTTP_URL.match(script) else "",
                "install": text(merged.get("install")).rstrip("\n"),
            }
        )
    return out


def _app_ld(index: SiteIndex, r: RecipeView) -> dict[str, Any]:
    app_ld: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "SoftwareApplication",
        "name": r.hf_id,
        "alternateName": r.title,
        "description": r.description or r.title,
        "applicationCategory": "DeveloperApplication",
        "operatingSystem": "Linux",
        "url": index.abs_url(r.url),
        "creator": {"@type": "Organization", "name": r.provider_name, "url": f"{HF}/{r.org}"},
        "sameAs": f"{HF}/{r.hf_id}",
    }
    if r.min_vllm:
        app_ld["softwareRequirements"] = f"vLLM {r.min_vllm}+"
    return app_ld


def _related(index: SiteIndex, r: RecipeView) -> tuple[list[RecipeView], list[RecipeView], list[RecipeView]]:
    """Listed related recipes, others of the org, and others of the same first task."""
    related: list[RecipeView] = []
    for entry in r.meta.get("related_recipes") or []:
        target = index.by_id.get(str(entry)) or index.by_slug.get(str(entry))
        if target and target is not r and target not in related:
            related.append(target)
    same_org = [x for x in index.orgs[r.org]["recipes"] if x is not r][:6]
    same_task = [x for x in index.latest(len(index.recipes), False)
                 if x is not r and x.org != r.org and x.first_task == r.first_task][:6]
    return related, same_org, same_task


def form_links(index: SiteIndex, bases: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """(label, URL) of each published output-form document (``/<base>/vllm-config.json``) of ``bases``
    (``(label prefix, base)``)."""
    links = []
    for fmt in API_FORMS:
        for prefix, base in bases:
            url = f"/{form_path(base, fmt)}"
            if index.has_file(url):
                links.append((f"{prefix}{FORMAT_LABELS[fmt]} files per hardware", url))
    return links


def recipe_page(index: SiteIndex, r: RecipeView) -> Page:
    """The recipe page of ``r``."""
    doc = r.doc or r.raw
    slugger = Slugger(set(PAGE_IDS))
    resolve = index.link_resolver(r)
    variants = index.variant_docs(r)
    rc = doc.get("recommended_command") if isinstance(doc.get("recommended_command"), dict) else None
    command = command_view(index, rc)
    start = index.builder_start(r)
    other_variants = []
    for v in variants:
        if v["key"] == "default":
            continue
        vrc = (v["doc"] or {}).get("recommended_command") if v["doc"] else None
        other_variants.append({**v, "command": command_view(index, vrc)})
    preset_data = doc.get("presets") if isinstance(doc.get("presets"), dict) else {}
    raw_presets = [(key, p) for key, p in preset_data.items() if isinstance(p, dict)]
    presets = [preset_view(index, key, p) for key, p in raw_presets]
    slugger.seen.update(p["id"] for p in presets)
    # Markdown: presets and notes first reserve their ids; the guide gets the rest
    for view, (_, raw) in zip(presets, raw_presets, strict=True):
        view["runbook"] = Markup(
            render_markdown(text(raw.get("runbook")), slugger, resolve, heading_offset=3))
    notes = []
    for n in doc.get("notes") or [] if isinstance(doc.get("notes"), list) else []:
        if not isinstance(n, dict):
            continue
        when = n.get("when") if isinstance(n.get("when"), dict) else {}
        hw = [str(h) for h in when.get("hardware") or []] if isinstance(when.get("hardware"), list) else []
        notes.append(
            {
                "title": text(n.get("title")),
                "hardware": hw,
                "hardware_labels": [index.hw_label(h) for h in hw],
                "body": Markup(render_markdown(text(n.get("body")), slugger, resolve, heading_offset=3)),
            }
        )
    guide_html = Markup(render_markdown(text(doc.get("guide")), slugger, resolve, heading_offset=1))
    source = doc.get("source") if isinstance(doc.get("source"), dict) else {}
    edit_url = text(source.get("edit_url"))
    if not HTTP_URL.match(edit_url):
        edit_url = f"{index.repo_url}/edit/main/{r.model_path}"
    related, same_org, same_task = _related(index, r)
    omni = doc.get("omni") if isinstance(doc.get("omni"), dict) else {}
    own_json = f"/{r.hf_id}.json" if index.has_file(f"/{r.hf_id}.json") else ""
    api_links = [("Recipe document", own_json)] if own_json else []
    api_links += [(f"{v['label']} variant document", v["json"]) for v in other_variants if v["json"]]
    api_links += form_links(index, [("", r.hf_id), *((f"{v['label']} variant ", str(v["model_id"]))
                                                    for v in other_variants if v["json"])])
    spec = spec_line(r)
    crumbs = [(SITE_NAME, "/"), (r.provider_name, f"/{r.org}"), (r.repo, r.url)]
    body = RecipePage(
        r=r,
        og_title=f"{r.hf_id} — {spec}" if spec else r.hf_id,
        spec=spec,
        tasks=r.tasks,
        verified=[(h, index.hw_label(h)) for h in r.verified],
        install=install_view(r),
        command=command,
        builder_data={
            "hf_id": r.hf_id,
            "data": start["data"],
            "vocab": start["vocab"],
            "performance": start["performance"],
            "json": own_json,
            "variant": "default",
            "hardware": command["hardware"] if command else "",
            "strategy": command["strategy"] if command else "",
        },
        builder_initial=start["initial"],
        other_variants=other_variants,
        matrix=support_matrix(index, r, variants),
        guide=guide_html,
        presets=presets,
        notes=notes,
        omni_tasks=[t for t in omni.get("tasks") or [] if isinstance(t, dict)],
        edit_url=edit_url,
        related=related,
        same_org=same_org,
        same_task=same_task,
        platforms=_platforms(index, r),
        api_links=api_links,
        issues_url=f"{index.repo_url}/issues",
        memory=memory_note(r, default_record(index, rc)),
        performance=panel(builder_recipe(r.hf_id, r.raw), index.builder_vocab, index.predictions(r.hf_id))
        if command else None,
        deploy=default_deployments(index, r),
    )
    return Page("recipe.html", body, title=f"{r.hf_id} | {SITE_NAME}", description=r.description or r.title,
                canonical=r.url, kind="recipe", og_type="article", current_org=r.org, current_recipe=r.hf_id,
                breadcrumbs=crumbs, jsonld=[_app_ld(index, r), index.breadcrumb_ld(crumbs)])
