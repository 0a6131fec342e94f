"""The memory block of a rendering record: the estimate for the command the record publishes.

Settings are read from the record's own argv (the head's on multi-node, the vLLM instance's
under Mooncake, each role's for prefill/decode), GPU memory from the hardware profile, the
architecture from the variant's ``architecture_config`` or else the model's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, TypedDict

from ..values import is_omni
from .estimate import estimate_memory, visible_gib
from .types import ArchitectureError, SettingsError, Verdict

# argv flag -> (setting, kind); vLLM's short aliases included
FLAG_SETTINGS: dict[str, tuple[str, str]] = {
    "--tensor-parallel-size": ("tp", "int"),
    "-tp": ("tp", "int"),
    "--pipeline-parallel-size": ("pp", "int"),
    "-pp": ("pp", "int"),
    "--data-parallel-size": ("dp", "int"),
    "-dp": ("dp", "int"),
    "--gpu-memory-utilization": ("gpu_memory_utilization", "float"),
    "--max-model-len": ("max_model_len", "int"),
    "--max-num-batched-tokens": ("max_num_batched_tokens", "int"),
    "--max-num-seqs": ("max_num_seqs", "int"),
    "--kv-cache-dtype": ("kv_cache_dtype", "str"),
    "--dtype": ("dtype", "str"),
    "--quantization": ("quantization", "str"),
    "-q": ("quantization", "str"),
}
SWITCHES = {
    "--enable-expert-parallel": "expert_parallel",
    "-ep": "expert_parallel",
    "--language-model-only": "language_model_only",
    "--enable-prefix-caching": "enable_prefix_caching",
    "--enable-lora": "enable_lora",
}
JSON_FLAGS = {"--speculative-config": "speculative", "--limit-mm-per-prompt": "mm_limits"}
LORA_FLAGS = {"--max-loras": "max_loras", "--max-lora-rank": "max_lora_rank"}
# bits of the linear weights for an online quantization method or a variant precision
QUANTIZED_BITS = {"fp8": 8, "mxfp8": 8, "int8": 8, "fp4": 4, "nvfp4": 4, "mxfp4": 4, "int4": 4, "awq": 4,
                  "gptq": 4}
SETTING_FLAGS = {setting: flag for flag, (setting, _) in reversed(list(FLAG_SETTINGS.items()))}


class Finding(TypedDict):
    """One sharding rule broken (rule id, message), as JSON."""

    rule: str
    message: str


class MemoryLine(TypedDict, total=False):
    """The estimate of one command, per GPU (``error`` instead of the numbers for bad input)."""

    architecture: str  # "variant" or "model": whose architecture_config was used
    gpu_memory_gib: float
    tensor_parallel_size: int
    pipeline_parallel_size: int
    max_model_len: int
    weights_gib: float
    kv_cache_gib: float
    kv_bytes_per_token: int
    kv_tokens: int
    # hybrid models: linear-attention / Mamba state per sequence (absent otherwise)
    state_mib_per_sequence: float
    max_concurrency: float
    verdict: Verdict
    reason: str
    findings: list[Finding]
    parts: dict[str, float]  # GiB per GPU of the encoder, draft and LoRA parts within weights_gib
    estimated: list[str]  # what the estimate counts beyond the language model
    not_estimated: list[str]  # what vLLM loads that it leaves out, and why
    summary: str
    error: str


class Memory(MemoryLine, total=False):
    """The record's memory block: the first command's line, plus every role's for prefill/decode."""

    roles: dict[str, MemoryLine]


def architecture_of(recipe: Mapping[str, Any], variant: Mapping[str, Any]) -> tuple[str,
                                                                                    Mapping[str, Any]] | None:
    """("variant" or "model", the architecture_config mapping), or None when neither has one."""
    own = variant.get("architecture_config") if isinstance(variant, (dict, Mapping)) else None
    model = recipe.get("model")
    block = model.get("architecture_config") if isinstance(model, (dict, Mapping)) else None
    if isinstance(own, Mapping):
        drafts = block.get("drafts") if isinstance(block, Mapping) else None
        return "variant", own if "drafts" in own or drafts is None else {**own, "drafts": drafts}
    return ("model", block) if isinstance(block, Mapping) else None


def _number(text: str, kind: str) -> Any:
    """An argv value as the setting's type; left as text when it is not one (the model reports it)."""
    try:
        return int(text) if kind == "int" else float(text) if kind == "float" else text
    except ValueError:
        return text


def _json(text: str) -> Any:
    """A flag's JSON value, or the text itself when it is not JSON (the model reports it)."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def argv_settings(argv: list[Any]) -> dict[str, Any]:
    """The memory settings a ``vllm serve`` argv sets (last one wins, as argparse does)."""
    found: dict[str, Any] = {}
    items = [item for item in argv if isinstance(item, str)]
    for index, item in enumerate(items):
        flag, equals, inline = item.partition("=")
        value = inline if equals else items[index + 1] if index + 1 < len(items) else None
        if flag in SWITCHES:
            found[SWITCHES[flag]] = True
        elif flag in FLAG_SETTINGS and value is not None:
            setting, kind = FLAG_SETTINGS[flag]
            found[setting] = _number(value, kind)
        elif flag in JSON_FLAGS and value is not None:
            found[JSON_FLAGS[flag]] = _json(value)
        elif flag in LORA_FLAGS and value is not None:
            found[LORA_FLAGS[flag]] = _number(value, "int")
    limits = found.pop("mm_limits", None)
    if isinstance(limits, dict) and limits and all(v == 0 for v in limits.values()):
        found["language_model_only"] = True  # no modality allowed: vLLM skips the encoders
    if found.pop("enable_lora", False):
        found.setdefault("max_loras", 1)
    else:
        found.pop("max_loras", None)
        found.pop("max_lora_rank", None)
    return found


def gpu_memory_of(profile: Mapping[str, Any]) -> float | None:
    """Memory of one GPU of a hardware profile as CUDA reports it (None without vram_gb/gpu_count)."""
    vram, gpus = profile.get("vram_gb"), profile.get("gpu_count")
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) and v > 0 for v in (vram, gpus))
    return visible_gib(float(vram) / float(gpus)) if numbers else None  # type: ignore[arg-type]


def memory_summary(line: MemoryLine) -> str:
    """One line of text: weights, KV cache and tokens per GPU, concurrency at the context length."""
    if "error" in line:
        return f"Memory estimate unavailable: {line['error']}"
    state = line.get("state_mib_per_sequence")
    head = (
        f"Per GPU ({line['gpu_memory_gib']:.2f} GiB): weights {line['weights_gib']:.2f} GiB, "
        f"KV cache {max(line['kv_cache_gib'], 0):.2f} GiB = {line['kv_tokens']:,} tokens, "
        f"{line['max_concurrency']:.2f} requests of {line['max_model_len']:,} tokens"
    )
    # a hybrid model: the tokens and the per-sequence state apart, concurrency from both
    if state is not None:
        head = (
            f"Per GPU ({line['gpu_memory_gib']:.2f} GiB): weights {line['weights_gib']:.2f} GiB, "
            f"KV cache {max(line['kv_cache_gib'], 0):.2f} GiB = {line['kv_tokens']:,} tokens of attention KV "
            f"plus {state:,.1f} MiB of state per sequence; at most {line['max_concurrency']:.2f} requests of "
            f"{line['max_model_len']:,} tokens (--max-model-len) at once"
        )
    notes = "".join(f"; {note}" for note in [*line.get("estimated", []), *line.get("not_estimated", [])])
    if line["verdict"] == "fits":
        return head + notes
    word = "tight" if line["verdict"] == "tight" else "won't start"
    return f"{head}{notes}; {word}: {line['reason']}"


def memory_line(
    architecture: tuple[str, Mapping[str, Any]], argv: list[Any], variant: Mapping[str, Any], gpu_gib: float
) -> MemoryLine:
    """The estimate of one command's argv."""
    source, config = architecture
    settings = argv_settings(argv)
    method = settings.pop("quantization", None)
    # another checkpoint of the same model
    precision = variant.get("precision") if source == "model" else None
    bits = QUANTIZED_BITS.get(method) if isinstance(method, str) else None
    if bits is None and isinstance(precision, str):
        bits = QUANTIZED_BITS.get(precision)
    settings["weight_bits"] = bits
    settings["gpu_memory_gib"] = gpu_gib
    try:
        estimate = estimate_memory(config, settings)
    except ArchitectureError as err:
        where = err.field if isinstance(err, SettingsError) else f"architecture_config.{err.field}"
        line = MemoryLine(architecture=source, error=f"{SETTING_FLAGS.get(where, where)}: {err.message}")
        line["summary"] = memory_summary(line)
        return line
    resolved = estimate["settings"]
    line = MemoryLine(
        architecture=source,
        gpu_memory_gib=resolved["gpu_memory_gib"],
        tensor_parallel_size=resolved["tp"],
        pipeline_parallel_size=resolved["pp"],
        max_model_len=resolved["max_model_len"],
        weights_gib=estimate["weights_gib"],
        kv_cache_gib=estimate["available_kv_gib"],
        kv_bytes_per_token=estimate["kv_bytes_per_token"],
        kv_tokens=estimate["kv_tokens"],
        max_concurrency=estimate["max_concurrency"],
        verdict=estimate["verdict"],
        reason=estimate["reason"],
        findings=[Finding(rule=f.rule, message=f.message) for f in estimate["findings"]],
    )
    if estimate["state_bytes_per_sequence"]:
        line["state_mib_per_sequence"] = round(estimate["state_bytes_per_sequence"] / (1 << 20), 1)
    line["parts"] = estimate["parts"]  # always present, so every line has the same keys in the same order
    line["estimated"] = estimate["estimated"]
    line["not_estimated"] = estimate["not_estimated"]
    line["summary"] = memory_summary(line)
    return line


def record_argvs(record: Mapping[str, Any]) -> list[tuple[str, list[Any]]]:
    """(role, argv) of the vLLM commands a record publishes whose memory matters: one per role."""
    deploy = record.get("deploy_type")
    if deploy == "pd_cluster":
        roles = [(role, record.get(role)) for role in ("prefill", "decode")]
        return [(role, part["argv"]) for role, part in roles if isinstance(part, Mapping)
                and isinstance(part.get("argv"), list)]
    key = {"multi_node": "head_argv", "kv_store_lb": "vllm_argv"}.get(str(deploy), "argv")
    if deploy == "multi_node" and "head_argv" not in record:
        key = "argv"
    argv = record.get(key)
    return [("serve", argv)] if isinstance(argv, list) else []


class Coverage(NamedTuple):
    """How many recipes and variants have architecture facts (omni recipes have no memory estimate)."""

    recipes_with: int
    recipes: int
    variants_with: int
    variants: int

    def __str__(self) -> str:
        return (f"memory facts: {self.recipes_with} of {self.recipes} recipes, "
                f"{self.variants_with} of {self.variants} variants")


def memory_coverage(recipes: Iterable[Mapping[str, Any]]) -> Coverage:
    """Recipes whose default variant gets an estimate, and variants that get one (model or own facts)."""
    counts = [0, 0, 0, 0]
    for recipe in recipes:
        variants = recipe.get("variants")
        if is_omni(dict(recipe)) or not isinstance(variants, Mapping) or not variants:
            continue
        covered = [architecture_of(recipe, v if isinstance(v, Mapping) else {}) is not None
                   for v in variants.values()]
        default = list(variants).index("default") if "default" in variants else 0
        counts[0] += covered[default]
        counts[1] += 1
        counts[2] += sum(covered)
        counts[3] += len(covered)
    return Coverage(*counts)


def import_command(hf_id: str) -> str:
    """The one command that adds a recipe's architecture facts from the Hub."""
    return f"vllm-recipes import-config --from-hub {hf_id}"


def memory_fallback(variant: Mapping[str, Any]) -> str:
    """What the page says for a recipe without architecture facts: the fit is the vram_minimum_gb check."""
    need = variant.get("vram_minimum_gb") if isinstance(variant, Mapping) else None
    shown = f"{need:g}" if isinstance(need, int | float) and not isinstance(need, bool) else ""
    minimum = f" ({shown} GB, vram_minimum_gb)" if shown else ""
    return ("No architecture facts in this recipe: it fits where the node has the variant's minimum "
            f"memory{minimum}; "
            "no KV cache estimate.")


def memory_for_record(
    record: Mapping[str, Any], recipe: Mapping[str, Any], variant: Mapping[str, Any],
    profile: Mapping[str, Any]
) -> Memory | None:
    """The memory block of a rendering record; None when the recipe has no architecture facts."""
    architecture = architecture_of(recipe, variant)
    if architecture is None or record.get("deploy_type") == "omni":
        return None
    commands = record_argvs(record)
    if not commands:
        return None
    gpu_gib = gpu_memory_of(profile)
    if gpu_gib is None:
        line = MemoryLine(architecture=architecture[0],
                          error="the hardware profile declares no vram_gb and gpu_count")
        line["summary"] = memory_summary(line)
        return Memory(**line)  # type: ignore[typeddict-item]
    lines = {role: memory_line(architecture, argv, variant, gpu_gib) for role, argv in commands}
    block = Memory(**lines[commands[0][0]])  # type: ignore[typeddict-item]
    if len(lines) > 1:
        block["roles"] = lines
    return block
