"""Small coercions shared by every resolver module: JSON-like presence tests, JavaScript-style strings."""

from __future__ import annotations

import json
import math
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


def version_key(version: Any) -> list[int]:
    """The one version comparator: ``0.24.0`` -> [0, 24, 0], non-numeric parts count as 0."""
    return [int(p) if p.isdigit() else 0 for p in js_str(version).split(".")]


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
