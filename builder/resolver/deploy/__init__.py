"""Deployment documents (Kubernetes, Compose, vLLM's config file) of a rendering record, written as YAML text.

:data:`DEPLOY_FORMATS` is the registry of these output forms: the resolver's views, the builder's tabs,
``resolve --format``, ``diff`` and the recipe page iterate it, so a new form is one entry here.

Standard library only (the builder runs it in the browser). The documents carry the record's
argv and env unchanged apart from the mapped placeholders (see :mod:`.placeholders`,
:mod:`.ranks`); vendor device settings come from the docker form (:mod:`.devices`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple, TypedDict

from ..resolve import resolve
from ..types import JSON, ResolveError, Selection, Vocab
from ..values import as_dict
from .compose import compose_files, env_note
from .kubernetes import kubernetes_documents
from .plan import Plan, RankRenderer, plan_of
from .types import DeployFile
from .vllm_config import vllm_config_files
from .yaml_text import comment_lines, dump, dump_all


class DeployFileText(TypedDict):
    filename: str
    text: str
    apply: str  # the command that starts this file


class DeployOutput(TypedDict):
    """One format's output for a record: its files, the text ``resolve --format`` prints, or why there is
    none."""

    format: str
    files: list[DeployFileText]
    text: str
    reason: str | None


def pd_ranks(recipe: JSON, vocab: Vocab, selection: Selection, record: dict[str, Any]) -> RankRenderer:
    """Renders a PD pool's follower rank through the resolver (the record holds node 1 of each pool)."""
    def render(role: str, rank: int) -> dict[str, Any]:
        pools = {r: {"nodes": as_dict(record.get(r)).get("nodes"),
                     "parallelism": as_dict(record.get(r)).get("parallelism")}
                 for r in ("prefill", "decode")}
        pools[role]["rank"] = rank
        again = resolve(recipe, vocab, {**selection, "pd_nodes": pools}, with_views=False)
        return as_dict(again.get(role))
    return render


def kubernetes_files(plan: Plan) -> list[DeployFile]:
    """One multi-document file for every workload (LeaderWorkerSets, Services, ConfigMaps)."""
    docs, notes = kubernetes_documents(plan)
    filename = f"{plan['base']}-{plan['hardware']}.yaml"
    apply = f"kubectl apply -f {filename}"
    head = [f"vLLM {plan['base']} on {plan['hardware']}: {apply}", *notes]
    return [{"filename": filename, "text": dump_all(list(docs), comment_lines(head)), "documents": list(docs),
             "apply": apply}]


def compose_deploy_files(plan: Plan) -> list[DeployFile]:
    """One Compose file per host."""
    out: list[DeployFile] = []
    notes = [n for w in plan["workloads"] for n in w["notes"] if n] + plan["notes"]
    for filename, compose, names in compose_files(plan):
        apply = f"docker compose -f {filename} up -d"
        head = comment_lines([apply, *notes, *env_note(names)])
        out.append({"filename": filename, "text": "".join(f"# {line}\n" for line in head) + dump(compose),
                    "documents": [compose], "apply": apply})
    return out


class DeployFormat(NamedTuple):
    """One output form besides the shell and docker commands: the one place that names it.

    ``id`` is its value in the URL (``install``), ``resolve --format`` and the view; ``name`` the
    ``diff`` report's form name and ``report_label`` its heading there; ``label`` the builder tab's;
    ``files`` writes its files from a plan.
    """

    id: str
    name: str
    label: str
    report_label: str
    files: Callable[[Plan], list[DeployFile]]


DEPLOY_FORMATS: tuple[DeployFormat, ...] = (
    DeployFormat("k8s", "kubernetes", "Kubernetes", "Kubernetes manifest", kubernetes_files),
    DeployFormat("compose", "compose", "Compose", "Compose file", compose_deploy_files),
    DeployFormat("vllm-config", "vllm-config", "vLLM config", "vLLM config file", vllm_config_files),
)
FORMATS = tuple(f.id for f in DEPLOY_FORMATS)
FORMAT_LABELS = {f.id: f.label for f in DEPLOY_FORMATS}


def deploy_format(fmt: str) -> DeployFormat:
    """The registered form ``fmt``; an unknown one is an error, never a fallback."""
    for known in DEPLOY_FORMATS:
        if known.id == fmt:
            return known
    raise ValueError(f"unknown deployment format {fmt!r} (one of {', '.join(FORMATS)})")


def deployment_files(record: dict[str, Any], vocab: Vocab, fmt: str, kv_id: Any = None,
                     ranks: RankRenderer | None = None) -> list[DeployFile]:
    """The files of one registered format for a record."""
    form = deploy_format(fmt)
    return form.files(plan_of(record, vocab, kv_id, ranks))


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


def deployment_output(record: dict[str, Any], vocab: Vocab, fmt: str,
                      ranks: RankRenderer | None = None) -> DeployOutput:
    """The one function behind ``resolve --format <form>`` and the builder's deployment tabs."""
    out: DeployOutput = {"format": fmt, "files": [], "text": "", "reason": refusal(record)}
    if out["reason"] is not None:
        return out
    try:
        files = deployment_files(record, vocab, fmt, record.get("kv_offload"), ranks)
    except ResolveError as err:
        out["reason"] = str(err)
        return out
    out["files"] = [{"filename": f["filename"], "text": f["text"], "apply": f["apply"]} for f in files]
    out["text"] = deployment_text(files).rstrip("\n")
    return out
