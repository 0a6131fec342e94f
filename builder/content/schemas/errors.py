"""Problems of a document against the pydantic models of :mod:`builder.content.schemas`, in readable words.

:func:`validation_problems` turns pydantic's errors into located :class:`~builder.content.problems.Problem`
values ("expected an integer, got a string 'x'"); :func:`number_problems` finds the numbers JSON or the
browser cannot carry (``.inf``, ``.nan``, integers beyond 2^53 - 1) anywhere in a document.
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationError

from builder.content.fieldpaths import Link, join_path, path_of
from builder.content.problems import Problem

_NOUNS = {
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "string_type": "a string",
    "bool_type": "a boolean",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "list_type": "a list",
    "none_required": "null",
}


def _describe(value: Any) -> str:
    """A short description of a wrong value, for messages."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, float) and not math.isfinite(value):
        return ".nan" if math.isnan(value) else "-.inf" if value < 0 else ".inf"
    if isinstance(value, int) and value.bit_length() > 64:
        return f"a number of {len(str(abs(value))) if value.bit_length() < 4000 else 'over 1200'} digits"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}"
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _data_path(data: Any, loc: tuple[Any, ...]) -> tuple[str, Any]:
    """Follow a pydantic location through the data; drop union-member tags."""
    path, node = "", data
    for part in loc:
        if isinstance(node, dict) and isinstance(part, str) and part in node:
            path, node = join_path(path, part), node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path, node = join_path(path, part), node[part]
        elif isinstance(node, dict) and isinstance(part, str) and part not in node and not _is_tag(part):
            return join_path(path, part), _MISSING
    return path, node


_MISSING = object()
_BOUNDS = {"greater_than_equal": ">=", "greater_than": ">", "less_than_equal": "<=", "less_than": "<"}


def _is_tag(part: str) -> bool:
    """pydantic adds the member type of a union to locations (``str``, ``dict[str,int]``...)."""
    return (part in {"str", "int", "float", "bool", "none"} or "[" in part or part[:1].isupper()
            or part.startswith("constrained-"))


def validation_problems(exc: ValidationError, data: Any, rel: str, where: Any) -> list[Problem]:
    """One problem per field path, merging the alternatives of union types."""
    grouped: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
    for err in exc.errors():
        path, value = _data_path(data, tuple(err["loc"]))
        grouped.setdefault(path, (value, []))[1].append(err)
    problems = []
    for path, (value, errors) in grouped.items():
        if _matched_deeper(path, errors, grouped):
            continue
        file, line = where(path)
        problems.append(Problem(file, line, path, _message(value, errors)))
    return problems


def _matched_deeper(path: str, errors: list[dict[str, Any]], grouped: dict[str, Any]) -> bool:
    """Only type mismatches here, while a container member of the union failed deeper down.

    ``tp: {h100: 2000}`` fails ``int`` at ``tp`` and ``<= 1024`` at ``tp.h100``: the value is a
    mapping, so only the deeper problem is worth reporting.
    """
    if not all(e["type"] in _NOUNS for e in errors):
        return False
    return any(other.startswith((path + ".", path + "[") if path else "") and other != path
               for other in grouped)


_URL_RULES = {
    "unsafe_url": "must be an http(s) URL or a site-relative path",
    "not_absolute_url": "must be an absolute http(s) URL",
}


def _message(value: Any, errors: list[dict[str, Any]]) -> str:
    """Turn the pydantic errors of one field into one sentence."""
    types = [e["type"] for e in errors]
    if value is _MISSING or "missing" in types:
        return "required field is missing"
    if "too_short" in types:
        return "must not be empty"
    if "finite_number" in types:
        return f"must be a finite number, got {_describe(value)}"
    if "string_too_long" in types:
        limit = next(e for e in errors if e["type"] == "string_too_long")["ctx"]["max_length"]
        return f"must be at most {limit} characters, got {len(value)}"
    if "too_long" in types:
        ctx = next(e for e in errors if e["type"] == "too_long")["ctx"]
        noun = "items" if ctx.get("field_type") == "List" else "entries"
        count = len(value) if isinstance(value, list | dict) else ctx.get("actual_length")
        return f"must have at most {ctx['max_length']} {noun}, got {count}"
    url_rule = next((_URL_RULES[t] for t in types if t in _URL_RULES), None)
    if url_rule is not None:
        return f"{url_rule}, got {_describe(value)}"
    bound = next((e for e in errors if e["type"] in _BOUNDS), None)
    if bound is not None:
        return f"must be {_BOUNDS[bound['type']]} {next(iter(bound['ctx'].values()))}, got {_describe(value)}"
    if "literal_error" in types:
        expected = next(e for e in errors if e["type"] == "literal_error")["ctx"]["expected"]
        return f"expected one of {expected}, got {_describe(value)}"
    nouns = list(dict.fromkeys(_NOUNS[t] for t in types if t in _NOUNS))
    if "a number" in nouns and "an integer" in nouns:
        nouns.remove("an integer")
    if nouns:
        return f"expected {' or '.join(nouns)}, got {_describe(value)}"
    return "; ".join(dict.fromkeys(e["msg"] for e in errors))


MAX_SAFE_INTEGER = 2**53 - 1  # JavaScript reads larger integers inexactly


def number_problems(data: Any, where: Any) -> list[Problem]:
    """Every number that JSON or the browser cannot carry faithfully, anywhere in ``data``.

    ``.inf``/``.nan`` would make the published JSON unparseable (and pass ``>= 0``
    checks); integers beyond 2^53 - 1 change value in JavaScript. Walks free-form places
    (args, env values, ``parallelism``, ``json_args``...) too, in document order.
    """
    found: list[Problem] = []
    stack: list[tuple[Link, Any]] = [(None, data)]
    while stack:
        link, value = stack.pop()
        if isinstance(value, bool):
            continue
        message = None
        if isinstance(value, float) and not math.isfinite(value):
            message = f"must be a finite number, got {_describe(value)}"
        elif isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
            message = f"must be between -{MAX_SAFE_INTEGER} and {MAX_SAFE_INTEGER}, got {_describe(value)}"
        elif isinstance(value, dict):
            stack.extend(((link, key), child) for key, child in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(((link, i), child) for i, child in reversed(list(enumerate(value))))
        if message is not None:
            path = path_of(link)
            file, line = where(path)
            found.append(Problem(file, line, path, message))
    return found


