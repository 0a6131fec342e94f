"""The builder's deployment outputs (every :data:`~builder.resolver.deploy.DEPLOY_FORMATS` entry): the text
``resolve --format <form>`` prints."""

from __future__ import annotations

from typing import Any, TypedDict

from ..deploy import FORMAT_LABELS, FORMATS, DeployFileText, deployment_output, pd_ranks, refusal
from ..resolve import resolve
from ..types import Selection
from .facts import BuilderFacts

INSTALL_CHOICES = ("pip", "docker", *FORMATS)
"""Every ``install`` value the URL keeps (the two install forms, then the deployment formats)."""


class DeployView(TypedDict):
    """The active deployment format as the builder shows it (``files`` empty when ``reason`` says why)."""

    format: str
    label: str
    files: list[DeployFileText]
    text: str
    reason: str | None


def deploy_tabs(deploy_type: Any) -> list[dict[str, Any]]:
    """The deployment entries of the install strip (``reason`` set when they are unavailable)."""
    reason = refusal({"deploy_type": deploy_type})
    return [{"id": fmt, "label": FORMAT_LABELS[fmt], "command": "", "note": None, "reason": reason}
            for fmt in FORMATS]


def unavailable_note(tabs: list[dict[str, Any]]) -> str | None:
    """One sentence naming the disabled install choices and why (None when all are available)."""
    off = [t for t in tabs if t.get("reason")]
    if not off:
        return None
    reasons = list(dict.fromkeys(str(t["reason"]) for t in off))
    labels = [str(t["label"]) for t in off]
    named = labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} and {labels[-1]}"
    return f"{named}: {'; '.join(reasons)}."


def deploy_view(facts: BuilderFacts, fmt: str, record: dict[str, Any],
                selection: Selection | None) -> DeployView:
    """``fmt``'s files for the shown record (``selection`` None: a preset point, whose followers are not
    rendered)."""
    if (selection is not None and record.get("deploy_type") == "kv_store_lb"
        and record.get("current_instance")):
        kv = selection.get("kv_instances")
        first: Selection = ({**selection, "kv_instances": {**kv, "current": 0}} if isinstance(kv, dict)
                            else selection)
        # the documents start from instance 1
        record = resolve(facts.recipe, facts.vocab, first, with_views=False)
    ranks = pd_ranks(facts.recipe, facts.vocab, selection, record) if selection is not None else None
    out = deployment_output(record, facts.vocab, fmt, ranks)
    return {"format": fmt, "label": FORMAT_LABELS[fmt], "files": out["files"],
            "text": out["text"], "reason": out["reason"]}
