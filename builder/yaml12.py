"""YAML 1.2 (core schema + timestamps) loading with a line number for every key path.

PyYAML resolves plain scalars by YAML 1.1 rules (``on`` is a boolean, ``010`` is octal,
``1e3`` is a string...). We let PyYAML parse and compose the node graph, mark every plain
scalar, and resolve those ourselves by the YAML 1.2 core schema. Dates become
``"YYYY-MM-DD"`` strings, duplicate keys are errors, non-string keys become strings
the way JavaScript's ``String()`` prints them.

Content is untrusted, so the node graph is composed by our own loop over the parser's
events (no recursion) and refused, each with its line, when it would be unreasonable to
build: files over 2 MB, control characters, nesting deeper than 100 levels, recursive
aliases, more than 100 aliases, or aliases that expand the document past
:func:`expansion_limit` nodes (billion laughs).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import CollectionNode, MappingNode, Node, ScalarNode, SequenceNode

from builder.fieldpaths import join_path

_PLAIN = "!plain"  # our marker tag for untagged plain scalars

MAX_FILE_BYTES = 2_000_000  # one YAML file
MAX_DEPTH = 100  # nesting levels of collections, counting what aliases bring in
MAX_ALIASES = 100  # alias uses in one file
MAX_DIGITS = 4300  # a decimal integer (Python's int() refuses longer ones)
_EXPANSION_FLOOR = 10_000
_EXPANSION_FACTOR = 50
_EXPANSION_CEILING = 1_000_000

# What YAML 1.2 does not allow in a stream (§5.1): C0 controls but tab, LF and CR; DEL;
# C1 controls but NEL; surrogates; U+FFFE and U+FFFF.
_NOT_PRINTABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")

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
    (re.compile(r"[-+]?\.(inf|Inf|INF)"), lambda match: -math.inf if match.group().startswith("-") else math.inf),
    (re.compile(r"\.(nan|NaN|NAN)"), lambda _match: math.nan),
    (re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"), _date),
    (_TIMESTAMP, _timestamp),
)


def resolve_plain(text: str) -> Any:
    """Resolve one plain scalar by the YAML 1.2 core schema plus timestamps."""
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


def _is_index(key: str) -> bool:
    """A canonical non-negative integer below 2**32 - 1, as JavaScript orders object keys."""
    return (
        len(key) <= 10 and key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1
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


def _scalar(node: ScalarNode, path: str) -> Any:
    """The value of one scalar node; problems carry its line and ``path``."""
    try:
        return resolve_plain(node.value) if node.tag == _PLAIN else _tagged(node)
    except YamlError as exc:
        raise YamlError(exc.message, exc.line or node.start_mark.line + 1, exc.field or path) from None


class _Builder:
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
            if key_node.tag == _STD + "merge" or (key_node.tag == _PLAIN and key_node.value == "<<"):
                raise YamlError("merge keys (<<) are not YAML 1.2", key_node.start_mark.line + 1, path)
            key = key_string(self.build(key_node, path) if key_node.tag != _PLAIN else _scalar(key_node, path))
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


def expansion_limit(source_nodes: int) -> int:
    """How many nodes a file of ``source_nodes`` nodes may expand to through its aliases:
    50 times its own size, at least 10,000, and aliases never take it past 1,000,000."""
    return max(source_nodes, min(_EXPANSION_CEILING, max(_EXPANSION_FLOOR, _EXPANSION_FACTOR * source_nodes)))


@dataclass
class _Open:
    """A collection being composed: its node, dotted path, and what its children add up to."""

    node: CollectionNode
    path: str
    anchor: str | None
    size: int = 1  # nodes once every alias is expanded, itself included
    height: int = 1  # nesting levels once every alias is expanded
    key: Node | None = None  # a mapping's key waiting for its value


@dataclass
class _Anchor:
    """An anchored node; ``size`` and ``height`` are None while it is still open."""

    node: Node
    line: int
    size: int | None = None
    height: int | None = None


@dataclass
class _Composer:
    """Compose the one document of a stream from parser events with a loop, refusing on the
    way what would not end, or not end soon, when built (see the module docstring)."""

    loader: Any
    anchors: dict[str, _Anchor] = field(default_factory=dict)
    stack: list[_Open] = field(default_factory=list)
    source: int = 0  # nodes written in the file (an alias counts as one)
    expanded: int = 0  # nodes once every alias is expanded, so far
    aliases: list[tuple[int, str, int]] = field(default_factory=list)  # (line, path, expanded after it)

    def compose(self) -> Node | None:
        """The root node, or None for an empty stream."""
        loader = self.loader
        loader.get_event()  # StreamStartEvent
        if loader.check_event(StreamEndEvent):
            return None
        start = loader.get_event()  # DocumentStartEvent
        root = self._root()
        loader.get_event()  # DocumentEndEvent
        if not loader.check_event(StreamEndEvent):
            event = loader.get_event()
            raise yaml.composer.ComposerError(
                "expected a single document in the stream", start.start_mark, "but found another document", event.start_mark
            )
        limit = expansion_limit(self.source)
        if self.expanded > limit:
            line, path, _ = next(alias for alias in self.aliases if alias[2] > limit)
            raise YamlError(
                f"aliases expand this file to {self.expanded} nodes, over the limit of {limit} for its {self.source} nodes",
                line,
                path,
            )
        return root

    def _root(self) -> Node:
        """Compose events until the root node is complete."""
        loader = self.loader
        while True:
            event = loader.get_event()
            line = event.start_mark.line + 1
            path = self._child_path()
            if isinstance(event, (SequenceEndEvent, MappingEndEvent)):
                done = self.stack.pop()
                done.node.end_mark = event.end_mark
                if done.anchor is not None:
                    anchored = self.anchors[done.anchor]
                    anchored.size, anchored.height = done.size, done.height
                node, size, height = done.node, done.size, done.height
            elif isinstance(event, AliasEvent):
                node, size, height = self._alias(event, line, path)
            elif isinstance(event, ScalarEvent):
                tag = event.tag
                if tag is None or tag == "!":
                    tag = loader.resolve(ScalarNode, event.value, event.implicit)
                node = ScalarNode(tag, event.value, event.start_mark, event.end_mark, style=event.style)
                size, height = 1, 0
                self._anchor(event.anchor, node, line, 1, 0)
                self.source += 1
                self.expanded += 1
            elif isinstance(event, (SequenceStartEvent, MappingStartEvent)):
                self._open(event, line, path)
                continue
            else:  # pragma: no cover - the parser only sends the events above inside a document
                raise YamlError(f"unexpected {type(event).__name__}", line, path)
            if not self.stack:
                return node
            self._add(node, size, height)

    def _child_path(self) -> str:
        """The dotted path of the next node inside the innermost open collection."""
        if not self.stack:
            return ""
        parent = self.stack[-1]
        if isinstance(parent.node, SequenceNode):
            return join_path(parent.path, len(parent.node.value))
        if parent.key is None:
            return parent.path
        return join_path(parent.path, _key_text(parent.key))

    def _open(self, event: Any, line: int, path: str) -> None:
        """Start a sequence or mapping, refusing nesting past MAX_DEPTH."""
        if len(self.stack) >= MAX_DEPTH:
            raise YamlError(f"nesting deeper than {MAX_DEPTH} levels", line, path)
        kind = SequenceNode if isinstance(event, SequenceStartEvent) else MappingNode
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(kind, None, event.implicit)
        node = kind(tag, [], event.start_mark, None, flow_style=event.flow_style)
        self._anchor(event.anchor, node, line, None, None)
        self.source += 1
        self.expanded += 1
        self.stack.append(_Open(node, path, event.anchor))

    def _anchor(self, name: str | None, node: Node, line: int, size: int | None, height: int | None) -> None:
        if name is None:
            return
        if name in self.anchors:
            first = self.anchors[name].line
            raise YamlError(f"duplicate anchor &{name} (first defined on line {first})", line)
        self.anchors[name] = _Anchor(node, line, size, height)

    def _alias(self, event: Any, line: int, path: str) -> tuple[Node, int, int]:
        """The anchored node an alias repeats, with its expanded size and height."""
        name = event.anchor
        anchored = self.anchors.get(name)
        if anchored is None:
            raise YamlError(f"undefined alias *{name}", line, path)
        if anchored.size is None or anchored.height is None:
            raise YamlError(f"recursive alias *{name}: it is inside its own anchor &{name} (line {anchored.line})", line, path)
        if len(self.aliases) >= MAX_ALIASES:
            raise YamlError(f"too many aliases: more than {MAX_ALIASES} in one file", line, path)
        if len(self.stack) + anchored.height > MAX_DEPTH:
            raise YamlError(f"nesting deeper than {MAX_DEPTH} levels once alias *{name} is expanded", line, path)
        self.source += 1
        self.expanded += anchored.size
        self.aliases.append((line, path, self.expanded))
        return anchored.node, anchored.size, anchored.height

    def _add(self, node: Node, size: int, height: int) -> None:
        """Put a completed node into the innermost open collection."""
        parent = self.stack[-1]
        parent.size += size
        parent.height = max(parent.height, height + 1)
        if isinstance(parent.node, SequenceNode):
            parent.node.value.append(node)
        elif parent.key is None:
            parent.key = node
        else:
            parent.node.value.append((parent.key, node))
            parent.key = None


def _key_text(node: Node) -> str:
    """A mapping key as it will appear in field paths (for messages only)."""
    if isinstance(node, ScalarNode):
        try:
            return key_string(resolve_plain(node.value)) if node.tag == _PLAIN else node.value
        except YamlError:
            return node.value
    return "?"


def _check_text(text: str) -> None:
    """Refuse what YAML does not allow in a stream, with its line and column, and oversized text."""
    if len(text) > MAX_FILE_BYTES:
        raise YamlError(f"file is too large: {len(text)} characters (the limit is {MAX_FILE_BYTES} bytes)", 0)
    bad = _NOT_PRINTABLE.search(text)
    if bad:
        start = bad.start()
        line = text.count("\n", 0, start) + 1
        column = start - text.rfind("\n", 0, start)
        code = ord(bad.group())
        kind = "control character" if code < 0xA0 else "character"
        raise YamlError(f"{kind} U+{code:04X} is not allowed in YAML (column {column})", line)


def load(text: str) -> tuple[Any, dict[str, int]]:
    """Load one YAML document: (data, {dotted key path: 1-based line})."""
    _check_text(text)
    loader = _Loader(text)
    try:
        try:
            node = _Composer(loader).compose()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            line = mark.line + 1 if mark else 0
            message = f"invalid YAML: {exc.problem or exc.context}"
            if exc.problem == "exceeded maximum nesting depth":  # libyaml's own limit, 1000 levels
                message = f"nesting deeper than {MAX_DEPTH} levels"
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
