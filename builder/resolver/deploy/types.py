"""The deployment documents' shapes (the keys this package writes; deeper parts stay JSON)."""

from __future__ import annotations

from typing import Any, TypedDict

JSON = dict[str, Any]


class EnvVar(TypedDict, total=False):
    name: str
    value: str
    valueFrom: JSON


class Container(TypedDict, total=False):
    name: str
    image: str
    command: list[str]
    args: list[str]
    env: list[EnvVar]
    ports: list[JSON]
    resources: JSON
    volumeMounts: list[JSON]
    securityContext: JSON
    startupProbe: JSON
    readinessProbe: JSON
    livenessProbe: JSON


class PodSpec(TypedDict, total=False):
    containers: list[Container]
    volumes: list[JSON]
    hostNetwork: bool
    dnsPolicy: str
    securityContext: JSON


class PodTemplate(TypedDict):
    metadata: JSON
    spec: PodSpec


class K8sDocument(TypedDict, total=False):
    """One Kubernetes object: ``apiVersion``, ``kind``, ``metadata`` and its ``spec`` or ``data``."""

    apiVersion: str
    kind: str
    metadata: JSON
    spec: JSON
    data: dict[str, str]


class ComposeService(TypedDict, total=False):
    image: str
    entrypoint: list[str]
    command: list[str]
    environment: dict[str, str]
    ipc: str
    shm_size: str
    network_mode: str
    ports: list[str]
    volumes: list[str]
    devices: list[str]
    security_opt: list[str]
    group_add: list[str]
    privileged: bool
    configs: list[JSON]
    deploy: JSON
    restart: str


class ComposeFile(TypedDict, total=False):
    """A ``compose.yaml``: its services and the inline configs they mount."""

    name: str
    services: dict[str, ComposeService]
    configs: dict[str, JSON]


class DeployFile(TypedDict):
    """One file to write: its name, its text and the documents it holds (for tests and the view)."""

    filename: str
    text: str
    documents: list[Any]
    apply: str  # the command that starts (or reads) this file
