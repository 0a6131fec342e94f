"""Validators for emitted deployment documents: core Kubernetes kinds with kubernetes-validate
(strict, bundled schemas), LeaderWorkerSet against its CRD and Compose against the Compose
Specification schema from ../shared/deploy-schemas/."""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import jsonschema
import yaml
from kubernetes_validate.utils import schema_contents
from referencing import Registry, Resource

from tests.support.paths import SHARED

KUBERNETES_VERSION = "1.30.0"
SCHEMAS = SHARED / "deploy-schemas"


@functools.cache
def kubernetes_validator(kind: str, api_version: str) -> jsonschema.protocols.Validator:
    """What ``kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)`` checks a document
    of this kind against (the bundled strict schema and its definitions), built once: the library
    reads and resolves its definitions file on every call, a quarter of a second each."""
    schema_dir = f"v{KUBERNETES_VERSION}-local-strict"
    group_version = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    schema = schema_contents(f"kubernetes-json-schema/{schema_dir}/{kind.lower()}-{group_version}.json",
                             KUBERNETES_VERSION)
    definitions = schema_contents(f"kubernetes-json-schema/{schema_dir}/_definitions.json",
                                  KUBERNETES_VERSION)
    registry = Resource.from_contents(definitions) @ (Resource.from_contents(schema) @ Registry())
    return jsonschema.validators.Draft202012Validator(schema, registry=registry)


def validate_strictly(document: dict[str, Any]) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``document`` passes its kind's strict schema."""
    kubernetes_validator(document["kind"], document["apiVersion"]).validate(document)


@functools.cache
def lws_validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(lws_schema())


@functools.cache
def lws_schema() -> dict[str, Any]:
    crd = yaml.safe_load((SCHEMAS / "lws-crd-leaderworkersets.yaml").read_text())
    version = next(v for v in crd["spec"]["versions"] if v["name"] == "v1")
    return version["schema"]["openAPIV3Schema"]


@functools.cache
def compose_schema() -> dict[str, Any]:
    return json.loads((SCHEMAS / "compose-spec.json").read_text())


def _pod(template: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "check", **template.get("metadata", {})},
            "spec": template["spec"]}


def validate_kubernetes(document: dict[str, Any]) -> None:
    """Raise unless ``document`` is a valid object (a LeaderWorkerSet's pod templates strictly as Pods
    too)."""
    if document["kind"] == "LeaderWorkerSet":
        lws_validator().validate(document)
        template = document["spec"]["leaderWorkerTemplate"]
        for part in ("leaderTemplate", "workerTemplate"):
            validate_strictly(_pod(template[part]))
        for claim in template.get("volumeClaimTemplates", []):
            validate_strictly({"apiVersion": "v1", "kind": "PersistentVolumeClaim", **claim})
        return
    validate_strictly(document)


@functools.cache
def compose_validator() -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(compose_schema())


def validate_compose(document: dict[str, Any]) -> None:
    compose_validator().validate(document)
