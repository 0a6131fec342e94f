"""The JSON Schema of the JSON API's ``/<base>/<form>.json`` documents (:mod:`builder.api.deploy_forms`),
published at ``/schema/deploy-form.json``.

The build writes the documents from :class:`builder.api.deploy_forms.FormDocument`; the models here only
describe them (each field's docstring is its description), and the tests validate every published
document against the schema made of them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from builder.api.deploy_forms import API_FORMS
from builder.content.schemas.json_schema import published

FORM_SCHEMA_PATH = "schema/deploy-form.json"

RecordLink = Annotated[str, Field(pattern=r"^/.+/hw/[^/]+\.json$")]


class Described(BaseModel):
    """Base: no unknown keys; each field's docstring is its description."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True)


class FormFile(Described):
    """One file of the form."""

    filename: str
    """Name to save the text under (the command in apply reads it by this name)."""
    text: str
    """The file's whole text."""
    apply: str
    """Shell command that starts the deployment with this file; empty for a file another reads (env)."""


class FormEntry(Described):
    """One hardware's files, or why there are none."""

    record: RecordLink
    """The per-hardware rendering record these files are made of (/<base>/hw/<hw>.json)."""
    files: list[FormFile]
    """The files, in the order to write them; empty when reason says why."""
    reason: str | None
    """Why this hardware has no files in this form; null when it has."""


class FormDocument(Described):
    """An output form's files for every per-hardware record of a recipe or promoted variant."""

    hf_id: str
    """The recipe's Hugging Face id, or the promoted variant's model id."""
    format: Literal[API_FORMS]  # type: ignore[valid-type]
    """The output form (vllm-config: vLLM's own `vllm serve --config` YAML and an env file)."""
    by_hardware: dict[str, FormEntry]
    """Per hardware id, in the order of the recipe's recommended_command.by_hardware."""


def form_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an output form's document."""
    return published(FormDocument.model_json_schema(mode="serialization"), "/schema/deploy-form.json",
                     "Output form files per hardware",
                     "A JSON API /<org>/<repo>/<form>.json document: for each hardware of a recipe or "
                     "promoted variant, the files of one output form (vllm-config: vLLM's config file "
                     "and an env file) with the command that applies them, or why there are none.")
