"""vLLM's ``parse_args`` pre-processing of a ``vllm serve`` argv, as :mod:`builder.checks.vllm_lint`
mirrors it: ``--model M`` moved to the positional, ``_`` -> ``-`` in flag names, ``-O3`` ->
``--optimization-level 3``, and the dotted sub-flags (``--attention_config.backend X``, ``--x.k=v``,
``--x.k+ a,b``) taken out and merged into one JSON value per flag."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from builder.checks.vllm_catalogue import catalogue
from builder.checks.vllm_values import FlagProblem, human_int


def rewrite_flag(key: str) -> str:
    """vLLM's rewrite: ``_`` -> ``-`` between the leading ``--`` and the first ``.``."""
    if "_" not in key:
        return key
    head, dot, tail = key[2:].partition(".")
    return "--" + head.replace("_", "-") + dot + tail


@dataclass(frozen=True, slots=True)
class Dotted:
    """One dotted sub-flag as written (``--attention_config.backend``) and its nested value."""

    written: str
    root: str  # rewritten root flag, e.g. --attention-config
    value: dict[str, Any]
    raw: str  # the value as written


def _nest(path: list[str], value: Any) -> dict[str, Any]:
    for k in reversed(path[1:]):
        value = {k: value}
    return {path[0]: value} if path else {}


def _merge(into: dict[str, Any], update: dict[str, Any]) -> list[str]:
    """vLLM's recursive_dict_update; returns the dotted keys that were overwritten."""
    dups: list[str] = []
    for k, v in update.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            dups += [f"{k}.{d}" for d in _merge(into[k], v)]
        elif isinstance(v, list) and isinstance(into.get(k), list):
            into[k] = into[k] + v
        else:
            if k in into:
                dups.append(k)
            into[k] = v
    return dups


def preprocess(args: list[str], out: list[FlagProblem]) -> tuple[list[str], list[Dotted]]:
    """vLLM's parse_args pre-processing: --model move, renames, -O, dotted sub-flags.

    Returns the tokens argparse sees (without the dotted ones) and the dotted sub-flags.
    """
    model_idx = next((i for i, a in enumerate(args)
                      if a == "--model" or (a.startswith("--model=") and len(a) > 8)), None)
    if model_idx is not None:
        if args[model_idx] == "--model":
            if model_idx + 1 >= len(args):
                out.append(FlagProblem("--model", "expects a value"))
                return [], []
            tag, rest = args[model_idx + 1], model_idx + 2
        else:
            tag, rest = args[model_idx].removeprefix("--model="), model_idx + 1
        args = [tag, *args[:model_idx], *args[rest:]]
    cat = catalogue()
    processed: list[str] = []
    original: list[str] = []  # the flag part as written, for messages
    for i, arg in enumerate(args):
        if arg.startswith("--") and cat.underscores:
            key, eq, value = arg.partition("=")
            processed.append(rewrite_flag(key) + eq + value if "_" in key else arg)
            original.append(key)
        elif arg.startswith("-O") and arg != "-O":
            processed += ["--optimization-level", arg[3:] if arg[2:3] == "=" else arg[2:]]
            original += [arg, arg]
        elif arg == "-O" and i + 1 < len(args) and args[i + 1] in {"0", "1", "2", "3"}:
            processed.append("--optimization-level")
            original.append(arg)
        else:
            processed.append(arg)
            original.append(arg)
    dotted: list[Dotted] = []
    merged: dict[str, dict[str, Any]] = {}
    keep: list[str] = []
    skip = False
    for i, tok in enumerate(processed):
        if skip:
            skip = False
            continue
        key, eq, value = tok.partition("=")
        if not (tok.startswith("-") and "." in key and cat.dotted):
            keep.append(tok)
            continue
        written = original[i].partition("=")[0]
        if not eq:
            if i + 1 >= len(processed):
                out.append(FlagProblem(written, "expects a value"))
                continue
            value, skip = processed[i + 1], True
        parsed: Any
        if key.endswith("+"):
            key, parsed = key[:-1], value.split(",")
        else:
            try:
                parsed = json.loads(value)
            except ValueError:
                try:
                    parsed = human_int(value)
                except ValueError:
                    parsed = value
        root, *path = key.split(".")
        nested = _nest(path, parsed)
        for dup in _merge(merged.setdefault(root, {}), nested):
            out.append(FlagProblem(written, f"given twice ({root}.{dup}); last value wins"))
        dotted.append(Dotted(written, root, nested, value))
    return keep, dotted
