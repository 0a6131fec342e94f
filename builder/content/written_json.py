"""The fast read of a JSON file the tool writes beside a recipe (``.performance.json``,
``.benchmarks.json``).

Such a file is YAML 1.2 too, and the YAML loader is what gives its problems a line. Parsing it as JSON is
a hundred times cheaper, and gives the same data when the text is exactly what the tool's writer prints for
that data: then no layout YAML reads otherwise (a key far from its colon, a tab) can be in it, and what
remains is checked here (YAML's integral floats, array-index keys it reorders, nesting it refuses,
characters it reads as line breaks, escaped surrogate pairs it keeps apart). Anything else is None, and the
caller reads the file as YAML, which reports every problem as it always did.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from builder.content.files import Collector, read_regular_file, shown_name
from builder.content.yaml12 import MAX_DEPTH, YamlError, check_text
from builder.content.yaml_values import is_index

# raw characters YAML reads as line breaks or a byte order mark, and escaped UTF-16 surrogates (JSON joins
# a pair into one character, YAML does not)
_READ_OTHERWISE = re.compile(r"[\x85\u2028\u2029\ufeff]|\\u[dD][89abAB]")
MAX_KEY = 150  # characters of a key: escaped (6 at most each) it stays within YAML's 1,024 up to its colon
_WHOLE = 2**53  # YAML 1.2 reads an integral float below this as an integer (JavaScript's safe integers)


class _Otherwise(Exception):
    """YAML would read the data otherwise (or refuse it)."""


def written_json(root: Path, rel: str, dump: Callable[[Any], str]) -> dict[str, Any] | None:
    """The data of ``root/rel`` as the YAML loader would give it, when the file is a regular file of the
    content root holding exactly ``dump(data)``; None otherwise (nothing is reported)."""
    if shown_name(rel) != rel:
        return None
    raw = read_regular_file(root, rel, Collector())  # problems are the YAML read's to report
    if raw is None:
        return None
    try:
        text = raw.decode("utf-8")
        check_text(text)
        data = orjson.loads(raw)
        if not isinstance(data, dict) or _READ_OTHERWISE.search(text) or dump(data) != text:
            return None
        return _as_yaml_reads(data, 1)  # type: ignore[no-any-return]
    except (UnicodeDecodeError, YamlError, orjson.JSONDecodeError, _Otherwise,
            KeyError, TypeError, AttributeError, ValueError):  # the writer's refusal of another shape
        return None


def _as_yaml_reads(value: Any, depth: int) -> Any:
    """``value`` with YAML 1.2's integral floats as integers; raises :class:`_Otherwise` where YAML would
    order keys differently or refuse the nesting."""
    if isinstance(value, float):
        return int(value) if value.is_integer() and abs(value) < _WHOLE else value
    if isinstance(value, list | dict) and depth > MAX_DEPTH - 2:
        raise _Otherwise("nesting")
    if isinstance(value, list):
        return [_as_yaml_reads(item, depth + 1) for item in value]
    if isinstance(value, dict):
        for key in value:
            if len(key) > MAX_KEY or is_index(key) or key == "<<":
                raise _Otherwise(key)
        return {key: _as_yaml_reads(item, depth + 1) for key, item in value.items()}
    return value
