"""One recipe file, ``models/<org>/<repo>.yaml``: its metadata, model, variants, install
and the top-level maps the resolver reads (the nested parts live in sibling modules)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from builder.content.schemas.architecture import Architecture
from builder.content.schemas.common import (
    MAX_ENTRIES,
    MAX_PRESETS,
    MAX_VARIANT_VRAM_GB,
    MAX_VARIANTS,
    Args,
    Env,
    HardwareText,
    Markdown,
    MinGpus,
    Names,
    Open,
    ParallelSize,
    Text,
    Version,
)
from builder.content.schemas.features import Feature
from builder.content.schemas.notes import HardwareNote, Note
from builder.content.schemas.overrides import HardwareBlock, StrategyOverride
from builder.content.schemas.presets import Preset
from builder.content.schemas.vocabulary import PlatformRef


class Meta(Open):
    """``meta``: what the pages say about the recipe."""

    title: Text
    """Name on the recipe's page and cards."""
    provider: Text
    """Display name of the organisation behind the model."""
    description: Text | None = None
    """One or two sentences under the title and on cards."""
    slug: Text | None = None
    """Another name ``related_recipes`` entries may use for this recipe."""
    tasks: Names = []
    """Task ids; the first groups the recipe on listings, and ``omni`` makes it a vLLM-Omni recipe."""
    hardware: HardwareText = {}
    """Per exact hardware id: ``verified``, ``supported`` or ``unsupported``; naming a restricted id offers \
it."""
    default_hardware: Text | None = None
    """Hardware the builder opens on, when the default variant can run there."""
    date_added: Text | None = None
    """Day the recipe was added (YYYY-MM-DD): orders the newest recipes and the feed."""
    date_updated: Text | None = None
    """Day of the last change: the sitemap's date and the ordering fallback."""
    performance_headline: Text | None = None
    """A line on measured performance, in italics under the description."""
    related_recipes: Names = []
    """Hugging Face ids or slugs of recipes linked as related."""
    difficulty: Text | None = None
    """Older field (beginner, intermediate, advanced); published, not shown."""
    platforms: Annotated[list[PlatformRef], Field(max_length=MAX_ENTRIES)] = []
    """Hosted platforms of the deploy menu: ``platforms.yaml`` ids with per-recipe overrides."""


class InstallStep(Open):
    """``model.install.pip``/``docker``: what one install tab shows."""

    command: Text | None = None
    """Replaces the tab's default install command."""
    note: Text | None = None
    """Replaces the tab's default note under the command."""


class Install(Open):
    """``model.install``: the install tabs above the command."""

    pip: InstallStep | bool | None = None
    """The pip tab: its command and note, or ``false`` to hide it."""
    docker: InstallStep | bool | None = None
    """The docker tab: its command and note, or ``false`` to hide it."""


class Model(Open):
    """``model``: the checkpoint and what every command of the recipe shares."""

    model_id: Text
    """Hugging Face id of the checkpoint served (a variant's ``model_id`` replaces it)."""
    parameter_count: Text | None = None
    """Total parameters as text (such as 230B), shown as a chip."""
    active_parameters: Text | None = None
    """Parameters active per token of a MoE model, shown beside the total."""
    architecture: Text | None = None
    """``moe`` or ``dense``: the architecture chip."""
    context_length: int | None = Field(default=None, ge=0)
    """Context window in tokens, shown as the ctx chip."""
    min_vllm_version: Version | None = None
    """Oldest vLLM release the recipe works with, shown as "vLLM <version>+"."""
    nightly_required: bool | None = None
    """True while no release has the support: nightly install commands and images."""
    base_args: Args = []
    """Serve arguments of every command, first in the order."""
    base_env: Env = {}
    """Environment of every command, first in the order."""
    docker_image: Text | dict[str, Text | dict[str, Text]] | None = None
    """Image: a string (NVIDIA only), a map per brand key, or a CUDA map (``cu129``/``cu130``)."""
    install: Install | None = None
    """Changes to the pip and docker install tabs."""
    supports_dcp: bool | None = None
    """True offers the advanced ``--decode-context-parallel-size 8`` option."""
    flashinfer_autotune: bool | None = None
    """True offers the advanced ``--no-enable-flashinfer-autotune`` option."""
    smg_grpc: dict[str, Text] | None = None
    """Parser names (``reasoning_parser``, ``tool_call_parser``) for an SMG gRPC router; published as is."""
    docker_source: dict[str, Any] | None = None
    """A source checkout to mount into the image (``mount_path``); published as is."""
    architecture_config: Architecture | None = None  # config.json facts (import-config)
    """``config.json`` facts of the checkpoint, for the memory estimate."""


class Variant(Open):
    """``variants.<key>``: one checkpoint of the model (a precision or a size)."""

    precision: Text | None = None
    """Weight precision (bf16, fp8, nvfp4...); nvfp4 and fp4 need NVIDIA Blackwell."""
    vram_minimum_gb: int | float | None = Field(default=None, ge=0, le=MAX_VARIANT_VRAM_GB)
    """GB to load the weights: decides single-node fit, the automatic TP size and swaps on workstations."""
    description: Text | None = None
    """Line shown under the variant row."""
    label: Text | None = None
    """Text of the variant's pill."""
    model_id: Text | None = None
    """Checkpoint this variant serves; another id also gets a recipe document of its own."""
    extra_args: Args = []
    """Serve arguments of this variant, right after the base arguments."""
    extra_env: Env = {}
    """Environment of this variant, after the base environment."""
    hardware_overrides: Annotated[dict[str, HardwareBlock], Field(max_length=MAX_ENTRIES)] = {}
    """Per generation (or ``nvidia``) and per exact id: arguments, environment and image of this variant."""
    supported_hardware: Names = []
    """When not empty, the only hardware ids this variant is offered on."""
    precision_hardware: dict[str, Text | Names] | None = None
    """``brand``/``generation`` the variant needs, replacing the rule derived from ``precision``."""
    tp: ParallelSize | dict[str, ParallelSize] | None = None
    """Tensor-parallel size for ``single_node_tp``: a number or hardware-keyed."""
    default_modes: HardwareText = {}
    """Per modal feature, the mode this variant starts with (which also turns the feature on)."""
    docker_image: Text | dict[str, Any] | None = None
    """Image of this variant, read before the model's (a string pins NVIDIA only)."""
    min_vllm_version: Version | None = None
    """Oldest vLLM release for this variant; the builder shows the higher of this and the model's."""
    nightly_required: bool | None = None
    """True when this variant needs a nightly build (install tab only; images ignore it)."""
    architecture_config: Architecture | None = None  # config.json facts of this variant's checkpoint
    """``config.json`` facts of this variant's checkpoint, for the memory estimate."""


class Dependency(Open):
    """``dependencies[]``: an extra install step, published as ``model.install.extras``."""

    command: Text
    """Shell command that installs the extra."""
    note: Text | None = None
    """Line shown with the command."""
    optional: bool | None = None
    """True shows it dimmed and leaves it out of "copy all"."""
    brand: Text | Names | None = None
    """Brand or brands it applies to; absent means every brand."""
    install_modes: Names = []
    """Install tabs it is listed in (``pip``, ``docker``); empty means the pip tab."""


class Recipe(Open):
    """``models/<org>/<repo>.yaml``: one model's serving recipe."""

    meta: Meta
    """Names, dates, tasks and hardware verdicts of the recipe."""
    model: Model | None = None
    """The checkpoint, its base arguments, images and install."""
    features: Annotated[dict[str, Feature], Field(max_length=MAX_ENTRIES)] = {}
    """Optional serve arguments the reader can turn on, in row order."""
    opt_in_features: Names = []
    """Features that start off (unless a variant's ``default_modes`` turns them on)."""
    variants: Annotated[dict[str, Variant], Field(max_length=MAX_VARIANTS)] = {}
    """Checkpoints of the model by key; ``default`` is the one rendered first."""
    hardware_overrides: Annotated[dict[str, HardwareBlock], Field(max_length=MAX_ENTRIES)] = {}
    """Per generation (or ``nvidia``): arguments and environment for every variant on that hardware."""
    compatible_strategies: Names = []
    """Strategy ids the recipe supports."""
    default_strategy: Text | None = None
    """Strategy recommended when it is compatible (its multi-node sibling on several nodes)."""
    strategy_overrides: Annotated[dict[str, StrategyOverride], Field(max_length=MAX_ENTRIES)] = {}
    """Per strategy id: what the recipe adds with that strategy."""
    strategy_hardware: Annotated[dict[str, HardwareText], Field(max_length=MAX_ENTRIES)] = {}
    """Per strategy, hardware-keyed verdicts: ``unsupported`` hides it, ``supported`` adds an unlisted one."""
    strategy_min_gpus: MinGpus | dict[str, MinGpus | dict[str, MinGpus]] = {}
    """GPU floors (a number, per strategy, or per exact hardware id); they set node counts."""
    hardware_opt_in_features: Annotated[dict[str, Names], Field(max_length=MAX_ENTRIES)] = {}
    """Per exact hardware id, features that start off there."""
    kv_offload_support: HardwareText = {}
    """Per KV-offload option: ``unsupported`` turns it off, ``verified`` enables an opt-in one."""
    kv_cache_strategy_hardware: Annotated[dict[str, HardwareText], Field(max_length=MAX_ENTRIES)] = {}
    """Per Mooncake deployment and exact hardware id: ``unsupported`` hides that topology."""
    hardware_notes: Annotated[dict[str, HardwareNote], Field(max_length=MAX_ENTRIES)] = {}
    """Per hardware id, a note the builder shows for that hardware."""
    dependencies: Annotated[list[Dependency], Field(max_length=MAX_ENTRIES)] = []
    """Extra install steps, published as ``model.install.extras``."""
    omni: dict[str, Any] | None = None
    """vLLM-Omni settings (tasks and their axes) of an omni recipe."""
    presets: Annotated[dict[str, Preset], Field(max_length=MAX_PRESETS)] = {}
    """Named measured configurations, each with a document of its own."""
    notes: Annotated[list[Note], Field(max_length=MAX_ENTRIES)] = []
    """Notes shown while the selection matches their ``when``."""
    guide: Markdown | None = None
    """The Markdown guide below the builder."""
    advanced_options: list[Any] = []
    """Extra advanced argument bundles (``{id, label, description, args}``) beside the built-in ones."""
