"""``import-config --from-hub``: architecture facts read from the Hugging Face Hub, with their source.

One recipe (``--from-hub <org>/<repo> [--revision REV] [--variant V]``), every recipe lacking facts
(``--all``), or a comparison of the recorded revisions with the Hub's current ones (``--check``, which
writes nothing). A recipe's facts are its model's ``architecture_config``, a variant's whose
``model_id`` is another repository, and the drafts its ``--speculative-config`` arguments name (kept
in the model's block under ``drafts``). Each of these is imported whole or not at all; a recipe file
is rewritten once, atomically, with everything that could be imported.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builder.cli.hub import HubFailure, current_revision, fetch_config
from builder.cli.import_config import BLOCK_KEY, Blocks, edited, holder, read_recipe, write_atomically
from builder.cli.reporting import Refused
from builder.content.log_text import log_text
from builder.content.problems import ContentError
from builder.content.recipe_lints import arg_lists
from builder.resolver import is_omni
from builder.resolver.memory import ArchitectureError, architecture_facts, states_precision, with_quant_file


@dataclass(frozen=True)
class Target:
    """One import: a repository's facts for the model's block, a variant's, or a draft of the model's."""

    variant: str | None  # None: the model's block
    repo: str
    draft: bool = False

    @property
    def field(self) -> str:
        owner = f"variants.{self.variant}" if self.variant else "model"
        return f"{owner}.{BLOCK_KEY}" + (f".drafts.{self.repo}" if self.draft else "")


@dataclass
class Outcome:
    """What one recipe's import wrote and what failed."""

    written: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


QUANT_FILE = "hf_quant_config.json"  # ModelOpt's precision, beside a config.json that may not state it


def quant_file(repo: str, sha: str) -> dict[str, Any] | None:
    """The repository's ``hf_quant_config.json`` at ``sha``, or None when it has none (or it cannot be
    read)."""
    try:
        return fetch_config(repo, sha, QUANT_FILE)[0]
    except HubFailure:
        return None


def hub_facts(repo: str, revision: str | None) -> dict[str, Any]:
    """The facts of ``repo`` at ``revision`` (default: main) with ``source`` first; raises
    :class:`HubFailure`. A checkpoint whose ``config.json`` states no precision gets it from its
    ``hf_quant_config.json``."""
    config, sha = fetch_config(repo, revision)
    try:
        if not states_precision(config):
            config = dict(with_quant_file(config, quant_file(repo, sha)))
        facts = architecture_facts(config)
    except ArchitectureError as err:
        where = f"{err.field}: " if err.field else ""
        raise HubFailure(f"an architecture the memory model does not know ({where}{err.message})") from None
    source: dict[str, Any] = {"repo": repo, "revision": sha}
    if revision and revision not in ("main", sha):
        source["ref"] = revision
    return {"source": source, **facts}


def draft_repos(data: dict[str, Any]) -> list[str]:
    """Repositories the recipe's ``--speculative-config`` arguments name as draft models, in order."""
    found: list[str] = []
    for _, args in arg_lists(data):
        for index, item in enumerate(args[:-1]):
            if item != "--speculative-config" or not isinstance(args[index + 1], str):
                continue
            try:
                spec = json.loads(args[index + 1])
            except ValueError:
                continue
            model = spec.get("model") if isinstance(spec, dict) else None
            if isinstance(model, str) and model.count("/") == 1 and model not in found:
                found.append(model)
    return found


def _block(data: dict[str, Any], variant: str | None) -> dict[str, Any]:
    block = holder(data, variant).get(BLOCK_KEY)
    return dict(block) if isinstance(block, dict) else {}


def targets(data: dict[str, Any], hf_id: str, variant: str | None = None,
            everything: bool = True) -> list[Target]:
    """The imports a recipe needs: with ``everything``, its block and drafts again; otherwise only what lacks
    facts."""
    model_repo = holder(data, None).get("model_id") or hf_id
    if variant is not None:
        repo = holder(data, variant).get("model_id") or model_repo
        return [Target(variant, repo)]
    found = [Target(None, model_repo)] if everything or not _block(data, None) else []
    for key, block in (data.get("variants") or {}).items():
        repo = block.get("model_id") if isinstance(block, dict) else None
        if isinstance(repo, str) and repo != model_repo and (everything or not _block(data, key)):
            found.append(Target(key, repo))
    drafts = _block(data, None).get("drafts") or {}
    found += [Target(None, repo, draft=True) for repo in draft_repos(data) if everything
              or repo not in drafts]
    return found


def import_recipe(content: Path, hf_id: str, wanted: list[Target], revision: str | None) -> Outcome:
    """Import ``wanted`` into one recipe and rewrite it once with everything that worked."""
    rel, path, text, data = read_recipe(content, hf_id)
    outcome = Outcome()
    blocks: Blocks = {}
    for target in wanted:
        if target.draft and None not in blocks and not _block(data, None):
            continue  # a draft is kept in the model's block, which could not be imported
        try:
            facts = hub_facts(target.repo, None if target.draft else revision)
        except HubFailure as failure:
            outcome.failed.append(f"{rel}: {target.field}: {target.repo}: {failure}")
            continue
        if target.draft:
            block = blocks.get(None) or _block(data, None)
            block["drafts"] = {**(block.get("drafts") or {}), target.repo: facts}
            blocks[None] = block
        else:
            kept = _block(data, target.variant).get("drafts")
            blocks[target.variant] = {**facts, **({"drafts": kept} if kept else {})}
        outcome.written.append(f"{target.field} ({target.repo}@{facts['source']['revision'][:12]})")
    if blocks:
        write_atomically(path, edited(text, blocks, rel))
    return outcome


def recipe_ids(content: Path) -> Iterator[str]:
    """``<org>/<repo>`` of every recipe file under ``models/``, in path order."""
    for path in sorted((content / "models").glob("*/*.yaml")):
        yield f"{path.parent.name}/{path.stem}"


def import_from_hub(content: Path, hf_id: str | None, revision: str | None, variant: str | None,
                    every: bool) -> int:
    """``--from-hub <org>/<repo>`` or ``--from-hub --all``: exit 1 when anything could not be imported."""
    if every:
        ids = list(recipe_ids(content))
    elif hf_id is not None:
        ids = [hf_id]
    else:
        raise Refused("--from-hub needs <org>/<repo> or --all")
    failed: list[str] = []
    imported = 0
    for recipe in ids:
        _, _, _, data = read_recipe(content, recipe)
        if is_omni(data):
            continue  # served by vLLM-Omni: no memory estimate
        outcome = import_recipe(content, recipe, targets(data, recipe, variant, everything=not every),
                                revision)
        for line in outcome.written:
            print(log_text(f"{recipe}: wrote {line}"))
        imported += bool(outcome.written)
        failed += outcome.failed
    for line in failed:
        print(log_text(line), file=sys.stderr)
    print(f"imported facts into {imported} recipe(s); {len(failed)} import(s) failed")
    return 1 if failed else 0


def _sources(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(field, source) of every block of a recipe that records one."""
    keys: list[str | None] = [None, *(data.get("variants") or {})]
    for variant in keys:
        block = _block(data, variant)
        owner = f"variants.{variant}" if variant else "model"
        if isinstance(block.get("source"), dict):
            yield f"{owner}.{BLOCK_KEY}.source", block["source"]
        for repo, draft in (block.get("drafts") or {}).items():
            if isinstance(draft, dict) and isinstance(draft.get("source"), dict):
                yield f"{owner}.{BLOCK_KEY}.drafts.{repo}.source", draft["source"]


def check_sources(content: Path) -> int:
    """``--check``: which recorded revisions are behind the Hub; writes nothing; exit 1 when any is stale."""
    counts = {"current": 0, "stale": 0, "unpinned": 0, "unchecked": 0}
    for recipe in recipe_ids(content):
        try:
            rel, _, _, data = read_recipe(content, recipe)
        except (ContentError, Refused):
            counts["unchecked"] += 1
            continue
        for where, source in _sources(data):
            repo, recorded = source.get("repo"), source.get("revision")
            if not isinstance(repo, str) or not isinstance(recorded, str):
                counts["unpinned"] += 1
                print(log_text(f"{rel}: {where}: {repo}: no revision recorded (imported from a file)"))
                continue
            ref = source.get("ref") if isinstance(source.get("ref"), str) else None
            try:
                now = current_revision(repo, ref)
            except HubFailure as failure:
                counts["unchecked"] += 1
                print(log_text(f"{rel}: {where}: {repo}: not checked: {failure}"), file=sys.stderr)
                continue
            if now == recorded:
                counts["current"] += 1
            else:
                counts["stale"] += 1
                print(log_text(f"{rel}: {where}: {repo}: stale: facts from {recorded[:12]}, {ref or 'main'} "
                               f"is now {now[:12]} (vllm-recipes import-config --from-hub {recipe})"),
                      file=sys.stderr)
    print(", ".join(f"{n} {word}" for word, n in counts.items()))
    return 1 if counts["stale"] or counts["unchecked"] else 0
