"""Values of ``vllm serve`` flags as vLLM's parser checks them: types (int, float, human-readable
ints), choices, JSON values and the keys of JSON-valued config flags, and the names vLLM looks up
only at start-up (parsers, attention backends, quantization methods), collected for
:func:`name_problems`. Used by :mod:`builder.checks.vllm_lint`, which walks the argv."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from builder.checks.vllm_catalogue import NAME_LABELS, PLUGIN_DESTS, NameSource, Option, catalogue

_PLACEHOLDER = re.compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")
_HUMAN_INT = re.compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_JSON_HUMAN_NUMBER = re.compile(r"\b\d+(?:\.\d+)?[kKmMgGtT]\b")
_JSON_STRING = re.compile(r'("(?:[^"\\]|\\.)*")')
_LOOKS_LIKE_OBJECT = re.compile(r"(?s)^\s*{.*}\s*$")



@dataclass(frozen=True, slots=True)
class FlagProblem:
    """One problem in one argv: the flag as written and why it would fail (or mislead)."""

    flag: str
    reason: str
    startup: bool = False  # vLLM's parser accepts the argv; the server fails (or ignores it) at start-up
    value: str | None = None  # the argv item holding the bad value, to tell apart repeats of ``flag``

    def message(self) -> str:
        """One-line form: ``--flag: reason``."""
        return f"{self.flag}: {self.reason}"


def is_placeholder(value: str) -> bool:
    """True for a value that is exactly one shell variable such as ``$HEAD_IP``."""
    return _PLACEHOLDER.fullmatch(value) is not None


def human_int(value: str) -> int:
    """vLLM's ``human_readable_int`` (``1k``, ``2M``, ``25.6k``, plain ints)."""
    value = value.strip()
    m = _HUMAN_INT.fullmatch(value)
    if m:
        number, suffix = m.groups()
        if suffix in "kmgt":
            return int(float(number) * 10 ** (3 * ("kmgt".index(suffix) + 1)))
        return int(number) * 2 ** (10 * ("KMGT".index(suffix) + 1))
    return int(value)


_TYPE_NAMES = {"int": "an integer", "float": "a number", "hint": "an integer (1k, 2M allowed)",
               "hint|auto": "an integer, -1 or auto (1k, 2M allowed)"}


def _convert(opt: Option, value: str) -> str | None:
    """Convert like the real type function; return the canonical choice string, raise ValueError."""
    if opt.optional and value in ("", "None"):
        return None
    t = opt.type
    if t == "int":
        return str(int(value))
    if t == "float":
        return str(float(value))
    if t == "hint":
        return str(human_int(value))
    if t == "hint|auto":
        v = value.strip()
        return "-1" if v == "-1" or v.lower() == "auto" else str(human_int(v))
    if t == "lower_snake":
        return value.lower().replace("-", "_")
    return value


def check_keys(obj: Any, schema: dict[str, Any] | None, path: str, flag: str, out: list[FlagProblem]) -> None:
    """Report keys of ``obj`` that the config dataclass (and nested ones) does not accept."""
    if schema is None or not isinstance(obj, dict):
        return
    keys = schema.get("keys")
    if keys is None:
        return
    for k, v in obj.items():
        if k not in keys:
            if schema.get("extra") == "forbid":
                where = f"{path}.{k}" if path else k
                out.append(FlagProblem(flag, f"unknown key '{where}' ({schema['class']} has no field '{k}')"))
            continue
        check_keys(v, keys[k], f"{path}.{k}" if path else k, flag, out)


def _parse_json_value(opt: Option, value: str) -> Any:
    """json.loads as the real converter does it (dataclass flags expand 80g-style numbers first)."""
    if opt.schema is not None and opt.schema.get("class"):
        parts = _JSON_STRING.split(value)
        for i in range(0, len(parts), 2):
            parts[i] = _JSON_HUMAN_NUMBER.sub(lambda m: str(human_int(m.group())), parts[i])
        value = "".join(parts)
    return json.loads(value)


@dataclass(frozen=True, slots=True)
class NameUse:
    """A start-up name as given in the argv, checked once the whole argv is read (plugins)."""

    flag: str
    source: NameSource
    value: str
    item: str  # the argv item it came from (the JSON text for a key)


def json_names(dest: str, obj: Any, flag: str, item: str, names: list[NameUse]) -> None:
    """Collect the start-up names held by keys of a JSON value of flag ``dest``."""
    if not isinstance(obj, dict):
        return
    for source in catalogue().name_sources.get(dest, ()):
        value = obj.get(source.key) if source.key is not None else None
        if isinstance(value, str) and value and not is_placeholder(value):
            names.append(NameUse(flag, source, value, item))


def name_problems(names: list[NameUse], given: set[str]) -> list[FlagProblem]:
    """Unknown start-up names; ``given`` holds the dests of the flags present in the argv."""
    cat = catalogue()
    out: list[FlagProblem] = []
    for use in names:
        kind = use.source.kind
        name_set = cat.names[kind]
        if name_set.accepts(use.value) or PLUGIN_DESTS.get(kind) in given:
            continue
        where = f" at key '{use.source.key}'" if use.source.key else ""
        close = name_set.closest(use.value)
        hint = f" (did you mean {close}?)" if close else ""
        out.append(FlagProblem(use.flag, f"unknown {NAME_LABELS.get(kind, kind)} {use.value!r}{where}{hint}",
                           startup=not use.source.parser_checks, value=use.item))
    return out


def check_value(opt: Option, flag: str, value: str, out: list[FlagProblem], names: list[NameUse]) -> None:
    """Type, choices and JSON checks of one value; start-up names are collected into ``names``."""
    if is_placeholder(value):
        return
    if opt.type == "lora":  # LoRAParserAction: name=path, else a JSON object
        if value not in ("", "None") and not ("=" in value and "," not in value):
            try:
                obj = json.loads(value)
            except ValueError:
                out.append(FlagProblem(flag, f"expects name=path or a JSON object, got {value!r}"))
                return
            if not isinstance(obj, dict):
                out.append(FlagProblem(flag, f"expects name=path or a JSON object, got {value!r}"))
                return
            check_keys(obj, opt.schema, "", flag, out)
            missing = [k for k in (opt.schema or {}).get("required", []) if k not in obj]
            if missing:
                out.append(FlagProblem(flag, f"missing key(s) {', '.join(missing)} in {value!r}"))
        return
    if opt.dest == "config" and value.rsplit(".", 1)[-1] not in ("yaml", "yml"):
        out.append(FlagProblem(flag, f"expects a .yaml/.yml file (read while parsing), got {value!r}"))
        return
    if opt.schema is not None and not (opt.optional and value in ("", "None")):
        if opt.type == "str|json" and not _LOOKS_LIKE_OBJECT.match(value):
            return
        try:
            obj = _parse_json_value(opt, value)
        except ValueError as e:
            out.append(FlagProblem(flag, f"invalid JSON value {value!r} ({e})"))
            return
        if opt.schema.get("class"):
            if not isinstance(obj, dict):
                out.append(FlagProblem(flag, f"expects a JSON object, got {value!r}"))
                return
            check_keys(obj, opt.schema, "", flag, out)
        json_names(opt.dest, obj, flag, value, names)
        return
    try:
        canon = _convert(opt, value)
    except ValueError:
        out.append(FlagProblem(flag, f"expects {_TYPE_NAMES.get(opt.type, opt.type)}, got {value!r}"))
        return
    if opt.choices is not None and canon not in opt.choices:
        shown = ", ".join(sorted(c for c in opt.choices if c is not None))
        out.append(FlagProblem(flag, f"invalid choice {value!r} (choose from {shown})"))
    elif canon:
        for source in catalogue().name_sources.get(opt.dest, ()):
            if source.key is None:
                names.append(NameUse(flag, source, canon, value))
