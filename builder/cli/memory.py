"""``memory``: the memory model from the command line, one vLLM start-up estimated from a Hugging Face
``config.json`` (``import-config``, :mod:`builder.cli.import_command`, writes such facts into a recipe)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from builder.cli.config_json import architecture_problem, read_config
from builder.cli.reporting import Refused, reported
from builder.content.loader import load_content
from builder.resolver.memory import (
    DTYPE_BYTES,
    KV_DTYPE_BYTES,
    ArchitectureError,
    MemoryEstimate,
    SettingsError,
    estimate_memory,
    visible_gib,
    with_quant_file,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``memory`` to the top-level subparsers."""
    m = sub.add_parser("memory",
                       help="estimate weights, KV cache and whether vLLM starts, from a config.json")
    m.add_argument("--config", type=Path, required=True, metavar="CONFIG.json",
                   help="a Hugging Face config.json")
    gpu = m.add_mutually_exclusive_group()
    gpu.add_argument("--gpu-memory-gib", type=float, metavar="G",
                     help="memory of one GPU as CUDA reports it (GiB)")
    gpu.add_argument("--hardware", metavar="ID", help="a hardware profile of the content root's taxonomy")
    m.add_argument("--kv-cache-gib", type=float, metavar="X",
                   help="the KV cache budget per GPU (vLLM's 'Available KV cache memory'): KV tokens and "
                   "concurrency for it; then --gpu-memory-gib/--hardware are not needed")
    m.add_argument("--quant-config", type=Path, metavar="HF_QUANT_CONFIG.json",
                   help="the checkpoint's ModelOpt hf_quant_config.json, when its config.json states no "
                        "precision")
    m.add_argument("--content", type=Path, default=Path("recipes"), help="content root for --hardware")
    m.add_argument("--tp", type=int, help="tensor parallel size (default 1)")
    m.add_argument("--pp", type=int, help="pipeline parallel size (default 1)")
    m.add_argument("--dtype", default="auto", choices=["auto", *DTYPE_BYTES])
    m.add_argument("--kv-cache-dtype", default="auto", choices=["auto", *KV_DTYPE_BYTES])
    m.add_argument("--weight-bits", type=int, metavar="B",
                   help="bits of the linear weights of a quantized checkpoint")
    m.add_argument("--gpu-memory-utilization", type=float, metavar="U", help="vLLM's default: 0.9")
    m.add_argument("--max-model-len", type=int, metavar="L", help="default: the model's maximum")
    m.add_argument("--max-num-batched-tokens", type=int, metavar="T",
                   help="default: 8192 on >= 70 GiB GPUs, else 2048")
    m.add_argument("--max-num-seqs", type=int, metavar="N", help="default: 1024 on >= 70 GiB GPUs, else 256")
    m.add_argument("--enable-prefix-caching", action="store_true",
                   help="hybrid models: vLLM's 'align' state cache keeps one more state page per sequence")
    m.add_argument("--speculative-tokens", type=int, metavar="K",
                   help="speculative decoding with the checkpoint's MTP layers proposing K tokens")
    m.add_argument("--vllm-version", metavar="V",
                   help="the release whose token report to follow (default: the model's)")
    m.add_argument("--json", action="store_true", help="print the whole estimate as JSON")


def run(args: argparse.Namespace) -> int:
    """Run ``memory``; returns the exit status."""
    return reported(lambda: memory(args))


# ── memory ────────────────────────────────────────────────────────────────


def hardware_gib(content: Path, hardware: str) -> float:
    """Memory of one GPU of a taxonomy hardware profile, as CUDA reports it."""
    loaded, _ = load_content(content)
    profiles = loaded.vocab.taxonomy.get("hardware_profiles", {})
    profile = profiles.get(hardware)
    if profile is None:
        raise Refused(f"unknown hardware {hardware!r}: expected one of {', '.join(profiles)}")
    vram, gpus = profile.get("vram_gb"), profile.get("gpu_count")
    if not vram or not gpus:
        raise Refused(f"hardware {hardware!r} declares no vram_gb")
    return visible_gib(vram / gpus)


def memory(args: argparse.Namespace) -> int:
    """``memory``: print the estimate of one start-up."""
    if args.gpu_memory_gib is None and args.hardware is None and args.kv_cache_gib is None:
        raise Refused("give --gpu-memory-gib, --hardware or --kv-cache-gib")
    config = read_config(args.config)
    if args.quant_config is not None:
        config = dict(with_quant_file(config, read_config(args.quant_config)))
    gib = args.gpu_memory_gib if args.hardware is None else hardware_gib(args.content, args.hardware)
    spec = (None if args.speculative_tokens is None
            else {"method": "mtp", "num_speculative_tokens": args.speculative_tokens})
    settings = {
        "tp": args.tp,
        "pp": args.pp,
        "dtype": args.dtype,
        "kv_cache_dtype": args.kv_cache_dtype,
        "weight_bits": args.weight_bits,
        "gpu_memory_gib": gib,
        "gpu_memory_utilization": args.gpu_memory_utilization,
        "max_model_len": args.max_model_len,
        "max_num_batched_tokens": args.max_num_batched_tokens,
        "max_num_seqs": args.max_num_seqs,
        "kv_cache_gib": args.kv_cache_gib,
        "enable_prefix_caching": args.enable_prefix_caching,
        "speculative": spec,
        "vllm_version": args.vllm_version,
    }
    try:
        estimate = estimate_memory(config, settings)
    except SettingsError as exc:
        raise Refused(f"--{exc.field.replace('_', '-')}: {exc.message}") from None
    except ArchitectureError as exc:
        raise architecture_problem(args.config, exc) from None
    if args.json:
        record = {**estimate,
                  "findings": [{"rule": f.rule, "message": f.message} for f in estimate["findings"]],
                  "kv_cache_tokens": estimate["kv_tokens"]}
        print(json.dumps(record, indent=2))
    else:
        print(describe(estimate, args.hardware))
    return 0


def describe(e: MemoryEstimate, hardware: str | None = None) -> str:
    """A few readable lines."""
    s = e["settings"]
    gpu = (f"{hardware} ({s['gpu_memory_gib']:.2f} GiB per GPU)" if hardware
           else f"{s['gpu_memory_gib']:.2f} GiB per GPU")
    if s["kv_cache_gib"] is not None and not s["gpu_memory_gib"]:
        gpu = "one GPU"
    budget = (f"{e['available_kv_gib']:.2f} GiB given" if s["kv_cache_gib"] is not None else
              f"{e['available_kv_gib']:.2f} GiB of {e['requested_gib']:.2f} GiB requested "
              f"(gpu_memory_utilization {s['gpu_memory_utilization']:g})")
    block = f" in blocks of {e['kv_block_size']:,}" if e["kv_block_size"] != 16 else ""
    quant = f", {s['weight_bits']}-bit weights" if s["weight_bits"] else ""
    lines = [
        f"{e['model_type'] or 'model'}: {e['params_total'] / 1e9:.2f}B parameters; TP {s['tp']} x PP "
        f"{s['pp']} on {gpu}; {s['dtype']}{quant}, KV cache {s['kv_cache_dtype']}; vLLM {e['vllm_version']} "
        "accounting",
        f"weights:   {e['weights_gib']:.2f} GiB per GPU",
        f"non-KV:    {e['non_kv_gib']:.2f} GiB = weights + activation peak {e['activation_peak_gib']:.2f} "
        f"+ non-torch {e['non_torch_gib']:.2f} (CUDA graphs ~{e['cuda_graph_gib']:.2f} GiB come on top)",
        f"KV cache:  {budget}; {e['kv_bytes_per_token']:,} bytes per token; {e['kv_tokens']:,} tokens{block}",
        f"requests:  {e['max_concurrency']:.2f} at once of max_model_len {s['max_model_len']:,} "
        f"(max_num_batched_tokens {s['max_num_batched_tokens']:,})",
    ]
    if e["state_bytes_per_sequence"]:
        lines.insert(-1, f"state:     {e['state_bytes_per_sequence'] / (1 << 20):,.1f} MiB per sequence "
                     "(linear-attention / Mamba layers: reserved per request, not per token; pages padded by "
                     f"{e['state_padding_pct']:.2f}%)")
    if s["kv_cache_gib"] is not None:
        lines = [line for line in lines if not line.startswith("non-KV:")]  # the budget replaces it
    lines += [f"counted:   {note}" for note in e["estimated"]]
    lines += [f"missing:   {note}" for note in e["not_estimated"]]
    lines += [f"sharding:  {f.rule}: {f.message}" for f in e["findings"]]
    lines.append(f"verdict:   {e['verdict']}: {e['reason']}")
    return "\n".join(lines)
