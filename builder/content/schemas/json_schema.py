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


def recipe_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one ``models/<org>/<repo>.yaml`` file."""
    schema = Recipe.model_json_schema(mode="validation")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "/schema/recipe.json",
        "title": "vLLM recipe",
        "description": "One model's serving recipe: models/<org>/<repo>.yaml",
        # pydantic's own title and description (the class name and its docstring) would replace these
        **{key: value for key, value in schema.items() if key not in ("title", "description")},
    }


def performance_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a rendering record's ``performance`` block."""
    schema = PerformanceBlock.json_schema(mode="serialization")
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "/schema/performance.json",
        "title": "Predicted performance of a command",
        "description": "A JSON API rendering record's performance block: predicted TTFT, TPOT, tokens/s per user and "
        "per GPU per workload and concurrency, with the predictor and its kernel database; or why there is none.",
        **{key: value for key, value in schema.items() if key not in ("title", "description")},
    }
