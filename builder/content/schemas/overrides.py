"""What a recipe adds on given hardware or with a given strategy: ``hardware_overrides``
blocks and ``strategy_overrides.<strategy>`` (with the PD pools of ``pd_cluster``)."""

from __future__ import annotations

from typing import Any

from builder.content.schemas.common import Args, Env, Names, NodeCount, Open, ParallelSize, Text


class HardwareBlock(Open):
    """A ``hardware_overrides.<key>`` block: what is added on the hardware the key matches."""

    extra_args: Args = []
    """Serve arguments added on the matching hardware."""
    extra_env: Env = {}
    """Environment added on the matching hardware."""
    docker_image: Text | None = None
    """Image for this exact hardware id; read in a variant's overrides, over every other image."""
    install_note: Text | None = None
    """Kept for compatibility; no rule reads it."""


class PoolRole(Open):
    """``strategy_overrides.pd_cluster.prefill``/``decode``: one PD pool of this recipe."""

    nodes: NodeCount | dict[str, NodeCount] | None = None
    """Nodes of the pool: a number, or per hardware id with a ``default`` entry."""
    parallelism: Text | None = None
    """Parallelism of the pool (tp, tep or dep), over the strategy file's."""
    parallel_flag: Text | None = None
    """Flag carrying the pool's parallel size in TP/TEP pools, over the strategy's."""
    tp: ParallelSize | None = None
    """DEP pools: the tensor-parallel size inside each data-parallel rank."""
    extra_args: Args = []
    """Serve arguments added to every server of this pool."""
    vllm_args: Args = []
    """More serve arguments for this pool, after ``extra_args``."""
    env: Env = {}
    """Environment of this pool's servers, after the strategy override's ``env``."""
    hardware_overrides: dict[str, HardwareBlock] = {}
    """Per exact hardware id: arguments and environment added to this pool."""


class StrategyOverride(Open):
    """``strategy_overrides.<strategy>``: what the recipe adds whenever that strategy is used."""

    tp: ParallelSize | dict[str, ParallelSize] | None = None
    """``single_node_tp`` only: tensor-parallel size, a number or hardware-keyed (after the variant's)."""
    extra_args: Args = []
    """Serve arguments added with this strategy."""
    vllm_args: Args = []
    """More serve arguments, after ``extra_args``."""
    env: Env = {}
    """Environment added with this strategy."""
    extra_env: Env = {}
    """More environment, after ``env`` (PD pools use their own ``env`` instead)."""
    hardware_overrides: dict[str, HardwareBlock] = {}
    """A generation block here replaces the recipe's and variant's; an exact-id block is added."""
    prefill: PoolRole | None = None
    """``pd_cluster`` only: the prefill pool."""
    decode: PoolRole | None = None
    """``pd_cluster`` only: the decode pool."""
    pool_modes: Names = []
    """``pd_cluster`` only: the pool parallelisms offered (a subset of tp, tep, dep)."""
    parallel_flag: Text | None = None
    """Accepted; the resolver reads the pools' ``parallel_flag`` instead."""
    router: dict[str, Any] | None = None
    """``pd_cluster`` only: ``intra_node_data_parallel_size`` for the router command."""
