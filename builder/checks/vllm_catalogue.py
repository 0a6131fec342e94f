"""The pinned vLLM release's CLI catalogue (``builder/data/vllm-<version>-flags.json``) with its lookups.

Written by ``tools/vllm_flags.py`` from vLLM's own parser; read here (standard library only) for
:mod:`builder.checks.vllm_lint`: every option string, and the start-up names vLLM looks up.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

VLLM_VERSION = "0.33.0"
CATALOGUE_PATH = Path(__file__).resolve().parents[1] / "data" / f"vllm-{VLLM_VERSION}-flags.json"

_NAME_WORD = re.compile(r"[-_]")


@dataclass(frozen=True, slots=True)
class Option:
    """One catalogue entry."""

    name: str  # canonical (first long) option string
    dest: str
    nargs: Any  # 0, 1, "?", "+", "*"
    type: str  # int, float, str, json, str|json, hint, hint|auto, lower_snake, "" for no value
    optional: bool  # "" and "None" accepted as None
    choices: frozenset[str | None] | None
    schema: dict[str, Any] | None  # JSON key schema {class, extra, keys}
    repeatable: bool  # append-style actions
    exits: bool  # --help / -h: prints and exits instead of serving


@dataclass(frozen=True, slots=True)
class NameSource:
    """Where a start-up name is given: a flag (``key`` None) or a key of a JSON-valued flag."""

    kind: str  # tool_call_parser, reasoning_parser, attention_backend, quantization
    key: str | None
    parser_checks: bool  # vLLM's parser already rejects an unknown name here


@dataclass(frozen=True, slots=True)
class NameSet:
    """The names of one kind vLLM accepts, and how it matches a value against them."""

    kind: str
    case: str  # "exact", "upper" or "lower": how vLLM folds a value before the lookup
    unset_words: frozenset[str]  # any case: the value means "not set" (auto, none)
    values: frozenset[str]

    def fold(self, value: str) -> str:
        """The value as vLLM looks it up."""
        return value.upper() if self.case == "upper" else value.lower() if self.case == "lower" else value

    def accepts(self, value: str) -> bool:
        """Whether vLLM takes ``value`` (a known name, or a word meaning unset)."""
        return value.lower() in self.unset_words or self.fold(value) in self.values

    def closest(self, value: str) -> str | None:
        """The registered name ``value`` most likely meant, if any is close (compared in lower case).

        Names sharing the value's first word (``qwen3`` of ``qwen3-coder``) are the only
        candidates when there are any, so ``B12X_MLA_SPARSE`` gets no unrelated ``*_MLA_SPARSE``.
        """
        by_lower = {v.lower(): v for v in sorted(self.values)}
        wanted = value.lower()
        head = _NAME_WORD.split(wanted, 1)[0]
        family = [v for v in by_lower if _NAME_WORD.split(v, 1)[0] == head]
        pool, cutoff = (family, 0.6) if family else (list(by_lower), 0.8)
        close = difflib.get_close_matches(wanted, pool, n=1, cutoff=cutoff)
        return by_lower[close[0]] if close else None


NAME_LABELS = {"tool_call_parser": "tool call parser", "reasoning_parser": "reasoning parser",
               "attention_backend": "attention backend", "quantization": "quantization method"}
# A parser plugin may register any name: the kind is not checked when its plugin flag is given.
PLUGIN_DESTS = {"tool_call_parser": "tool_parser_plugin", "reasoning_parser": "reasoning_parser_plugin"}


class Catalogue:
    """The flag catalogue with precomputed lookups."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.version: str = data["vllm_version"]
        behaviour = data.get("parser", {})
        self.underscores: bool = behaviour.get("underscores_to_dashes_before_first_dot", True)
        self.dotted: bool = behaviour.get("dotted_sub_flags", True)
        self.options: dict[str, Option] = {}
        for o in data["options"]:
            longs = [s for s in o["strings"] if s.startswith("--")]
            name = longs[0] if longs else o["strings"][0]
            nargs = o.get("nargs", 0) if o["value"] else 0
            choices = o.get("choices")
            opt = Option(
                name=name, dest=o["dest"], nargs=nargs, type=o.get("type", ""),
                optional=bool(o.get("optional")),
                choices=frozenset(choices) if choices is not None else None,
                schema=o.get("json"), repeatable=o.get("action") == "_AppendAction",
                exits=o.get("action") in ("_HelpAction", "_VersionAction"))
            for s in o["strings"]:
                self.options[s] = opt
        self.long_names = sorted(s for s in self.options if s.startswith("--"))
        self.names: dict[str, NameSet] = {}
        self.name_sources: dict[str, list[NameSource]] = {}  # dest -> where names are given
        for kind, n in data.get("names", {}).items():
            self.names[kind] = NameSet(kind, n["case"], frozenset(n["unset_words"]), frozenset(n["values"]))
            for w in n["where"]:
                self.name_sources.setdefault(w["dest"], []).append(
                    NameSource(kind, w.get("key"), bool(w["parser_checks"])))

    @classmethod
    def load(cls, path: Path | str = CATALOGUE_PATH) -> Catalogue:
        """Read a catalogue file."""
        return cls(json.loads(Path(path).read_text(encoding="utf-8")))

    def prefix_matches(self, flag: str) -> list[str]:
        """Long options that ``flag`` abbreviates (what argparse's allow_abbrev would accept)."""
        return [s for s in self.long_names if s.startswith(flag) and s != flag]


@lru_cache(maxsize=1)
def catalogue() -> Catalogue:
    """The pinned release's catalogue (loaded once)."""
    return Catalogue.load()
