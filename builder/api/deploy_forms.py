"""``/<base>/<form>.json``: an output form's files for every per-hardware record of a base.

Published for the forms of :data:`API_FORMS` (vLLM's own config file today). Each entry holds the files
:func:`~builder.resolver.deploy.deployment_output` makes of the record ``/<base>/hw/<hw>.json`` serves:
the function behind the builder's tab and ``resolve --format``, so the three never differ.
"""

from __future__ import annotations

from typing import Any, TypedDict

from builder.resolver.deploy import DeployFileText, deployment_output, pd_ranks
from builder.resolver.types import Selection, Vocab

API_FORMS = ("vllm-config",)  # the DEPLOY_FORMATS ids the JSON API publishes


class FormEntry(TypedDict):
    """One hardware's files: the record they are made of, each file (name, text, the command that
    applies it; an env file's is empty, the config file's command reads it), or why there are none."""

    record: str  # "/<base>/hw/<hw>.json"
    files: list[DeployFileText]
    reason: str | None


class FormDocument(TypedDict):
    hf_id: str  # the base: the recipe's hf id or a promoted variant's model id
    format: str
    by_hardware: dict[str, FormEntry]  # in the order of recommended_command.by_hardware


def form_path(base: str, fmt: str) -> str:
    """The output-relative path of a base's ``fmt`` document."""
    return f"{base}/{fmt}.json"


def form_entry(recipe: dict[str, Any], vocab: Vocab, fmt: str, record: dict[str, Any],
               link: str) -> FormEntry:
    """``fmt``'s files of one published record (a prefill/decode pool's follower ranks rendered as the
    builder renders them for the same hardware, variant and strategy)."""
    ranks = None
    if record.get("deploy_type") == "pd_cluster":
        selection: Selection = {"hardware": record["hardware"], "variant": record["variant"],
                                "strategy": record["strategy"], "substitute": False}
        ranks = pd_ranks(recipe, vocab, selection, record)
    out = deployment_output(record, vocab, fmt, ranks)
    return {"record": link, "files": out["files"], "reason": out["reason"]}
