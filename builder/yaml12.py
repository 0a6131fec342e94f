"""YAML 1.2 (core schema + timestamps) loading with a line number for every key path.

PyYAML resolves plain scalars by YAML 1.1 rules (``on`` is a boolean, ``010`` is octal,
``1e3`` is a string...). We let PyYAML parse and compose the node graph, mark every plain
scalar, and resolve those ourselves by the YAML 1.2 core schema. Dates become
``"YYYY-MM-DD"`` strings, duplicate keys are errors, non-string keys become strings
the way JavaScript's ``String()`` prints them.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from builder.fieldpaths import join_path

_PLAIN = "!plain"  # our marker tag for untagged plain scalars

_NULL = frozenset({"", "~", "null", "Null", "NULL"})
_TRUE = frozenset({"true", "True", "TRUE"})
_FALSE = frozenset({"false", "False", "FALSE"})
_INT_DEC = re.compile(r"[-+]?[0-9]+")
_INT_OCT = re.compile(r"0o[0-7]+")
_INT_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(inf|Inf|INF)")
_NAN = re.compile(r"\.(nan|NaN|NAN)")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")
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


class _Resolver(yaml.resolver.BaseResolver):
    """Tag every untagged plain scalar with our marker; leave the rest to PyYAML."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode and implicit[0]:
            return _PLAIN
        return super().resolve(kind, value, implicit)


try:
    from yaml._yaml import CParser as _Parser  # libyaml
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    _Parser = None


if _Parser is not None:

    class _Loader(_Parser, _Resolver):  # type: ignore[misc, valid-type]
        """libyaml's parser and composer with our resolver."""

        def __init__(self, stream: str):
            _Parser.__init__(self, stream)
            _Resolver.__init__(self)

else:  # pragma: no cover - pure-Python PyYAML

    class _Loader(  # type: ignore[no-redef]
        yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser, yaml.composer.Composer, _Resolver
    ):
        """PyYAML's pure-Python parser and composer with our resolver."""

        def __init__(self, stream: str):
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)
            yaml.composer.Composer.__init__(self)
            _Resolver.__init__(self)


def resolve_plain(text: str) -> Any:
    """Resolve one plain scalar by the YAML 1.2 core schema plus timestamps."""
    if text in _NULL:
        return None
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    if _INT_DEC.fullmatch(text):
        return int(text, 10)
    if _INT_OCT.fullmatch(text):
        return int(text[2:], 8)
    if _INT_HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        number = float(text)
        # JSON prints numbers as JavaScript does: an integral value never carries ".0".
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    if _INF.fullmatch(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    if _DATE.fullmatch(text):
        try:
            return _dt.date(int(text[:4]), int(text[5:7]), int(text[8:10])).isoformat()
        except ValueError:
            return text
    match = _TIMESTAMP.fullmatch(text)
    if match:
        return _timestamp_date(match) or text
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
        moment -= sign * _dt.timedelta(hours=int(hours), minutes=int(minutes or 0))
    return moment.date().isoformat()


def _is_index(key: str) -> bool:
    """A canonical non-negative integer below 2**32 - 1, as JavaScript orders object keys."""
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1


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


_STD = "tag:yaml.org,2002:"


def _tagged(node: ScalarNode) -> Any:
    """A scalar with an explicit (or quoted/block default) tag."""
    tag, text = node.tag, node.value
    if tag == _STD + "str":
        return text
    if tag in (_STD + "int", _STD + "float", _STD + "bool", _STD + "null", _STD + "timestamp"):
        value = resolve_plain(text)
        kinds = {
            "int": (int,),
            "float": (float, int),
            "bool": (bool,),
            "null": (type(None),),
            "timestamp": (str,),
        }[tag[len(_STD) :]]
        if isinstance(value, kinds) and not (tag.endswith("int") and isinstance(value, bool)):
            return float(value) if tag.endswith("float") else value
        raise YamlError(f"cannot read {text!r} as {tag[len(_STD):]}", node.start_mark.line + 1)
    raise YamlError(f"unsupported tag {tag}", node.start_mark.line + 1)


class _Builder:
    """Turn a composed node graph into plain data, recording a line per path."""

    def __init__(self) -> None:
        self.lines: dict[str, int] = {}

    def build(self, node: Node, path: str) -> Any:
        self.lines.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, ScalarNode):
            return resolve_plain(node.value) if node.tag == _PLAIN else _tagged(node)
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
            if key_node.tag == _STD + "merge" or (key_node.tag == _PLAIN and key_node.value == "<<"):
                raise YamlError("merge keys (<<) are not YAML 1.2", key_node.start_mark.line + 1, path)
            key = key_string(self.build(key_node, path) if key_node.tag != _PLAIN else resolve_plain(key_node.value))
            child = join_path(path, key)
            if key in result:
                raise YamlError(f"duplicate key {key!r}", key_node.start_mark.line + 1, child)
            self.lines[child] = key_node.start_mark.line + 1
            result[key] = self.build(value_node, child)
        if any(_is_index(key) for key in result):
            # JavaScript objects list array-index keys first, in numeric order (json-api §2.4).
            indexed = sorted((k for k in result if _is_index(k)), key=int)
            result = {**{k: result[k] for k in indexed}, **{k: v for k, v in result.items() if not _is_index(k)}}
        return result


def load(text: str) -> tuple[Any, dict[str, int]]:
    """Load one YAML document: (data, {dotted key path: 1-based line})."""
    loader = _Loader(text)
    try:
        try:
            node = loader.get_single_node()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else 0
            message = f"invalid YAML: {exc.problem or exc.context}"
            if exc.problem and exc.context and exc.context_mark and exc.context_mark.line + 1 != line:
                message += f" ({exc.context} started on line {exc.context_mark.line + 1})"
            raise YamlError(message, line) from None
        except yaml.YAMLError as exc:
            raise YamlError(f"invalid YAML: {exc}", 0) from None
    finally:
        loader.dispose()
    if node is None:
        return None, {"": 1}
    builder = _Builder()
    data = builder.build(node, "")
    return data, builder.lines
