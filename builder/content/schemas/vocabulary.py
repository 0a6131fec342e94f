"""The vocabulary a content root shares across recipes: ``taxonomy.yaml`` (hardware profiles,
tasks, KV-offload options), ``strategies/*.yaml``, ``kv_store/*.yaml`` and ``platforms.yaml``."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field
from pydantic_core import PydanticCustomError

from builder.content.schemas.common import (
    MAX_ENTRIES,
    MAX_INSTANCES,
    MAX_VRAM_GB,
    Args,
    Env,
    GpuCount,
    Names,
    Open,
    ParallelSize,
    SafeUrl,
    Text,
    Version,
)
from builder.resolver.families import DEVICE_FAMILIES


def _known_family(value: str) -> str:
    if value not in DEVICE_FAMILIES:
        raise PydanticCustomError("device_family",
                                  "must be a device family of the resolver's table ({known})",
                                  {"known": ", ".join(DEVICE_FAMILIES)})
    return value


DeviceFamilyId = Annotated[str, AfterValidator(_known_family)]
"""A row of ``builder/resolver/families.py`` ``DEVICE_FAMILIES``."""
NvlinkDomain = Annotated[str, Field(pattern=r"^NVL[1-9][0-9]{0,3}$")]
"""``NVL`` and the number of GPUs one NVLink domain joins (``NVL8``, ``NVL72``)."""


class HardwareProfile(Open):
    """``hardware_profiles.<id>``: one machine the builder offers (a node of ``gpu_count`` devices)."""

    brand: Text
    """Vendor (NVIDIA, AMD, Google, Intel, Huawei): picks the docker image family and device flags."""
    generation: Text | Names | None = None
    """Chip family (hopper, blackwell, amd, tpu, cpu, xpu...); overrides and precision rules key on it."""
    gpu_generation: Text | None = None
    """Older name of ``generation``, read only when ``generation`` is empty."""
    compute_arch: Text | None = None
    """Compute architecture tag such as sm90; published in the catalogue, not read by the resolver."""
    display_name: Text
    """Name on the hardware pill and in command summaries."""
    description: Text | None = None
    """One line about the machine, shown as the pill's hint."""
    gpu_count: GpuCount
    """Devices in one node: the default parallel size and the unit of node counts."""
    vram_gb: int | float = Field(ge=0, le=MAX_VRAM_GB)
    """Memory of the whole node in GB; divided by ``gpu_count`` for the per-device figure."""
    multi_node: bool | None = None
    """Kept for compatibility; no rule reads it (clustering follows ``scalable``)."""
    restricted: bool | None = None
    """When true, offered only to recipes that name this id in ``meta.hardware``."""
    scalable: bool | None = None
    """``false`` marks a workstation: no clusters, and a variant too large for it is swapped."""
    family: DeviceFamilyId | None = None
    """Device family, a row of the resolver's device-family table (nvidia, amd, tpu, xpu, cpu): the
    ``docker run`` device flags and default image, the Kubernetes resource, the install platform.
    Absent: implied by ``brand``/``generation`` (generation tpu; AMD; generation xpu; generation cpu
    or Intel; else nvidia)."""
    display_order: int | None = Field(default=None, ge=0, le=1_000_000)
    """Place of the hardware pill, lower first (ties in file order). A profile without one shows right
    after the profile listed before it; a taxonomy that gives none keeps the reference builder's order."""
    default_rank: int | None = Field(default=None, ge=1, le=1_000_000)
    """Preference as a recipe's default hardware (after ``meta.default_hardware``): the offered profile of
    lowest rank; unranked ones come after (NVIDIA, AMD, other brands, then by id). A taxonomy that ranks
    none keeps the reference builder's ranking (h200, b200, gb200)."""
    interconnect: NvlinkDomain | None = None
    """NVLink domain of the node (``NVL8``, ``NVL72``). One that spans more GPUs than the node (a GB200
    tray of an NVL72 rack) keeps the multi-node NVLink NCCL environment of prefill/decode pools. A
    taxonomy that gives none keeps the reference builder's (gb200 and gb300 in NVL72 racks)."""
    gpu_hour_usd: float | None = Field(default=None, ge=0, le=100_000)
    """Default price of one GPU for an hour in US dollars: the cost per million tokens of the Performance
    panel (the reader can change it). A taxonomy that prices no profile keeps InferenceX's defaults."""
    gpu_hour_source: Text | None = None
    """Where ``gpu_hour_usd`` comes from, shown beside the price."""


class Labelled(Open):
    """A vocabulary entry's label and description."""

    label: Text | None = None
    """Short name shown to the reader."""
    description: Text | None = None
    """One or two sentences shown under or beside the label."""


class Task(Labelled):
    """A task with an icon (no file uses it yet: ``Taxonomy.tasks`` is checked loosely)."""

    icon: Text | None = None
    """Name of an icon to draw beside the task."""


class KvOffloadCompanion(Labelled):
    """A second process a KV-offload option needs (the LMCache server, for example)."""

    command: Text
    """Shell command of that process, shown in its own command tab."""


class Described(Open):
    """What the builder shows of a vocabulary entry: its names, its place in a row, its text."""

    display_name: Text | None = None
    """Full name, used where the label would be too terse."""
    label: Text | None = None
    """Text of the pill."""
    order: int | None = None
    """Position in its row; lower comes first (absent counts as 0)."""
    description: Text | None = None
    """Line shown under the row while this entry is selected."""


class KvOffloadOption(Described):
    """``kv_offload.<key>``: a KV-cache offload connector that adds args to a serving command."""

    group: Text | None = None
    """Key of a ``kv_offload_groups`` entry: the option then appears as a member pill of that group."""
    args: Args = []
    """Serve arguments appended after the feature arguments while the option is on."""
    env: Env = {}
    """Environment merged right after the strategy's env while the option is on."""
    strategies: Names = []
    """Strategy ids the option works with; empty means every non-PD, non-Mooncake strategy."""
    brands: Names = []
    """Hardware brands the option works on; empty means every brand."""
    requires_opt_in: bool | None = None
    """When true, off unless the recipe sets ``kv_offload_support.<key>: verified``."""
    docs_url: SafeUrl | None = None
    """Documentation link shown as "Docs" under the row."""
    install: Text | None = None
    """Extra install command, listed with the install steps while the option is on."""
    companion: KvOffloadCompanion | None = None
    """A process to run beside vLLM, added as a command tab."""


class KvOffloadGroup(Described):
    """``kv_offload_groups.<key>``: one pill standing for several KV-offload options."""

    sub_row_label: Text | None = None
    """Label of the nested row listing the group's members (default "Offload Tiers")."""
    docs_url: SafeUrl | None = None
    """Documentation link shown under the row while a member is selected."""
    tooltip: Text | None = None
    """Hint of the group's pill; the description stands in when absent."""


class Taxonomy(Open):
    """``taxonomy.yaml``: the hardware, tasks and KV-offload options every recipe refers to."""

    hardware_profiles: Annotated[dict[str, HardwareProfile], Field(max_length=MAX_ENTRIES)]
    """Every machine, keyed by hardware id; their order is the order of the hardware row."""
    tasks: dict[str, Any] | list[Any] | None = None
    """Task ids with display names, used to label ``meta.tasks`` on listings."""
    strategies: dict[str, Any] | list[Any] | None = None
    """The strategy ids recipes may name; the strategy files themselves define them."""
    kv_offload_groups: dict[str, KvOffloadGroup] | None = None
    """Groups that gather KV-offload options under one pill."""
    kv_offload: Annotated[dict[str, KvOffloadOption], Field(max_length=MAX_ENTRIES)] = {}
    """KV-offload options the builder offers, keyed by the value of ``?kv_offload=``."""


class StrategyRole(Open):
    """``prefill``/``decode`` of the PD strategy."""

    vllm_args: Args = []
    """Serve arguments of every server in this pool (its port and KV-transfer role)."""
    env: Env = {}
    """Environment of every server in this pool."""
    parallelism: Text | None = None
    """Default pool parallelism (tp, tep or dep) when the recipe names none."""
    parallel_flag: Text | None = None
    """Flag that carries the pool's parallel size (default ``--tensor-parallel-size``)."""
    tp: ParallelSize | None = None
    """Tensor-parallel size inside each data-parallel rank of a DEP pool."""


class Strategy(Open):
    """``strategies/<name>.yaml``: how a recipe is spread over devices and nodes."""

    name: Text
    """Strategy id (``single_node_tp``...): the key recipes and URLs use."""
    deploy_type: Literal["single_node", "multi_node", "pd_cluster", "kv_store_lb"] = "single_node"
    """Which command shape the resolver builds: one server, one per node, PD pools or Mooncake."""
    display_name: Text | None = None
    """Name on the strategy pill and in the support matrix."""
    short_label: Text | None = None
    """Abbreviation such as TP; published in the catalogue."""
    orientation: Text | None = None
    """What the strategy favours (latency, throughput), shown as a badge under the row."""
    description: Text | None = None
    """Explanation whose first line is shown under the strategy row."""
    vllm_args: Args = []
    """Serve arguments the strategy always adds, before its parallel size."""
    parallel_flag: Text | None = None
    """Flag that receives the GPU count (default ``--tensor-parallel-size``)."""
    env: Env | None = None
    """Environment of every server (multi-node: the NIC variables)."""
    hardware_match: dict[str, Any] | None = None
    """Descriptive hints about suitable hardware; no rule reads them."""
    parallelism: Text | dict[str, Any] | None = None
    """Multi-node split: ``tp_pp`` (pipeline across nodes) or ``tp_dp`` (data parallel across nodes)."""
    prefill: StrategyRole | None = None
    """PD only: the prefill pool's arguments and environment."""
    decode: StrategyRole | None = None
    """PD only: the decode pool's arguments and environment."""
    router: dict[str, Any] | None = None
    """PD only: the router's settings (``policy``, ``port``)."""


class KvStore(Described):
    """``kv_store/<name>.yaml``: a Mooncake deployment (several vLLM instances sharing a KV store)."""

    name: Text
    """Deployment id, selected with ``?kv_offload=<name>``."""
    deploy_type: Literal["kv_store_lb"]
    """Always ``kv_store_lb``: instances behind a router with a shared store."""
    min_vllm_version: Version | None = None
    """Oldest vLLM release the deployment works with; raises the shown minimum."""
    default_instances: int | None = Field(default=None, ge=1, le=MAX_INSTANCES)
    """vLLM instances when the reader picks none (no router with one instance)."""
    router: dict[str, Any] | None = None
    """The router in front of the instances: ``policy``, ``install``, ``port``."""
    vllm: dict[str, Any] | None = None
    """What each instance adds: ``env``, ``port``, a per-brand ``install``."""
    pd: dict[str, Any] | None = None
    """Extra arguments per PD role when the store backs a PD cluster."""
    mooncake_master: dict[str, Any] | None = None
    """The Mooncake master process: its ``command``."""
    mooncake_store_config: dict[str, Any] | None = None
    """Centralized topology only: the standalone store's ``command`` and ``config``."""
    mooncake_vllm_config: dict[str, Any] | None = None
    """The config file each instance reads: ``mode``, ``note``, ``template``."""


class PlatformRef(Open):
    """An entry of ``meta.platforms``: a platform id and per-recipe overrides of ``platforms.yaml``."""

    id: Text
    """Platform id from ``platforms.yaml``; an unknown id is left out of the page."""
    name: Text | None = None
    """Name on the platform's entry of the deploy menu."""
    url: SafeUrl | None = None
    """The platform's guide, linked as "Open guide"."""
    script: SafeUrl | None = None
    """A deployment script, linked as "View script"."""
    blurb: Text | None = None
    """One or two sentences about the platform."""
    install: Text | None = None
    """Snippet shown in a code block with its own Copy button."""


class Platform(PlatformRef):
    """An entry of ``platforms.yaml``: a platform's name is required there."""

    name: Text
    """Name on the platform's entry of the deploy menu."""


class Platforms(Open):
    """``platforms.yaml``: the hosted platforms recipes can list."""

    platforms: Annotated[list[Platform], Field(max_length=MAX_ENTRIES)] = []
    """Every platform, in menu order."""
