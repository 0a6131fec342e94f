"""Whether a published JSON Schema says what each of its properties holds."""

from __future__ import annotations

from typing import Any


def undescribed_properties(schema: Any, path: str = "$") -> list[str]:
    """JSON paths of the ``properties`` entries of a JSON Schema that have no ``description``."""
    missing: list[str] = []
    if isinstance(schema, dict):
        for name, prop in (schema.get("properties") or {}).items():
            if not (isinstance(prop, dict) and prop.get("description")):
                missing.append(f"{path}.properties.{name}")
        for key, value in schema.items():
            missing += undescribed_properties(value, f"{path}.{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            missing += undescribed_properties(value, f"{path}[{i}]")
    return missing
