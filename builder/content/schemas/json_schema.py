"""JSON Schemas generated from the pydantic models: recipe files, and the ``performance`` block of
the JSON API's rendering records.

Published at ``/schema/recipe.json``; editors pick it up through the first-line comment
``# yaml-language-server: $schema=<site>/schema/recipe.json`` of a recipe file. The performance
block's schema is ``/schema/performance.json``.
"""

from __future__ import annotations

from typing import Any

from builder.content.schemas import Recipe
from builder.content.schemas.performance import PerformanceBlock

SCHEMA_PATH = "schema/recipe.json"
PERFORMANCE_SCHEMA_PATH = "schema/performance.json"


def published(schema: dict[str, Any], schema_id: str, title: str, description: str) -> dict[str, Any]:
    """A pydantic schema as a draft 2020-12 document with our id, title and description (pydantic's own,
    the class name and its docstring, would replace them)."""
    kept = {key: value for key, value in schema.items() if key not in ("title", "description")}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id, "title": title,
            "description": description, **kept}


def recipe_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one ``models/<org>/<repo>.yaml`` file."""
    return published(Recipe.model_json_schema(mode="validation"), "/schema/recipe.json", "vLLM recipe",
                      "One model's serving recipe: models/<org>/<repo>.yaml")


def performance_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a rendering record's ``performance`` block."""
    return published(
        PerformanceBlock.json_schema(mode="serialization"), "/schema/performance.json",
        "Predicted performance of a command",
        "A JSON API rendering record's performance block: predicted TTFT, TPOT, tokens/s per user and "
        "per GPU per workload and concurrency, with the predictor and its kernel database; or "
        "why there is none.")
