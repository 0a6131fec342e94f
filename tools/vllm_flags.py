#!/usr/bin/env python3
"""Write the `vllm serve` flag catalogue that builder/vllm_lint.py checks argvs against.

Run it with the python of a venv that has the pinned vLLM installed (CPU build is enough;
nothing is started, no GPU needed). The next release is one command away:

    bash /work/shared/vllm/install.sh /work/vllm-venv        # once, outside the repo
    /work/vllm-venv/bin/python tools/vllm_flags.py            # -> builder/data/vllm-<ver>-flags.json
    # or: make vllm-flags VLLM_VENV=/work/vllm-venv

Options: ``--out PATH`` (default ``builder/data/vllm-<installed version>-flags.json``).

The catalogue is read from vLLM's real parser: the top-level ``FlexibleArgumentParser``
(prog ``vllm``) with the real ``serve`` subcommand (``ServeSubcommand.subparser_init``).
For every action of the serve subparser it records every option string (also hidden ones
such as ``--no-enable-x`` / ``--no-disable-x``), whether the flag takes a value (nargs),
choices, the value type (int, float, str, json, human-readable int, ...), whether ``""`` /
``"None"`` are accepted, and for JSON-valued flags the accepted keys: the dataclass fields,
nested where a field is itself a config dataclass, with ``extra`` = ``forbid`` where pydantic
rejects unknown keys (probed through the real type converter, not assumed).
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
        entry["choices"] = [None if c is None else str(c) for c in a.choices]
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
        "underscores_to_dashes_before_first_dot": _probe(parser, ["--max_num_seqs", "3"], "max_num_seqs") == 3,
        "dotted_sub_flags": getattr(cc, "mode", None) == 3,
        "short_O_rewrite": _probe(parser, ["-O3"], "optimization_level") == "3",
        "allow_abbrev": bool(serve.allow_abbrev),
    }


def build_catalogue() -> dict[str, Any]:
    """Build the catalogue dict from the installed vLLM."""
    parser, serve = build_serve_parser()
    strings_of: dict[int, list[str]] = {}
    for s, a in serve._option_string_actions.items():
        strings_of.setdefault(id(a), []).append(s)
    options = []
    positionals = []
    for a in serve._actions:
        if not a.option_strings:
            positionals.append({"dest": a.dest, "nargs": a.nargs})
            continue
        ordered = list(dict.fromkeys([*a.option_strings, *strings_of.get(id(a), [])]))
        options.append(describe(a, ordered))
    import torch
    from vllm.platforms import current_platform

    n_strings = sum(len(o["strings"]) for o in options)
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
                   "json_valued": sum("json" in o for o in options)},
        "parser": parser_behaviour(parser, serve),
        "positionals": positionals,
        "options": options,
    }


def main(argv: list[str] | None = None) -> int:
    """CLI entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    ap.add_argument("--out", type=Path, default=None)
    ns = ap.parse_args(argv)
    t0 = time.perf_counter()
    cat = build_catalogue()
    out = ns.out or ROOT / "builder" / "data" / f"vllm-{cat['vllm_version']}-flags.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(cat, indent=None, separators=(",", ":"), ensure_ascii=False)
    # one option per line: compact, yet diffs stay readable between releases
    text = text.replace(',{"strings"', ',\n{"strings"').replace('"options":[', '"options":[\n', 1)
    tmp = out.with_suffix(".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(out)
    print(f"wrote {out}: {cat['counts']['options']} flags, {cat['counts']['option_strings']} option strings, "
          f"{cat['counts']['json_valued']} JSON-valued, in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
