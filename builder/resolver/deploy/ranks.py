"""Follower-rank tokens of a multi-node command as one template for every worker pod of a group."""

from __future__ import annotations

from typing import TypedDict

from ..types import ResolveError
from .placeholders import LWS_INDEX, LWS_SIZE


class WorkerTemplate(TypedDict):
    """The argv every worker runs (rank tokens mapped) and the per-rank data-parallel start rank factor."""

    argv: list[str]
    start_rank_step: int  # 0: no computed --data-parallel-start-rank; L: start rank = worker index x L


def _mapped(argv: list[str], rank: int, size: int) -> tuple[list[str], int]:
    out, step, index = [], 0, 0
    while index < len(argv):
        token = argv[index]
        value = argv[index + 1] if index + 1 < len(argv) else None
        if token == "--nnodes" and value == str(size):
            out += [token, LWS_SIZE]
        elif token == "--node-rank" and value == str(rank):
            out += [token, LWS_INDEX]
        elif token == "--data-parallel-start-rank" and value is not None and value.isdigit() and rank > 0:
            if int(value) == rank:
                out += [token, LWS_INDEX]
            elif int(value) % rank == 0:
                step = int(value) // rank  # written by the container command, not in args
            else:
                raise ResolveError(
                    f"--data-parallel-start-rank {value} of rank {rank} is no multiple of the rank")
        else:
            out.append(token)
            index += 1
            continue
        index += 2
    return out, step


def head_template(argv: list[str], size: int) -> list[str]:
    """The leader's argv with ``--nnodes <size>`` as the group size variable."""
    return _mapped(argv, 0, size)[0]


def worker_template(workers: list[list[str]], size: int) -> WorkerTemplate:
    """One template for all follower ranks; refuses workers that differ in more than their rank."""
    templates = [_mapped(argv, rank, size) for rank, argv in enumerate(workers, start=1)]
    first = templates[0]
    for rank, other in enumerate(templates[1:], start=2):
        if other != first:
            raise ResolveError(f"worker rank {rank} differs from rank 1 beyond its rank tokens")
    return {"argv": first[0], "start_rank_step": first[1]}
