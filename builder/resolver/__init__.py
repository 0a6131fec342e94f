"""Pure, stdlib-only recipe resolver: recipe + selection -> ``vllm serve`` / docker commands.

The package is the single implementation of the resolver specifications (``resolver-single-node.md``,
``resolver-cluster.md`` and the rendering parts of ``json-api.md``).  It imports only the Python
standard library and its own modules (relative imports) so that the very same package runs in the
browser under Pyodide.  All inputs and outputs are plain JSON-like data.  See :mod:`.resolve` for
the vocabulary and the selection keys, :mod:`.types` for the shapes.

Only what the API, the site, the CLI and the worker use is exported here; tests import submodules.
"""

from __future__ import annotations

from .features import available_modes, default_enabled_features
from .hardware import (
    allowlisted,
    default_hardware,
    fits_single_node,
    hardware_labels,
    node_vram_gb,
    offered_hardware,
    pick_fitting_variant,
    precision_hardware_name,
    precision_ok,
    published_profiles,
    runs_on,
    variant_of,
)
from .install import install_block
from .memory import (
    Memory,
    import_command,
    memory_coverage,
    memory_fallback,
    memory_for_record,
    memory_summary,
)
from .presets import advanced_presets, resolve_preset, validate_presets
from .records import render_matrix
from .resolve import resolve
from .shell import export_lines
from .strategies import kv_store_ids, nodes_for, offered_strategies, recommended_strategy
from .tabs import builder_tabs
from .types import PresetError, ResolveError, Selection, View, Vocab
from .ui.facts import BuilderFacts
from .ui.rows import pill_event
from .ui.view import Step, builder_state, builder_step, step_key, step_view
from .values import MAX_NODES, InvalidVersion, is_omni, version_key

__all__ = [
    "InvalidVersion",
    "MAX_NODES",
    "BuilderFacts",
    "Memory",
    "PresetError",
    "ResolveError",
    "Selection",
    "Step",
    "View",
    "Vocab",
    "advanced_presets",
    "allowlisted",
    "available_modes",
    "builder_state",
    "builder_step",
    "builder_tabs",
    "default_enabled_features",
    "default_hardware",
    "export_lines",
    "fits_single_node",
    "hardware_labels",
    "install_block",
    "is_omni",
    "kv_store_ids",
    "import_command",
    "memory_coverage",
    "memory_fallback",
    "memory_for_record",
    "memory_summary",
    "node_vram_gb",
    "nodes_for",
    "offered_hardware",
    "offered_strategies",
    "pill_event",
    "pick_fitting_variant",
    "precision_hardware_name",
    "precision_ok",
    "published_profiles",
    "recommended_strategy",
    "render_matrix",
    "resolve",
    "resolve_preset",
    "runs_on",
    "step_key",
    "step_view",
    "validate_presets",
    "variant_of",
    "version_key",
]
