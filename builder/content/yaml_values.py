"""YAML 1.2 core-schema values: plain scalars resolved by the 1.2 rules (``on`` stays a string,
``010`` is decimal, ``1e3`` a number), dates as ``"YYYY-MM-DD"``, explicit tags, keys as JavaScript's
``String()`` prints them, and :class:`NodeBuilder`, which turns a composed node graph into plain data
with a line for every key path. :mod:`builder.content.yaml12` composes the graph."""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable
from typing import Any

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from builder.content.fieldpaths import join_path

PLAIN = "!plain"  # our marker tag for untagged plain scalars
MAX_DIGITS = 4300  # a decimal integer (Python's int() refuses longer ones)
_TIMESTAMP = re.compile(
    r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:[Tt]|[ \t]+)([0-9]{1,2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]*))?"
    r"(?:[ \t]*(Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?"
)


class YamlError(Exception):
    """A load problem with its 1-based line and the field path where it happened."""

    def __init__(self, message: str, line: int, field: str = ""):
        super().__init__(message)
        self.message = message
        self.line = line
        self.field = field


def _decimal(match: re.Match[str]) -> int:
    text = match.group()
    if len(text.lstrip("+-")) > MAX_DIGITS:
        raise YamlError(f"integer {text[:20]}... has more than {MAX_DIGITS} digits", 0)
    return int(text, 10)


def _float(match: re.Match[str]) -> int | float:
    number = float(match.group())
    # JSON prints numbers as JavaScript does: an integral value never carries ".0".
    return int(number) if number.is_integer() and abs(number) < 2**53 else number


def _date(match: re.Match[str]) -> str:
    text = match.group()
    try:
        return _dt.date(int(text[:4]), int(text[5:7]), int(text[8:10])).isoformat()
    except ValueError:
        return text


def _timestamp(match: re.Match[str]) -> str:
    return _timestamp_date(match) or match.group()


# The YAML 1.2 core schema's resolution of plain scalars, in order, plus dates and timestamps
# (which the JSON API prints as calendar dates, as the upstream's loader does).
_PLAIN_SCALARS: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], Any]], ...] = (
    (re.compile(r"|~|null|Null|NULL"), lambda _match: None),
    (re.compile(r"true|True|TRUE"), lambda _match: True),
    (re.compile(r"false|False|FALSE"), lambda _match: False),
    (re.compile(r"[-+]?[0-9]+"), _decimal),
    (re.compile(r"0o[0-7]+"), lambda match: int(match.group()[2:], 8)),
    (re.compile(r"0x[0-9a-fA-F]+"), lambda match: int(match.group()[2:], 16)),
    (re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?"), _float),
    (re.compile(r"[-+]?\.(inf|Inf|INF)"),
     lambda match: -math.inf if match.group().startswith("-") else math.inf),
    (re.compile(r"\.(nan|NaN|NAN)"), lambda _match: math.nan),
    (re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"), _date),
    (_TIMESTAMP, _timestamp),
)


# The first characters a text matching one of _PLAIN_SCALARS can start with (any other is a string).
_PLAIN_STARTS = frozenset("~nNtTfF+-.0123456789")


def resolve_plain(text: str) -> Any:
    """Resolve one plain scalar by the YAML 1.2 core schema plus timestamps."""
    if text and text[0] not in _PLAIN_STARTS:
        return text
    for pattern, convert in _PLAIN_SCALARS:
        match = pattern.fullmatch(text)
        if match:
            return convert(match)
    return text


def _timestamp_date(match: re.Match[str]) -> str | None:
    """The UTC calendar date of a YAML timestamp, as ``YYYY-MM-DD``."""
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    zone = match.group(8)
    try:
        moment = _dt.datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        hours, _, minutes = zone[1:].partition(":")
        if not minutes and len(hours) > 2:
            hours, minutes = hours[:-2], hours[-2:]
        try:
            moment -= sign * _dt.timedelta(hours=int(hours), minutes=int(minutes or 0))
        except OverflowError:  # before year 1 or after year 9999 in UTC
            return None
    return moment.date().isoformat()


def is_index(key: str) -> bool:
    """A canonical non-negative integer below 2**32 - 1, as JavaScript orders object keys."""
    return (
        len(key) <= 10 and key.isdigit() and key.isascii() and (key == "0" or key[0] != "0")
        and int(key) < 2**32 - 1
    )


def key_string(value: Any) -> str:
    """A mapping key as JavaScript's ``String()`` would print it."""
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


STD = "tag:yaml.org,2002:"


def _tagged(node: ScalarNode) -> Any:
    """A scalar with an explicit (or quoted/block default) tag."""
    tag, text = node.tag, node.value
    if tag == STD + "str":
        return text
    if tag in (STD + "int", STD + "float", STD + "bool", STD + "null", STD + "timestamp"):
        value = resolve_plain(text)
        kinds = {
            "int": (int,),
            "float": (float, int),
            "bool": (bool,),
            "null": (type(None),),
            "timestamp": (str,),
        }[tag[len(STD) :]]
        if isinstance(value, kinds) and not (tag.endswith("int") and isinstance(value, bool)):
            return float(value) if tag.endswith("float") else value
        raise YamlError(f"cannot read {text!r} as {tag[len(STD):]}", node.start_mark.line + 1)
    raise YamlError(f"unsupported tag {tag}", node.start_mark.line + 1)


def _scalar(node: ScalarNode, path: str) -> Any:
    """The value of one scalar node; problems carry its line and ``path``."""
    try:
        return resolve_plain(node.value) if node.tag == PLAIN else _tagged(node)
    except YamlError as exc:
        raise YamlError(exc.message, exc.line or node.start_mark.line + 1, exc.field or path) from None


class NodeBuilder:
    """Turn a composed node graph into plain data, recording a line per path."""

    def __init__(self) -> None:
        self.lines: dict[str, int] = {}

    def build(self, node: Node, path: str) -> Any:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, ScalarNode):
            return _scalar(node, path)
        if isinstance(node, SequenceNode):
            return [self.build(item, join_path(path, i)) for i, item in enumerate(node.value)]
        if isinstance(node, MappingNode):
            return self._mapping(node, path)
        raise YamlError("unsupported node", node.start_mark.line + 1, path)

    def _mapping(self, node: MappingNode, path: str) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise YamlError("mapping keys must be scalars", key_node.start_mark.line + 1, path)
            if key_node.tag == STD + "merge" or (key_node.tag == PLAIN and key_node.value == "<<"):
                raise YamlError("merge keys (<<) are not YAML 1.2", key_node.start_mark.line + 1, path)
            key = key_string(self.build(key_node, path) if key_node.tag != PLAIN else _scalar(key_node, path))
            child = join_path(path, key)
            if key in result:
                raise YamlError(f"duplicate key {key!r}", key_node.start_mark.line + 1, child)
            self.lines[child] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, child)
        if any(is_index(key) for key in result):
            # JavaScript objects list array-index keys first, in numeric order (json-api §2.4).
            indexed = sorted((k for k in result if is_index(k)), key=int)
            result = {**{k: result[k] for k in indexed},
                      **{k: v for k, v in result.items() if not is_index(k)}}
        return result
