"""The shapes the resolver takes and returns, and the errors it raises for content problems.

Everything is plain JSON-like data; the TypedDicts name the keys the resolver reads or writes
(``total=False``: untrusted recipes may omit any of them).  Content problems that make one
rendering impossible raise :class:`ResolveError` (caught where a failure becomes a warning);
any other exception is a programming error and propagates.
"""

from __future__ import annotations

from typing import Any, TypedDict

JSON = dict[str, Any]
"""A JSON object of untrusted shape (a recipe block, a taxonomy entry)."""


class ResolveError(ValueError):
    """Content that cannot be rendered (a json-api §9.2 / §11.7 warning, never a crash)."""


class PresetError(ResolveError):
    """A preset point cannot be rendered (bad ``json_args`` target)."""


class Vocab(TypedDict, total=False):
    """``{"taxonomy": <taxonomy.yaml>, "strategies": <serving strategies then kv_store deployments>}``."""

    taxonomy: JSON
    strategies: JSON


class Selection(TypedDict, total=False):
    """What :func:`resolver.resolve` accepts (see :mod:`resolver.resolve` for each key)."""

    hardware: str
    variant: str
    substitute: bool
    strategy: str | None
    nodes: Any
    features: list[str] | None
    modes: dict[str, str]
    advanced_args: list[Any]
    pd_nodes: Any
    kv_offload: str | None
    serving_strategy: str
    kv_instances: Any
    tp: Any
    image: str
    cuda: str
    task: str | None
    docker: bool


class PresetSelection(TypedDict):
    """json-api §11.7 steps 1-7 of one preset point (``validate_presets`` vouches for hardware and
    strategy)."""

    hardware: str
    variant: str
    substitute: bool
    strategy: str
    features: list[str]
    modes: dict[str, str]
    advanced_args: list[Any]
    nodes: Any
    kv_offload: str | None
    tp: Any


class Record(TypedDict, total=False):
    """A json-api §5.1 rendering record (the keys every record has; topologies add their own)."""

    hardware: str
    strategy: str
    variant: str
    node_count: int
    deploy_type: str
    env: JSON
    docker_image: str


class ClickEvent(TypedDict, total=False):
    """One click the page sends (``ui.events.EVENT_RULES`` lists the types).  A view's row carries the
    event its pills send without the ``value``, which each pill adds (``ui.rows.pill_event``)."""

    type: str
    value: Any
    feature: str  # a feature's mode row
    role: str  # a PD pool: "prefill" or "decode"
    axis: str  # an omni task axis


class View(TypedDict, total=False):
    """The builder's complete view for one UI state (:func:`resolver.builder_state`)."""

    state: JSON
    query: str
    storage: JSON
    rows: list[JSON]
    install: JSON
    summary: JSON
    tabs: list[JSON]
    curl: str | None
    bench: str | None
    target: JSON | None
    notes: list[JSON]
    hardware_note: JSON | None
    vram_warning: str | None
    tp_hint: str | None
    presets: list[JSON]
    preset: JSON | None
    preset_rows: list[JSON]  # the Preset row and, with a preset applied, its Point row (ui.controls)
    tabs_numbered: bool  # the command tabs are numbered steps: a new strip opens on its first tab
    placeholders: list[str]
    env: JSON  # the Env panel (POP-06): {target: [{name, example}], fields: [{name, example}], tips: [str]}
    omni: bool
    strategy: str | None
    kv_offload: str | None
    hf_id: str | None
    deploy: Any  # ui.deploy.DeployView of the active Kubernetes/Compose choice, else None
    warnings: list[str]
    memory: JSON  # the record's memory block, or {"fallback": note} without architecture facts
    performance: Any  # ui.performance: the selection's predicted speed ({"status": "loading"} until it comes)
