"""pydantic models for every content file kind.

The models validate shapes and types only; the build keeps publishing the raw loaded
data (key order and unknown keys pass through). Unknown keys are reported as warnings
by :func:`unknown_keys`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from builder.fieldpaths import join_path
from builder.urls import MAX_URL_LENGTH, is_absolute_http, is_safe_link

# ── bounds (measured on ../shared/upstream and recipes/, set well above them) ──
# Upstream maxima: gpu_count 8, vram_gb 2304, vram_minimum_gb 5871, tp 8,
# strategy_min_gpus 32, preset nodes 2, 21 args per list, 24 env entries, guide 27,473
# characters, 4 variants, 12 points per preset, 27 hardware profiles.
MAX_GPUS_PER_NODE = 64
MAX_NODES = 16  # the resolver's MAX_NODES: the largest cluster it offers
MAX_PARALLEL_SIZE = 1024  # TP/PP/DP sizes
MAX_MIN_GPUS = MAX_NODES * MAX_GPUS_PER_NODE  # the largest GPU floor a cluster can meet
MAX_VRAM_GB = 8192  # per node
MAX_VARIANT_VRAM_GB = 65536
MAX_INSTANCES = 64  # Mooncake instances behind one router
MAX_CONCURRENCY = 1_000_000
MAX_ARGS = 256  # tokens in one args list, entries in one env mapping
MAX_ENTRIES = 256  # ids in a list, hardware keys in a mapping, features, notes...
MAX_VARIANTS = 64
MAX_PRESETS = 64
MAX_POINTS = 64  # per preset
MAX_TEXT = 10_000  # characters of a plain string (labels, descriptions, args, commands)
MAX_MARKDOWN = 200_000  # characters of a guide, a runbook or a note body


def _safe_link(value: str) -> str:
    if not is_safe_link(value):
        raise PydanticCustomError("unsafe_url", "must be an http(s) URL or a site-relative path")
    return value


def _absolute_http(value: str) -> str:
    if not is_absolute_http(value):
        raise PydanticCustomError("not_absolute_url", "must be an absolute http(s) URL")
    return value


Text = Annotated[str, Field(max_length=MAX_TEXT)]
Markdown = Annotated[str, Field(max_length=MAX_MARKDOWN)]
SafeUrl = Annotated[str, Field(max_length=MAX_URL_LENGTH), AfterValidator(_safe_link)]
"""A URL that may become a link: http(s) or site-relative (:mod:`builder.urls`)."""
AbsoluteUrl = Annotated[str, Field(max_length=MAX_URL_LENGTH), AfterValidator(_absolute_http)]
"""An absolute http(s) URL (``base_url``)."""
GpuCount = Annotated[int, Field(ge=1, le=MAX_GPUS_PER_NODE)]
ParallelSize = Annotated[int, Field(ge=1, le=MAX_PARALLEL_SIZE)]
NodeCount = Annotated[int, Field(ge=1, le=MAX_NODES)]
MinGpus = Annotated[int, Field(ge=0, le=MAX_MIN_GPUS)]
Scalar = Text | int | float | bool
Env = Annotated[dict[str, Scalar | None], Field(max_length=MAX_ARGS)]
Args = Annotated[list[Text], Field(max_length=MAX_ARGS)]
Names = Annotated[list[Text], Field(max_length=MAX_ENTRIES)]
HardwareText = Annotated[dict[str, Text], Field(max_length=MAX_ENTRIES)]
"""A hardware-keyed mapping of strings (``meta.hardware``, ``strategy_hardware.<s>``...)."""


class Open(BaseModel):
    """Base: strict types, finite numbers, unknown keys kept (and reported as warnings)."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True, allow_inf_nan=False)


# ── vocabulary ────────────────────────────────────────────────────────────


class HardwareProfile(Open):
    brand: Text
    generation: Text | Names | None = None
    gpu_generation: Text | None = None
    compute_arch: Text | None = None
    display_name: Text
    description: Text | None = None
    gpu_count: GpuCount
    vram_gb: int | float = Field(ge=0, le=MAX_VRAM_GB)
    multi_node: bool | None = None
    restricted: bool | None = None
    scalable: bool | None = None


class Labelled(Open):
    """A vocabulary entry's label and description."""

    label: Text | None = None
    description: Text | None = None


class Task(Labelled):
    icon: Text | None = None


class KvOffloadCompanion(Labelled):
    command: Text


class Described(Open):
    """What the builder shows of a vocabulary entry: its names, its place in a row, its text."""

    display_name: Text | None = None
    label: Text | None = None
    order: int | None = None
    description: Text | None = None


class KvOffloadOption(Described):
    group: Text | None = None
    args: Args = []
    env: Env = {}
    strategies: Names = []
    brands: Names = []
    requires_opt_in: bool | None = None
    docs_url: SafeUrl | None = None
    install: Text | None = None
    companion: KvOffloadCompanion | None = None


class KvOffloadGroup(Described):
    sub_row_label: Text | None = None
    docs_url: SafeUrl | None = None
    tooltip: Text | None = None


class Taxonomy(Open):
    hardware_profiles: Annotated[dict[str, HardwareProfile], Field(max_length=MAX_ENTRIES)]
    tasks: dict[str, Any] | list[Any] | None = None
    strategies: dict[str, Any] | list[Any] | None = None
    kv_offload_groups: dict[str, KvOffloadGroup] | None = None
    kv_offload: Annotated[dict[str, KvOffloadOption], Field(max_length=MAX_ENTRIES)] = {}


class StrategyRole(Open):
    """``prefill``/``decode`` of the PD strategy."""

    vllm_args: Args = []
    env: Env = {}
    parallelism: Text | None = None
    parallel_flag: Text | None = None
    tp: ParallelSize | None = None


class Strategy(Open):
    name: Text
    deploy_type: Literal["single_node", "multi_node", "pd_cluster", "kv_store_lb"] = "single_node"
    display_name: Text | None = None
    short_label: Text | None = None
    orientation: Text | None = None
    description: Text | None = None
    vllm_args: Args = []
    parallel_flag: Text | None = None
    env: Env | None = None
    hardware_match: dict[str, Any] | None = None
    parallelism: Text | dict[str, Any] | None = None
    prefill: StrategyRole | None = None
    decode: StrategyRole | None = None
    router: dict[str, Any] | None = None


class KvStore(Described):
    name: Text
    deploy_type: Literal["kv_store_lb"]
    min_vllm_version: Text | None = None
    default_instances: int | None = Field(default=None, ge=1, le=MAX_INSTANCES)
    router: dict[str, Any] | None = None
    vllm: dict[str, Any] | None = None
    pd: dict[str, Any] | None = None
    mooncake_master: dict[str, Any] | None = None
    mooncake_store_config: dict[str, Any] | None = None
    mooncake_vllm_config: dict[str, Any] | None = None


class PlatformRef(Open):
    """An entry of ``meta.platforms``: a platform id and per-recipe overrides of ``platforms.yaml``."""

    id: Text
    name: Text | None = None
    url: SafeUrl | None = None
    script: SafeUrl | None = None
    blurb: Text | None = None
    install: Text | None = None


class Platform(PlatformRef):
    """An entry of ``platforms.yaml``: a platform's name is required there."""

    name: Text


class Platforms(Open):
    platforms: Annotated[list[Platform], Field(max_length=MAX_ENTRIES)] = []


class SourceSettings(Open):
    name: Text | None = None
    repo: Text | None = None
    ref: Text | None = None
    sha: Text | None = None
    prefix: Text | None = None


class Site(Open):
    """``site.yaml``: optional settings of a content root."""

    base_url: AbsoluteUrl | None = None
    site_url: AbsoluteUrl | None = None  # read when base_url is absent
    repo_url: SafeUrl | None = None
    docs_url: SafeUrl | None = None
    source: SourceSettings | None = None


class Quickstart(BaseModel):
    """``quickstart/*.yaml``: a hardware quickstart, published verbatim."""

    model_config = ConfigDict(extra="allow", strict=True)
    hardware_profile: Text


# ── recipes ───────────────────────────────────────────────────────────────


class Meta(Open):
    title: Text
    provider: Text
    description: Text | None = None
    slug: Text | None = None
    tasks: Names = []
    hardware: HardwareText = {}
    default_hardware: Text | None = None
    date_added: Text | None = None
    date_updated: Text | None = None
    performance_headline: Text | None = None
    related_recipes: Names = []
    difficulty: Text | None = None
    platforms: Annotated[list[PlatformRef], Field(max_length=MAX_ENTRIES)] = []


class InstallStep(Open):
    command: Text | None = None
    note: Text | None = None


class Install(Open):
    pip: InstallStep | bool | None = None
    docker: InstallStep | bool | None = None


class Model(Open):
    model_id: Text
    parameter_count: Text | None = None
    active_parameters: Text | None = None
    architecture: Text | None = None
    context_length: int | None = Field(default=None, ge=0)
    min_vllm_version: Text | None = None
    nightly_required: bool | None = None
    base_args: Args = []
    base_env: Env = {}
    docker_image: Text | dict[str, Text | dict[str, Text]] | None = None
    install: Install | None = None
    supports_dcp: bool | None = None
    flashinfer_autotune: bool | None = None
    smg_grpc: dict[str, Text] | None = None
    docker_source: dict[str, Any] | None = None
    architecture_config: Architecture | None = None  # config.json facts (import-config)


class HardwareBlock(Open):
    extra_args: Args = []
    extra_env: Env = {}
    docker_image: Text | None = None
    install_note: Text | None = None


class Variant(Open):
    precision: Text | None = None
    vram_minimum_gb: int | float | None = Field(default=None, ge=0, le=MAX_VARIANT_VRAM_GB)
    description: Text | None = None
    label: Text | None = None
    model_id: Text | None = None
    extra_args: Args = []
    extra_env: Env = {}
    hardware_overrides: Annotated[dict[str, HardwareBlock], Field(max_length=MAX_ENTRIES)] = {}
    supported_hardware: Names = []
    precision_hardware: dict[str, Text | Names] | None = None
    tp: ParallelSize | dict[str, ParallelSize] | None = None
    default_modes: HardwareText = {}
    docker_image: Text | dict[str, Any] | None = None
    min_vllm_version: Text | None = None
    nightly_required: bool | None = None
    architecture_config: Architecture | None = None  # config.json facts of this variant's checkpoint


class ArgsBlock(Open):
    args: Args | None = None


class Companion(Open):
    label: Text | None = None
    description: Text | None = None
    command: Text


class Mode(Open):
    args: Any = None  # checked by the feature-mode rules (json-api §3.2)
    label: Text | None = None
    description: Text | None = None
    variants: Any = None
    hardware: HardwareText = {}
    hardware_overrides: dict[str, ArgsBlock] = {}


class Feature(Open):
    description: Text | None = None
    label: Text | None = None
    args: Args | None = None
    modes: Any = None  # a mapping of Mode, checked by the feature-mode rules
    default_mode: Text | None = None
    strategies: Names = []
    hardware_overrides: dict[str, ArgsBlock] = {}
    hardware: HardwareText = {}
    companion: Companion | None = None


class PoolRole(Open):
    nodes: NodeCount | dict[str, NodeCount] | None = None
    parallelism: Text | None = None
    parallel_flag: Text | None = None
    tp: ParallelSize | None = None
    extra_args: Args = []
    vllm_args: Args = []
    env: Env = {}
    hardware_overrides: dict[str, HardwareBlock] = {}


class StrategyOverride(Open):
    tp: ParallelSize | dict[str, ParallelSize] | None = None
    extra_args: Args = []
    vllm_args: Args = []
    env: Env = {}
    extra_env: Env = {}
    hardware_overrides: dict[str, HardwareBlock] = {}
    prefill: PoolRole | None = None
    decode: PoolRole | None = None
    pool_modes: Names = []
    parallel_flag: Text | None = None
    router: dict[str, Any] | None = None


class Dependency(Open):
    command: Text
    note: Text | None = None
    optional: bool | None = None
    brand: Text | Names | None = None
    install_modes: Names = []


class PresetSource(Open):
    label: Text | None = None
    href: SafeUrl | None = None
    key: Text | None = None
    revision: Text | None = None


class PresetImage(Open):
    vllm: Text
    pip: Names = []


class PresetSelect(Open):
    features: Annotated[dict[str, bool | Text], Field(max_length=MAX_ENTRIES)] = {}
    kv_offload: Text | None = None
    nodes: NodeCount | None = None


class PresetPoint(Open):
    label: Text
    concurrency: int = Field(ge=1, le=MAX_CONCURRENCY)
    tp: ParallelSize | None = None
    args: Args = []
    remove_args: Names = []
    select: PresetSelect | None = None
    env: Env = {}
    json_args: dict[str, Any] = {}


class Preset(Open):
    label: Text
    hardware: Text
    strategy: Text
    variants: Names = []
    workload: Text | None = None
    description: Text | None = None
    source: PresetSource | None = None
    image: Text | PresetImage | None = None
    tp: ParallelSize | None = None
    select: PresetSelect | None = None
    args: Args = []
    remove_args: Names = []
    env: Env = {}
    json_args: dict[str, Any] = {}
    points: dict[str, PresetPoint] = Field(min_length=1, max_length=MAX_POINTS)
    runbook: Markdown | None = None


class NoteWhen(Open):
    hardware: Names = []
    variant: Names = []
    strategy: Names = []


class NoteLink(Open):
    label: Text | None = None
    href: SafeUrl | None = None


class HardwareNote(Open):
    """``hardware_notes.<hardware>``: shown by the command builder for that hardware."""

    title: Text | None = None
    body: Markdown | None = None
    link: SafeUrl | NoteLink | None = None
    url: SafeUrl | None = None  # read when link is absent
    link_text: Text | None = None


class Note(Open):
    title: Text
    when: NoteWhen | None = None
    body: Markdown


class Recipe(Open):
    meta: Meta
    model: Model | None = None
    features: Annotated[dict[str, Feature], Field(max_length=MAX_ENTRIES)] = {}
    opt_in_features: Names = []
    variants: Annotated[dict[str, Variant], Field(max_length=MAX_VARIANTS)] = {}
    hardware_overrides: Annotated[dict[str, HardwareBlock], Field(max_length=MAX_ENTRIES)] = {}
    compatible_strategies: Names = []
    default_strategy: Text | None = None
    strategy_overrides: Annotated[dict[str, StrategyOverride], Field(max_length=MAX_ENTRIES)] = {}
    strategy_hardware: Annotated[dict[str, HardwareText], Field(max_length=MAX_ENTRIES)] = {}
    strategy_min_gpus: MinGpus | dict[str, MinGpus | dict[str, MinGpus]] = {}
    hardware_opt_in_features: Annotated[dict[str, Names], Field(max_length=MAX_ENTRIES)] = {}
    kv_offload_support: HardwareText = {}
    kv_cache_strategy_hardware: Annotated[dict[str, HardwareText], Field(max_length=MAX_ENTRIES)] = {}
    hardware_notes: Annotated[dict[str, HardwareNote], Field(max_length=MAX_ENTRIES)] = {}
    dependencies: Annotated[list[Dependency], Field(max_length=MAX_ENTRIES)] = []
    omni: dict[str, Any] | None = None
    presets: Annotated[dict[str, Preset], Field(max_length=MAX_PRESETS)] = {}
    notes: Annotated[list[Note], Field(max_length=MAX_ENTRIES)] = []
    guide: Markdown | None = None
    advanced_options: list[Any] = []


# ── architecture facts (config.json) for the memory model ─────────────────


def _fact(key: str, required: bool = False) -> Any:
    """An integer fact bounded as :data:`builder.resolver.memory.INT_FACTS` bounds it."""
    from builder.resolver.memory import INT_FACTS

    low, high = INT_FACTS[key]
    return Field(ge=low, le=high) if required else Field(default=None, ge=low, le=high)


class ArchitectureQuantization(Open):
    quant_method: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    bits: int | None = Field(default=None, ge=1, le=32)
    weight_type: Literal["float", "int"] | None = None
    group_size: int | None = Field(default=None, ge=1, le=1 << 20)
    weight_block_size: Annotated[list[Annotated[int, Field(ge=1, le=1 << 20)]], Field(min_length=2, max_length=2)] | None = None


class ArchitectureRope(Open):
    rope_type: Annotated[str, Field(max_length=64)] | None = None
    factor: float | None = Field(default=None, gt=0, le=1 << 20)
    original_max_position_embeddings: int | None = Field(default=None, ge=1, le=1 << 34)


class ArchitectureVision(Open):
    hidden_size: int = Field(ge=1, le=1 << 20)
    num_hidden_layers: int = Field(ge=1, le=1 << 20)
    intermediate_size: int | None = Field(default=None, ge=1, le=1 << 20)


class Architecture(Open):
    """``config.json`` facts of a model (Hugging Face key names), written by ``import-config``."""

    model_type: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    torch_dtype: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    num_hidden_layers: int = _fact("num_hidden_layers", required=True)
    hidden_size: int = _fact("hidden_size", required=True)
    num_attention_heads: int = _fact("num_attention_heads", required=True)
    vocab_size: int = _fact("vocab_size", required=True)
    num_key_value_heads: int | None = _fact("num_key_value_heads")
    head_dim: int | None = _fact("head_dim")
    intermediate_size: int | None = _fact("intermediate_size")
    intermediate_size_mlp: int | None = _fact("intermediate_size_mlp")
    max_position_embeddings: int | None = _fact("max_position_embeddings")
    tie_word_embeddings: bool | None = None
    attention_bias: bool | None = None
    multi_query: bool | None = None
    n_routed_experts: int | None = _fact("n_routed_experts")
    num_experts: int | None = _fact("num_experts")
    num_local_experts: int | None = _fact("num_local_experts")
    num_experts_per_tok: int | None = _fact("num_experts_per_tok")
    moe_intermediate_size: int | None = _fact("moe_intermediate_size")
    shared_expert_intermediate_size: int | None = _fact("shared_expert_intermediate_size")
    n_shared_experts: int | None = _fact("n_shared_experts")
    first_k_dense_replace: int | None = _fact("first_k_dense_replace")
    moe_layer_freq: int | None = _fact("moe_layer_freq")
    decoder_sparse_step: int | None = _fact("decoder_sparse_step")
    interleave_moe_layer_step: int | None = _fact("interleave_moe_layer_step")
    mlp_only_layers: Annotated[list[Annotated[int, Field(ge=0, le=4095)]], Field(max_length=4096)] | None = None
    kv_lora_rank: int | None = _fact("kv_lora_rank")
    q_lora_rank: int | None = _fact("q_lora_rank")
    qk_rope_head_dim: int | None = _fact("qk_rope_head_dim")
    qk_nope_head_dim: int | None = _fact("qk_nope_head_dim")
    v_head_dim: int | None = _fact("v_head_dim")
    sliding_window: int | None = _fact("sliding_window")
    use_sliding_window: bool | None = None
    sliding_window_pattern: int | None = _fact("sliding_window_pattern")
    max_window_layers: int | None = _fact("max_window_layers")
    layer_types: (
        Annotated[list[Literal["full_attention", "sliding_attention", "chunked_attention"]], Field(max_length=4096)]
        | None
    ) = None
    attention_chunk_size: int | None = _fact("attention_chunk_size")
    no_rope_layers: Annotated[list[Literal[0, 1]], Field(max_length=4096)] | None = None
    partial_rotary_factor: float | None = Field(default=None, gt=0, le=1)
    rope_scaling: ArchitectureRope | None = None
    quantization_config: ArchitectureQuantization | None = None
    vision_config: ArchitectureVision | None = None


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
