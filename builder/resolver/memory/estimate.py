"""The estimate of one start-up per GPU and its verdict (fits, tight, wont_start)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .architecture import STATE_KINDS, Arch, Layer, read_architecture
from .constants import (
    BLOCK_SIZE,
    DTYPE_BYTES,
    GIB,
    KV_DTYPE_BYTES,
    NON_TORCH_GIB,
    TP_COMMUNICATOR_GIB,
    VISIBLE_FRACTION,
)
from .draft import Draft, draft_estimate, lora_bytes
from .kv import Pool, _kv_layer_bytes, _max_len_that_fits, attention_pool, hybrid_pool, indexer_bytes
from .memo import memoised
from .overhead import _activation_peak, _cuda_graph_bytes
from .settings import resolve_settings
from .sharding import FATAL_RULES, _findings
from .types import Finding, MemoryEstimate, ResolvedSettings, StageEstimate, Verdict
from .weights import _Sharding, _sharding, _stage_layers, _stage_weights, encoder_params


def _gib(value: float) -> float:
    return round(value / GIB, 3)


@memoised  # many records of a build ask for the same estimate
def estimate_memory(config: Mapping[str, Any], settings: Mapping[str, Any]) -> MemoryEstimate:
    """Weights, KV cache and verdict of a vLLM start-up, per GPU.

    Raises :class:`ArchitectureError` (or :class:`SettingsError`) for bad input.
    """
    arch = read_architecture(config)
    s = resolve_settings(arch, settings)
    findings = _findings(arch, s)
    tp, pp = s["tp"], s["pp"]
    total = s["gpu_memory_gib"] * GIB
    requested = s["gpu_memory_utilization"] * total
    kv_bytes = (DTYPE_BYTES[s["dtype"]] if s["kv_cache_dtype"] == "auto"
                else KV_DTYPE_BYTES[s["kv_cache_dtype"]])
    per_layer = _kv_layer_bytes(arch, tp, kv_bytes)
    sh = _sharding(arch, s)
    kv_budget = None if s["kv_cache_gib"] is None else s["kv_cache_gib"] * GIB
    non_torch = NON_TORCH_GIB * GIB + (TP_COMMUNICATOR_GIB * GIB if tp > 1 else 0)
    stages: list[StageEstimate] = []
    stage_layers = [layers for layers in _stage_layers(arch, pp) if layers] or [[]]
    params_per_gpu = 0
    draft = draft_estimate(arch, config, s)
    for index, layers in enumerate(stage_layers):
        first, last = index == 0, index == len(stage_layers) - 1
        weights, params = _stage_weights(arch, layers, sh, s, first, last)
        params_per_gpu = max(params_per_gpu, params)
        weights += lora_bytes(arch, s, layers)
        draft_kv = draft.kv_bytes_per_token if draft and last else 0
        weights += draft.weight_bytes if draft and last else 0
        peak = _activation_peak(arch, layers, sh, s, last)
        non_kv = weights + peak + non_torch
        available = requested - non_kv
        if kv_budget is not None:
            available = kv_budget
        if layers:
            pool = _stage_pool(arch, layers, per_layer, draft, draft_kv, available, s)
        else:
            pool = Pool(0, 0, BLOCK_SIZE, 0, 0, 0.0, 0, 0.0)
        stages.append(
            StageEstimate(
                stage=index,
                layers=len(layers),
                weights_gib=_gib(weights),
                activation_peak_gib=_gib(peak),
                non_torch_gib=_gib(non_torch),
                non_kv_gib=_gib(non_kv),
                available_kv_gib=_gib(available),
                kv_bytes_per_token=pool.bytes_per_token,
                kv_blocks=pool.blocks,
                kv_tokens=pool.tokens,
                max_concurrency=round(pool.concurrency, 2),
                one_request_kv_gib=_gib(pool.one_request),
                cuda_graph_gib=_gib(_cuda_graph_bytes(layers)),
                state_bytes_per_sequence=pool.state_bytes,
                kv_block_size=pool.block_size,
                state_padding_pct=round(pool.state_padding, 2),
            )
        )
    binding = min(stages, key=lambda stage: (stage["kv_blocks"], stage["available_kv_gib"]))
    heaviest = max(stages, key=lambda stage: stage["weights_gib"])
    total_params = _stage_weights(arch, list(arch.layers), _Sharding(1, arch.experts, 1), s, True, True)[1]
    parts, estimated, not_estimated = _beyond_the_text_model(arch, s, draft)
    counted, missing = _layer_notes(arch, binding)
    estimated += counted
    not_estimated += missing
    verdict, reason = _verdict(arch, s, findings, list(zip(stages, stage_layers, strict=True)), binding,
                               per_layer)
    return MemoryEstimate(
        vllm_version=s["vllm_version"],
        model_type=arch.model_type,
        params_total=total_params,
        params_per_gpu=params_per_gpu,
        weights_gib=heaviest["weights_gib"],
        kv_bytes_per_token=binding["kv_bytes_per_token"],
        state_bytes_per_sequence=binding["state_bytes_per_sequence"],
        kv_block_size=binding["kv_block_size"],
        state_padding_pct=binding["state_padding_pct"],
        available_kv_gib=binding["available_kv_gib"],
        kv_tokens=binding["kv_tokens"],
        max_concurrency=min(stage["max_concurrency"] for stage in stages),
        requested_gib=_gib(requested),
        non_kv_gib=binding["non_kv_gib"],
        activation_peak_gib=binding["activation_peak_gib"],
        non_torch_gib=binding["non_torch_gib"],
        cuda_graph_gib=max(stage["cuda_graph_gib"] for stage in stages),
        non_kv_parts=["weights_gib", "activation_peak_gib", "non_torch_gib"],
        parts=parts,
        draft_kv_bytes_per_token=draft.kv_bytes_per_token if draft else 0,
        estimated=estimated,
        not_estimated=not_estimated,
        settings=s,
        stages=stages,
        findings=findings,
        verdict=verdict,
        reason=reason,
    )


def _stage_pool(arch: Arch, layers: list[Layer], per_layer: int, draft: Draft | None, draft_kv: int,
                available: float, s: ResolvedSettings) -> Pool:
    """The KV pool of one stage: the hybrid allocator's when it has state layers, else attention groups."""
    if any(layer.attention in STATE_KINDS for layer in layers):
        mtp = arch.mtp_layers if draft is not None and draft.kv_bytes_per_token and draft_kv else 0
        return hybrid_pool(arch, layers, per_layer, mtp, available, s)
    return attention_pool(arch, layers, per_layer, draft_kv, available, s)


def _layer_notes(arch: Arch, binding: StageEstimate) -> tuple[list[str], list[str]]:
    """What the figures of a hybrid or sparse model count, and leave out, in words."""
    notes: list[str] = []
    missing: list[str] = []
    if binding["state_bytes_per_sequence"]:
        names = {"linear": "Gated DeltaNet", "kda": "Kimi Delta Attention", "mamba": "Mamba2"}
        kinds = sorted({names[layer.attention] for layer in arch.layers if layer.attention in STATE_KINDS})
        notes.append(
            f"{' and '.join(kinds)} state included: {binding['state_bytes_per_sequence'] / (1 << 20):,.1f} "
            "MiB per sequence, reserved per request on top of the KV tokens (vLLM's hybrid allocator: "
            f"attention blocks of {binding['kv_block_size']:,} tokens, state pages padded to them)"
        )
        missing.append("the profile run's scan buffers of the linear-attention / Mamba kernels not estimated "
                       "(the activation peak counts attention and MLPs)")
    if any(layer.indexer for layer in arch.layers):
        notes.append(f"sparse-attention indexer cache included ({indexer_bytes(arch)} bytes per token per "
                     "indexed layer)")
        if not arch.mla:
            missing.append(
                "MiniMax-M3's sparse-attention (MSA) index cache is sized as DeepSeek's DSA indexer cache")
    return notes, missing


def _beyond_the_text_model(arch: Arch, s: ResolvedSettings,
                           draft: Draft | None) -> tuple[dict[str, float], list[str], list[str]]:
    """GiB per GPU of the encoder, draft and LoRA parts, and the words for what is and is not estimated."""
    parts: dict[str, float] = {}
    estimated: list[str] = []
    missing: list[str] = []
    dtype = DTYPE_BYTES[s["dtype"]]
    towers = [name for name, params in (("vision", arch.vision_params), ("audio", arch.audio_params))
              if params]
    if towers:
        what = " and ".join(towers) + (" encoders" if len(towers) > 1 else " encoder")
        if s["language_model_only"]:
            estimated.append(f"no {what} (--language-model-only)")
        else:
            parts["encoder_gib"] = _gib(encoder_params(arch, s, s["tp"]) * dtype)
            estimated.append(f"{what} included ({parts['encoder_gib']:.2f} GiB)")
    if draft is not None and draft.missing:
        missing.append(f"{draft.label} not estimated: {draft.missing}")
    elif draft is not None:
        parts["draft_gib"] = _gib(draft.weight_bytes)
        kv = f", {draft.kv_bytes_per_token:,} KV bytes per token" if draft.kv_bytes_per_token else ""
        estimated.append(f"{draft.label} included ({parts['draft_gib']:.2f} GiB{kv})")
    if s["max_loras"]:
        parts["lora_gib"] = _gib(lora_bytes(arch, s, list(arch.layers)) / s["pp"])
        estimated.append(f"LoRA buffers included ({s['max_loras']} × rank {s['max_lora_rank']}, "
                         f"{parts['lora_gib']:.2f} GiB)")
        if arch.experts:
            missing.append("LoRA on the experts not estimated")
    if s["dp"] > 1:
        gpus = s["dp"] * s["tp"] * s["pp"]
        estimated.append(f"per replica: DP {s['dp']} × TP {s['tp']} × PP {s['pp']} = {gpus} GPUs")
    return parts, estimated, missing


def _verdict(
    arch: Arch,
    s: ResolvedSettings,
    findings: list[Finding],
    staged: list[tuple[StageEstimate, list[Layer]]],
    binding: StageEstimate,
    per_layer: int,
) -> tuple[Verdict, str]:
    """"fits", "tight" or "wont_start", and why (vLLM's reasons where it refuses)."""
    for finding in findings:
        if finding.rule in FATAL_RULES:
            return "wont_start", finding.message
    if arch.max_len and s["max_model_len"] > arch.max_len:
        return "wont_start", (
            f"max_model_len {s['max_model_len']} is greater than the model's maximum of {arch.max_len} "
            "positions (max_position_embeddings); vLLM refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
        )
    if s["max_num_batched_tokens"] < s["max_num_seqs"]:
        return "wont_start", (
            f"max_num_batched_tokens ({s['max_num_batched_tokens']}) must be greater than or equal to "
            f"max_num_seqs ({s['max_num_seqs']})"
        )
    stages = [stage for stage, _ in staged]
    heaviest = max(stages, key=lambda stage: stage["weights_gib"])
    total = s["gpu_memory_gib"]
    given = s["kv_cache_gib"] is not None  # the KV budget was given: the GPU's memory is not known
    if heaviest["weights_gib"] > total and not given:
        return "wont_start", (
            f"not enough memory for the weights: {heaviest['weights_gib']:.2f} GiB per GPU, more than the "
            f"GPU's {total:.2f} GiB (CUDA out of memory while loading the model)"
        )
    requested = s["gpu_memory_utilization"] * total
    for stage in stages:
        if given and (stage["available_kv_gib"] <= 0 or stage["kv_blocks"] == 0):
            return "wont_start", f"no room for the KV cache in the {stage['available_kv_gib']:.2f} GiB given"
        if stage["available_kv_gib"] <= 0 or stage["kv_blocks"] == 0:
            return "wont_start", (
                f"no room for the KV cache: weights {stage['weights_gib']:.2f} GiB + activation peak "
                f"{stage['activation_peak_gib']:.2f} GiB + non-torch {stage['non_torch_gib']:.2f} GiB = "
                f"{stage['non_kv_gib']:.2f} GiB leave nothing of gpu_memory_utilization "
                f"{s['gpu_memory_utilization']:g} × {total:.2f} GiB = {requested:.2f} GiB (vLLM: no "
                "available memory for the cache blocks; try increasing gpu_memory_utilization)"
            )
    for stage, layers in staged:
        if stage["one_request_kv_gib"] > stage["available_kv_gib"]:
            # the state comes first
            budget = int(stage["available_kv_gib"] * GIB) - stage["state_bytes_per_sequence"]
            fits = _max_len_that_fits(arch, layers, per_layer, budget, s)
            return "wont_start", (
                f"max_model_len {s['max_model_len']} needs {stage['one_request_kv_gib']:.2f} GiB of KV cache "
                f"for one request, more than the {stage['available_kv_gib']:.2f} GiB available; the "
                f"estimated maximum model length is {fits} (decrease max_model_len or increase "
                "gpu_memory_utilization)"
            )
    concurrency = min(stage["max_concurrency"] for stage in stages)
    if concurrency < 2:
        return "tight", (
            f"only {concurrency:.2f} requests of max_model_len {s['max_model_len']} fit in the KV cache at "
            "once"
        )
    headroom = (1 - s["gpu_memory_utilization"]) * total
    graphs = max(stage["cuda_graph_gib"] for stage in stages)
    if graphs > headroom and not given:
        return "tight", (
            f"CUDA graphs need about {graphs:.2f} GiB, more than the {headroom:.2f} GiB left outside "
            f"gpu_memory_utilization {s['gpu_memory_utilization']:g}; capture may run out of memory "
            "(lower gpu_memory_utilization or use --enforce-eager)"
        )
    return "fits", (
        f"{binding['kv_tokens']:,} tokens of KV cache: {concurrency:.2f} requests of "
        f"{s['max_model_len']:,} tokens at once"
    )


def visible_gib(vram_gb: float) -> float:
    """The memory CUDA reports for a GPU sold with ``vram_gb`` GB (an H100 80 GB shows 79.2 GiB)."""
    return round(vram_gb * VISIBLE_FRACTION, 2)
