"""HTML pages and assets of the static site.

:func:`render_site` turns the loaded content and the in-memory JSON API into every
HTML page, redirect stub, text file and static asset, keyed by output-relative path.
Pages are complete without JavaScript; the small scripts under ``static/`` only
enhance them (theme toggle, copy buttons, search, browse filters).

Layout (served by any static server, e.g. ``python -m http.server``):

* ``index.html`` → ``/``; ``browse/index.html`` → ``/browse``
* ``<org>/index.html`` → ``/<org>``; ``<org>/<repo>/index.html`` → ``/<org>/<repo>``
  (the JSON API owns ``<org>/<repo>.json`` and ``<org>/<repo>/{hw,strategies,presets}/``)
* redirect stubs for variant checkpoints and lower-case org/recipe paths
* ``404.html``, ``sitemap.xml``, ``robots.txt``, ``llms.txt``, ``llms-full.txt``,
  ``feed.xml``, ``search-index.json`` and ``static/*``
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import pickle
import posixpath
import re
import shlex
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from jinja2 import BytecodeCache, Environment, FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.bccache import Bucket
from markupsafe import Markup

from builder import vllm_lint
from builder.content import BuildOutput, Content
from builder.markdown import Slugger, render_markdown
from builder.minify import minify

PROJECT_ROOT = Path(__file__).resolve().parents[1]
# Ids of the recipe page's own sections; Markdown headings get other slugs.
PAGE_IDS = frozenset(
    {"main", "builder", "command", "install", "matrix", "guide", "presets", "notes", "variants",
     "related", "api", "self-host", "top", "search", "sidebar"}
)
TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
SITE_NAME = "vLLM Recipes"
HOME_TITLE = "vLLM Recipes — Deploy any model on any hardware with vLLM"
DEFAULT_DESCRIPTION = (
    "Deploy any model on any hardware with vLLM: pick a model, get a working vllm serve command "
    "from the interactive command builder."
)
REPO_URL = "https://github.com/vllm-project/recipes"
DOCS_URL = "https://docs.vllm.ai"
INSTALL_URL = "https://docs.vllm.ai/en/latest/getting_started/installation/"
SUPPORTED_MODELS_URL = "https://docs.vllm.ai/en/latest/models/supported_models.html"
OMNI_REPO_URL = "https://github.com/vllm-project/vllm-omni"
HF = "https://huggingface.co"

TASK_ORDER = ["multimodal", "text", "omni", "embedding"]
TASK_LABELS = {"text": "Text", "multimodal": "Multimodal", "omni": "Omni", "embedding": "Embedding"}
SIZE_BUCKETS = [("xs", "<10B", 0, 10), ("s", "10–70B", 10, 70), ("m", "70–200B", 70, 200),
                ("l", "200B–1T", 200, 1000), ("xl", "≥1T", 1000, math.inf)]
PRECISIONS = ["bf16", "fp8", "fp4", "nvfp4", "mxfp4", "int4", "int8"]
BLACKWELL_ONLY = {"nvfp4", "fp4"}
RESERVED_SEGMENTS = {"_next", "api", "og", "providers", "static", "browse"}

_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")
_SAFE_ENV_VALUE = re.compile(r"^[A-Za-z0-9_./:$@%+,=-]*$")


# ── small helpers ──────────────────────────────────────────────────────────


def parse_date(value: Any) -> date | None:
    """``YYYY-MM-DD`` (or a date) → date; anything else → None."""
    if isinstance(value, date):
        return value
    m = _DATE_RE.match(str(value or ""))
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def parse_params(value: Any) -> float | None:
    """Parameter count in billions: "120B" → 120, "1.2T" → 1200, "500M" → 0.5."""
    m = re.match(r"^\s*([\d.]+)\s*([KMBT]?)", str(value or ""), re.I)
    if not m:
        return None
    try:
        num = float(m.group(1))
    except ValueError:
        return None
    scale = {"": 1, "K": 1e-6, "M": 1e-3, "B": 1, "T": 1000}[m.group(2).upper()]
    return num * scale


def size_bucket(params: float | None) -> str:
    """Browse size bucket key for a parameter count in billions ('' when unknown)."""
    if params is None:
        return ""
    for key, _label, lo, hi in SIZE_BUCKETS:
        if lo <= params < hi:
            return key
    return ""


def fmt_ctx_short(ctx: Any) -> str:
    """Context as "1M ctx", "128K ctx" or raw; '' for 0/None."""
    try:
        n = int(ctx or 0)
    except (TypeError, ValueError):
        return ""
    if n <= 0:
        return ""
    if n >= 1_000_000:
        return f"{n // 1_000_000 if n % 1_000_000 == 0 else round(n / 1_000_000, 1)}M ctx"
    if n >= 1000:
        return f"{round(n / 1000)}K ctx"
    return f"{n} ctx"


def env_exports(env: dict[str, Any] | None) -> str:
    """``export KEY=VALUE`` lines; values are shell-quoted only when they need it ($VARS stay live)."""
    lines = []
    for key, value in (env or {}).items():
        text = "" if value is None else str(value).lower() if isinstance(value, bool) else str(value)
        if not _SAFE_ENV_VALUE.match(text):
            text = shlex.quote(text)
        lines.append(f"export {key}={text}")
    return "\n".join(lines)


def json_for_script(obj: Any) -> Markup:
    """JSON safe to embed inside a <script> element."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)


def _str(value: Any) -> str:
    return "" if value is None else str(value)


# ── view models ────────────────────────────────────────────────────────────


@dataclass
class RecipeView:
    """Everything a template needs about one recipe (its page, card, row, index entry)."""

    hf_id: str
    org: str
    repo: str
    doc: dict[str, Any]
    raw: dict[str, Any]
    rel_path: str
    provider_name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    variants: dict[str, Any] = field(default_factory=dict)

    @cached_property
    def url(self) -> str:
        return f"/{self.hf_id}"

    @cached_property
    def title(self) -> str:
        return _str(self.meta.get("title")) or self.repo

    @cached_property
    def description(self) -> str:
        return _str(self.meta.get("description"))

    @cached_property
    def headline(self) -> str:
        return _str(self.meta.get("performance_headline"))

    @cached_property
    def tasks(self) -> list[str]:
        tasks = self.meta.get("tasks") or []
        return [str(t) for t in tasks] if isinstance(tasks, list) else []

    @cached_property
    def first_task(self) -> str:
        return self.tasks[0] if self.tasks else "other"

    @cached_property
    def is_omni(self) -> bool:
        return "omni" in self.tasks

    @cached_property
    def arch(self) -> str:
        return _str(self.model.get("architecture")).lower()

    @cached_property
    def params(self) -> str:
        return _str(self.model.get("parameter_count"))

    @cached_property
    def active(self) -> str:
        return _str(self.model.get("active_parameters"))

    @cached_property
    def params_label(self) -> str:
        """"total / active" for MoE with a different active count, else total."""
        if self.active and self.active != self.params and self.params:
            return f"{self.params} / {self.active}"
        return self.params

    @cached_property
    def params_b(self) -> float | None:
        return parse_params(self.params)

    @cached_property
    def ctx(self) -> int:
        try:
            return int(self.model.get("context_length") or 0)
        except (TypeError, ValueError):
            return 0

    @cached_property
    def min_vllm(self) -> str:
        return _str(self.model.get("min_vllm_version"))

    @cached_property
    def precision(self) -> str:
        default = self.variants.get("default") if isinstance(self.variants, dict) else None
        return _str(default.get("precision")) if isinstance(default, dict) else ""

    @cached_property
    def precisions(self) -> list[str]:
        out: list[str] = []
        for v in self.variants.values() if isinstance(self.variants, dict) else []:
            p = _str(v.get("precision")).lower() if isinstance(v, dict) else ""
            if p and p not in out:
                out.append(p)
        return out

    @cached_property
    def hardware_marks(self) -> dict[str, str]:
        hw = self.meta.get("hardware")
        return {str(k): str(v) for k, v in hw.items()} if isinstance(hw, dict) else {}

    @cached_property
    def verified(self) -> list[str]:
        return [k for k, v in self.hardware_marks.items() if v == "verified"]

    @cached_property
    def date_added(self) -> date | None:
        return parse_date(self.meta.get("date_added")) or parse_date(self.meta.get("date_updated"))

    @cached_property
    def date_updated(self) -> date | None:
        return parse_date(self.meta.get("date_updated"))

    @cached_property
    def released(self) -> date | None:
        """HuggingFace release date when the recipe records one, else ``date_updated`` (ORG-06)."""
        return parse_date(self.meta.get("release_date")) or self.date_updated

    @cached_property
    def summary(self) -> str:
        return self.description or self.headline


def _date_key(d: date | None) -> int:
    return d.toordinal() if d else -1


# ── the renderer ───────────────────────────────────────────────────────────


class _MemoryBytecodeCache(BytecodeCache):
    """Compiled templates kept for the life of the process (the dev server renders many times)."""

    def __init__(self) -> None:
        self.store: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self.store:
            bucket.bytecode_from_string(self.store[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self.store[bucket.key] = bucket.bytecode_to_string()


_BYTECODE = _MemoryBytecodeCache()


class SiteRenderer:
    """Holds the content, the API output and the Jinja environment for one render."""

    def __init__(self, content: Content, output: BuildOutput, base_url: str | None = None) -> None:
        self.content = content
        self.output = output
        site = content.site or {}
        self.base_url = (base_url or site.get("base_url") or site.get("site_url") or DEFAULT_BASE_URL).rstrip("/")
        self.repo_url = str(site.get("repo_url") or REPO_URL).rstrip("/")
        self.taxonomy: dict[str, Any] = content.vocab.taxonomy or {}
        self.profiles: dict[str, Any] = dict(self.taxonomy.get("hardware_profiles") or {})
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
        self.recipes = [self._view(rf) for rf in content.recipes]
        self.by_id = {r.hf_id: r for r in self.recipes}
        self.by_slug = {_str(r.meta.get("slug")): r for r in self.recipes if r.meta.get("slug")}
        self.orgs = self._orgs()
        self.pages: set[str] = {"/", "/browse"} | {f"/{o}" for o in self.orgs} | {r.url for r in self.recipes}
        self.assets = self._assets()
        self.env = self._jinja()

    # -- setup ------------------------------------------------------------

    def _view(self, rf: Any) -> RecipeView:
        doc = self.output.documents.get(rf.hf_id) or {}
        raw = rf.data or {}
        src = doc or raw
        org, _, repo = rf.hf_id.partition("/")
        meta = src.get("meta") if isinstance(src.get("meta"), dict) else {}
        model = src.get("model") if isinstance(src.get("model"), dict) else {}
        variants = src.get("variants") if isinstance(src.get("variants"), dict) else {}
        return RecipeView(rf.hf_id, org, repo, doc, raw, rf.rel_path, "", meta, model, variants)

    def _orgs(self) -> dict[str, dict[str, Any]]:
        """Org id → display name and recipes, ordered by org id case-insensitively."""
        names: dict[str, str] = {}
        for r in self.recipes:
            names.setdefault(r.org.lower(), _str(r.meta.get("provider")) or r.org)
        orgs: dict[str, dict[str, Any]] = {}
        for r in self.recipes:
            r.provider_name = names[r.org.lower()]
            orgs.setdefault(r.org, {"id": r.org, "name": r.provider_name, "recipes": []})["recipes"].append(r)
        for o in orgs.values():
            o["recipes"].sort(key=lambda r: (-_date_key(r.released), r.repo.lower()))
            o["initial"] = (o["name"] or o["id"])[:1].upper()
        return dict(sorted(orgs.items(), key=lambda kv: (kv[0].lower(), kv[0])))

    def _assets(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        if STATIC_DIR.is_dir():
            for path in sorted(STATIC_DIR.iterdir()):
                if path.is_file() and not path.name.startswith("."):
                    out[f"static/{path.name}"] = minify(path.name, path.read_bytes())
        return out

    def asset(self, name: str) -> str:
        """Site-absolute URL of a static asset with a content hash for cache busting."""
        data = self.assets.get(f"static/{name}", b"")
        return f"/static/{name}?v={hashlib.sha256(data).hexdigest()[:10]}"

    def _jinja(self) -> Environment:
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
            base_url=self.base_url,
            repo_url=self.repo_url,
            docs_url=DOCS_URL,
            install_url=INSTALL_URL,
            supported_models_url=SUPPORTED_MODELS_URL,
            omni_repo_url=OMNI_REPO_URL,
            hf=HF,
            asset=self.asset,
            task_label=lambda t: self.task_labels.get(t, str(t).title()),
            hw_label=self.hw_label,
            fmt_ctx_short=fmt_ctx_short,
            json_for_script=json_for_script,
            orgs=self.orgs,
            total_recipes=len(self.recipes),
        )
        env.filters["thousands"] = lambda n: f"{int(n):,}"
        return env

    # -- lookups ----------------------------------------------------------

    def hw_label(self, hw_id: str) -> str:
        """Display name of a hardware profile (raw id when unknown)."""
        prof = self.profiles.get(hw_id)
        return _str(prof.get("display_name")) if isinstance(prof, dict) and prof.get("display_name") else hw_id

    def strategy_label(self, sid: str) -> str:
        spec = self.strategies.get(sid)
        return _str(spec.get("display_name")) if isinstance(spec, dict) and spec.get("display_name") else sid

    def has_file(self, url: str) -> bool:
        """True when the JSON API wrote ``url`` (a site-absolute path)."""
        return url.lstrip("/") in self.output.files

    def load_json(self, url: str) -> dict[str, Any] | None:
        data = self.output.files.get(url.lstrip("/"))
        if data is None:
            return None
        try:
            obj = json.loads(data)
        except (ValueError, UnicodeDecodeError):
            return None
        return obj if isinstance(obj, dict) else None

    def abs_url(self, path: str) -> str:
        return self.base_url + path

    def render(self, template: str, **ctx: Any) -> bytes:
        return self.env.get_template(template).render(**ctx).encode("utf-8")

    # -- orderings ----------------------------------------------------------

    def latest(self, limit: int, one_per_org: bool) -> list[RecipeView]:
        """HOME-04: date_added desc (date_updated fallback; bad dates oldest), ties hf_id asc."""
        ranked = sorted(self.recipes, key=lambda r: (-_date_key(r.date_added), r.hf_id))
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

    # -- link resolution for Markdown --------------------------------------

    def link_resolver(self, recipe: RecipeView, anchors: set[str] | None = None):
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

    # -- page builders ------------------------------------------------------

    def card(self, r: RecipeView) -> dict[str, Any]:
        return {"r": r, "ctx": fmt_ctx_short(r.ctx), "precision": r.precision.upper()}

    def page_home(self) -> bytes:
        latest = self.latest(8, one_per_org=True)
        return self.render(
            "home.html",
            page_title=HOME_TITLE,
            description=DEFAULT_DESCRIPTION,
            canonical="/",
            latest=[self.card(r) for r in latest],
            og_type="website",
            page_kind="home",
            current_org=None,
            current_recipe=None,
            breadcrumbs=[],
            jsonld=[],
        )

    def page_org(self, org: dict[str, Any]) -> bytes:
        n = len(org["recipes"])
        noun = "recipe" if n == 1 else "recipes"
        groups: dict[str, list[RecipeView]] = {}
        for r in org["recipes"]:
            groups.setdefault(r.first_task, []).append(r)
        order = [t for t in TASK_ORDER if t in groups] + [t for t in groups if t not in TASK_ORDER]
        rows = {
            t: [
                {
                    "r": r,
                    "secondary": r.tasks[1:],
                    "variants": [
                        (_str(v.get("label") or v.get("precision") or k).upper(), v.get("vram_minimum_gb"))
                        for k, v in r.variants.items()
                        if isinstance(v, dict)
                    ],
                }
                for r in groups[t]
            ]
            for t in order
        }
        path = f"/{org['id']}"
        crumbs = [(SITE_NAME, "/"), (org["name"], path)]
        return self.render(
            "org.html",
            page_title=f"{org['name']} on vLLM — {n} {noun}",
            description=f"Deploy {n} {org['name']} {noun} on NVIDIA and AMD GPUs with ready-to-run vLLM commands.",
            canonical=path,
            org=org,
            count_label=f"{n} {noun}",
            groups=[(t, rows[t]) for t in order],
            og_type="website",
            page_kind="org",
            current_org=org["id"],
            current_recipe=None,
            breadcrumbs=crumbs,
            jsonld=[self.breadcrumb_ld(crumbs)],
        )

    def breadcrumb_ld(self, crumbs: list[tuple[str, str]]) -> dict[str, Any]:
        return {
            "@context": "https://schema.org",
            "@type": "BreadcrumbList",
            "itemListElement": [
                {"@type": "ListItem", "position": i + 1, "name": name, "item": self.abs_url(path)}
                for i, (name, path) in enumerate(crumbs)
            ],
        }

    def spec_line(self, r: RecipeView) -> str:
        parts = []
        if r.params:
            parts.append(r.params + (f" / {r.active} active" if r.active and r.active != r.params else ""))
        if r.arch:
            parts.append(r.arch.upper())
        if r.ctx:
            parts.append(f"{round(r.ctx / 1000)}K ctx")
        return " · ".join(parts)

    # command blocks -------------------------------------------------------

    def command_view(self, rc: dict[str, Any] | None, base: str) -> dict[str, Any] | None:
        """Static rendering of one recommended record (single- or multi-node)."""
        if not isinstance(rc, dict):
            return None
        hw = _str(rc.get("hardware"))
        deploy = _str(rc.get("deploy_type")) or "single_node"
        view: dict[str, Any] = {
            "hardware": hw,
            "hardware_label": self.hw_label(hw),
            "strategy": _str(rc.get("strategy")),
            "strategy_label": self.strategy_label(_str(rc.get("strategy"))),
            "variant": _str(rc.get("variant")),
            "nodes": rc.get("node_count") or 1,
            "deploy_type": deploy,
            "env": env_exports(rc.get("env") if isinstance(rc.get("env"), dict) else {}),
            "docker_image": _str(rc.get("docker_image")),
            "blocks": [],
            "docker_blocks": [],
            "alternatives": [],
            "hw_json": [],
            "check": {
                "version": vllm_lint.VLLM_VERSION,
                "problems": [f.message() for f in vllm_lint.lint_record(rc)],
            },
        }
        if deploy == "multi_node":
            view["blocks"].append(("head", "Head node (rank 0)", _str(rc.get("head_command"))))
            workers = rc.get("worker_commands") if isinstance(rc.get("worker_commands"), list) else []
            workers = workers or ([rc["worker_command"]] if rc.get("worker_command") else [])
            for i, cmd in enumerate(workers, 1):
                view["blocks"].append((f"worker-{i}", f"Worker node {i}", _str(cmd)))
            if rc.get("head_docker_command"):
                view["docker_blocks"].append(("head", "Head node (rank 0)", _str(rc["head_docker_command"])))
            dworkers = rc.get("worker_docker_commands") if isinstance(rc.get("worker_docker_commands"), list) else []
            dworkers = dworkers or ([rc["worker_docker_command"]] if rc.get("worker_docker_command") else [])
            for i, cmd in enumerate(dworkers, 1):
                view["docker_blocks"].append((f"worker-{i}", f"Worker node {i}", _str(cmd)))
        else:
            if rc.get("command"):
                view["blocks"].append(("serve", "", _str(rc["command"])))
            if rc.get("docker_command"):
                view["docker_blocks"].append(("serve", "", _str(rc["docker_command"])))
        alts = rc.get("alternatives") if isinstance(rc.get("alternatives"), dict) else {}
        for sid, url in alts.items():
            if isinstance(url, str) and self.has_file(url):
                view["alternatives"].append((self.strategy_label(sid), url))
        by_hw = rc.get("by_hardware") if isinstance(rc.get("by_hardware"), dict) else {}
        for h, url in by_hw.items():
            if isinstance(url, str) and self.has_file(url):
                view["hw_json"].append((self.hw_label(h), url))
        return view

    def install_view(self, r: RecipeView) -> dict[str, Any]:
        inst = r.model.get("install") if isinstance(r.model.get("install"), dict) else {}
        pip = inst.get("pip") if isinstance(inst.get("pip"), dict) else {}
        docker = inst.get("docker") if isinstance(inst.get("docker"), dict) else {}
        extras = [e for e in (inst.get("extras") or []) if isinstance(e, dict)]
        return {
            "pip": _str(pip.get("command")),
            "pip_note": _str(pip.get("note")),
            "docker": _str(docker.get("command")),
            "docker_note": _str(docker.get("note")),
            "required": [e for e in extras if not e.get("optional")],
            "optional": [e for e in extras if e.get("optional")],
        }

    def variant_docs(self, r: RecipeView) -> list[dict[str, Any]]:
        """Variants in YAML order with their own document (promoted) when there is one."""
        out = []
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
                    "label": _str(v.get("label") or v.get("precision") or key).upper(),
                    "precision": _str(v.get("precision")).lower(),
                    "vram": v.get("vram_minimum_gb"),
                    "description": _str(v.get("description")),
                    "model_id": _str(v.get("model_id")) or _str(r.model.get("model_id")) or r.hf_id,
                    "doc": doc,
                    "json": pointer if isinstance(pointer, str) and self.has_file(pointer) else "",
                    "supported": [str(h) for h in v.get("supported_hardware") or []],
                }
            )
        return out

    def _resolver_offered(self, r: RecipeView, variant: str) -> set[str] | None:
        """Offered hardware from builder.resolver when it is available (else None)."""
        try:
            from builder import resolver  # type: ignore[attr-defined]

            offered = resolver.offered_hardware(r.raw, self.taxonomy, variant)
            return {str(h) for h in offered} if offered is not None else None
        except Exception:  # the resolver is optional here; fall back to VRAM estimates
            return None

    def support_matrix(self, r: RecipeView, variants: list[dict[str, Any]]) -> dict[str, Any]:
        """Hardware × variant cells: verified, unsupported, fits one node, needs N nodes."""
        marks = r.hardware_marks
        rows_ids: list[str] = []
        per_variant_hw: dict[str, dict[str, str]] = {}
        for v in variants:
            rc = (v["doc"] or {}).get("recommended_command") if v["doc"] else None
            by_hw = rc.get("by_hardware") if isinstance(rc, dict) and isinstance(rc.get("by_hardware"), dict) else {}
            per_variant_hw[v["key"]] = {str(h): str(u) for h, u in by_hw.items()}
            rows_ids.extend(by_hw)
        rows_ids.extend(marks)
        offered_cache: dict[str, set[str] | None] = {}
        order = list(self.profiles)
        ids = sorted(set(rows_ids), key=lambda h: (order.index(h) if h in order else len(order), h))
        rows = []
        for h in ids:
            prof = self.profiles.get(h) if isinstance(self.profiles.get(h), dict) else {}
            cells = []
            for v in variants:
                cells.append(self._cell(r, v, h, prof, marks.get(h, ""), per_variant_hw[v["key"]], offered_cache))
            gpus = prof.get("gpu_count") or 0
            per_gpu = round((prof.get("vram_gb") or 0) / gpus) if gpus else 0
            rows.append(
                {
                    "id": h,
                    "label": self.hw_label(h),
                    "mark": marks.get(h, ""),
                    "per_gpu": f"{per_gpu}G/{'CPU' if prof.get('generation') == 'cpu' else 'GPU'}" if per_gpu else "",
                    "cells": cells,
                }
            )
        return {"variants": variants, "rows": rows}

    def _cell(
        self,
        r: RecipeView,
        v: dict[str, Any],
        h: str,
        prof: dict[str, Any],
        mark: str,
        by_hw: dict[str, str],
        offered_cache: dict[str, set[str] | None],
    ) -> dict[str, Any]:
        if mark == "unsupported":
            return {"state": "unsupported", "text": "Unsupported", "title": "Marked unsupported for this model"}
        url = by_hw.get(h)
        if url:
            rec = self.load_json(url) or {}
            nodes = rec.get("node_count") or 1
            deploy = _str(rec.get("deploy_type"))
            strategy = self.strategy_label(_str(rec.get("strategy")))
            used = _str(rec.get("variant"))
            text = "1 node" if nodes == 1 and deploy != "pd_cluster" else f"{nodes} nodes"
            if deploy == "pd_cluster":
                text = "PD cluster"
            note = ""
            if used and used != v["key"] and not (v["key"] == "default" and used == "default"):
                note = f"uses {used.upper()}"
            return {
                "state": "verified" if mark == "verified" else ("fits" if nodes == 1 else "multi"),
                "text": text,
                "note": note,
                "title": f"{strategy} on {self.hw_label(h)}" + (" (verified)" if mark == "verified" else ""),
                "url": url if self.has_file(url) else "",
            }
        if v["doc"] and v["doc"].get("recommended_command"):
            return {"state": "none", "text": "—", "title": "Not offered for this variant on this hardware"}
        # no rendered document (omni recipe or a variant without its own checkpoint): estimate
        if v["key"] not in offered_cache:
            offered_cache[v["key"]] = self._resolver_offered(r, v["key"])
        offered = offered_cache[v["key"]]
        if offered is not None and h not in offered:
            return {"state": "none", "text": "—", "title": "Not offered for this variant on this hardware"}
        if v["supported"] and h not in v["supported"]:
            return {"state": "none", "text": "—", "title": "Outside this variant's hardware list"}
        if v["precision"] in BLACKWELL_ONLY and prof.get("generation") != "blackwell":
            return {"state": "none", "text": "—", "title": "This precision needs NVIDIA Blackwell"}
        vram_node = prof.get("vram_gb") or 0
        need = v["vram"]
        if not isinstance(need, (int, float)) or not vram_node:
            return {"state": "verified" if mark == "verified" else "unknown", "text": "✓" if mark == "verified" else "?",
                    "title": "No VRAM figure"}
        if need <= vram_node:
            return {"state": "verified" if mark == "verified" else "fits", "text": "1 node",
                    "title": f"{need} GB fits one {self.hw_label(h)} node ({vram_node} GB)"}
        if prof.get("scalable") is False:
            return {"state": "none", "text": "Doesn't fit",
                    "title": f"{need} GB exceeds {vram_node} GB and this hardware can't be clustered"}
        n = math.ceil(need / vram_node)
        return {"state": "multi", "text": f"{n} nodes", "title": f"{need} GB needs {n} × {vram_node} GB nodes"}

    def page_recipe(self, r: RecipeView) -> bytes:
        doc = r.doc or r.raw
        slugger = Slugger(PAGE_IDS)
        resolve = self.link_resolver(r)
        variants = self.variant_docs(r)
        rc = doc.get("recommended_command") if isinstance(doc.get("recommended_command"), dict) else None
        command = self.command_view(rc, r.hf_id)
        other_variants = []
        for v in variants:
            if v["key"] == "default":
                continue
            vrc = (v["doc"] or {}).get("recommended_command") if v["doc"] else None
            other_variants.append({**v, "command": self.command_view(vrc, v["model_id"])})
        presets = []
        preset_data = doc.get("presets") if isinstance(doc.get("presets"), dict) else {}
        for key, p in preset_data.items():
            if not isinstance(p, dict):
                continue
            points = []
            for pk, pt in (p.get("points") or {}).items() if isinstance(p.get("points"), dict) else []:
                if isinstance(pt, dict):
                    points.append(
                        {
                            "key": pk,
                            "label": _str(pt.get("label") or pk),
                            "concurrency": _str(pt.get("concurrency")),
                            "tp": _str(pt.get("tp")),
                            "args": " ".join(str(a) for a in pt.get("args") or []),
                        }
                    )
            image = p.get("image")
            if isinstance(image, dict):
                image_text = _str(image.get("vllm"))
                image_pip = [str(x) for x in image.get("pip") or []]
            else:
                image_text, image_pip = _str(image), []
            src = p.get("source") if isinstance(p.get("source"), dict) else {}
            href = _str(src.get("href"))
            sample: tuple[str, list[tuple[str, str]], str] | None = None
            pjson = self.load_json(p["json"]) if isinstance(p.get("json"), str) else None
            ppoints = pjson.get("points") if pjson and isinstance(pjson.get("points"), dict) else {}
            if ppoints:
                pk0, rec0 = next(iter(ppoints.items()))
                if isinstance(rec0, dict):
                    env0 = env_exports(rec0.get("env") if isinstance(rec0.get("env"), dict) else {})
                    sample = (_str(rec0.get("label") or pk0), _record_commands(rec0), env0)
            presets.append(
                {
                    "key": str(key),
                    "id": f"preset-{key}",
                    "label": _str(p.get("label") or key),
                    "hardware": self.hw_label(_str(p.get("hardware"))),
                    "strategy": self.strategy_label(_str(p.get("strategy"))),
                    "variants": [str(x).upper() for x in p.get("variants") or []],
                    "workload": _str(p.get("workload")),
                    "description": _str(p.get("description")),
                    "source_label": _str(src.get("label") or href),
                    "source_href": href if re.match(r"^https?://", href) else "",
                    "image": image_text,
                    "image_pip": image_pip,
                    "tp": _str(p.get("tp")),
                    "args": " ".join(str(a) for a in p.get("args") or []),
                    "points": points,
                    "json": p["json"] if isinstance(p.get("json"), str) and self.has_file(p["json"]) else "",
                    "sample": sample,
                }
            )
            slugger.seen.add(f"preset-{key}")
        # markdown: presets and notes first reserve their ids; the guide gets the rest
        for p, raw_p in zip(presets, [v for v in preset_data.values() if isinstance(v, dict)], strict=False):
            p["runbook"] = Markup(render_markdown(_str(raw_p.get("runbook")), slugger, resolve, heading_offset=3))
        notes = []
        for n in doc.get("notes") or [] if isinstance(doc.get("notes"), list) else []:
            if not isinstance(n, dict):
                continue
            when = n.get("when") if isinstance(n.get("when"), dict) else {}
            hw = [str(h) for h in when.get("hardware") or []] if isinstance(when.get("hardware"), list) else []
            notes.append(
                {
                    "title": _str(n.get("title")),
                    "hardware": hw,
                    "hardware_labels": [self.hw_label(h) for h in hw],
                    "body": Markup(render_markdown(_str(n.get("body")), slugger, resolve, heading_offset=3)),
                }
            )
        guide_html = Markup(render_markdown(_str(doc.get("guide")), slugger, resolve, heading_offset=1))
        source = doc.get("source") if isinstance(doc.get("source"), dict) else {}
        edit_url = _str(source.get("edit_url"))
        if not re.match(r"^https?://", edit_url):
            edit_url = f"{self.repo_url}/edit/main/{_model_path(r)}"
        related = []
        for entry in r.meta.get("related_recipes") or []:
            target = self.by_id.get(str(entry)) or self.by_slug.get(str(entry))
            if target and target is not r and target not in related:
                related.append(target)
        same_org = [x for x in self.orgs[r.org]["recipes"] if x is not r][:6]
        same_task = [x for x in self.latest(len(self.recipes), False)
                     if x is not r and x.org != r.org and x.first_task == r.first_task][:6]
        plats = []
        for p in r.meta.get("platforms") or []:
            pid = p.get("id") if isinstance(p, dict) else p
            base = self.platforms.get(str(pid))
            if base is None:
                continue
            merged = {**base, **(p if isinstance(p, dict) else {})}
            url = _str(merged.get("url"))
            script = _str(merged.get("script"))
            plats.append(
                {
                    "name": _str(merged.get("name") or pid),
                    "blurb": _str(merged.get("blurb")),
                    "url": url if re.match(r"^https?://", url) else "",
                    "script": script if re.match(r"^https?://", script) else "",
                    "install": _str(merged.get("install")).rstrip("\n"),
                }
            )
        omni = doc.get("omni") if isinstance(doc.get("omni"), dict) else {}
        omni_tasks = [t for t in omni.get("tasks") or [] if isinstance(t, dict)]
        path = r.url
        spec = self.spec_line(r)
        crumbs = [(SITE_NAME, "/"), (r.provider_name, f"/{r.org}"), (r.repo, path)]
        app_ld = {
            "@context": "https://schema.org",
            "@type": "SoftwareApplication",
            "name": r.hf_id,
            "alternateName": r.title,
            "description": r.description or r.title,
            "applicationCategory": "DeveloperApplication",
            "operatingSystem": "Linux",
            "url": self.abs_url(path),
            "creator": {"@type": "Organization", "name": r.provider_name, "url": f"{HF}/{r.org}"},
            "sameAs": f"{HF}/{r.hf_id}",
        }
        if r.min_vllm:
            app_ld["softwareRequirements"] = f"vLLM {r.min_vllm}+"
        api_links = []
        if self.has_file(f"/{r.hf_id}.json"):
            api_links.append(("Recipe document", f"/{r.hf_id}.json"))
        for v in other_variants:
            if v["json"]:
                api_links.append((f"{v['label']} variant document", v["json"]))
        data = {
            "hf_id": r.hf_id,
            "json": f"/{r.hf_id}.json" if self.has_file(f"/{r.hf_id}.json") else "",
            "variant": "default",
            "hardware": command["hardware"] if command else "",
            "strategy": command["strategy"] if command else "",
        }
        return self.render(
            "recipe.html",
            page_title=f"{r.hf_id} | {SITE_NAME}",
            description=r.description or r.title,
            canonical=path,
            og_type="article",
            og_title=f"{r.hf_id} — {spec}" if spec else r.hf_id,
            r=r,
            spec=spec,
            tasks=r.tasks,
            verified=[(h, self.hw_label(h)) for h in r.verified],
            install=self.install_view(r),
            command=command,
            builder_data=data,
            other_variants=other_variants,
            matrix=self.support_matrix(r, variants),
            guide=guide_html,
            presets=presets,
            notes=notes,
            omni_tasks=omni_tasks,
            edit_url=edit_url,
            related=related,
            same_org=same_org,
            same_task=same_task,
            platforms=plats,
            api_links=api_links,
            page_kind="recipe",
            current_org=r.org,
            current_recipe=r.hf_id,
            breadcrumbs=crumbs,
            jsonld=[app_ld, self.breadcrumb_ld(crumbs)],
            issues_url=f"{self.repo_url}/issues",
        )

    def browse_rows(self) -> list[dict[str, Any]]:
        rows = []
        ranked = sorted(self.recipes, key=lambda r: (-_date_key(r.date_updated), r.hf_id))
        for i, r in enumerate(ranked):
            rows.append(
                {
                    "r": r,
                    "base": i,
                    "size": size_bucket(r.params_b),
                    "verified": [(h, self.hw_label(h)) for h in r.verified],
                }
            )
        return rows

    def browse_filters(self) -> dict[str, Any]:
        verified_ids = {h for r in self.recipes for h in r.verified}
        brands: dict[str, list[tuple[str, str]]] = {}
        for h, prof in self.profiles.items():
            if h in verified_ids and isinstance(prof, dict):
                brands.setdefault(_str(prof.get("brand")) or "Other", []).append((h, self.hw_label(h)))
        order = ["NVIDIA", "AMD"]
        brand_list = [(b, brands[b]) for b in order if b in brands] + sorted(
            (b, v) for b, v in brands.items() if b not in order
        )
        present_tasks = {t for r in self.recipes for t in r.tasks}
        return {
            "task": [(t, self.task_labels.get(t, t.title())) for t in TASK_ORDER[1:2] + TASK_ORDER[:1] + TASK_ORDER[2:]
                     if t in present_tasks],
            "arch": [("moe", "MoE"), ("dense", "Dense")],
            "size": [(k, label) for k, label, _lo, _hi in SIZE_BUCKETS],
            "precision": [(p, p.upper()) for p in PRECISIONS],
            "hardware": brand_list,
            "providers": sorted(((o["id"], o["name"]) for o in self.orgs.values()), key=lambda x: x[1].lower()),
        }

    def page_browse(self) -> bytes:
        crawl = sorted(self.recipes, key=lambda r: r.hf_id.lower())
        return self.render(
            "browse.html",
            page_title=f"Browse all recipes | {SITE_NAME}",
            description=(
                "Browse every vLLM recipe: filter by task, architecture, size, precision, verified "
                "hardware and provider."
            ),
            canonical="/browse",
            og_type="website",
            rows=self.browse_rows(),
            filters=self.browse_filters(),
            crawl=crawl,
            page_kind="browse",
            current_org=None,
            current_recipe=None,
            breadcrumbs=[],
            jsonld=[],
        )

    def page_404(self) -> bytes:
        return self.render(
            "404.html",
            page_title=f"Page not found | {SITE_NAME}",
            description=DEFAULT_DESCRIPTION,
            canonical="",
            og_type="website",
            latest=self.latest(8, one_per_org=False),
            request_url=self.request_issue_url(None),
            page_kind="404",
            current_org=None,
            current_recipe=None,
            breadcrumbs=[],
            jsonld=[],
        )

    def request_issue_url(self, hf_id: str | None) -> str:
        title = f"Recipe request: {hf_id}" if hf_id else "Recipe request: <org>/<repo>"
        body = (
            "## Model\n\n" + (f"{HF}/{hf_id}" if hf_id else "https://huggingface.co/<org>/<repo>")
            + "\n\n## Target hardware\n\n\n## Precision / variant\n\n\n## Notes\n\n"
        )
        return f"{self.repo_url}/issues/new?" + urlencode({"title": title, "body": body, "labels": "recipe-request"})

    def redirect_stub(self, target: str, keep_query: bool) -> bytes:
        return self.render("redirect.html", target=target, keep_query=keep_query)

    # -- text outputs -------------------------------------------------------

    def sitemap(self) -> bytes:
        newest = max((r.date_updated for r in self.recipes if r.date_updated), default=None)
        entries = [("/", newest, "daily", "1.0"), ("/browse", newest, "daily", "0.7")]
        for org in self.orgs.values():
            d = max((r.date_updated for r in org["recipes"] if r.date_updated), default=None)
            entries.append((f"/{org['id']}", d, "weekly", "0.6"))
        for r in self.recipes:
            entries.append((r.url, r.date_updated, "weekly", "0.8"))
        lines = ['<?xml version="1.0" encoding="UTF-8"?>',
                 '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
        for path, d, freq, prio in entries:
            loc = _xml(self.abs_url(quote(path)))
            lastmod = f"<lastmod>{d.isoformat()}</lastmod>" if d else ""
            lines.append(f"  <url><loc>{loc}</loc>{lastmod}<changefreq>{freq}</changefreq><priority>{prio}</priority></url>")
        lines.append("</urlset>")
        return ("\n".join(lines) + "\n").encode()

    def robots(self) -> bytes:
        host = re.sub(r"^https?://", "", self.base_url)
        return (f"User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: {self.base_url}/sitemap.xml\nHost: {host}\n").encode()

    def llms(self) -> bytes:
        lines = [f"# {SITE_NAME}", "",
                 "> Ready-to-run `vllm serve` commands for open models on NVIDIA, AMD, TPU and CPU hardware.",
                 "", f"Full default commands: {self.base_url}/llms-full.txt",
                 f"JSON API index: {self.base_url}/models.json", ""]
        for org in self.orgs.values():
            lines.append(f"## {org['name']} ({org['id']})")
            lines.append("")
            for r in org["recipes"]:
                desc = f": {r.summary}" if r.summary else ""
                lines.append(f"- [{r.hf_id}]({self.base_url}{r.url}){desc}")
            lines.append("")
        return "\n".join(lines).encode()

    def llms_full(self) -> bytes:
        lines = [f"# {SITE_NAME} — default commands", "",
                 "Each recipe's default `vllm serve` command, per variant (the default hardware of that variant).", ""]
        for r in sorted(self.recipes, key=lambda x: x.hf_id.lower()):
            lines += [f"## {r.hf_id}", "", f"Page: {self.base_url}{r.url}"]
            if r.summary:
                lines.append(f"Summary: {r.summary}")
            lines.append("")
            for v in self.variant_docs(r):
                doc = v["doc"]
                rc = doc.get("recommended_command") if isinstance(doc, dict) else None
                if not isinstance(rc, dict):
                    continue
                cmds = _record_commands(rc)
                if not cmds:
                    continue
                hw = self.hw_label(_str(rc.get("hardware")))
                lines.append(f"### Variant {v['key']} ({v['label']}) — {v['model_id']} on {hw}, "
                             f"{self.strategy_label(_str(rc.get('strategy')))}")
                lines.append("")
                env = env_exports(rc.get("env") if isinstance(rc.get("env"), dict) else {})
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

    def feed(self) -> bytes:
        latest = self.latest(20, one_per_org=False)
        updated = max((r.date_added for r in latest if r.date_added), default=date(2000, 1, 1))
        parts = ['<?xml version="1.0" encoding="utf-8"?>', '<feed xmlns="http://www.w3.org/2005/Atom">',
                 f"  <title>{SITE_NAME} — latest recipes</title>",
                 f'  <link href="{_xml(self.base_url)}/"/>', f'  <link rel="self" href="{_xml(self.base_url)}/feed.xml"/>',
                 f"  <id>{_xml(self.base_url)}/</id>", f"  <updated>{updated.isoformat()}T00:00:00Z</updated>"]
        for r in latest:
            d = (r.date_added or updated).isoformat()
            parts += ["  <entry>", f"    <title>{_xml(r.hf_id)}</title>",
                      f'    <link href="{_xml(self.abs_url(r.url))}"/>', f"    <id>{_xml(self.abs_url(r.url))}</id>",
                      f"    <updated>{d}T00:00:00Z</updated>", f"    <summary>{_xml(r.summary)}</summary>", "  </entry>"]
        parts.append("</feed>")
        return ("\n".join(parts) + "\n").encode()

    def search_index(self) -> bytes:
        recipes = []
        for r in self.recipes:
            hw = list(r.verified)
            recipes.append(
                {
                    "id": r.hf_id, "org": r.org, "repo": r.repo, "title": r.title, "provider": r.provider_name,
                    "desc": r.description, "tasks": r.tasks, "arch": r.arch, "params": r.params_label,
                    "prec": r.precision.lower(), "precs": r.precisions, "hw": hw,
                    "hwsyn": sorted({s for h in hw for s in _hw_synonyms(self.profiles.get(h) or {})}),
                    "added": r.date_added.isoformat() if r.date_added else "",
                    "rel": r.released.isoformat() if r.released else "",
                }
            )
        providers = [{"id": o["id"], "name": o["name"], "n": len(o["recipes"])} for o in self.orgs.values()]
        aliases = {a: t for a, t in self.aliases().items()}
        return json.dumps({"recipes": recipes, "providers": providers, "aliases": aliases},
                          ensure_ascii=False, separators=(",", ":")).encode()

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

    # -- everything ---------------------------------------------------------

    def render_all(self) -> dict[str, bytes]:
        """Every page, asset, redirect stub and text index."""
        return {**self.render_recipe_pages(0, 1), **self.render_shared()}

    def render_recipe_pages(self, part: int, parts: int) -> dict[str, bytes]:
        """The recipe pages of one share of the recipes (every ``parts``-th from ``part``)."""
        return {f"{r.hf_id}/index.html": self.page_recipe(r) for r in self.recipes[part::parts]}

    def render_shared(self) -> dict[str, bytes]:
        """Everything but the recipe pages: assets, home, browse, 404, providers, stubs, indexes."""
        pages: dict[str, bytes] = dict(self.assets)
        pages["index.html"] = self.page_home()
        pages["browse/index.html"] = self.page_browse()
        pages["404.html"] = self.page_404()
        for org in self.orgs.values():
            pages[f"{org['id']}/index.html"] = self.page_org(org)
        taken = set(pages) | set(self.output.files) | {f"{r.hf_id}/index.html" for r in self.recipes}
        dirs = {posixpath.dirname(p) for p in taken}
        folded = {p.casefold() for p in taken}

        def stub(path: str, target: str, keep_query: bool) -> None:
            key = f"{path}/index.html"
            if key in taken or path in taken or path in dirs and key in taken:
                return
            if key.casefold() in folded or path.casefold() in folded:
                return  # it would overwrite that output on a case-insensitive disk; the 404 page redirects
            pages[key] = self.redirect_stub(target, keep_query)
            taken.add(key)
            folded.add(key.casefold())

        # Variant-checkpoint aliases only (RCP-02). Other casings of a recipe or provider page
        # (RCP-01, ORG-01) get no stub, as a stub would replace the page itself on a
        # case-insensitive disk: the 404 page's case-insensitive lookup redirects them (ERR-05).
        for alias, target in self.aliases().items():
            stub(alias, target, keep_query=False)
        pages.update(self.index_texts())
        return pages

    def index_texts(self) -> dict[str, bytes]:
        """The machine-readable indexes that list every recipe."""
        return {
            "sitemap.xml": self.sitemap(),
            "robots.txt": self.robots(),
            "llms.txt": self.llms(),
            "llms-full.txt": self.llms_full(),
            "feed.xml": self.feed(),
            "search-index.json": self.search_index(),
        }

    def render_some(self, hf_ids: set[str]) -> dict[str, bytes]:
        """The pages an edit of the recipes ``hf_ids`` touches: their own pages and every listing."""
        pages = {
            "index.html": self.page_home(),
            "browse/index.html": self.page_browse(),
            "404.html": self.page_404(),
        }
        edited = [self.by_id[h] for h in hf_ids if h in self.by_id]
        for org_id in {r.org for r in edited}:
            pages[f"{org_id}/index.html"] = self.page_org(self.orgs[org_id])
        for r in edited:
            pages[f"{r.hf_id}/index.html"] = self.page_recipe(r)
        pages.update(self.index_texts())
        return pages


def _record_commands(rc: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, command) pairs of one rendering record: the single command or head + workers."""
    if rc.get("command"):
        return [("", _str(rc["command"]))]
    if rc.get("head_command"):
        out = [("Head node", _str(rc["head_command"]))]
        workers = rc.get("worker_commands") if isinstance(rc.get("worker_commands"), list) else []
        workers = workers or ([rc["worker_command"]] if rc.get("worker_command") else [])
        out += [(f"Worker node {i}", _str(c)) for i, c in enumerate(workers, 1)]
        return out
    return []


def _model_path(r: RecipeView) -> str:
    rel = r.rel_path.replace("\\", "/")
    return rel if rel.startswith("models/") else f"models/{r.hf_id}.yaml"


def _hw_synonyms(prof: dict[str, Any]) -> Iterable[str]:
    gen = _str(prof.get("generation"))
    if gen == "tpu":
        yield "tpu"
    if gen == "cpu" and _str(prof.get("brand")) == "Intel":
        yield from ("intel", "xeon", "cpu", "x86")


def _xml(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;"))


def render_pages(
    content: Content, output: BuildOutput, hf_ids: set[str], base_url: str | None = None
) -> dict[str, bytes]:
    """Incremental rendering: the pages of the edited recipes ``hf_ids`` plus every index listing them."""
    return SiteRenderer(content, output, base_url).render_some(hf_ids)


def render_site_parallel(content: Content, output: BuildOutput, base_url: str | None = None) -> dict[str, bytes]:
    """:func:`render_site` on two cores: a forked child renders half of the recipe pages.

    Forks only while the process runs a single thread (fork copies only the calling thread);
    otherwise, where fork is unavailable, on one core, or when the child fails, one process
    renders everything.
    """
    renderer = SiteRenderer(content, output, base_url)
    alone = threading.active_count() == 1  # forking beside other threads could copy a held lock
    if not hasattr(os, "fork") or not alone or (os.cpu_count() or 1) < 2 or len(renderer.recipes) < 8:
        return renderer.render_all()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: render its share, send it back, leave without cleanup handlers
        status = 1
        try:
            os.close(read_end)
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(renderer.render_recipe_pages(1, 2), pipe, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    pages = renderer.render_recipe_pages(0, 2)
    pages.update(renderer.render_shared())
    with os.fdopen(read_end, "rb") as pipe:
        try:
            theirs = pickle.load(pipe)
        except (EOFError, pickle.UnpicklingError):
            theirs = None
    _, status = os.waitpid(pid, 0)
    if theirs is None or status != 0:
        theirs = renderer.render_recipe_pages(1, 2)
    return {**theirs, **pages}


def render_site(content: Content, output: BuildOutput, base_url: str | None = None) -> dict[str, bytes]:
    """Render every HTML page, redirect stub, text file and static asset.

    ``base_url`` (default: ``content.site['base_url']`` or ``http://127.0.0.1:8000``) is
    used for canonical URLs, Open Graph tags, the sitemap, robots.txt and llms.txt.
    Returns output-relative paths → bytes; the caller writes them next to the JSON API.
    """
    return SiteRenderer(content, output, base_url).render_all()
