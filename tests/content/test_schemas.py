"""Every field of every content model says what it holds: its docstring, which the published
JSON Schema (``/schema/recipe.json``) carries as the field's ``description``."""

from __future__ import annotations

import importlib
import pkgutil

from pydantic import BaseModel

from builder.content import schemas
from builder.content.schemas.json_schema import performance_schema, recipe_schema
from tests.support.described import undescribed_properties


def defined_models() -> list[type[BaseModel]]:
    """Every pydantic model defined in a module of ``builder.content.schemas``."""
    found: list[type[BaseModel]] = []
    for info in pkgutil.iter_modules(schemas.__path__, f"{schemas.__name__}."):
        module = importlib.import_module(info.name)
        found += [obj for obj in vars(module).values()
                  if isinstance(obj, type) and issubclass(obj, BaseModel) and obj.__module__ == info.name]
    return found


def undocumented(model: type[BaseModel]) -> list[str]:
    """``Model.field`` for each field without a description."""
    return [f"{model.__name__}.{name}" for name, field in model.model_fields.items()
            if not (field.description or "").strip()]


def test_every_field_of_every_model_has_a_description() -> None:
    models = defined_models()
    assert len(models) == 65
    assert sum(len(m.model_fields) for m in models) == 465
    assert [name for model in models for name in undocumented(model)] == []


def test_every_model_has_a_docstring() -> None:
    assert [m.__name__ for m in defined_models() if not (m.__doc__ or "").strip()] == []


def test_every_model_is_exported_by_the_package() -> None:
    assert [m.__name__ for m in defined_models() if getattr(schemas, m.__name__, None) is not m] == []


def test_a_field_without_a_docstring_is_reported() -> None:
    class Half(schemas.Open):
        """A model with one documented field."""

        documented: str = ""
        """What this field holds."""
        bare: str = ""

    assert Half.model_fields["documented"].description == "What this field holds."
    assert undocumented(Half) == ["Half.bare"]


def test_inherited_fields_keep_their_description() -> None:
    assert (schemas.Task.model_fields["label"].description
            == schemas.Labelled.model_fields["label"].description)
    assert (schemas.Platform.model_fields["url"].description
            == schemas.PlatformRef.model_fields["url"].description)


def test_the_published_schema_describes_every_property() -> None:
    schema = recipe_schema()
    assert undescribed_properties(schema) == []
    assert undescribed_properties(performance_schema()) == []
    assert list(schema)[:4] == ["$schema", "$id", "title", "description"]
    assert ((schema["title"], schema["description"])
            == ("vLLM recipe", "One model's serving recipe: models/<org>/<repo>.yaml"))
    assert schema["$defs"]["Variant"]["properties"]["supported_hardware"]["description"] == (
        "When not empty, the only hardware ids this variant is offered on."
    )


def test_a_property_without_description_is_reported() -> None:
    schema = {"properties": {"a": {"type": "string", "description": "A."},
                             "b": {"$ref": "#/$defs/B"}},
              "$defs": {"B": {"properties": {"c": {"type": "integer"}}}}}
    assert undescribed_properties(schema) == ["$.properties.b", "$.$defs.B.properties.c"]
