"""Sharding rules: the ways TP, PP, DP and EP settings break an architecture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .architecture import Arch, read_architecture
from .facts import _describe
from .settings import resolve_settings
from .types import Finding, ResolvedSettings, SettingsError

FATAL_RULES = frozenset({"attention-heads-tp", "kv-heads-tp", "quant-block-tp", "layers-pp"})


def _block_finding(key: str, size: int, tp: int, block: int, what: str) -> Finding | None:
    if size % tp == 0 and (size // tp) % block == 0:
        return None
    shard = f"{size // tp}" if size % tp == 0 else f"{size / tp:.2f}"
    return Finding(
        "quant-block-tp",
        f"{key} {size} / tensor parallel size {tp} = {shard} per GPU is not a multiple of the {what} "
        f"{block}: "
        "vLLM cannot shard the quantized weights",
    )


def _findings(arch: Arch, s: ResolvedSettings) -> list[Finding]:
    tp, pp, dp = s["tp"], s["pp"], s["dp"]
    found: list[Finding] = []
    if arch.heads % tp:
        found.append(
            Finding(
                "attention-heads-tp",
                f"Total number of attention heads ({arch.heads}) must be divisible by tensor parallel size "
                f"({tp}).",
            )
        )
    if not arch.mla and arch.kv_heads % tp and tp % arch.kv_heads:
        found.append(
            Finding(
                "kv-heads-tp",
                f"num_key_value_heads {arch.kv_heads} and tensor parallel size {tp} do not divide one "
                "another: the KV heads can be neither split nor replicated evenly",
            )
        )
    block_size = 0
    what = ""
    bits = s["weight_bits"] or arch.quant_bits or 8
    if arch.quant_block:
        block_size = arch.quant_block[0]
        what = f"{'FP' if arch.quant_float else 'INT'}{bits} weight block size"
    elif arch.quant_group and bits < 8:
        block_size, what = arch.quant_group, f"INT{bits} quantization group size"
    if block_size:
        checks: list[tuple[str, int, int]] = []
        if any(not layer.moe for layer in arch.layers):
            checks.append(("intermediate_size", arch.dense_intermediate, tp))
        if arch.experts:
            checks.append(
                (arch.expert_intermediate_key, arch.expert_intermediate, 1 if s["expert_parallel"] else tp))
            if arch.shared_intermediate:
                checks.append(("shared expert intermediate size", arch.shared_intermediate, tp))
        for key, size, split in checks:
            finding = _block_finding(key, size, split, block_size, what)
            if finding:
                found.append(finding)
                break
    if arch.experts and s["expert_parallel"] and arch.experts % (tp * dp):
        found.append(
            Finding(
                "experts-ep",
                f"{arch.experts} routed experts are not divisible by the expert-parallel size {tp * dp} "
                f"(TP {tp} × DP {dp}): GPUs would hold unequal numbers of experts",
            )
        )
    if len(arch.layers) < pp:
        found.append(
            Finding(
                "layers-pp",
                f"{len(arch.layers)} layers cannot be split over {pp} pipeline stages: every stage needs at "
                "least one layer",
            )
        )
    if s["gpus"] is not None and tp * pp * dp != s["gpus"]:
        found.append(
            Finding(
                "gpus-strategy",
                f"tensor parallel {tp} × pipeline parallel {pp} × data parallel {dp} = {tp * pp * dp} GPUs, "
                f"but the strategy uses {s['gpus']}",
            )
        )
    return found


def sharding_findings(config: Mapping[str, Any], settings: Mapping[str, Any]) -> list[Finding]:
    """Every sharding rule the settings break for this architecture, as (rule id, message).

    Rules: ``attention-heads-tp``, ``kv-heads-tp``, ``quant-block-tp`` (block- or group-quantized
    checkpoints whose intermediate size per GPU is not a multiple of the block), ``experts-ep``,
    ``layers-pp``, ``gpus-strategy`` (only when ``settings["gpus"]`` is given). vLLM refuses to
    start on the first four (:data:`FATAL_RULES`).
    """
    arch = read_architecture(config)
    if not isinstance(settings, Mapping):
        raise SettingsError("", f"expected a mapping, got {_describe(settings)}")
    placeholders = {"gpu_memory_gib": 1, "max_model_len": 1}  # not used by the rules
    return _findings(arch, resolve_settings(
        arch, {**placeholders, **{k: v for k, v in settings.items() if v is not None}}))
