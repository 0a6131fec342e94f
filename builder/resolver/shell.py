"""Argument dedupe, shell quoting and command text (single-node spec §9-§10, §11.3)."""

from __future__ import annotations

import functools
import re
from typing import Any

from .hardware import raw_generation
from .values import js_str, truthy


def _flags(tokens: list[Any]) -> list[bool]:
    """Which tokens are flags (strings starting with ``-``), plus True past the end (no value follows the
    last)."""
    flags = [isinstance(tok, str) and tok[:1] == "-" for tok in tokens]
    flags.append(True)
    return flags


def arg_units(tokens: list[Any]) -> list[tuple[Any, ...]]:
    """§9.1: ``(flag, value)``, ``(flag,)`` or ``(None, positional)`` units."""
    flags = _flags(tokens)
    units: list[tuple[Any, ...]] = []
    i, n = 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if not flags[i]:
            units.append((None, tok))
        elif not flags[i + 1]:
            units.append((tok, tokens[i + 1]))
            i += 1
        else:
            units.append((tok,))
        i += 1
    return units


def flatten_units(units: list[tuple[Any, ...]]) -> list[Any]:
    return [t for u in units for t in (u[1:] if u[0] is None else u)]


def dedupe_args(tokens: list[Any]) -> list[Any]:
    """§9: drop falsy items, then keep the last occurrence of every flag.

    The units of :func:`arg_units`, walked from the end in one pass (it runs for every command a build
    renders): a flag always starts a unit, so a non-flag is a flag's value exactly when a flag precedes it.
    """
    items = [t for t in tokens if (t if type(t) is str else truthy(t))]
    flags = _flags(items)
    seen: set[Any] = set()
    kept: list[Any] = []  # in reverse
    i = len(items) - 1
    while i >= 0:
        if flags[i]:
            unit_start = i  # a flag without a value
        elif i and flags[i - 1]:
            unit_start = i - 1  # a (flag, value) pair
        else:
            kept.append(items[i])  # a positional
            i -= 1
            continue
        flag = items[unit_start]
        if flag not in seen:
            seen.add(flag)
            if unit_start < i:
                kept.append(items[i])
            kept.append(flag)
        i = unit_start - 1
    kept.reverse()
    return kept


SHELL_VAR = re.compile(r"\$[A-Z_][A-Z0-9_]*")


SHELL_SAFE = re.compile(r"[A-Za-z0-9_./=:@,+%-]+")


def quote_value(value: Any) -> str:
    """§10.4 value quoting (single quotes unless shell-safe or a bare ``$VAR``)."""
    if not isinstance(value, str) or value == "":
        return js_str(value)
    return _quoted(value)


@functools.lru_cache(maxsize=8192)
def _quoted(value: str) -> str:
    """:func:`quote_value` of a non-empty string (the same values recur in every rendering)."""
    if SHELL_VAR.fullmatch(value) or SHELL_SAFE.fullmatch(value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"


def _lines(tokens: list[Any]) -> list[str]:
    """§10.2 line grouping: ``flag value`` pairs, everything else on its own line."""
    flags = _flags(tokens)
    out, i, n = [], 0, len(tokens)
    while i < n:
        tok = tokens[i]
        if flags[i] and not flags[i + 1]:
            out.append(f"{tok} {quote_value(tokens[i + 1])}")
            i += 2
        else:
            out.append(js_str(tok))
            i += 1
    return out


def format_command(model_id: str, tokens: list[Any], binary: str = "vllm serve") -> str:
    """§10.3: ``<binary> <model>`` then one continuation line per flag unit."""
    return " \\\n  ".join([f"{binary} {model_id}", *_lines(tokens)])


def export_lines(env: dict[str, Any]) -> list[str]:
    """§11.3 ``export KEY=VALUE`` lines, values as JavaScript ``String(v)`` and unquoted.

    Unquoted is safe: ``safety.env_value_problem`` refuses at load time every value the
    shell would read differently (only safe characters or one bare ``$VAR`` pass).
    """
    return [f"export {key}={js_str(value)}" for key, value in env.items()]


def pip_view(command: str, env: dict[str, Any], profile: dict[str, Any]) -> str:
    """Single-node §11.3 pip view: ``export`` lines, a blank line, then the command."""
    lines = ["source /opt/intel/oneapi/setvars.sh"] if raw_generation(profile) == "xpu" else []
    lines += export_lines(env)
    return "\n".join(lines) + "\n\n" + command if lines else command
