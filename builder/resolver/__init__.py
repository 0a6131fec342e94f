"""Pure, stdlib-only recipe resolver: recipe + selection -> ``vllm serve`` / docker commands.

The package is the single implementation of the resolver specifications (``resolver-single-node.md``,
``resolver-cluster.md`` and the rendering parts of ``json-api.md``).  It imports only the Python
standard library and its own modules (relative imports) so that the very same package runs in the
browser under Pyodide.  All inputs and outputs are plain JSON-like data.  See :mod:`.resolve` for
the vocabulary and the selection keys.
"""

from __future__ import annotations

from .docker import docker_argv, docker_image, docker_run
from .features import available_modes, default_enabled_features, effective_mode
from .hardware import (
    default_hardware,
    fits_single_node,
    hardware_lookup,
    initial_hardware,
    offered_hardware,
    pick_fitting_variant,
    runs_on,
)
from .install import copy_all_installs, extra_installs, install_block, interactive_install
from .omni import OMNI_TASKS, active_omni_task, omni_example, omni_task_for_hardware, omni_tasks, resolve_omni
from .presets import PresetError, advanced_presets, resolve_preset, validate_presets
from .records import render_matrix
from .resolve import applicable_notes, resolve
from .shell import dedupe_args, format_command, pip_view, quote_value
from .strategies import (
    builder_strategies,
    effective_compatible_strategies,
    initial_node_count,
    kv_store_ids,
    min_gpus,
    node_pills,
    nodes_for,
    nodes_for_strategy,
    offered_strategies,
    pd_fits_single_node,
    pd_pool_defaults,
    pd_pool_modes,
    pick_pd_nodes,
    recommend_strategy,
    recommended_strategy,
    strategy_supported,
)
from .tabs import builder_tabs
from .topologies.mooncake import mooncake_config_script
from .ui.view import builder_state
from .values import MAX_NODES, is_omni, js_str

__all__ = [
    "MAX_NODES",
    "OMNI_TASKS",
    "PresetError",
    "active_omni_task",
    "advanced_presets",
    "applicable_notes",
    "available_modes",
    "builder_state",
    "builder_strategies",
    "builder_tabs",
    "copy_all_installs",
    "dedupe_args",
    "default_enabled_features",
    "default_hardware",
    "docker_argv",
    "docker_image",
    "docker_run",
    "effective_compatible_strategies",
    "effective_mode",
    "extra_installs",
    "fits_single_node",
    "format_command",
    "hardware_lookup",
    "initial_hardware",
    "initial_node_count",
    "install_block",
    "interactive_install",
    "is_omni",
    "js_str",
    "kv_store_ids",
    "min_gpus",
    "mooncake_config_script",
    "node_pills",
    "nodes_for",
    "nodes_for_strategy",
    "offered_hardware",
    "offered_strategies",
    "omni_example",
    "omni_task_for_hardware",
    "omni_tasks",
    "pd_fits_single_node",
    "pd_pool_defaults",
    "pd_pool_modes",
    "pick_fitting_variant",
    "pick_pd_nodes",
    "pip_view",
    "quote_value",
    "recommend_strategy",
    "recommended_strategy",
    "render_matrix",
    "resolve",
    "resolve_omni",
    "resolve_preset",
    "runs_on",
    "strategy_supported",
    "validate_presets",
]
