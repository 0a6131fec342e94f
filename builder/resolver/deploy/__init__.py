"""Deployment documents (Kubernetes, Compose) of a rendering record, written as YAML text.

Standard library only (the builder runs it in the browser). The documents carry the record's
argv and env unchanged apart from the mapped placeholders (see :mod:`.placeholders`,
:mod:`.ranks`); vendor device settings come from the docker form (:mod:`.devices`).
"""

from __future__ import annotations

from typing import Any, TypedDict

from ..resolve import resolve
from ..types import JSON, ResolveError, Selection, Vocab
from ..values import as_dict
from .compose import compose_files, env_note
from .kubernetes import kubernetes_documents
from .plan import RankRenderer, plan_of
from .types import DeployFile
from .yaml_text import comment_lines, dump, dump_all

FORMATS = ("k8s", "compose")
FORMAT_LABELS = {"k8s": "Kubernetes", "compose": "Compose"}


class DeployFileText(TypedDict):
    filename: str
    text: str


class DeployOutput(TypedDict):
    """One format's output for a record: its files, the text ``resolve --format`` prints, or why there is none."""

    format: str
    files: list[DeployFileText]
    text: str
    reason: str | None


def pd_ranks(recipe: JSON, vocab: Vocab, selection: Selection, record: dict[str, Any]) -> RankRenderer:
    """Renders a PD pool's follower rank through the resolver (the record holds node 1 of each pool)."""
    def render(role: str, rank: int) -> dict[str, Any]:
        pools = {r: {"nodes": as_dict(record.get(r)).get("nodes"), "parallelism": as_dict(record.get(r)).get("parallelism")}
                 for r in ("prefill", "decode")}
        pools[role]["rank"] = rank
        again = resolve(recipe, vocab, {**selection, "pd_nodes": pools}, with_views=False)
        return as_dict(again.get(role))
    return render


def deployment_files(record: dict[str, Any], vocab: Vocab, fmt: str, kv_id: Any = None,
                     ranks: RankRenderer | None = None) -> list[DeployFile]:
    """The files of one format (``k8s``: one multi-document file; ``compose``: one file per host)."""
    plan = plan_of(record, vocab, kv_id, ranks)
    if fmt == "k8s":
        docs, notes = kubernetes_documents(plan)
        head = [f"vLLM {plan['base']} on {plan['hardware']}: kubectl apply -f {plan['base']}-{plan['hardware']}.yaml", *notes]
        return [{"filename": f"{plan['base']}-{plan['hardware']}.yaml",
                 "text": dump_all(list(docs), comment_lines(head)), "documents": list(docs)}]
    if fmt == "compose":
        out: list[DeployFile] = []
        notes = [n for w in plan["workloads"] for n in w["notes"] if n] + plan["notes"]
        for filename, compose, names in compose_files(plan):
            head = comment_lines([f"docker compose -f {filename} up -d", *notes, *env_note(names)])
            out.append({"filename": filename, "text": "".join(f"# {line}\n" for line in head) + dump(compose),
                        "documents": [compose]})
        return out
    raise ValueError(f"unknown deployment format {fmt!r}")


def deployment_text(files: list[DeployFile]) -> str:
    """All files as one text: a single file as is, several each under a ``# file: <name>`` line."""
    if len(files) == 1:
        return files[0]["text"]
    return "\n".join(f"# file: {f['filename']}\n{f['text']}" for f in files)


def refusal(record: dict[str, Any]) -> str | None:
    """Why a record has no deployment documents at all (checked before any document is built)."""
    if record.get("deploy_type") == "omni":
        return "omni recipes have no deployment documents yet"
    return None


def deployment_output(record: dict[str, Any], vocab: Vocab, fmt: str, ranks: RankRenderer | None = None) -> DeployOutput:
    """The one function behind ``resolve --format k8s|compose`` and the builder's Kubernetes/Compose tabs."""
    out: DeployOutput = {"format": fmt, "files": [], "text": "", "reason": refusal(record)}
    if out["reason"] is not None:
        return out
    try:
        files = deployment_files(record, vocab, fmt, record.get("kv_offload"), ranks)
    except ResolveError as err:
        out["reason"] = str(err)
        return out
    out["files"] = [{"filename": f["filename"], "text": f["text"]} for f in files]
    out["text"] = deployment_text(files).rstrip("\n")
    return out
