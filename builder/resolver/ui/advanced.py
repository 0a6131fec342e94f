"""The Advanced row's options (CB-ADV-*): the builder's fixed ones and the recipe's own."""

from __future__ import annotations

from typing import Any

from ..values import as_dict, as_list, js_str
from .facts import BuilderFacts

BUILDER_ADVANCED: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("max_batched_8k", ("--max-num-batched-tokens", "8192"),
     "Larger prefill chunks: better throughput for long prompts, slightly higher latency."),
    ("max_num_seqs_256", ("--max-num-seqs", "256"), "Cap concurrent sequences per engine at 256."),
    ("gpu_mem_095", ("--gpu-memory-utilization", "0.95"), "Give 95% of GPU memory to weights and KV cache."),
    ("max_model_len_auto", ("--max-model-len", "auto"),
     "Let vLLM pick the longest context that fits in memory."),
    ("dcp_8", ("--decode-context-parallel-size", "8"), "Shard the KV cache across 8 ranks during decode."),
    ("no_flashinfer_autotune", ("--no-enable-flashinfer-autotune",),
     "Skip FlashInfer autotuning at start-up."),
    ("ep_weight_filter", ("--enable-ep-weight-filter",), "Load only the expert weights this rank serves."),
)


def advanced_options(facts: BuilderFacts, sid: str | None) -> list[dict[str, Any]]:
    """CB-ADV-02: ``{id, label, description, args, shown}`` (shown = its gate passes now), shared by
    every caller (:meth:`BuilderFacts.kept`): read it, don't change it."""
    if sid is None or isinstance(sid, str):
        return facts.kept(("advanced_options", sid), lambda: _advanced_options(facts, sid))
    return _advanced_options(facts, sid)


def _advanced_options(facts: BuilderFacts, sid: str | None) -> list[dict[str, Any]]:
    model = as_dict(facts.recipe.get("model"))
    out = []
    for oid, args, desc in BUILDER_ADVANCED:
        if oid == "dcp_8" and model.get("supports_dcp") is not True:
            continue
        if oid == "no_flashinfer_autotune" and model.get("flashinfer_autotune") is not True:
            continue
        shown = oid != "ep_weight_filter" or (isinstance(sid, str) and sid.endswith(("tep", "dep")))
        label = args[0][2:] + (f" = {args[1]}" if len(args) > 1 else "")
        out.append({"id": oid, "label": label, "description": desc, "args": list(args), "shown": shown})
    for i, extra in enumerate(as_list(facts.recipe.get("advanced_options"))):
        authored = extra.get("args") if isinstance(extra, dict) else extra
        if not (isinstance(authored, list) and authored):
            continue
        ed = as_dict(extra)
        oid = js_str(ed.get("id") or f"option_{i + 1}")
        label = js_str(ed.get("label") or " ".join(js_str(a) for a in authored).lstrip("-"))
        out.append({"id": oid, "label": label, "description": js_str(ed.get("description") or ""),
                    "args": [js_str(a) for a in authored], "shown": True})
    return out
