"""The machine-readable indexes that list every recipe: sitemap, robots, llms(-full), feed, search."""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import date
from typing import Any
from urllib.parse import quote, urlsplit

from builder.api.deploy_forms import API_FORMS, form_path
from builder.api.form_schema import FORM_SCHEMA_PATH
from builder.resolver.deploy import FORMAT_LABELS
from builder.site.command_blocks import record_commands, record_env
from builder.site.index import SITE_NAME, SiteIndex
from builder.site.views import text


def _xml(value: str) -> str:
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _hw_synonyms(prof: dict[str, Any]) -> Iterable[str]:
    gen = text(prof.get("generation"))
    if gen == "tpu":
        yield "tpu"
    if gen == "cpu" and text(prof.get("brand")) == "Intel":
        yield from ("intel", "xeon", "cpu", "x86")


def sitemap(index: SiteIndex) -> bytes:
    newest = max((r.date_updated for r in index.recipes if r.date_updated), default=None)
    entries = [("/", newest, "daily", "1.0"), ("/browse", newest, "daily", "0.7")]
    for org in index.orgs.values():
        d = max((r.date_updated for r in org["recipes"] if r.date_updated), default=None)
        entries.append((f"/{org['id']}", d, "weekly", "0.6"))
    for r in index.recipes:
        entries.append((r.url, r.date_updated, "weekly", "0.8"))
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for path, d, freq, prio in entries:
        loc = _xml(index.abs_url(quote(path)))
        lastmod = f"<lastmod>{d.isoformat()}</lastmod>" if d else ""
        lines.append(f"  <url><loc>{loc}</loc>{lastmod}<changefreq>{freq}</changefreq>"
                     f"<priority>{prio}</priority></url>")
    lines.append("</urlset>")
    return ("\n".join(lines) + "\n").encode()


def robots(index: SiteIndex) -> bytes:
    host = urlsplit(index.base_url).netloc
    base = index.base_path
    return (f"User-agent: *\nAllow: {base}/\nDisallow: {base}/api/\n\nSitemap: {index.base_url}/sitemap.xml\n"
            f"Host: {host}\n").encode()


def llms(index: SiteIndex) -> bytes:
    lines = [f"# {SITE_NAME}", "",
             "> Ready-to-run `vllm serve` commands for open models on NVIDIA, AMD, TPU and CPU hardware.",
             "", f"Full default commands: {index.base_url}/llms-full.txt",
             f"JSON API index: {index.base_url}/models.json",
             "Predicted speed: a rendering record's `performance` block gives TTFT, TPOT and "
             "tokens/s per user and per GPU for the 1k/1k, 8k/1k and 1k/8k workloads over a concurrency "
             "sweep, predicted by AIConfigurator from kernel measurements (not measured), each point with "
             "the `vllm bench serve` command that measures it (`reproducer`), or `unavailable` with the "
             "reason; results measured with that command and added to the recipe are under `measured`, "
             "each with its provenance and measured over predicted tok/s per GPU; "
             f"schema: {index.base_url}/schema/performance.json",
             *(f"{FORMAT_LABELS[fmt]} files per hardware (each file's text and the command that applies it; "
               f"every recipe and promoted variant): {index.base_url}/{form_path('<org>/<repo>', fmt)}; "
               f"schema: {index.base_url}/{FORM_SCHEMA_PATH}"
               for fmt in API_FORMS), ""]
    for org in index.orgs.values():
        lines.append(f"## {org['name']} ({org['id']})")
        lines.append("")
        for r in org["recipes"]:
            desc = f": {r.summary}" if r.summary else ""
            lines.append(f"- [{r.hf_id}]({index.base_url}{r.url}){desc}")
        lines.append("")
    return "\n".join(lines).encode()


def llms_full(index: SiteIndex) -> bytes:
    lines = [f"# {SITE_NAME} — default commands", "",
             "Each recipe's default `vllm serve` command, per variant (the default hardware "
             "of that variant).", ""]
    for r in sorted(index.recipes, key=lambda x: x.hf_id.lower()):
        lines += [f"## {r.hf_id}", "", f"Page: {index.base_url}{r.url}"]
        if r.summary:
            lines.append(f"Summary: {r.summary}")
        lines.append("")
        for v in index.variant_docs(r):
            doc = v["doc"]
            rc = doc.get("recommended_command") if isinstance(doc, dict) else None
            if not isinstance(rc, dict):
                continue
            cmds = record_commands(rc)
            if not cmds:
                continue
            hw = index.hw_label(text(rc.get("hardware")))
            lines.append(f"### Variant {v['key']} ({v['label']}) — {v['model_id']} on {hw}, "
                         f"{index.strategy_label(text(rc.get('strategy')))}")
            lines.append("")
            env = record_env(rc)
            for label, cmd in cmds:
                if label:
                    lines.append(f"{label}:")
                lines.append("```bash")
                if env:
                    lines.append(env)
                lines.append(cmd)
                lines.append("```")
                lines.append("")
        if r.is_omni:
            lines.append("Omni recipe: see the page for the vLLM-Omni commands.")
            lines.append("")
    return "\n".join(lines).encode()


def feed(index: SiteIndex) -> bytes:
    latest = index.latest(20, one_per_org=False)
    updated = max((r.date_added for r in latest if r.date_added), default=date(2000, 1, 1))
    base = _xml(index.base_url)
    parts = ['<?xml version="1.0" encoding="utf-8"?>', '<feed xmlns="http://www.w3.org/2005/Atom">',
             f"  <title>{SITE_NAME} — latest recipes</title>",
             f'  <link href="{base}/"/>', f'  <link rel="self" href="{base}/feed.xml"/>',
             f"  <id>{base}/</id>", f"  <updated>{updated.isoformat()}T00:00:00Z</updated>"]
    for r in latest:
        d = (r.date_added or updated).isoformat()
        url = _xml(index.abs_url(r.url))
        parts += ["  <entry>", f"    <title>{_xml(r.hf_id)}</title>", f'    <link href="{url}"/>',
                  f"    <id>{url}</id>",
                  f"    <updated>{d}T00:00:00Z</updated>", f"    <summary>{_xml(r.summary)}</summary>",
                  "  </entry>"]
    parts.append("</feed>")
    return ("\n".join(parts) + "\n").encode()


def search_index(index: SiteIndex) -> bytes:
    recipes = []
    for r in index.recipes:
        hw = list(r.verified)
        recipes.append(
            {
                "id": r.hf_id, "org": r.org, "repo": r.repo, "title": r.title, "provider": r.provider_name,
                "desc": r.description, "tasks": r.tasks, "arch": r.arch, "params": r.params_label,
                "prec": r.precision.lower(), "precs": r.precisions, "hw": hw,
                "hwsyn": sorted({s for h in hw for s in _hw_synonyms(index.profiles.get(h) or {})}),
                "added": r.date_added.isoformat() if r.date_added else "",
                "rel": r.released.isoformat() if r.released else "",
            }
        )
    providers = [{"id": o["id"], "name": o["name"], "n": len(o["recipes"])} for o in index.orgs.values()]
    return json.dumps({"recipes": recipes, "providers": providers, "aliases": index.aliases()},
                      ensure_ascii=False, separators=(",", ":")).encode()


def index_texts(index: SiteIndex) -> dict[str, bytes]:
    """Every text index, keyed by output path."""
    return {
        "sitemap.xml": sitemap(index),
        "robots.txt": robots(index),
        "llms.txt": llms(index),
        "llms-full.txt": llms_full(index),
        "feed.xml": feed(index),
        "search-index.json": search_index(index),
    }
