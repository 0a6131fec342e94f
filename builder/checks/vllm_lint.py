"""Lint generated ``vllm serve`` argvs against the pinned vLLM release's real CLI (issue 8).

The flag catalogue ``builder/data/vllm-<version>-flags.json`` is written by
``tools/vllm_flags.py`` from vLLM's own parser and read by :mod:`builder.checks.vllm_catalogue`; this
module is pure stdlib.

It mirrors what ``vllm serve`` does with an argv (``FlexibleArgumentParser.parse_args``):
``_`` -> ``-`` in the flag part before the first ``.``, ``-O3`` -> ``--optimization-level 3``,
``--model M`` moved to the positional, dotted sub-flags (``--attention_config.backend X``,
``--x.k=v``, ``--x.k+ a,b``) merged into one JSON value per flag, then argparse's consumption
of values (nargs 0 / 1 / ? / +; the first stray value is the model). Rules: unknown flag
(exact match only: no prefix abbreviation; a flag and its value in one argv item), value after
a boolean flag, missing value, stray argument, choices, int / float / human-readable int types,
JSON syntax and the keys of JSON-valued config flags (nested, also via dotted sub-flags and
``--flag=value``), ``--lora-modules`` items, ``--config`` file type, ``--help`` / ``--``, and the
same flag given twice (vLLM only warns). A value that is a whole placeholder (``$HEAD_IP``,
``$PREFILL_DP_RPC_PORT``) stands for a valid value.

Names vLLM looks up only when the server starts (the catalogue's ``names``): tool-call and
reasoning parsers, attention backends and quantization methods, given as ``--flag value``,
``--flag=value`` or as a key of a JSON-valued flag (``--attention-config '{"backend": "X"}'``,
``--attention_config.backend X``, ``--speculative-config '{"attention_backend": "X"}'``,
``--reasoning-config '{"reasoning_parser": "x"}'``), matched as vLLM matches them (attention
backends case-insensitively, quantization lower-cased, ``auto`` / ``none`` as unset). Those
problems carry ``startup=True`` unless vLLM's parser already rejects the name there. A parser
name is not checked when the argv loads a parser plugin (``--tool-parser-plugin``,
``--reasoning-parser-plugin``), which may register it. Not checked: other value types inside JSON
configs.

API for the build::

    findings = lint_record(record)           # any rendering record / preset point / document
    for f in findings: print(f.message())    # "prefill.argv: --attention-config: unknown key ..."
    problems = lint_argv(argv)                # one argv -> tuple[FlagProblem, ...] (cached)
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from builder.checks.vllm_catalogue import (
    CATALOGUE_PATH as CATALOGUE_PATH,  # re-exported: tools and tests read it
)
from builder.checks.vllm_catalogue import (
    VLLM_VERSION as VLLM_VERSION,  # re-exported: the API and pages name it
)
from builder.checks.vllm_catalogue import Catalogue as Catalogue  # re-exported: tests build one from data
from builder.checks.vllm_catalogue import catalogue
from builder.checks.vllm_preprocess import preprocess
from builder.checks.vllm_values import FlagProblem as FlagProblem  # re-exported: tests and the API use it
from builder.checks.vllm_values import (
    NameUse,
    check_keys,
    check_value,
    json_names,
    name_problems,
)
from builder.resolver.records import iter_commands

_NEGATIVE_NUMBER = re.compile(r"^-\d+$|^-\d*\.\d+$")  # argparse's _negative_number_matcher


@dataclass(frozen=True, slots=True)
class Finding:
    """A problem located in a record: ``label`` names the argv (``argv``, ``worker_argvs[1]``...)."""

    label: str
    flag: str
    reason: str
    value: str | None = None  # as FlagProblem.value

    def message(self) -> str:
        """One-line form: ``label: --flag: reason``."""
        return f"{self.label}: {self.flag}: {self.reason}"




def _is_optionlike(token: str) -> bool:
    """Whether argparse would treat ``token`` as a flag rather than a value ('O' vs 'A')."""
    if not token.startswith("-") or token == "-":
        return False
    if (token[1].isdigit() or token[1] == ".") and _NEGATIVE_NUMBER.match(token):
        return False
    if " " in token and token.split("=", 1)[0] not in catalogue().options:
        return False
    return True


@lru_cache(maxsize=4096)  # one fuzzy match per distinct flag, not per rendering
def _unknown(flag: str) -> FlagProblem:
    """The unknown-flag problem, with a hint when argparse would silently abbreviate it."""
    cat = catalogue()
    head = flag.split(" ", 1)[0]
    if " " in flag and head in cat.options:
        return FlagProblem(flag, f"flag and value in one argv item; split it into '{head}' and "
                             f"'{flag.split(' ', 1)[1]}'")
    matches = cat.prefix_matches(flag) if flag.startswith("--") else []
    if len(matches) == 1:
        return FlagProblem(flag, f"unknown flag (argparse would take it as an abbreviation of "
                             f"{matches[0]}; write the full name)")
    if len(matches) > 1:
        return FlagProblem(flag, f"unknown flag (ambiguous abbreviation of {', '.join(matches[:4])}"
                             f"{', ...' if len(matches) > 4 else ''})")
    close = difflib.get_close_matches(flag, [o for o in cat.options if o.startswith("--")], n=1, cutoff=0.85)
    return FlagProblem(flag, f"unknown flag (did you mean {close[0]}?)" if close else "unknown flag")


def _lint(argv: tuple[str, ...]) -> tuple[FlagProblem, ...]:
    """Uncached body of :func:`lint_argv`."""
    cat = catalogue()
    out: list[FlagProblem] = []
    if len(argv) < 2 or argv[0] != "vllm" or argv[1] != "serve":
        return (FlagProblem(" ".join(map(str, argv[:2])), "argv does not start with 'vllm serve'"),)
    if not all(isinstance(t, str) for t in argv):
        return (FlagProblem("argv", "every item must be a string"),)
    tokens, dotted = preprocess(list(argv[2:]), out)
    seen: dict[str, str] = {}  # dest -> flag as written
    plain_json: set[str] = set()  # roots given as --flag <json>
    names: list[NameUse] = []  # start-up names, checked at the end
    i, n = 0, len(tokens)
    model_taken = False
    prev_bool: str | None = None
    while i < n:
        tok = tokens[i]
        i += 1
        if not _is_optionlike(tok):
            if tok.startswith("-") and " " in tok:
                out.append(_unknown(tok))
            elif not model_taken:  # argparse gives the first stray value to the model positional
                model_taken = True
            elif prev_bool is not None:
                out.append(FlagProblem(prev_bool, f"takes no value, got {tok!r}"))
            else:
                out.append(FlagProblem(tok, "unexpected argument (not a flag or a flag's value)"))
            prev_bool = None
            continue
        prev_bool = None
        if tok == "--":
            out.append(FlagProblem(tok, "ends option parsing: every later item is taken as a value"))
            continue
        flag, eq, explicit = tok.partition("=")
        opt = cat.options.get(flag)
        if opt is None:
            out.append(_unknown(flag if not eq or " " not in tok else tok))
            if not eq:  # skip the values an unknown flag seems to carry
                while i < n and not _is_optionlike(tokens[i]):
                    i += 1
            continue
        if opt.exits:
            out.append(FlagProblem(flag, "prints the help and exits; the server would not start"))
            continue
        if opt.dest in seen and not opt.repeatable:
            first = seen[opt.dest]
            also = "" if first == flag else f" (also as {first})"
            out.append(FlagProblem(flag, f"given twice{also}; last value wins"))
        seen.setdefault(opt.dest, flag)
        values: list[str] = []
        if opt.nargs == 0:
            if eq:
                out.append(FlagProblem(flag, f"takes no value, got {explicit!r}"))
            prev_bool = flag
            continue
        if eq:
            values = [explicit]
        elif opt.nargs in (1, "?"):
            if i < n and not _is_optionlike(tokens[i]):
                values = [tokens[i]]
                i += 1
            elif opt.nargs == 1:
                out.append(FlagProblem(flag, "expects a value"))
                continue
        else:  # "+" / "*"
            while i < n and not _is_optionlike(tokens[i]):
                values.append(tokens[i])
                i += 1
            if not values and opt.nargs == "+":
                out.append(FlagProblem(flag, "expects at least one value"))
                continue
        if opt.schema is not None:
            plain_json.add(opt.dest)
        for v in values:
            check_value(opt, flag, v, out, names)
    reported: set[str] = set()
    for d in dotted:
        opt = cat.options.get(d.root)
        if opt is None:
            if d.root not in reported:
                out.append(FlagProblem(d.written, _unknown(d.root).reason))
                reported.add(d.root)
            continue
        if opt.schema is None:
            if d.root not in reported:
                out.append(
                    FlagProblem(d.written, f"{opt.name} does not take JSON, so it has no dotted sub-flags"))
                reported.add(d.root)
            continue
        if opt.dest in plain_json:
            out.append(FlagProblem(d.written, f"the dotted form replaces the whole {opt.name} JSON given "
                                          "elsewhere (given twice)"))
            plain_json.discard(opt.dest)
        check_keys(d.value, opt.schema, "", d.written, out)
        json_names(opt.dest, d.value, d.written, d.raw, names)
    given = set(seen) | {o.dest for d in dotted if (o := cat.options.get(d.root)) is not None}
    out += name_problems(names, given)
    return tuple(out)


@lru_cache(maxsize=65536)
def _lint_cached(argv: tuple[str, ...]) -> tuple[FlagProblem, ...]:
    """The lint of a distinct argv: that of its :func:`_cache_key` (only a new argv computes it)."""
    return _lint_shared(_cache_key(argv))


@lru_cache(maxsize=65536)
def _lint_shared(key: tuple[str, ...]) -> tuple[FlagProblem, ...]:
    return _lint(key)


def clear_lint_cache() -> None:
    """Forget every argv linted so far (benchmarks time the lint from cold)."""
    _lint_cached.cache_clear()
    _lint_shared.cache_clear()


MODEL_SLOT = "MODEL"  # the served model in a cache key (see :func:`lint_argv`)


def _cache_key(argv: tuple[str, ...]) -> tuple[str, ...]:
    """``argv`` with a plain served model (``argv[2]``) as :data:`MODEL_SLOT`.

    A model that is a string not starting with ``-`` is the positional argparse takes first: it is
    never reported, nor does it change how the later items parse, so recipes and hardware that differ
    only in the model share one lint. Kept as is when any item names ``--model`` (then the item at
    ``argv[2]`` becomes an unexpected argument, reported with its text)."""
    if len(argv) < 3:
        return argv
    model = argv[2]
    if (not isinstance(model, str) or model.startswith("-")
            or any(isinstance(t, str) and (t == "--model" or t.startswith("--model=")) for t in argv[3:])):
        return argv
    return (*argv[:2], MODEL_SLOT, *argv[3:])


def lint_argv(argv: list[str] | tuple[str, ...]) -> tuple[FlagProblem, ...]:
    """Check one ``["vllm", "serve", MODEL, ...]`` argv; results are cached per distinct argv (the served
    model aside: :func:`_cache_key`)."""
    return _lint_cached(tuple(argv))


def _is_serve_argv(value: Any) -> bool:
    return type(value) is list and len(value) >= 2 and value[0] == "vllm" and value[1] == "serve"


CONTAINER_KEYS = ("recommended_command",)  # recipe document: the default rendering record


def iter_argvs(record: Any, label: str = "") -> Iterator[tuple[str, list[str]]]:
    """Yield (label, argv) for every ``vllm serve`` argv in a published JSON record.

    The record's commands come from the resolver's one walker of the record shapes
    (:func:`builder.resolver.records.iter_commands`, with the singular first-worker copies the
    record publishes); preset files (``points.<key>``) and recipe documents
    (``recommended_command``) are opened here. Docker argvs (``docker run ... <image> MODEL``)
    repeat the same flags and are not yielded.
    """
    if not isinstance(record, dict):
        return
    prefix = f"{label}." if label else ""
    for found in iter_commands(record, aliases=True):
        if _is_serve_argv(found["argv"]):
            yield prefix + found["path"], found["argv"]
    for key in CONTAINER_KEYS:
        value = record.get(key)
        if isinstance(value, dict):
            yield from iter_argvs(value, prefix + key)
    points = record.get("points")
    if isinstance(points, dict):
        for name, point in points.items():
            yield from iter_argvs(point, f"{prefix}points.{name}")


def lint_record(record: Any) -> list[Finding]:
    """Lint every argv of one published record; one Finding per (argv label, problem)."""
    return [Finding(label, p.flag, p.reason, p.value)
            for label, argv in iter_argvs(record) for p in lint_argv(argv)]


def iter_tree(root: Path | str) -> Iterator[tuple[str, str, list[str]]]:
    """Yield (file path relative to ``root``, argv label, argv) for every JSON file of an API tree."""
    base = Path(root)
    for path in sorted(base.rglob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        rel = path.relative_to(base).as_posix()
        for label, argv in iter_argvs(record):
            yield rel, label, argv


def format_problem(argv: list[str] | tuple[str, ...], problem: FlagProblem) -> str:
    """One-line message naming the model: ``vllm serve MODEL: --flag: reason``."""
    model = argv[2] if len(argv) > 2 else "?"
    return f"vllm serve {model}: {problem.message()} (vLLM {catalogue().version})"


def main(argv: list[str] | None = None) -> int:
    """``python -m builder.checks.vllm_lint DIR``: lint every argv of a built JSON API tree."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m builder.checks.vllm_lint API_DIR", file=sys.stderr)
        return 2
    count = 0
    for rel, label, cmd in iter_tree(args[0]):
        for problem in lint_argv(cmd):
            count += 1
            print(f"{rel}: {label}: {problem.message()}")
    print(f"{count} problem(s) against vLLM {catalogue().version}", file=sys.stderr)
    return 1 if count else 0


if __name__ == "__main__":
    raise SystemExit(main())
