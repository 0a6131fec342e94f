"""The static JSON API (json-api.md): every endpoint, built in memory.

Pure: takes validated :class:`Content`, returns a :class:`BuildOutput` whose ``files``
map output-relative paths to bytes. The rendering itself comes from the resolver.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

import orjson

from builder import resolver
from builder.api.argv_lint import ArgvLint, arg_origin
from builder.api.deploy_forms import API_FORMS, FormDocument, FormEntry, form_entry, form_path
from builder.api.output import BuildOutput
from builder.api.performance import RecipePerformance
from builder.checks.memory_lint import MemoryLint
from builder.content.model import Content, RecipeFile
from builder.content.problems import Problem

SYNTHESIS_KEYS = ("strategy_overrides", "compatible_strategies", "default_strategy")


def dumps(value: Any) -> bytes:
    """Serialise like the reference: 2-space indent, raw UTF-8, no trailing newline.

    orjson writes exactly what ``json.dumps(value, indent=2, ensure_ascii=False)`` writes
    for our data (and prints small floats as JavaScript does), eight times faster; the
    standard library covers what orjson refuses (integers beyond 64 bits).
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2)
    except TypeError:
        return json.dumps(value, indent=2, ensure_ascii=False).encode()


class ApiBuilder:
    """Builds every endpoint of one content root in the order of json-api §1.4."""

    def __init__(self, content: Content, source: dict[str, Any] | None = None,
                 files: MutableMapping[str, bytes] | None = None, keep_alternatives: bool = True):
        """``files`` receives the bytes of every endpoint (default: a dict; the build streams them
        to disk); ``keep_alternatives=False`` keeps no objects of the alternative records
        (``…/strategies/<id>.json``), which the pages link but never read."""
        self.content = content
        self.vocab = content.vocab
        self.resolver_vocab = self.vocab.resolver_vocab()
        self.source = source  # provenance settings (json-api §11.3), None when not configured
        self.out = BuildOutput(files={} if files is None else files)
        self.keep_alternatives = keep_alternatives
        self.index: dict[str, list[dict[str, Any]]] = {}  # hf_id -> [own entry, promoted entries...]
        self.owned: dict[str, set[str]] = {}  # hf_id -> paths its processing wrote
        self.base_files: dict[str, set[str]] = {}  # base -> paths under /<base>/
        self.base_owners: dict[str, list[str]] = {}  # base -> recipes that rendered it
        self.current = ""  # hf_id of the recipe being processed
        self.argv_lint = ArgvLint()
        self.memory_lint = MemoryLint(arg_origin)
        self.lint_problems: dict[str, list[Problem]] = {}  # hf_id -> vLLM CLI lint warnings
        self.stored = RecipePerformance()  # the current recipe's predictions and measured results

    # ── catalogues ──

    def write(self, path: str, value: Any, base: str | None = None, keep_object: bool = True) -> None:
        self.out.files[path] = dumps(value)
        if keep_object:
            self.out.objects[path] = value
        self.owned.setdefault(self.current, set()).add(path)
        if base is not None:
            self.base_files.setdefault(base, set()).add(path)

    def forget(self, path: str) -> None:
        """Drop a file written before (its base or recipe is being re-processed)."""
        self.out.files.pop(path, None)
        self.out.objects.pop(path, None)
        self.out.findings.pop(path, None)

    def catalogues(self) -> None:
        """taxonomy, platforms, strategies and kv-store endpoints (json-api §10)."""
        self.write("taxonomy.json", self.vocab.taxonomy)
        if self.vocab.platforms is not None:
            self.write("platforms.json", self.vocab.platforms)
        for name, strategy in self.vocab.strategies.items():
            self.write(f"strategies/{name}.json", strategy)
        self.write("strategies.json", self.vocab.strategies)
        for name, deployment in self.vocab.kv_store.items():
            self.write(f"kv_store/{name}.json", deployment)
        self.write("kv_store.json", self.vocab.kv_store)

    # ── one base: the rendering matrix (json-api §4) ──

    def render_base(self, data: dict[str, Any], variant_key: str, base: str, parent_id: str) -> dict | None:
        """Write ``/<base>/…`` for one (recipe, variant) and return its recommended_command."""
        if variant_key not in (data.get("variants") or {}) or resolver.is_omni(data):
            return None
        for path in self.base_files.pop(base, set()):
            self.forget(path)
        owners = self.base_owners.setdefault(base, [])
        if self.current not in owners:
            owners.append(self.current)
        matrix = resolver.render_matrix(data, self.resolver_vocab, variant_key, parent_id)
        self.out.warnings.extend(matrix["warnings"])
        rendered = matrix["hardware"]
        if not rendered:
            return None
        default_hw = rendered[0]["hardware"]
        profiles = resolver.published_profiles(self.vocab.taxonomy)
        strategies = self.vocab.strategy_map
        by_hardware: dict[str, str] = {}
        forms: dict[str, dict[str, FormEntry]] = {fmt: {} for fmt in API_FORMS}
        result: dict[str, Any] | None = None
        for entry in rendered:
            hw = entry["hardware"]
            folder = f"{base}/strategies" if hw == default_hw else f"{base}/hw/{hw}/strategies"
            links: dict[str, str] = {}
            for strategy_id, alternative in entry["alternatives"]:
                record = self.with_memory(data, alternative)
                self.write(f"{folder}/{strategy_id}.json", record, base, keep_object=self.keep_alternatives)
                self.out.findings[f"{folder}/{strategy_id}.json"] = self.argv_lint.record(record)
                links[strategy_id] = f"/{folder}/{strategy_id}.json"
            record = dict(entry["recommended"])
            self.out.findings[f"{base}/hw/{hw}.json"] = self.argv_lint.record(record)
            if record["strategy"] in strategies:
                record["strategy_spec"] = strategies[record["strategy"]]
            record["hardware_profile"] = profiles.get(hw)
            if links:
                record["alternatives"] = links
            record = self.with_memory(data, record)
            self.write(f"{base}/hw/{hw}.json", record, base)
            by_hardware[hw] = f"/{base}/hw/{hw}.json"
            for fmt, entries in forms.items():
                entries[hw] = form_entry(data, self.resolver_vocab, fmt, record, by_hardware[hw])
            if hw == default_hw:
                result = record
        assert result is not None
        for fmt, entries in forms.items():
            document: FormDocument = {"hf_id": base, "format": fmt, "by_hardware": entries}
            self.write(form_path(base, fmt), document, base, keep_object=False)
        # the document's recommended_command: the record without its memory and performance (see
        # /<base>/hw/<hw>.json)
        return {**{k: v for k, v in result.items() if k not in ("memory", "performance")},
                "by_hardware": by_hardware}

    def with_memory(self, data: dict[str, Any], record: dict[str, Any],
                    preset: str | None = None) -> dict[str, Any]:
        """The record (a preset point too) with its ``memory`` block appended where the recipe has
        architecture facts, and its ``performance`` block where the recipe has stored predictions or results;
        lints it."""
        variant = (data.get("variants") or {}).get(record.get("variant")) or {}
        profile = (self.vocab.taxonomy.get("hardware_profiles") or {}).get(record.get("hardware")) or {}
        memory = resolver.memory_for_record(record, data, variant, profile)
        self.memory_lint.record(record, memory, preset)
        record = record if memory is None else {**record, "memory": memory}
        block = self.stored.block(record, data, variant, profile, preset is not None)
        return record if block is None else {**record, "performance": block}

    # ── recipes (json-api §3) ──

    def recipe(self, recipe: RecipeFile, standalone: set[str]) -> None:
        data = recipe.data
        hf_id = recipe.hf_id
        self.current = hf_id
        self.argv_lint.start(recipe)
        self.memory_lint.start(recipe)
        self.stored = RecipePerformance(recipe)
        doc: dict[str, Any] = {"hf_id": hf_id, **{k: v for k, v in data.items() if k != "hf_id"}}
        self.synthesise_install(doc)
        recommended = self.render_base(data, "default", hf_id, hf_id)
        promoted: list[tuple[str, str, dict[str, Any]]] = []
        for vkey, variant in (data.get("variants") or {}).items():
            model_id = (variant or {}).get("model_id")
            if not isinstance(model_id, str) or "/" not in model_id:
                continue
            if model_id in standalone:
                self.out.warnings.append(
                    f"{hf_id}: variant {vkey!r} is not promoted to {model_id}: "
                    f"a standalone recipe with that id exists"
                )
                continue
            rendered = self.render_base(data, vkey, model_id, hf_id)
            if rendered is not None:
                promoted.append((vkey, model_id, rendered))
        if promoted:
            variants = dict(doc["variants"])
            for vkey, model_id, _ in promoted:
                variants[vkey] = {**variants[vkey], "json": f"/{model_id}.json"}
            doc["variants"] = variants
        for key in SYNTHESIS_KEYS:
            doc.pop(key, None)
        if isinstance(doc.get("presets"), dict) and not resolver.is_omni(data):
            doc["presets"] = {
                key: {**preset, "json": f"/{hf_id}/presets/{key}.json"}
                for key, preset in doc["presets"].items()
            }
        if self.source is not None:
            doc["source"] = source_block(self.source, recipe)
        head = {"hf_id": hf_id, "meta": doc.get("meta")}
        if "meta" not in doc:
            del head["meta"]
        if recommended is not None:
            head["recommended_command"] = recommended
        doc = {**head, **{k: v for k, v in doc.items() if k not in head}}
        self.write(f"{hf_id}.json", doc)
        self.out.documents[hf_id] = doc
        self.presets(recipe, doc)
        meta = doc.get("meta") or {}
        entries = self.index[hf_id] = [index_entry(hf_id, meta, hf_id)]
        for vkey, model_id, rendered in promoted:
            promoted_doc = promote(doc, vkey, model_id, rendered)
            self.write(f"{model_id}.json", promoted_doc)
            self.out.documents[model_id] = promoted_doc
            entries.append({**index_entry(model_id, meta, hf_id), "derived_from": hf_id})
        self.lint_problems[hf_id] = self.argv_lint.problems() + self.memory_lint.problems()

    def synthesise_install(self, doc: dict[str, Any]) -> None:
        """Replace ``model.install`` with the synthesised block; drop ``dependencies`` (§3.3)."""
        block = resolver.install_block(doc)
        if isinstance(doc.get("model"), dict):
            model = {k: v for k, v in doc["model"].items() if k != "install"}
            if block:
                model["install"] = block
            doc["model"] = model
        elif block:
            doc["model"] = {"install": block}
        doc.pop("dependencies", None)

    def presets(self, recipe: RecipeFile, doc: dict[str, Any]) -> None:
        """``/<hf_id>/presets/<key>.json`` for every preset of a non-omni recipe (§11.7)."""
        presets = recipe.data.get("presets")
        if not isinstance(presets, dict) or resolver.is_omni(recipe.data):
            return
        strategies = self.vocab.strategy_map
        profiles = resolver.published_profiles(self.vocab.taxonomy)
        for key, preset in presets.items():
            resolved = (recipe.resolved_presets.get(key)
                        or resolver.resolve_preset(recipe.data, self.resolver_vocab, key))
            self.out.warnings.extend(resolved["warnings"])
            body: dict[str, Any] = {
                "hf_id": recipe.hf_id,
                "preset": key,
                "label": preset.get("label"),
                "hardware": preset.get("hardware"),
                "strategy": preset.get("strategy"),
                "variant": (preset.get("variants") or ["default"])[0],
            }
            for field in ("workload", "description", "source", "image"):
                if field in preset:
                    body[field] = preset[field]
            if preset.get("strategy") in strategies:
                body["strategy_spec"] = strategies[preset["strategy"]]
            if preset.get("hardware") in profiles:
                body["hardware_profile"] = profiles[preset["hardware"]]
            body["points"] = {}
            for point_key, point in resolved["points"].items():
                self.argv_lint.record(point, f"preset {key}:{point_key}")
                body["points"][point_key] = self.with_memory(recipe.data, point, f"preset {key}:{point_key}")
            if "runbook" in preset:
                body["runbook"] = preset["runbook"]
            self.write(f"{recipe.hf_id}/presets/{key}.json", body, recipe.hf_id)

    def models_index(self) -> None:
        """``/models.json``: recipes in walk order, then promoted variants by parent (§8)."""
        order = [recipe.hf_id for recipe in self.content.recipes]
        own = [self.index[hf_id][0] for hf_id in order]
        promoted = [entry for hf_id in order for entry in self.index[hf_id][1:]]
        self.current = ""
        self.write("models.json", own + promoted)

    def build(self) -> BuildOutput:
        """All endpoints, in the order of json-api §1.4."""
        self.catalogues()
        standalone = {recipe.hf_id for recipe in self.content.recipes}
        for recipe in self.content.recipes:
            self.recipe(recipe, standalone)
        return self.finish()

    def finish(self) -> BuildOutput:
        """The endpoints written after every recipe: the models index and the quickstarts."""
        self.models_index()
        for quickstart in self.content.quickstarts:
            self.write(f"quickstart/{quickstart['hardware_profile']}.json", quickstart)
        self.collect_problems()
        return self.out

    def collect_problems(self) -> None:
        """The vLLM CLI lint warnings of every recipe, in walk order."""
        self.out.problems = [p for r in self.content.recipes for p in self.lint_problems.get(r.hf_id, [])]

    def rebuild_recipe(self, recipe: RecipeFile) -> set[str] | None:
        """Re-process one edited recipe in place; the paths it may have changed.

        None when the edit cannot be applied alone (a new or removed recipe, or a base
        another recipe also renders, where walk order decides the winner): rebuild all.
        """
        hf_id = recipe.hf_id
        recipes = self.content.recipes
        position = next((i for i, r in enumerate(recipes) if r.hf_id == hf_id), None)
        if position is None or any(
            len(owners) > 1 or owners != [hf_id] for base, owners in self.base_owners.items()
            if hf_id in owners
        ):
            return None
        before = self.owned.pop(hf_id, set())
        for path in before:
            self.forget(path)
        for base in [b for b, owners in self.base_owners.items() if owners == [hf_id]]:
            del self.base_owners[base]
            self.base_files.pop(base, None)
        for doc_id in [d for d, doc in self.out.documents.items() if doc.get("hf_id") == d
                       and _parent(doc) == hf_id]:
            del self.out.documents[doc_id]
        recipes[position] = recipe
        standalone = {r.hf_id for r in recipes}
        self.recipe(recipe, standalone)
        self.models_index()
        self.collect_problems()
        new_bases = [b for b, owners in self.base_owners.items() if hf_id in owners]
        if any(len(self.base_owners[b]) > 1 for b in new_bases):
            return None
        return before | self.owned[hf_id] | {"models.json"}


def _parent(doc: dict[str, Any]) -> str:
    """The recipe a document comes from: its own id, or ``meta.derived_from``."""
    return (doc.get("meta") or {}).get("derived_from") or doc["hf_id"]


def index_entry(hf_id: str, meta: dict[str, Any], page_id: str) -> dict[str, Any]:
    """One ``/models.json`` entry (json-api §8)."""
    entry: dict[str, Any] = {"hf_id": hf_id}
    for key in ("title", "provider"):
        if key in meta:
            entry[key] = meta[key]
    entry["url"] = f"/{page_id}"
    entry["json"] = f"/{hf_id}.json"
    return entry


def promote(parent: dict[str, Any], vkey: str, model_id: str, rendered: dict[str, Any]) -> dict[str, Any]:
    """The document of a promoted variant (json-api §6.5)."""
    doc = dict(parent)
    doc["hf_id"] = model_id
    doc["meta"] = {**(parent.get("meta") or {}), "derived_from": parent["hf_id"], "variant": vkey}
    model = dict(parent.get("model") or {})
    model["model_id"] = model_id
    doc["model"] = model
    variant = {k: v for k, v in parent["variants"][vkey].items() if k not in ("model_id", "json")}
    doc["variants"] = {"default": variant}
    doc["recommended_command"] = rendered
    head = ("hf_id", "meta", "recommended_command")
    return {**{k: doc[k] for k in head}, **{k: v for k, v in doc.items() if k not in head}}


def source_block(settings: dict[str, Any], recipe: RecipeFile) -> dict[str, Any]:
    """Provenance of a recipe file (json-api §11.3)."""
    prefix = (settings.get("prefix") or "").strip("/")
    path = f"{prefix}/{recipe.rel_path}" if prefix else recipe.rel_path
    repo, ref = settings.get("repo"), settings.get("ref") or "main"
    overlays = [f"{prefix}/{o}" if prefix else o for o in recipe.overlays]
    block: dict[str, Any] = {
        "source": settings.get("name"),
        "repo": repo,
        "ref": ref,
        "sha": settings.get("sha"),
        "path": path,
    }
    if repo:
        block["edit_url"] = f"https://github.com/{repo}/edit/{ref}/{path}"
    block["overlays"] = overlays
    return block
