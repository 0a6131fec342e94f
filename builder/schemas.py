"""pydantic models for every content file kind.

The models validate shapes and types only; the build keeps publishing the raw loaded
data (key order and unknown keys pass through). Unknown keys are reported as warnings
by :func:`unknown_keys`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from builder.fieldpaths import join_path

Scalar = str | int | float | bool
Env = dict[str, Scalar | None]
Args = list[str]


class Open(BaseModel):
    """Base: strict types, unknown keys kept (and reported as warnings)."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


# ── vocabulary ────────────────────────────────────────────────────────────


class HardwareProfile(Open):
    brand: str
    generation: str | list[str] | None = None
    gpu_generation: str | None = None
    compute_arch: str | None = None
    display_name: str
    description: str | None = None
    gpu_count: int = Field(ge=1)
    vram_gb: int | float = Field(ge=0)
    multi_node: bool | None = None
    restricted: bool | None = None
    scalable: bool | None = None


class Task(Open):
    label: str | None = None
    description: str | None = None
    icon: str | None = None


class KvOffloadCompanion(Open):
    label: str | None = None
    description: str | None = None
    command: str


class KvOffloadOption(Open):
    label: str | None = None
    group: str | None = None
    description: str | None = None
    args: Args = []
    env: Env = {}
    strategies: list[str] = []
    brands: list[str] = []
    requires_opt_in: bool | None = None
    display_name: str | None = None
    order: int | None = None
    docs_url: str | None = None
    install: str | None = None
    companion: KvOffloadCompanion | None = None


class Taxonomy(Open):
    hardware_profiles: dict[str, HardwareProfile]
    tasks: dict[str, Any] | list[Any] | None = None
    strategies: dict[str, Any] | list[Any] | None = None
    kv_offload_groups: dict[str, Any] | list[Any] | None = None
    kv_offload: dict[str, KvOffloadOption] = {}


class Strategy(Open):
    name: str
    deploy_type: Literal["single_node", "multi_node", "pd_cluster", "kv_store_lb"] = "single_node"
    display_name: str | None = None
    short_label: str | None = None
    orientation: str | None = None
    description: str | None = None
    vllm_args: Args = []
    parallel_flag: str | None = None
    env: Env | None = None
    hardware_match: dict[str, Any] | None = None
    parallelism: str | dict[str, Any] | None = None
    prefill: dict[str, Any] | None = None
    decode: dict[str, Any] | None = None
    router: dict[str, Any] | None = None


class KvStore(Open):
    name: str
    deploy_type: Literal["kv_store_lb"]
    display_name: str | None = None
    label: str | None = None
    order: int | None = None
    description: str | None = None
    min_vllm_version: str | None = None
    default_instances: int | None = None
    router: dict[str, Any] | None = None
    vllm: dict[str, Any] | None = None
    pd: dict[str, Any] | None = None
    mooncake_master: dict[str, Any] | None = None
    mooncake_store_config: dict[str, Any] | None = None
    mooncake_vllm_config: dict[str, Any] | None = None


class Platform(Open):
    id: str
    name: str
    url: str | None = None
    blurb: str | None = None
    install: str | None = None


class Platforms(Open):
    platforms: list[Platform] = []


class SourceSettings(Open):
    name: str | None = None
    repo: str | None = None
    ref: str | None = None
    sha: str | None = None
    prefix: str | None = None


class Site(Open):
    """``site.yaml``: optional settings of a content root."""

    base_url: str | None = None
    repo_url: str | None = None
    source: SourceSettings | None = None


class Quickstart(BaseModel):
    """``quickstart/*.yaml``: a hardware quickstart, published verbatim."""

    model_config = ConfigDict(extra="allow", strict=True)
    hardware_profile: str


# ── recipes ───────────────────────────────────────────────────────────────


class Meta(Open):
    title: str
    provider: str
    description: str | None = None
    slug: str | None = None
    tasks: list[str] = []
    hardware: dict[str, str] = {}
    default_hardware: str | None = None
    date_added: str | None = None
    date_updated: str | None = None
    performance_headline: str | None = None
    related_recipes: list[str] = []
    difficulty: str | None = None
    platforms: list[dict[str, Any]] = []


class InstallStep(Open):
    command: str | None = None
    note: str | None = None


class Install(Open):
    pip: InstallStep | bool | None = None
    docker: InstallStep | bool | None = None


class Model(Open):
    model_id: str
    parameter_count: str | None = None
    active_parameters: str | None = None
    architecture: str | None = None
    context_length: int | None = None
    min_vllm_version: str | None = None
    nightly_required: bool | None = None
    base_args: Args = []
    base_env: Env = {}
    docker_image: str | dict[str, str | dict[str, str]] | None = None
    install: Install | None = None
    supports_dcp: bool | None = None
    flashinfer_autotune: bool | None = None
    smg_grpc: dict[str, str] | None = None
    docker_source: dict[str, Any] | None = None


class HardwareBlock(Open):
    extra_args: Args = []
    extra_env: Env = {}
    docker_image: str | None = None
    install_note: str | None = None


class Variant(Open):
    precision: str | None = None
    vram_minimum_gb: int | float | None = Field(default=None, ge=0)
    description: str | None = None
    label: str | None = None
    model_id: str | None = None
    extra_args: Args = []
    extra_env: Env = {}
    hardware_overrides: dict[str, HardwareBlock] = {}
    supported_hardware: list[str] = []
    precision_hardware: dict[str, str | list[str]] | None = None
    tp: int | dict[str, int] | None = None
    default_modes: dict[str, str] = {}
    docker_image: str | dict[str, Any] | None = None
    min_vllm_version: str | None = None
    nightly_required: bool | None = None


class ArgsBlock(Open):
    args: Args | None = None


class Companion(Open):
    label: str | None = None
    description: str | None = None
    command: str


class Mode(Open):
    args: Any = None  # checked by the feature-mode rules (json-api §3.2)
    label: str | None = None
    description: str | None = None
    variants: Any = None
    hardware: dict[str, str] = {}
    hardware_overrides: dict[str, ArgsBlock] = {}


class Feature(Open):
    description: str | None = None
    label: str | None = None
    args: Args | None = None
    modes: Any = None  # a mapping of Mode, checked by the feature-mode rules
    default_mode: str | None = None
    strategies: list[str] = []
    hardware_overrides: dict[str, ArgsBlock] = {}
    hardware: dict[str, str] = {}
    companion: Companion | None = None


class PoolRole(Open):
    nodes: int | dict[str, int] | None = None
    parallelism: str | None = None
    parallel_flag: str | None = None
    tp: int | None = None
    extra_args: Args = []
    vllm_args: Args = []
    env: Env = {}
    hardware_overrides: dict[str, HardwareBlock] = {}


class StrategyOverride(Open):
    tp: int | dict[str, int] | None = None
    extra_args: Args = []
    vllm_args: Args = []
    env: Env = {}
    extra_env: Env = {}
    hardware_overrides: dict[str, HardwareBlock] = {}
    prefill: PoolRole | None = None
    decode: PoolRole | None = None
    pool_modes: list[str] = []
    parallel_flag: str | None = None
    router: dict[str, Any] | None = None


class Dependency(Open):
    command: str
    note: str | None = None
    optional: bool | None = None
    brand: str | list[str] | None = None
    install_modes: list[str] = []


class PresetSource(Open):
    label: str | None = None
    href: str | None = None
    key: str | None = None
    revision: str | None = None


class PresetImage(Open):
    vllm: str
    pip: list[str] = []


class PresetSelect(Open):
    features: dict[str, bool | str] = {}
    kv_offload: str | None = None
    nodes: int | None = None


class PresetPoint(Open):
    label: str
    concurrency: int
    tp: int | None = None
    args: Args = []
    remove_args: list[str] = []
    select: PresetSelect | None = None
    env: Env = {}
    json_args: dict[str, Any] = {}


class Preset(Open):
    label: str
    hardware: str
    strategy: str
    variants: list[str] = []
    workload: str | None = None
    description: str | None = None
    source: PresetSource | None = None
    image: str | PresetImage | None = None
    tp: int | None = None
    select: PresetSelect | None = None
    args: Args = []
    remove_args: list[str] = []
    env: Env = {}
    json_args: dict[str, Any] = {}
    points: dict[str, PresetPoint] = Field(min_length=1)
    runbook: str | None = None


class NoteWhen(Open):
    hardware: list[str] = []
    variant: list[str] = []
    strategy: list[str] = []


class Note(Open):
    title: str
    when: NoteWhen | None = None
    body: str


class Recipe(Open):
    meta: Meta
    model: Model | None = None
    features: dict[str, Feature] = {}
    opt_in_features: list[str] = []
    variants: dict[str, Variant] = {}
    hardware_overrides: dict[str, HardwareBlock] = {}
    compatible_strategies: list[str] = []
    default_strategy: str | None = None
    strategy_overrides: dict[str, StrategyOverride] = {}
    strategy_hardware: dict[str, dict[str, str]] = {}
    strategy_min_gpus: int | dict[str, int | dict[str, int]] = {}
    hardware_opt_in_features: dict[str, list[str]] = {}
    kv_offload_support: dict[str, str] = {}
    kv_cache_strategy_hardware: dict[str, dict[str, str]] = {}
    hardware_notes: dict[str, Any] = {}
    dependencies: list[Dependency] = []
    omni: dict[str, Any] | None = None
    presets: dict[str, Preset] = {}
    notes: list[Note] = []
    guide: str | None = None
    advanced_options: list[Any] = []


def unknown_keys(model: BaseModel, path: str = "") -> list[str]:
    """Dotted paths of every key that no model declares (warnings)."""
    found: list[str] = []
    for key in model.model_extra or {}:
        found.append(join_path(path, key))
    for name in type(model).model_fields:
        found.extend(_unknown_in(getattr(model, name), join_path(path, name)))
    return found


def _unknown_in(value: Any, path: str) -> list[str]:
    if isinstance(value, BaseModel):
        return unknown_keys(value, path)
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _unknown_in(v, join_path(path, k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _unknown_in(v, join_path(path, i))]
    return []
