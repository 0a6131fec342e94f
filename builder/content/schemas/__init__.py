"""pydantic models for every content file kind.

The models validate shapes and types only; the build keeps publishing the raw loaded
data (key order and unknown keys pass through). Unknown keys are reported as warnings
by :func:`unknown_keys`. Every field carries a docstring, which becomes its
``description`` in the published JSON Schema (``builder.content.schemas.json_schema``).

Modules: ``common`` (bounds, value types, the :class:`Open` base), ``vocabulary``
(taxonomy, strategies, kv-store deployments, platforms), ``site_settings`` (``site.yaml``,
quickstarts), ``recipe`` (a recipe file and its metadata, model and variants), and the
parts of a recipe: ``overrides``, ``features``, ``presets``, ``notes``, ``architecture``.
"""

from builder.content.schemas.architecture import (
    Architecture,
    ArchitectureAudio,
    ArchitectureEncoder,
    ArchitectureQuantization,
    ArchitectureRope,
    ArchitectureSource,
    ArchitectureVision,
)
from builder.content.schemas.common import (
    MAX_ARGS,
    MAX_CONCURRENCY,
    MAX_ENTRIES,
    MAX_GPUS_PER_NODE,
    MAX_INSTANCES,
    MAX_MARKDOWN,
    MAX_MIN_GPUS,
    MAX_NODES,
    MAX_PARALLEL_SIZE,
    MAX_POINTS,
    MAX_PRESETS,
    MAX_TEXT,
    MAX_VARIANT_VRAM_GB,
    MAX_VARIANTS,
    MAX_VRAM_GB,
    AbsoluteUrl,
    Args,
    Env,
    GpuCount,
    HardwareText,
    Markdown,
    MinGpus,
    Names,
    NodeCount,
    Open,
    ParallelSize,
    SafeUrl,
    Scalar,
    Text,
    unknown_keys,
)
from builder.content.schemas.features import ArgsBlock, Companion, Feature, Mode
from builder.content.schemas.notes import HardwareNote, Note, NoteLink, NoteWhen
from builder.content.schemas.overrides import HardwareBlock, PoolRole, StrategyOverride
from builder.content.schemas.performance import (
    BenchmarksFile,
    BlockPredictor,
    MeasuredBlock,
    MeasuredFigures,
    MeasuredPoint,
    MeasuredProvenance,
    PerformanceFile,
    PredictedBlock,
    PublishedPoint,
    StoredDatabase,
    StoredEntry,
    StoredInputs,
    StoredMeasured,
    StoredPoint,
    StoredTool,
    Strict,
    UnavailableBlock,
)
from builder.content.schemas.presets import Preset, PresetImage, PresetPoint, PresetSelect, PresetSource
from builder.content.schemas.recipe import Dependency, Install, InstallStep, Meta, Model, Recipe, Variant
from builder.content.schemas.site_settings import Quickstart, Site, SourceSettings
from builder.content.schemas.vocabulary import (
    Described,
    HardwareProfile,
    KvOffloadCompanion,
    KvOffloadGroup,
    KvOffloadOption,
    KvStore,
    Labelled,
    Platform,
    PlatformRef,
    Platforms,
    Strategy,
    StrategyRole,
    Task,
    Taxonomy,
)

__all__ = [
    "BenchmarksFile", "BlockPredictor", "MeasuredBlock", "MeasuredFigures", "MeasuredPoint",
    "MeasuredProvenance", "PerformanceFile", "PredictedBlock", "PublishedPoint", "StoredDatabase",
    "StoredEntry", "StoredInputs", "StoredMeasured", "StoredPoint", "StoredTool", "Strict",
    "UnavailableBlock",
    "MAX_ARGS", "MAX_CONCURRENCY", "MAX_ENTRIES", "MAX_GPUS_PER_NODE", "MAX_INSTANCES", "MAX_MARKDOWN",
    "MAX_MIN_GPUS", "MAX_NODES", "MAX_PARALLEL_SIZE", "MAX_POINTS", "MAX_PRESETS", "MAX_TEXT",
    "MAX_VARIANT_VRAM_GB", "MAX_VARIANTS", "MAX_VRAM_GB",
    "AbsoluteUrl", "Args", "Env", "GpuCount", "HardwareText", "Markdown", "MinGpus", "Names", "NodeCount",
    "ParallelSize", "SafeUrl", "Scalar", "Text",
    "Open", "unknown_keys",
    "Architecture", "ArchitectureAudio", "ArchitectureEncoder", "ArchitectureQuantization",
    "ArchitectureRope", "ArchitectureSource", "ArchitectureVision",
    "ArgsBlock", "Companion", "Feature", "Mode",
    "HardwareNote", "Note", "NoteLink", "NoteWhen",
    "HardwareBlock", "PoolRole", "StrategyOverride",
    "Preset", "PresetImage", "PresetPoint", "PresetSelect", "PresetSource",
    "Dependency", "Install", "InstallStep", "Meta", "Model", "Recipe", "Variant",
    "Quickstart", "Site", "SourceSettings",
    "Described", "HardwareProfile", "KvOffloadCompanion", "KvOffloadGroup", "KvOffloadOption", "KvStore",
    "Labelled", "Platform", "PlatformRef", "Platforms", "Strategy", "StrategyRole", "Task", "Taxonomy",
]
