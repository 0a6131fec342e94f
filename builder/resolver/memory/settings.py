"""Serving settings checked and completed with vLLM 0.19's defaults."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from .architecture import Arch
from .checks import check_int, check_number
from .checks import describe as _describe
from .constants import (
    BLOCK_SIZE,
    DEFAULT_BATCHED_TOKENS,
    DEFAULT_GPU_MEMORY_UTILIZATION,
    DEFAULT_LORA_RANK,
    DEFAULT_MAX_NUM_SEQS,
    DTYPE_BYTES,
    DTYPE_NAMES,
    KV_DTYPE_BYTES,
    LARGE_GPU_GIB,
    VLLM_VERSION,
)
from .types import ResolvedSettings, SettingsError, Speculative

VERSION = re.compile(r"\d{1,3}\.\d{1,3}(\.[0-9A-Za-z.+_-]{1,60})?")


def _model_dtype(requested: str, arch: Arch) -> str:
    """vLLM's dtype: "auto" takes the checkpoint's, with float32 checkpoints served in bfloat16."""
    if requested == "auto":
        name = DTYPE_NAMES.get(arch.torch_dtype, arch.torch_dtype)
        return "bfloat16" if name not in DTYPE_BYTES or name == "float32" else name
    return DTYPE_NAMES.get(requested, requested)


def resolve_settings(arch: Arch, settings: Mapping[str, Any]) -> ResolvedSettings:
    """Check the settings and fill in vLLM 0.19's defaults; raises :class:`SettingsError`."""
    if not isinstance(settings, Mapping):
        raise SettingsError("", f"expected a mapping, got {_describe(settings)}")

    def optional(key: str, low: int, high: int, default: int | None) -> int | None:
        value = settings.get(key)
        return default if value is None else check_int(value, key, low, high, SettingsError)

    def number_of(key: str, low: int, high: int, default: int) -> int:
        value = optional(key, low, high, default)
        return default if value is None else value

    budget = settings.get("kv_cache_gib")
    if budget is not None:
        # a log may say -2.14
        budget = check_number(budget, "kv_cache_gib", -(1 << 20), 1 << 20, SettingsError)
    if settings.get("gpu_memory_gib") is None and budget is None:
        raise SettingsError("gpu_memory_gib", "missing: the memory of one GPU is needed")
    raw_total = settings.get("gpu_memory_gib")
    total = 0.0 if raw_total is None else check_number(raw_total, "gpu_memory_gib", 0, 1 << 20, SettingsError)
    utilization = settings.get("gpu_memory_utilization")
    utilization = (
        DEFAULT_GPU_MEMORY_UTILIZATION
        if utilization is None
        else check_number(utilization, "gpu_memory_utilization", 0, 1, SettingsError)
    )
    dtype = settings.get("dtype") or "auto"
    if not isinstance(dtype, str) or dtype != "auto" and dtype not in DTYPE_BYTES:
        raise SettingsError(
            "dtype", f"unknown dtype {_describe(dtype)}: expected auto or one of {', '.join(DTYPE_BYTES)}")
    kv_dtype = settings.get("kv_cache_dtype") or "auto"
    if not isinstance(kv_dtype, str) or kv_dtype != "auto" and kv_dtype not in KV_DTYPE_BYTES:
        raise SettingsError(
            "kv_cache_dtype", f"unknown KV cache dtype {_describe(kv_dtype)}: expected auto or one of "
                              f"{', '.join(KV_DTYPE_BYTES)}"
        )
    expert_parallel = settings.get("expert_parallel", False)
    if not isinstance(expert_parallel, bool):
        raise SettingsError("expert_parallel", f"expected true or false, got {_describe(expert_parallel)}")
    large = total >= LARGE_GPU_GIB
    max_len = optional("max_model_len", 1, 1 << 34, arch.max_len or None)
    if max_len is None:
        raise SettingsError("max_model_len",
                            "missing: the config has no max_position_embeddings to default to")
    only_text = settings.get("language_model_only", False)
    if not isinstance(only_text, bool):
        raise SettingsError("language_model_only", f"expected true or false, got {_describe(only_text)}")
    loras = optional("max_loras", 1, 1024, None)
    caching = settings.get("enable_prefix_caching", False)
    if not isinstance(caching, bool):
        raise SettingsError("enable_prefix_caching", f"expected true or false, got {_describe(caching)}")
    version = settings.get("vllm_version") or VLLM_VERSION
    if not isinstance(version, str) or not VERSION.fullmatch(version):
        raise SettingsError("vllm_version",
                            f"expected a vLLM version such as 0.19.0, got {_describe(version)}")
    return ResolvedSettings(
        tp=number_of("tp", 1, 1024, 1),
        pp=number_of("pp", 1, 1024, 1),
        dp=number_of("dp", 1, 1 << 16, 1),
        expert_parallel=expert_parallel,
        gpus=optional("gpus", 1, 1 << 20, None),
        dtype=_model_dtype(dtype, arch),
        kv_cache_dtype=kv_dtype,
        weight_bits=optional("weight_bits", 1, 32, arch.quant_bits),
        gpu_memory_gib=total,
        gpu_memory_utilization=utilization,
        max_model_len=max_len,
        max_num_batched_tokens=number_of("max_num_batched_tokens", 1, 1 << 34, DEFAULT_BATCHED_TOKENS[large]),
        max_num_seqs=number_of("max_num_seqs", 1, 1 << 20, DEFAULT_MAX_NUM_SEQS[large]),
        block_size=BLOCK_SIZE,
        language_model_only=only_text,
        speculative=_speculative(settings.get("speculative")),
        max_loras=loras or 0,
        max_lora_rank=number_of("max_lora_rank", 1, 1 << 16, DEFAULT_LORA_RANK) if loras else 0,
        kv_cache_gib=budget,
        enable_prefix_caching=caching,
        vllm_version=version,
    )


def _speculative(raw: Any) -> Speculative | None:
    """``--speculative-config`` reduced to method, model and token count; None without one."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise SettingsError("speculative_config", f"expected a JSON object, got {_describe(raw)}")
    spec = Speculative()
    for key in ("method", "model"):
        value = raw.get(key)
        if value is not None:
            if not isinstance(value, str) or not 0 < len(value) <= 200:
                raise SettingsError(f"speculative_config.{key}",
                                    f"expected a short string, got {_describe(value)}")
            spec[key] = value
    tokens = raw.get("num_speculative_tokens")
    if tokens is not None:
        spec["num_speculative_tokens"] = check_int(tokens, "speculative_config.num_speculative_tokens", 1, 64,
                                                   SettingsError)
    return spec
