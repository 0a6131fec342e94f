"""A small YAML emitter for deployment documents (no PyYAML in the browser).

Only JSON-like data is written: mappings, lists, strings, integers, floats, booleans and ``None``.
Every string that is not a plain word is written double-quoted with every character outside
printable ASCII escaped, so a recipe value can never open a new key, a comment, an anchor, a
tag or a document; the output is pure ASCII. Multi-line strings made only of printable ASCII
are written as literal blocks (``|`` / ``|-``) when that reads back exactly, else quoted.
The output reads back to the same data under YAML 1.1 (PyYAML, kubectl) and YAML 1.2.
"""

from __future__ import annotations

import re
from typing import Any

_PLAIN = re.compile(r"[A-Za-z][A-Za-z0-9_./-]*")
# Words that YAML 1.1 or 1.2 resolves to booleans or null (case-insensitive match below).
_SPECIAL_WORDS = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null"})
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def quoted(text: str) -> str:
    """``text`` as a double-quoted YAML scalar in pure ASCII."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif 0x20 <= code < 0x7F:
            out.append(char)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        elif code <= 0xFFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(f"\\U{code:08x}")
    out.append('"')
    return "".join(out)


def _is_plain(text: str) -> bool:
    return bool(_PLAIN.fullmatch(text)) and text.lower() not in _SPECIAL_WORDS


def _block_lines(text: str) -> list[str] | None:
    """The lines of a literal block that reads back as ``text``, or None when quoting is needed."""
    body = text[:-1] if text.endswith("\n") else text
    if "\n" not in body or body.endswith("\n") or not body or body[0] in " \t":
        return None
    lines = body.split("\n")
    if any(line != line.rstrip(" ") or any(not 0x20 <= ord(c) < 0x7F for c in line) for line in lines):
        return None
    return lines


def _float(value: float) -> str:
    """A float that YAML 1.1 (which wants a dot and a signed exponent) and 1.2 both read back as itself:
    the shortest repr, with ``.0`` before a bare exponent (``1e-05`` -> ``1.0e-05``)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value)
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}.0e{exponent}" if e and "." not in mantissa else text


def scalar(value: Any) -> str:
    """A one-line scalar (strings quoted unless plain)."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, str):
        return value if _is_plain(value) else quoted(value)
    raise TypeError(f"cannot write {type(value).__name__} as YAML")


def _key(key: Any) -> str:
    if not isinstance(key, str):
        raise TypeError(f"mapping keys must be strings, not {type(key).__name__}")
    return key if _is_plain(key) else quoted(key)


def _value_lines(value: Any, indent: int) -> list[str]:
    """Lines of a block value at ``indent`` (mappings and lists), for placement under a key."""
    pad = " " * indent
    if isinstance(value, dict):
        lines: list[str] = []
        for key, item in value.items():
            lines += _entry(f"{pad}{_key(key)}:", item, indent)
        return lines
    lines = []
    for item in value:
        if isinstance(item, (dict, list)) and item:
            inner = _value_lines(item, indent + 2)
            lines.append(f"{pad}- {inner[0][indent + 2:]}")
            lines += inner[1:]
        else:
            lines += _entry(f"{pad}-", item, indent)
    return lines


def _entry(head: str, value: Any, indent: int) -> list[str]:
    """``head`` (``key:`` or ``-``) followed by its value."""
    if isinstance(value, dict | list):
        if not value:
            return [f"{head} {'{}' if isinstance(value, dict) else '[]'}"]
        return [head, *_value_lines(value, indent + 2)]
    if isinstance(value, str) and (lines := _block_lines(value)) is not None:
        chomp = "" if value.endswith("\n") else "-"
        pad = " " * (indent + 2)
        return [f"{head} |{chomp}", *(f"{pad}{line}" if line else "" for line in lines)]
    return [f"{head} {scalar(value)}"]


def dump(document: Any) -> str:
    """One YAML document (a mapping or a list) ending in a newline."""
    if not isinstance(document, dict | list):
        return scalar(document) + "\n"
    if not document:
        return "{}\n" if isinstance(document, dict) else "[]\n"
    return "\n".join(_value_lines(document, 0)) + "\n"


def dump_all(documents: list[Any], comments: list[str] | None = None) -> str:
    """A YAML stream: ``# comment`` lines, then the documents separated by ``---``."""
    head = "".join(f"# {line}\n" if line else "#\n" for line in comment_lines(comments or []))
    return head + "---\n".join(dump(doc) for doc in documents)


def comment_lines(lines: list[str]) -> list[str]:
    """Comment text made safe: one line each, printable ASCII kept, anything else replaced by ``?``."""
    # printable ASCII is exactly what isascii() and isprintable() both accept: most lines need no copy
    return [line if line.isascii() and line.isprintable()
            else "".join(c if 0x20 <= ord(c) < 0x7F else "?" for c in line) for line in lines]
