"""``presets.<key>``: named, measured serving configurations a reader applies in one step
(json-api §11.1, §11.7)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from builder.content.schemas.common import (
    MAX_CONCURRENCY,
    MAX_ENTRIES,
    MAX_POINTS,
    Args,
    Env,
    Markdown,
    Names,
    NodeCount,
    Open,
    ParallelSize,
    SafeUrl,
    Text,
)


class PresetSource(Open):
    """Where a preset's figures come from."""

    label: Text | None = None
    """Text of the provenance link (the URL when absent)."""
    href: SafeUrl | None = None
    """The benchmark run or pull request the figures come from."""
    key: Text | None = None
    """Name of the benchmark lane inside that source."""
    revision: Text | None = None
    """Revision of the source the figures were taken at."""


class PresetImage(Open):
    """A preset's pinned image with extra pip requirements."""

    vllm: Text
    """Container image (ideally with an ``@sha256:`` digest) of every docker command of the preset."""
    pip: Names = []
    """Extra pip requirements to install into that image."""


class PresetSelect(Open):
    """The builder selections a preset (or one of its points) makes."""

    features: Annotated[dict[str, bool | Text], Field(max_length=MAX_ENTRIES)] = {}
    """Per feature: ``true`` on, ``false`` off, or a mode key to turn it on in that mode."""
    kv_offload: Text | None = None
    """A taxonomy KV-offload key, or ``off``."""
    nodes: NodeCount | None = None
    """Node count; without it the strategy's GPU floor decides."""


class PresetPoint(Open):
    """``points.<key>``: one measured concurrency of a preset, over the preset's settings."""

    label: Text
    """Text of the point's pill."""
    concurrency: int = Field(ge=1, le=MAX_CONCURRENCY)
    """Concurrent requests the point was measured at."""
    tp: ParallelSize | None = None
    """Tensor-parallel size of this point, over the preset's."""
    args: Args = []
    """Serve arguments appended after the preset's ``args``."""
    remove_args: Names = []
    """Flags dropped from the command (with their values), with the preset's."""
    select: PresetSelect | None = None
    """Selections merged over the preset's ``select``."""
    env: Env = {}
    """Environment merged after the preset's ``env``."""
    json_args: dict[str, Any] = {}
    """Patches of JSON-valued flags merged over the preset's (a ``null`` leaf deletes a key)."""


class Preset(Open):
    """``presets.<key>``: hardware, strategy and variant plus the changes to the resolved command."""

    label: Text
    """Short display name of the preset."""
    hardware: Text
    """Hardware id the preset runs on (a taxonomy profile)."""
    strategy: Text
    """Strategy id: a single-node or multi-node serving strategy."""
    variants: Names = []
    """Variant keys; the first is rendered (``default`` when empty)."""
    workload: Text | None = None
    """What the figures measure, such as an agentic benchmark."""
    description: Text | None = None
    """One-sentence summary of the preset."""
    source: PresetSource | None = None
    """Provenance of the figures."""
    image: Text | PresetImage | None = None
    """Pinned container image, over the usual image rule."""
    tp: ParallelSize | None = None
    """Tensor-parallel size, for example TP4 on an 8-GPU node."""
    select: PresetSelect | None = None
    """Feature, KV-offload and node selections."""
    args: Args = []
    """Serve arguments appended as advanced arguments."""
    remove_args: Names = []
    """Flags dropped from the resolved command, with their values."""
    env: Env = {}
    """Environment merged after the resolver's."""
    json_args: dict[str, Any] = {}
    """Per-flag patches of JSON-valued flags such as ``--speculative-config``."""
    points: dict[str, PresetPoint] = Field(min_length=1, max_length=MAX_POINTS)
    """The measured points, in pill order."""
    runbook: Markdown | None = None
    """Markdown notes on reproducing the figures."""
