"""Small coercions shared by every resolver module: JSON-like presence tests, JavaScript-style strings."""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeGuard

MAX_NODES = 16


HF_CACHE_MOUNT = "~/.cache/huggingface:/root/.cache/huggingface"


def is_num(v: object) -> TypeGuard[int | float]:
    """True for int/float but not bool."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def truthy(v: Any) -> bool:
    """JavaScript truthiness: ``{}`` and ``[]`` are truthy; None/False/0/"" are not."""
    if v is None or v is False or v == "":
        return False
    if is_num(v):
        return v != 0 and not (isinstance(v, float) and math.isnan(v))
    return True


def as_dict(v: Any) -> dict[str, Any]:
    return v if isinstance(v, dict) else {}


def as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else []


def get_key(block: Any, key: str | None) -> Any:
    """``block[key]`` when ``block`` is a mapping, else None."""
    return block.get(key) if isinstance(block, dict) else None


def js_str(v: Any) -> str:
    """Stringify like JavaScript ``String(v)`` (``True`` -> ``"true"``, ``8.0`` -> ``"8"``)."""
    if isinstance(v, str):
        return v
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def int_if_integral(v: Any) -> Any:
    return int(v) if isinstance(v, float) and v.is_integer() else v


def merge_env(env: dict[str, Any], block: Any) -> None:
    """§0.5: later writes overwrite values, keys keep their first position."""
    if isinstance(block, dict):
        env.update(block)


def is_omni(recipe: dict[str, Any]) -> bool:
    """Cluster §12.1: ``meta.tasks`` contains ``omni``."""
    return "omni" in as_list(as_dict(recipe.get("meta")).get("tasks"))


class InvalidVersion(ValueError):
    """A ``min_vllm_version`` that :func:`version_key` can't order (pypa/packaging's name for it)."""


_VERSION = re.compile(r"([0-9]{1,6}(?:\.[0-9]{1,6}){0,3})(?:(a|b|rc)([0-9]{1,6})|\.(dev|post)([0-9]{1,6}))?")
_PRE_RANK = {"dev": 0, "a": 1, "b": 2, "rc": 3, None: 4, "post": 5}
NIGHTLY = "nightly"


def version_key(version: Any) -> list[int]:
    """The one version comparator: a release ``N[.N[.N[.N]]]`` with an optional ``aN``/``bN``/``rcN``,
    ``.devN`` or ``.postN`` suffix ordered as PEP 440 orders them (``0.11.0rc1`` < ``0.11.0`` <
    ``0.11.0.post1``; ``0.11`` == ``0.11.0``), as a fixed-length list of ints.

    ``nightly`` counts as 0.0.0, as the reference builder scores it (it loses to any release).
    Anything else raises :class:`InvalidVersion`; the recipe schema refuses such values first.
    """
    text = js_str(version)
    if text == NIGHTLY:
        return [0, 0, 0, 0, _PRE_RANK[None], 0]
    match = _VERSION.fullmatch(text)
    if match is None:
        raise InvalidVersion(
            f"invalid version {text!r}: expected a release such as 0.11.0 or 0.11.0rc1, or {NIGHTLY!r}")
    release = [int(part) for part in match.group(1).split(".")]
    label = match.group(2) or match.group(4)
    number = match.group(3) or match.group(5) or "0"
    return [*release, *[0] * (4 - len(release)), _PRE_RANK[label], int(number)]


def js_json(value: Any, indent: int | None = 2) -> str:
    def clean(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return int_if_integral(v)
    if indent is None:
        return json.dumps(clean(value), separators=(",", ":"), ensure_ascii=False)
    return json.dumps(clean(value), indent=indent, ensure_ascii=False)
