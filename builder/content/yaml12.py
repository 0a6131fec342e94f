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

import re
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

from builder.content.fieldpaths import join_path
from builder.content.yaml_values import MAX_DIGITS as MAX_DIGITS  # re-exported: one of the documented limits
from builder.content.yaml_values import PLAIN, NodeBuilder, YamlError, key_string, resolve_plain

MAX_FILE_BYTES = 2_000_000  # one YAML file
MAX_DEPTH = 100  # nesting levels of collections, counting what aliases bring in
MAX_ALIASES = 100  # alias uses in one file

_EXPANSION_FLOOR = 10_000
_EXPANSION_FACTOR = 50
_EXPANSION_CEILING = 1_000_000

# What YAML 1.2 does not allow in a stream (§5.1): C0 controls but tab, LF and CR; DEL;
# C1 controls but NEL; surrogates; U+FFFE and U+FFFF.
_NOT_PRINTABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")




class _Resolver(yaml.resolver.BaseResolver):
    """Tag every untagged plain scalar with our marker; leave the rest to PyYAML."""

    def resolve(self, kind: type, value: Any, implicit: Any) -> str:
        if kind is ScalarNode and implicit[0]:
            return PLAIN
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
                "expected a single document in the stream", start.start_mark, "but found another document",
                event.start_mark
            )
        limit = expansion_limit(self.source)
        if self.expanded > limit:
            line, path, _ = next(alias for alias in self.aliases if alias[2] > limit)
            raise YamlError(
                f"aliases expand this file to {self.expanded} nodes, over the limit of {limit} for its "
                f"{self.source} nodes",
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
            raise YamlError(f"recursive alias *{name}: it is inside its own anchor &{name} (line "
                            f"{anchored.line})", line, path)
        if len(self.aliases) >= MAX_ALIASES:
            raise YamlError(f"too many aliases: more than {MAX_ALIASES} in one file", line, path)
        if len(self.stack) + anchored.height > MAX_DEPTH:
            raise YamlError(f"nesting deeper than {MAX_DEPTH} levels once alias *{name} is expanded", line,
                            path)
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
            return key_string(resolve_plain(node.value)) if node.tag == PLAIN else node.value
        except YamlError:
            return node.value
    return "?"


def check_text(text: str) -> None:
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
    check_text(text)
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
    builder = NodeBuilder()
    data = builder.build(node, "")
    return data, builder.lines
