"""One published command -> the predictor's inputs, or the named reason it cannot be predicted.

The predictor is AIConfigurator (``aiconfigurator-core``), which models vLLM from kernel
measurements per GPU system. This module decides, from the command alone (its resolved argv), the
hardware id, the variant and the recipe's architecture facts, exactly what the predictor is asked:

- the hardware id -> the predictor's system (``HARDWARE_SYSTEMS``); AMD, TPU, CPU and the NVIDIA
  profiles it has no measurements for are named reasons;
- ``--tensor-parallel-size``/``--pipeline-parallel-size``/``--data-parallel-size`` -> TP, PP and
  attention DP; for MoE models vLLM shards the experts over TP x DP ranks: as MoE TP, or as EP with
  ``--enable-expert-parallel``;
- the checkpoint's quantization (the facts' ``quantization_config``, else the variant's precision)
  and ``--quantization`` -> GEMM and MoE quant modes; ``--kv-cache-dtype`` -> the KV cache mode;
- ``--speculative-config`` -> next-n with an acceptance rate from ``ACCEPTANCE`` (each names its
  source); a draft without a known rate is a reason;
- the model's config: the repository and revision the facts were imported from (facts without a
  ``source`` name the checkpoint they describe: the variant's ``model_id`` or the model's);
- ``--max-num-seqs`` (vLLM's default when absent) and the memory model's KV cache tokens bound the
  concurrency sweep; ``--max-num-batched-tokens`` bounds the context tokens of a step.

Standard library only (it runs in the browser too); nothing here imports the predictor.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict

from ..memory.estimate import estimate_memory
from ..memory.rendering import architecture_of, argv_settings, gpu_memory_of, record_argvs
from ..memory.types import ArchitectureError, SettingsError

BACKEND = "vllm"

# hardware profile id -> the predictor's system (its kernel measurements of that GPU)
HARDWARE_SYSTEMS: dict[str, str] = {
    "h100": "h100_sxm",
    "h200": "h200_sxm",
    "b200": "b200_sxm",
    "b300": "b300_sxm",
    "gb200": "gb200",
    "gb300": "gb300",
    "rtx_pro_6000": "rtx_pro_6000_server",
    "rtx_pro_6000_2x": "rtx_pro_6000_server",
    "rtx_pro_6000_8x": "rtx_pro_6000_server",
}
BLACKWELL = {"b200_sxm", "b300_sxm", "gb200", "gb300", "rtx_pro_6000_server"}
BRAND_REASONS = {
    "AMD": "the predictor has no AMD data",
    "Google": "the predictor has no TPU data",
    "Intel": "the predictor has no Intel data",
    "Huawei": "the predictor has no Ascend data",
}

# config.json model_type -> the predictor's model family (AIConfigurator's architecture table)
MODEL_FAMILIES: dict[str, str] = {
    "llama": "LLAMA",
    "qwen2": "LLAMA",
    "qwen3": "LLAMA",
    "mimo": "LLAMA",
    "deepseek_v3": "DEEPSEEK",
    "kimi_k2": "DEEPSEEK",
    "deepseek_v32": "DEEPSEEKV32",
    "glm_moe_dsa": "DEEPSEEKV32",
    "deepseek_v4": "DEEPSEEKV4",
    "kimi_k25": "KIMIK25",
    "mixtral": "MOE",
    "gpt_oss": "MOE",
    "qwen2_moe": "MOE",
    "qwen3_moe": "MOE",
    "minimax_m2": "MOE",
    "minimax_m3": "MINIMAXM3",
    "minimax_m3_vl": "MINIMAXM3",
    "mimo_v2_flash": "HYBRIDMOE",
    "llama4": "HYBRIDMOE",
    "qwen3_5": "QWEN35",
    "qwen3_5_moe": "QWEN35",
    "gemma4": "GEMMA4MIX",
    "nemotron_h": "NEMOTRONH",
}
DENSE_FAMILIES = {"LLAMA"}

# --quantization -> (GEMM mode, MoE mode); None where the predictor has no kernels for the method
ONLINE_QUANT: dict[str, tuple[str, str] | None] = {
    "fp8": ("fp8", "fp8"),
    "awq": ("int4_wo", "int4_wo"),
    "awq_marlin": ("int4_wo", "int4_wo"),
    "gptq": ("int4_wo", "int4_wo"),
    "gptq_marlin": ("int4_wo", "int4_wo"),
    "mxfp4": ("bfloat16", "w4a16_mxfp4"),
    "fp8_per_channel": None,
    "bitsandbytes": None,
}
KV_MODES = {"auto": "bfloat16", "bfloat16": "bfloat16", "fp8": "fp8", "fp8_e4m3": "fp8", "fp8_e5m2": "fp8"}
SPECULATIVE_METHODS = {"eagle", "eagle3", "mtp", "deepseek_mtp", "qwen3_next_mtp", "ernie_mtp",
                       "glm4_moe_mtp"}


class Acceptance(TypedDict):
    """A draft's mean acceptance length (tokens per verification step, bonus token included) at a number of
    draft tokens, and its source."""

    length: float
    tokens: int
    source: str


# draft model (or "<method>" for drafts inside the checkpoint) -> its acceptance; more as sources appear
ACCEPTANCE: dict[str, Acceptance] = {
    "Inferact/MiniMax-M3-EAGLE3-GQA": Acceptance(
        length=2.78,
        tokens=3,
        source="InferenceX golden EAGLE3-GQA acceptance length for MiniMax-M3, three draft "
        "tokens, thinking on (inferencex-e2e/infx/golden_al_distribution/minimaxm3_eagle3_gqa.yaml)",
    ),
}


class PredictorInputs(TypedDict):
    """What the predictor is asked for one command (JSON; key order fixed)."""

    model: str  # the repository whose config.json the predictor reads
    revision: str | None  # the commit the recipe's facts were imported from (None: unpinned)
    system: str
    backend: str
    tp: int
    pp: int
    attention_dp: int
    moe_tp: int
    moe_ep: int
    gemm_quant: str
    moe_quant: str
    kv_cache_quant: str
    nextn: int
    nextn_accepted: float
    acceptance_source: str | None
    max_num_seqs: int
    max_num_batched_tokens: int
    kv_tokens: int  # KV cache tokens of one engine (memory model), which bounds the concurrency


class Unavailable(TypedDict):
    """Why a command has no prediction."""

    unavailable: str


def system_of(hardware: str, profile: Mapping[str, Any]) -> str | Unavailable:
    """The predictor's system for a hardware id, or why there is none."""
    if hardware in HARDWARE_SYSTEMS:
        return HARDWARE_SYSTEMS[hardware]
    brand = profile.get("brand")
    reason = BRAND_REASONS.get(brand) if isinstance(brand, str) else None
    return Unavailable(unavailable=reason or "the predictor has no kernel measurements of this GPU")


def checkpoint_quant(facts: Mapping[str, Any], precision: Any, system: str) -> tuple[str, str] | str:
    """(GEMM mode, MoE mode) of the checkpoint, or the reason it is unknown to the predictor."""
    raw = facts.get("quantization_config")
    quant = raw if isinstance(raw, Mapping) else {}
    fmt = quant.get("format") or quant.get("quant_method")
    nvfp4 = "nvfp4" if system in BLACKWELL else "nvfp4_wo"
    if fmt:
        if fmt == "fp8":
            block = quant.get("weight_block_size")
            if block:
                return "fp8_block", "fp8_block"
            if quant.get("strategy") == "channel":
                return ("the checkpoint's per-channel FP8 scales (the predictor has per-tensor "
                        "and block FP8 only)")
            return "fp8", "fp8"
        if fmt == "nvfp4":
            return nvfp4, nvfp4
        if fmt == "mxfp4":
            return "bfloat16", "w4a16_mxfp4"
        if fmt == "int" and quant.get("bits") in (4, 8):
            mode = "int4_wo" if quant.get("bits") == 4 else "int8_wo"
            return mode, mode if mode == "int4_wo" else "bfloat16"
        return f"the checkpoint's quantization {str(fmt)[:40]!r}"
    if precision in (None, "bf16", "fp16", "bfloat16", "float16"):
        return "bfloat16", "bfloat16"
    if precision == "nvfp4":
        return nvfp4, nvfp4
    if precision == "mxfp4":
        return "bfloat16", "w4a16_mxfp4"
    if precision == "int4":
        return "int4_wo", "int4_wo"
    return (f"a {str(precision)[:20]} checkpoint without its own facts (the scaling of its weights "
            "is not recorded)")


def _speculation(spec: Any) -> tuple[int, float, str | None] | str:
    """(next-n, accepted draft tokens per step, source) of ``--speculative-config``, or the reason."""
    if spec is None:
        return 0, 0.0, None
    if not isinstance(spec, Mapping):
        return "--speculative-config is not a JSON object"
    method = spec.get("method")
    tokens = spec.get("num_speculative_tokens")
    if method not in SPECULATIVE_METHODS:
        return f"speculative method {str(method)[:30]!r} (the predictor models draft-token decoding only)"
    if not isinstance(tokens, int) or isinstance(tokens, bool) or not 1 <= tokens <= 16:
        return "--speculative-config has no num_speculative_tokens"
    draft = spec.get("model")
    acceptance = ACCEPTANCE.get(draft if isinstance(draft, str) else f"<{method}>")
    if acceptance is None:
        return f"no known acceptance rate for the {str(draft or method)[:80]} draft"
    if acceptance["tokens"] != tokens:
        return (f"no known acceptance rate for the {str(draft or method)[:80]} draft with {tokens} tokens "
                f"(known: {acceptance['tokens']})")
    accepted = min(max(acceptance["length"] - 1.0, 0.0), float(tokens))
    return tokens, round(accepted, 4), acceptance["source"]


def predictor_inputs(
    argv: list[Any], hardware: str, profile: Mapping[str, Any], variant: Mapping[str, Any],
    recipe: Mapping[str, Any]
) -> PredictorInputs | Unavailable:
    """The predictor's inputs for one ``vllm serve`` argv, or why it has none."""
    system = system_of(hardware, profile)
    if not isinstance(system, str):
        return system
    architecture = architecture_of(recipe, variant)
    if architecture is None:
        return Unavailable(
            unavailable="no architecture facts in this recipe (vllm-recipes import-config --from-hub)")
    source, facts = architecture
    model_type = facts.get("model_type")
    family = MODEL_FAMILIES.get(model_type) if isinstance(model_type, str) else None
    if family is None:
        return Unavailable(
            unavailable=f"the predictor has no model of the {str(model_type)[:40]!r} architecture")
    origin = facts.get("source")
    origin = origin if isinstance(origin, Mapping) else {}
    owner = variant if source == "variant" else recipe.get("model")
    repo = origin.get("repo") or (owner.get("model_id") if isinstance(owner, Mapping) else None)
    if not isinstance(repo, str) or not repo:
        return Unavailable(unavailable="the architecture facts do not say which repository they come from")
    revision = origin.get("revision")
    settings = argv_settings(argv)
    method = settings.pop("quantization", None)
    precision = variant.get("precision") if source == "model" else None
    checkpoint = variant.get("model_id")
    # its precision says, not the facts
    other = source == "model" and isinstance(checkpoint, str) and checkpoint != repo
    if isinstance(method, str):
        quant = ONLINE_QUANT.get(method)
        if quant is None:
            return Unavailable(unavailable=f"the predictor has no kernels for --quantization {method[:40]}")
    else:
        found = checkpoint_quant({} if other else facts, precision, system)
        if isinstance(found, str):
            return Unavailable(unavailable=f"the predictor does not know {found}")
        quant = found
    kv_dtype = settings.get("kv_cache_dtype", "auto")
    kv_mode = KV_MODES.get(kv_dtype) if isinstance(kv_dtype, str) else None
    if kv_mode is None:
        return Unavailable(
            unavailable=f"the predictor has no KV cache mode for --kv-cache-dtype {str(kv_dtype)[:30]}")
    speculation = _speculation(settings.get("speculative"))
    if isinstance(speculation, str):
        return Unavailable(unavailable=speculation)
    gpu_gib = gpu_memory_of(profile)
    if gpu_gib is None:
        return Unavailable(unavailable="the hardware profile declares no vram_gb and gpu_count")
    bits = {"fp8": 8, "fp8_block": 8, "int8_wo": 8, "int4_wo": 4, "nvfp4": 4, "nvfp4_wo": 4}.get(quant[0])
    if other and quant == ("bfloat16", "bfloat16"):
        bits = 16  # the facts describe a quantized sibling checkpoint
    try:
        estimate = estimate_memory(facts, {**settings, "weight_bits": bits, "gpu_memory_gib": gpu_gib})
    except (ArchitectureError, SettingsError) as err:
        return Unavailable(
            unavailable=f"the memory model cannot size this command: {err.field}: {err.message}")
    if estimate["verdict"] == "wont_start" or estimate["kv_tokens"] <= 0:
        return Unavailable(
            unavailable=f"the memory model says this command won't start: {estimate['reason']}")
    resolved = estimate["settings"]
    tp, pp, dp = resolved["tp"], resolved["pp"], resolved["dp"]
    moe = family not in DENSE_FAMILIES
    experts = tp * dp if moe else 1
    expert_parallel = moe and resolved["expert_parallel"]
    return PredictorInputs(
        model=repo,
        revision=revision if isinstance(revision, str) else None,
        system=system,
        backend=BACKEND,
        tp=tp,
        pp=pp,
        attention_dp=dp,
        moe_tp=1 if expert_parallel else experts,
        moe_ep=experts if expert_parallel else 1,
        gemm_quant=quant[0],
        moe_quant=quant[1],
        kv_cache_quant=kv_mode,
        nextn=speculation[0],
        nextn_accepted=speculation[1],
        acceptance_source=speculation[2],
        max_num_seqs=resolved["max_num_seqs"],
        max_num_batched_tokens=resolved["max_num_batched_tokens"],
        kv_tokens=estimate["kv_tokens"],
    )


def record_inputs(
    record: Mapping[str, Any], recipe: Mapping[str, Any], variant: Mapping[str, Any],
    profile: Mapping[str, Any]
) -> PredictorInputs | Unavailable:
    """The predictor's inputs for a rendering record's command (aggregated serving only)."""
    if record.get("deploy_type") == "pd_cluster":
        return Unavailable(unavailable="disaggregated prefill/decode is not predicted yet")
    commands = record_argvs(record)
    if not commands:
        return Unavailable(unavailable="the record has no vllm serve command")
    hardware = record.get("hardware")
    return predictor_inputs(commands[0][1], hardware if isinstance(hardware, str) else "", profile, variant,
                            recipe)
