"""JSON Schema for recipe files, generated from the pydantic models.

Published at ``/schema/recipe.json``; editors pick it up through the first-line comment
``# yaml-language-server: $schema=<site>/schema/recipe.json`` of a recipe file.
"""

from __future__ import annotations

from typing import Any

from builder.content.schemas import Recipe

SCHEMA_PATH = "schema/recipe.json"


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
