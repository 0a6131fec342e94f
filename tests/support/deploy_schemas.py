"""Validators for emitted deployment documents: core Kubernetes kinds with kubernetes-validate
(strict, bundled schemas), LeaderWorkerSet against its CRD and Compose against the Compose
Specification schema from ../shared/deploy-schemas/."""

from __future__ import annotations

import functools
import json
from typing import Any

import jsonschema
import kubernetes_validate
import yaml

from tests.conftest import SHARED

KUBERNETES_VERSION = "1.30.0"
SCHEMAS = SHARED / "deploy-schemas"


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
    """Raise unless ``document`` is a valid object (a LeaderWorkerSet's pod templates strictly as Pods too)."""
    if document["kind"] == "LeaderWorkerSet":
        jsonschema.validate(document, lws_schema())
        template = document["spec"]["leaderWorkerTemplate"]
        for part in ("leaderTemplate", "workerTemplate"):
            kubernetes_validate.validate(_pod(template[part]), KUBERNETES_VERSION, strict=True)
        for claim in template.get("volumeClaimTemplates", []):
            kubernetes_validate.validate({"apiVersion": "v1", "kind": "PersistentVolumeClaim", **claim},
                                         KUBERNETES_VERSION, strict=True)
        return
    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def validate_compose(document: dict[str, Any]) -> None:
    jsonschema.Draft7Validator(compose_schema()).validate(document)
