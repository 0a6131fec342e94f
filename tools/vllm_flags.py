#!/usr/bin/env python3
"""Write the `vllm serve` flag catalogue that builder/checks/vllm_lint.py checks argvs against.

Run it with the python of a venv that has the pinned vLLM installed (CPU build is enough;
nothing is started, no GPU needed). The next release is one command away:

    bash /work/shared/vllm/install.sh /work/vllm-venv        # once, outside the repo
    /work/vllm-venv/bin/python tools/vllm_flags.py            # -> builder/data/vllm-<ver>-flags.json
    # or: make vllm-flags VLLM_VENV=/work/vllm-venv

Options: ``--out PATH`` (default ``builder/data/vllm-<installed version>-flags.json``) and
``--bench-out PATH`` (default ``builder/data/vllm-<installed version>-bench-serve-flags.json``, the
second catalogue: every option of ``vllm bench serve``, which the performance reproducers use).

The catalogue is read from vLLM's real parser: the top-level ``FlexibleArgumentParser``
(prog ``vllm``) with the real ``serve`` subcommand (``ServeSubcommand.subparser_init``).
For every action of the serve subparser it records every option string (also hidden ones
such as ``--no-enable-x`` / ``--no-disable-x``), whether the flag takes a value (nargs),
choices, the value type (int, float, str, json, human-readable int, ...), whether ``""`` /
``"None"`` are accepted, and for JSON-valued flags the accepted keys: the dataclass fields,
nested where a field is itself a config dataclass, with ``extra`` = ``forbid`` where pydantic
rejects unknown keys (probed through the real type converter, not assumed).

It also records (``names``) the names vLLM accepts only when the server starts, not in the
parser: tool-call parsers and reasoning parsers (``ToolParserManager`` /
``ReasoningParserManager``, lazily registered names included, nothing imported), attention
backends (``AttentionBackendEnum``) and quantization methods (``QUANTIZATION_METHODS``); for
each, how vLLM normalises a value (probed on its own validators), which strings mean "unset",
and where the name can be given (a flag, or a key of a JSON-valued flag), with whether the
parser itself already rejects an unknown name there (probed).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import os
import platform
import sys
import time
import typing
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")

_BOGUS_KEY = "zz_not_a_vllm_key"


def build_serve_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Return (top-level ``vllm`` parser, ``serve`` subparser), built like vllm/entrypoints/cli/main.py."""
    import vllm.entrypoints.cli.serve as serve_mod
    from vllm.entrypoints.common.startup import VLLM_SUBCMD_PARSER_EPILOG
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(
        prog="vllm", description="vLLM CLI",
        epilog=VLLM_SUBCMD_PARSER_EPILOG.format(subcmd="[subcommand]"))
    parser.add_argument("-v", "--version", action="version",
                        version=importlib.metadata.version("vllm"))
    subparsers = parser.add_subparsers(required=False, dest="subparser")
    cmd = serve_mod.cmd_init()[0]
    serve = cmd.subparser_init(subparsers)
    serve.set_defaults(dispatch_function=cmd.cmd)
    return parser, serve


def build_bench_serve_parser() -> tuple[argparse.ArgumentParser, argparse.ArgumentParser]:
    """Return (top-level ``vllm`` parser, ``bench serve`` subparser), built like vllm/entrypoints/cli/main.py
    and benchmark/main.py build them when the command line starts with ``bench``."""
    try:
        import einops  # noqa: F401
    # install.sh's CPU venv lacks it: vision kernels import it, the bench parser never does
    except ImportError:
        import types

        sys.modules["einops"] = types.ModuleType("einops")
    from vllm.entrypoints.cli.benchmark.serve import BenchmarkServingSubcommand
    from vllm.entrypoints.common.startup import VLLM_SUBCMD_PARSER_EPILOG
    from vllm.utils.argparse_utils import FlexibleArgumentParser

    parser = FlexibleArgumentParser(prog="vllm", description="vLLM CLI")
    subparsers = parser.add_subparsers(required=False, dest="subparser")
    bench = subparsers.add_parser("bench", usage="vllm bench <bench_type> [options]")
    bench_types = bench.add_subparsers(required=True, dest="bench_type")
    serve = bench_types.add_parser("serve", usage="vllm bench serve [options]")
    serve.set_defaults(dispatch_function=BenchmarkServingSubcommand.cmd)
    BenchmarkServingSubcommand.add_cli_args(serve)
    serve.epilog = VLLM_SUBCMD_PARSER_EPILOG.format(subcmd="bench serve")
    return parser, serve


def _closure(fn: Any) -> Any:
    cells = getattr(fn, "__closure__", None) or ()
    return cells[0].cell_contents if cells else None


def classify_type(t: Any) -> tuple[str, bool, type | None]:
    """Return (type name, accepts ''/'None', config dataclass or None) for an argparse type."""
    if t is None:
        return "str", False, None
    name = getattr(t, "__name__", "")
    if name == "_optional_type":
        inner, _opt, dc = classify_type(_closure(t))
        return inner, True, dc
    if name == "_parse_type":
        return classify_type(_closure(t))
    if name == "parse_dataclass":
        return "json", False, t.__defaults__[0]
    if t is json.loads:
        return "json", False, None
    if name == "union_dict_and_str":
        return "str|json", False, None
    if name == "human_readable_int":
        return "hint", False, None
    if name == "human_readable_int_or_auto":
        return "hint|auto", False, None
    if t is int:
        return "int", False, None
    if t is float:
        return "float", False, None
    if t is str:
        return "str", False, None
    if name == "<lambda>":  # probe vLLM's small lambdas instead of trusting their source
        try:
            if t("Ab-C") == "ab_c":
                return "lower_snake", False, None
        except Exception:  # noqa: BLE001
            pass
    return "str", False, None  # any other converter: every string is taken as given


def _field_hints(cls: type) -> dict[str, Any]:
    try:
        return typing.get_type_hints(cls, include_extras=True)
    except Exception:  # noqa: BLE001  (unresolvable forward refs)
        return {f.name: f.type for f in dataclasses.fields(cls)}


def _dataclass_in(hint: Any) -> type | None:
    """The config dataclass a field type holds directly (X, X | None, Annotated[X, ...])."""
    from vllm.engine.arg_utils import get_type_hints as vllm_hints

    try:
        hints = vllm_hints(hint)
    except Exception:  # noqa: BLE001
        return None
    return next((h for h in hints if isinstance(h, type) and dataclasses.is_dataclass(h)), None)


def _rejects_extra(convert: Any, path: list[str]) -> bool:
    """True if the real converter rejects an unknown key at ``path`` (probed)."""
    doc: Any = {_BOGUS_KEY: 1}
    for key in reversed(path):
        doc = {key: doc}
    try:
        convert(json.dumps(doc))
    except Exception as e:  # noqa: BLE001
        return _BOGUS_KEY in str(e)
    return False


def key_schema(cls: type, convert: Any, path: list[str], seen: tuple[type, ...] = ()) -> dict[str, Any]:
    """Accepted keys of a config dataclass: {class, extra, keys: {name: nested schema or None}}."""
    keys: dict[str, Any] = {}
    hints = _field_hints(cls)
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        sub = _dataclass_in(hints.get(f.name, f.type))
        if sub is not None and sub not in seen:
            keys[f.name] = key_schema(sub, convert, [*path, f.name], (*seen, cls))
        else:
            keys[f.name] = None
    extra = "forbid" if _rejects_extra(convert, path) else "allow"
    return {"class": cls.__name__, "extra": extra, "keys": keys}


def _nargs(a: argparse.Action) -> Any:
    if a.nargs is None:
        return 1
    return a.nargs


def describe(a: argparse.Action, strings: list[str]) -> dict[str, Any]:
    """One catalogue entry for an argparse action."""
    tname, optional, dc = classify_type(a.type)
    entry: dict[str, Any] = {"strings": strings, "dest": a.dest, "nargs": _nargs(a)}
    if entry["nargs"] == 0:
        entry.pop("nargs")
        entry["value"] = False
        kind = type(a).__name__
        if kind != "_StoreTrueAction":
            entry["action"] = kind
        return entry
    entry["value"] = True
    entry["type"] = tname
    if optional:
        entry["optional"] = True
    if a.choices is not None:
        # a stable order
        choices = sorted(a.choices) if isinstance(a.choices, (set, frozenset)) else a.choices
        entry["choices"] = [None if c is None else str(c) for c in choices]
    if type(a).__name__ not in ("_StoreAction",):
        entry["action"] = type(a).__name__
    if type(a).__name__ == "LoRAParserAction":  # items: name=path, or JSON of LoRAModulePath fields
        from vllm.entrypoints.openai.models.protocol import LoRAModulePath

        entry["type"] = "lora"
        fields = dataclasses.fields(LoRAModulePath)
        entry["json"] = {"class": LoRAModulePath.__name__, "extra": "forbid",
                         "keys": {f.name: None for f in fields},
                         "required": [f.name for f in fields if f.default is dataclasses.MISSING
                                      and f.default_factory is dataclasses.MISSING]}
    elif dc is not None:
        entry["json"] = key_schema(dc, a.type, [])
    elif tname in ("json", "str|json"):
        entry["json"] = {"class": None, "extra": "allow", "keys": None}
    return entry


def _probe(parser: argparse.ArgumentParser, args: list[str], dest: str) -> Any:
    """Parse ``vllm serve m *args`` with the real parser; return the value of ``dest`` (None on error)."""
    import contextlib
    import io

    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return getattr(parser.parse_args(["serve", "m", *args]), dest, None)
    except (SystemExit, Exception):  # noqa: BLE001
        return None


def parser_behaviour(parser: argparse.ArgumentParser, serve: argparse.ArgumentParser) -> dict[str, Any]:
    """The pre-processing rules the lint mirrors, probed on the real parser (not assumed)."""
    cc = _probe(parser, ["--compilation_config.mode", "3"], "compilation_config")
    return {
        "underscores_to_dashes_before_first_dot": _probe(parser, ["--max_num_seqs", "3"],
                                                         "max_num_seqs") == 3,
        "dotted_sub_flags": getattr(cc, "mode", None) == 3,
        "short_O_rewrite": _probe(parser, ["-O3"], "optimization_level") == "3",
        "allow_abbrev": bool(serve.allow_abbrev),
    }


# kind -> (dest of the flag that takes the name, [(dest of a JSON-valued flag, key holding it)])
NAME_SOURCES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "tool_call_parser": ("tool_call_parser", []),
    "reasoning_parser": ("reasoning_parser", [("reasoning_config", "reasoning_parser"),
                                              ("structured_outputs_config", "reasoning_parser")]),
    "attention_backend": ("attention_backend", [("attention_config", "backend"),
                                                ("speculative_config", "attention_backend")]),
    "quantization": ("quantization", [("speculative_config", "quantization")]),
}
_BOGUS_NAME = "zz_not_a_vllm_name"


def _registered_names() -> dict[str, tuple[list[str], Any]]:
    """kind -> (sorted registered names, vLLM's own normaliser of a value, raising if it rejects it)."""
    from vllm.config.attention import AttentionConfig
    from vllm.config.model import ModelConfig
    from vllm.engine.arg_utils import parse_reasoning_parser
    from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS
    from vllm.reasoning import ReasoningParserManager
    from vllm.tool_parsers import ToolParserManager
    from vllm.v1.attention.backends.registry import AttentionBackendEnum

    def backend(value: str) -> str | None:
        member = AttentionConfig.validate_backend_before(value)
        return None if member is None else member.name

    return {
        "tool_call_parser": (ToolParserManager.list_registered(), lambda v: v),
        "reasoning_parser": (ReasoningParserManager.list_registered(),
                             lambda v: parse_reasoning_parser(v) or None),
        "attention_backend": (sorted(AttentionBackendEnum.__members__), backend),
        "quantization": (sorted(QUANTIZATION_METHODS), ModelConfig.validate_quantization_before),
    }


def _case_rule(normalise: Any, names: list[str]) -> str:
    """'upper' / 'lower' when vLLM case-folds a value before looking it up, else 'exact' (probed)."""
    sample = next(n for n in names if n.upper() != n.lower())
    for rule, variant in (("upper", sample.lower()), ("lower", sample.upper())):
        try:
            if variant != sample and normalise(variant) == sample:
                return rule
        except Exception:  # noqa: BLE001
            pass
    return "exact"


def _unset_words(normalise: Any) -> list[str]:
    """Words (any case) that vLLM's normaliser turns into "not set" (probed)."""
    words = []
    for word in ("auto", "none"):
        try:
            if all(normalise(w) is None for w in (word, word.upper(), word.title())):
                words.append(word)
        except Exception:  # noqa: BLE001
            pass
    return words


def startup_names(parser: argparse.ArgumentParser, serve: argparse.ArgumentParser) -> dict[str, Any]:
    """The names of each kind, how values are matched, and where they are given (parser checks probed)."""
    flag_of = {a.dest: next(s for s in a.option_strings if s.startswith("--"))
               for a in serve._actions if a.option_strings}
    out: dict[str, Any] = {}
    for kind, (names, normalise) in _registered_names().items():
        dest, json_keys = NAME_SOURCES[kind]
        where: list[dict[str, Any]] = [
            {"dest": dest, "parser_checks": _probe(parser, [flag_of[dest], _BOGUS_NAME], dest) is None}]
        for json_dest, key in json_keys:
            doc = json.dumps({key: _BOGUS_NAME})
            where.append({"dest": json_dest, "key": key,
                          "parser_checks": _probe(parser, [flag_of[json_dest], doc], json_dest) is None})
        out[kind] = {"case": _case_rule(normalise, names), "unset_words": _unset_words(normalise),
                     "where": where, "values": names}
    return out


def describe_options(sub: argparse.ArgumentParser) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(options, positionals) of a subparser: one :func:`describe` entry per action, hidden strings too."""
    strings_of: dict[int, list[str]] = {}
    for s, a in sub._option_string_actions.items():
        strings_of.setdefault(id(a), []).append(s)
    options = []
    positionals = []
    for a in sub._actions:
        if not a.option_strings:
            positionals.append({"dest": a.dest, "nargs": a.nargs})
            continue
        ordered = list(dict.fromkeys([*a.option_strings, *strings_of.get(id(a), [])]))
        options.append(describe(a, ordered))
    return options, positionals


def build_bench_catalogue() -> dict[str, Any]:
    """The ``vllm bench serve`` catalogue: every option as :func:`describe` records it."""
    _parser, serve = build_bench_serve_parser()
    options, _positionals = describe_options(serve)
    return {
        "vllm_version": importlib.metadata.version("vllm"),
        "command": "vllm bench serve",
        "generated_by": "tools/vllm_flags.py (run with the python of a venv that has vLLM installed)",
        "counts": {"options": len(options), "option_strings": sum(len(o["strings"]) for o in options)},
        "options": options,
    }


def build_catalogue() -> dict[str, Any]:
    """Build the catalogue dict from the installed vLLM."""
    parser, serve = build_serve_parser()
    options, positionals = describe_options(serve)
    import torch
    from vllm.platforms import current_platform

    n_strings = sum(len(o["strings"]) for o in options)
    names = startup_names(parser, serve)
    return {
        "vllm_version": importlib.metadata.version("vllm"),
        "generated_by": "tools/vllm_flags.py (run with the python of a venv that has vLLM installed)",
        "environment": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "platform": f"{type(current_platform).__name__} "
                        f"(VLLM_TARGET_DEVICE={os.environ.get('VLLM_TARGET_DEVICE')})",
        },
        "counts": {"options": len(options), "option_strings": n_strings,
                   "json_valued": sum("json" in o for o in options),
                   "names": {kind: len(n["values"]) for kind, n in names.items()}},
        "parser": parser_behaviour(parser, serve),
        "positionals": positionals,
        "names": names,
        "options": options,
    }


def _write(out: Path, cat: dict[str, Any]) -> None:
    """``cat`` as compact JSON with one option per line (diffs stay readable between releases)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(cat, indent=None, separators=(",", ":"), ensure_ascii=False)
    text = text.replace(',{"strings"', ',\n{"strings"').replace('"options":[', '"options":[\n', 1)
    for kind in cat.get("names", {}):  # one line per kind of start-up name
        text = text.replace(f'"{kind}":{{"case"', f'\n"{kind}":{{"case"', 1)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(out)


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--bench-out", type=Path, default=None)
    ns = ap.parse_args(argv)
    t0 = time.perf_counter()
    cat = build_catalogue()
    out = ns.out or ROOT / "builder" / "data" / f"vllm-{cat['vllm_version']}-flags.json"
    _write(out, cat)
    print(f"wrote {out}: {cat['counts']['options']} flags, {cat['counts']['option_strings']} option strings, "
          f"{cat['counts']['json_valued']} JSON-valued, start-up names "
          f"{', '.join(f'{k} {n}' for k, n in cat['counts']['names'].items())}, in "
          f"{time.perf_counter() - t0:.1f} s")
    bench = build_bench_catalogue()
    bench_name = f"vllm-{bench['vllm_version']}-bench-serve-flags.json"
    bench_out = ns.bench_out or ROOT / "builder" / "data" / bench_name
    _write(bench_out, bench)
    print(f"wrote {bench_out}: {bench['counts']['options']} vllm bench serve flags, "
          f"{bench['counts']['option_strings']} option strings, in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
