"""``memory`` and ``import-config``: the memory model from the command line.

``memory`` estimates one vLLM start-up from a Hugging Face ``config.json``;
``import-config`` writes that config's architecture facts into a recipe, as the
``architecture_config`` block of ``model:`` (or of one variant). The recipe is edited as
text so that its comments and layout stay; the edit is checked by loading the result and
written atomically, or not at all.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from builder import schemas
from builder.commands import Refused, recipe_file, reported
from builder.loader import load_content
from builder.problems import ContentError, Problem
from builder.resolver.memory import (
    DTYPE_BYTES,
    KV_DTYPE_BYTES,
    ArchitectureError,
    MemoryEstimate,
    SettingsError,
    architecture_facts,
    estimate_memory,
    visible_gib,
)
from builder.yaml12 import YamlError, load

COMMANDS = ("memory", "import-config")
BLOCK_KEY = "architecture_config"
MAX_CONFIG_BYTES = 4_000_000  # a config.json is a few kB; refuse anything absurd


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """Add ``memory`` and ``import-config`` to the top-level subparsers."""
    m = sub.add_parser("memory", help="estimate weights, KV cache and whether vLLM starts, from a config.json")
    m.add_argument("--config", type=Path, required=True, metavar="CONFIG.json", help="a Hugging Face config.json")
    gpu = m.add_mutually_exclusive_group(required=True)
    gpu.add_argument("--gpu-memory-gib", type=float, metavar="G", help="memory of one GPU as CUDA reports it (GiB)")
    gpu.add_argument("--hardware", metavar="ID", help="a hardware profile of the content root's taxonomy")
    m.add_argument("--content", type=Path, default=Path("recipes"), help="content root for --hardware")
    m.add_argument("--tp", type=int, help="tensor parallel size (default 1)")
    m.add_argument("--pp", type=int, help="pipeline parallel size (default 1)")
    m.add_argument("--dtype", default="auto", choices=["auto", *DTYPE_BYTES])
    m.add_argument("--kv-cache-dtype", default="auto", choices=["auto", *KV_DTYPE_BYTES])
    m.add_argument("--weight-bits", type=int, metavar="B", help="bits of the linear weights of a quantized checkpoint")
    m.add_argument("--gpu-memory-utilization", type=float, metavar="U", help="vLLM's default: 0.9")
    m.add_argument("--max-model-len", type=int, metavar="L", help="default: the model's maximum")
    m.add_argument("--max-num-batched-tokens", type=int, metavar="T", help="default: 8192 on >= 70 GiB GPUs, else 2048")
    m.add_argument("--json", action="store_true", help="print the whole estimate as JSON")

    i = sub.add_parser("import-config", help="write a config.json's architecture facts into a recipe")
    i.add_argument("recipe", help="<org>/<repo>")
    i.add_argument("config", type=Path, metavar="CONFIG.json")
    i.add_argument("--variant", metavar="V", help="write into variants.<V> instead of model")
    i.add_argument("--content", type=Path, default=Path("recipes"))


def run(args: argparse.Namespace) -> int:
    """Run ``memory`` or ``import-config``; returns the exit status."""
    if args.command == "memory":
        return reported(lambda: memory(args))
    return reported(lambda: import_config(args.content, args.recipe, args.config, args.variant))


# ── memory ────────────────────────────────────────────────────────────────


def read_config(path: Path) -> dict[str, Any]:
    """A config.json as a mapping; raises ContentError with one problem."""

    def fail(message: str) -> ContentError:
        return ContentError([Problem(str(path), 0, "", message)])

    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise fail(f"cannot read file: {exc.strerror or exc}") from None
    if len(raw) > MAX_CONFIG_BYTES:
        raise fail(f"file is too large: more than {MAX_CONFIG_BYTES:,} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise fail("not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise fail(f"invalid JSON: {str(exc)[:200]}") from None
    if not isinstance(data, dict):
        raise fail("expected a JSON object at the top level")
    return data


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


def _architecture_problem(path: Path, exc: ArchitectureError) -> ContentError:
    return ContentError([Problem(str(path), 0, exc.field, exc.message)])


def memory(args: argparse.Namespace) -> int:
    """``memory``: print the estimate of one start-up."""
    config = read_config(args.config)
    gib = args.gpu_memory_gib if args.hardware is None else hardware_gib(args.content, args.hardware)
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
    }
    try:
        estimate = estimate_memory(config, settings)
    except SettingsError as exc:
        raise Refused(f"--{exc.field.replace('_', '-')}: {exc.message}") from None
    except ArchitectureError as exc:
        raise _architecture_problem(args.config, exc) from None
    if args.json:
        record = {**estimate, "findings": [{"rule": f.rule, "message": f.message} for f in estimate["findings"]]}
        print(json.dumps(record, indent=2))
    else:
        print(describe(estimate, args.hardware))
    return 0


def describe(e: MemoryEstimate, hardware: str | None = None) -> str:
    """A few readable lines."""
    s = e["settings"]
    gpu = f"{hardware} ({s['gpu_memory_gib']:.2f} GiB per GPU)" if hardware else f"{s['gpu_memory_gib']:.2f} GiB per GPU"
    quant = f", {s['weight_bits']}-bit weights" if s["weight_bits"] else ""
    lines = [
        f"{e['model_type'] or 'model'}: {e['params_total'] / 1e9:.2f}B parameters; TP {s['tp']} x PP {s['pp']} on {gpu}; "
        f"{s['dtype']}{quant}, KV cache {s['kv_cache_dtype']}; vLLM {e['vllm_version']} accounting",
        f"weights:   {e['weights_gib']:.2f} GiB per GPU",
        f"non-KV:    {e['non_kv_gib']:.2f} GiB = weights + activation peak {e['activation_peak_gib']:.2f} "
        f"+ non-torch {e['non_torch_gib']:.2f} (CUDA graphs ~{e['cuda_graph_gib']:.2f} GiB come on top)",
        f"KV cache:  {e['available_kv_gib']:.2f} GiB of {e['requested_gib']:.2f} GiB requested "
        f"(gpu_memory_utilization {s['gpu_memory_utilization']:g}); {e['kv_bytes_per_token']:,} bytes per token; "
        f"{e['kv_tokens']:,} tokens",
        f"requests:  {e['max_concurrency']:.2f} at once of max_model_len {s['max_model_len']:,} "
        f"(max_num_batched_tokens {s['max_num_batched_tokens']:,})",
    ]
    lines += [f"sharding:  {f.rule}: {f.message}" for f in e["findings"]]
    lines.append(f"verdict:   {e['verdict']}: {e['reason']}")
    return "\n".join(lines)


# ── import-config ─────────────────────────────────────────────────────────

_KEY_LINE = re.compile(r"(?P<indent> *)(?P<quote>[\"']?)(?P<key>[^\"':#][^:#]*?)(?P=quote):(?P<rest>.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _span_end(lines: list[str], start: int) -> int:
    """Index after the last content line of the block whose key is on line ``start``."""
    indent, last = _indent(lines[start]), start
    for index in range(start + 1, len(lines)):
        if _is_content(lines[index]):
            if _indent(lines[index]) <= indent:
                break
            last = index
    return last + 1


def _find_key(lines: list[str], start: int, end: int, indent: int, key: str) -> int | None:
    """The line of ``key:`` at exactly ``indent`` between ``start`` and ``end``."""
    for index in range(start, end):
        match = _KEY_LINE.match(lines[index].rstrip("\r\n"))
        if match and len(match["indent"]) == indent and match["key"] == key:
            return index
    return None


def _child_indent(lines: list[str], start: int, end: int, where: str) -> int:
    """Indentation of the children of the block mapping on line ``start``."""
    match = _KEY_LINE.match(lines[start].rstrip("\r\n"))
    rest = match["rest"].strip() if match else ""
    if rest and not rest.startswith("#"):
        raise Refused(f"{where} is not written as a block mapping (one key per line); add the block by hand")
    for index in range(start + 1, end):
        if _is_content(lines[index]):
            return _indent(lines[index])
    raise Refused(f"{where} is empty")


def _yaml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value)  # a JSON string or list is a YAML 1.2 flow scalar/sequence


def block_lines(facts: dict[str, Any], indent: int, step: int, newline: str) -> list[str]:
    """``architecture_config:`` and its facts as YAML lines at ``indent``."""
    lines = [f"{' ' * indent}{BLOCK_KEY}:{newline}"]
    for key, value in facts.items():
        pad = " " * (indent + step)
        if isinstance(value, dict):
            lines.append(f"{pad}{key}:{newline}")
            lines += [f"{pad}{' ' * step}{k}: {_yaml_value(v)}{newline}" for k, v in value.items()]
        else:
            lines.append(f"{pad}{key}: {_yaml_value(value)}{newline}")
    return lines


def place_block(text: str, facts: dict[str, Any], variant: str | None) -> str:
    """The recipe text with ``architecture_config`` set under ``model:`` or ``variants.<variant>``."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += newline
    top = "variants" if variant else "model"
    parent = _find_key(lines, 0, len(lines), 0, top)
    if parent is None:
        raise Refused(f"the recipe has no {top}: block" + ("" if variant else "; add model.model_id first"))
    end = _span_end(lines, parent)
    where = top
    if variant:
        indent = _child_indent(lines, parent, end, top)
        parent = _find_key(lines, parent + 1, end, indent, variant)
        if parent is None:
            raise Refused(f"variant {variant!r} not found under variants:")
        end, where = _span_end(lines, parent), f"variants.{variant}"
    indent = _child_indent(lines, parent, end, where)
    step = indent - _indent(lines[parent])
    new = block_lines(facts, indent, step, newline)
    existing = _find_key(lines, parent + 1, end, indent, BLOCK_KEY)
    if existing is not None:
        lines[existing : _span_end(lines, existing)] = new
    else:
        comment = f"{' ' * indent}# config.json facts for the memory model (python -m builder import-config){newline}"
        lines[end:end] = [comment, *new]
    return "".join(lines)


def _checked(old_text: str, new_text: str, facts: dict[str, Any], variant: str | None, rel: str) -> None:
    """Refuse unless ``new_text`` loads as ``old_text``'s data with exactly the new block set."""
    try:
        old, _ = load(old_text)
        new, _ = load(new_text)
    except YamlError as exc:
        raise ContentError([Problem(rel, exc.line, exc.field, exc.message)]) from None
    expected = json.loads(json.dumps(old))
    try:
        holder = expected["variants"][variant] if variant else expected["model"]
        holder[BLOCK_KEY] = facts
    except (KeyError, TypeError):
        holder = None
    if holder is None or new != expected:
        raise Refused(f"could not place the block in {rel} without changing other keys; add it by hand")


def import_config(content: Path, hf_id: str, config_path: Path, variant: str | None) -> int:
    """``import-config``: write ``architecture_config`` into ``models/<org>/<repo>.yaml``."""
    rel = recipe_file(hf_id)
    path = content / rel
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise Refused(f"no recipe at {path}; write one with: python -m builder new {hf_id}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ContentError([Problem(rel, 0, "", f"cannot read file: {exc}")]) from None
    try:
        facts = architecture_facts(read_config(config_path))
    except ArchitectureError as exc:
        raise _architecture_problem(config_path, exc) from None
    try:
        schemas.Architecture.model_validate(facts)
    except ValidationError as exc:  # the schema and the model disagree: a bug, reported plainly
        raise Refused(f"{config_path}: the facts do not pass the recipe schema: {exc.errors()[0]['msg']}") from None
    new_text = place_block(text, facts, variant)
    _checked(text, new_text, facts, variant, rel)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(new_text)
        os.replace(temporary, path)
    except OSError:
        Path(temporary).unlink(missing_ok=True)
        raise
    target = f"variants.{variant}" if variant else "model"
    print(f"wrote {target}.{BLOCK_KEY} ({len(facts)} facts) to {path}")
    return 0
