"""The command for a reader's target: the predicted point that meets it with the most tok/s per GPU.

A target is ``ttft`` (seconds, at most), ``tps_user`` (tokens/s per user, at least) and optionally
``gpus`` (at most). Candidates are a recipe's commands with their ``performance`` blocks; the answer
is ``{"hardware", "variant", "strategy", "concurrency", "point"}`` or ``{"unmet": ...}`` naming the
first constraint (in the order gpus, ttft, tps_user) that no remaining point meets, with the closest
miss (``"workload"`` when no command has a prediction for the workload at all).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple, TypedDict

from .store import Performance, Point

CONSTRAINTS = ("gpus", "ttft", "tps_user")


class Target(TypedDict, total=False):
    """What the reader asks for."""

    ttft: float  # seconds, at most
    tps_user: float  # tokens/s per user, at least
    gpus: int  # GPUs, at most


class Candidate(NamedTuple):
    """One published command and its predictions."""

    hardware: str
    variant: str
    strategy: str
    gpus: int
    performance: Performance


class Choice(TypedDict):
    """The answer: the selection and its predicted point."""

    hardware: str
    variant: str
    strategy: str
    concurrency: int
    point: Point


class Miss(TypedDict):
    """The constraint no command meets, its target and the closest point to it."""

    constraint: str
    target: float
    closest: Choice | None


class Unmet(TypedDict):
    """The answer when nothing meets the target."""

    unmet: Miss


class Option(NamedTuple):
    candidate: Candidate
    point: Point


TARGET_KEYS = {"ttft": float, "tps_user": float, "gpus": int}


def parse_target(text: str) -> Target | str:
    """``ttft=2,tps_user=50[,gpus=8]`` -> a Target, or the reason it is not one."""
    target = Target()
    for item in text.split(","):
        name, equals, value = item.strip().partition("=")
        kind = TARGET_KEYS.get(name)
        if kind is None or not equals:
            return (f"expected NAME=VALUE items with NAME one of {', '.join(TARGET_KEYS)}, got "
                    f"{item.strip()[:40]!r}")
        try:
            number = kind(value)
        except ValueError:
            return f"{name}: expected a number, got {value[:40]!r}"
        if not 0 < number < 1e9:
            return f"{name}: expected a positive number, got {value[:40]!r}"
        if name == "gpus":
            target["gpus"] = int(number)
        else:
            target[name] = float(number)  # type: ignore[literal-required]
    return target


def _meets(option: Option, name: str, target: Target) -> bool:
    if name not in target:
        return True
    if name == "gpus":
        return option.candidate.gpus <= target["gpus"]
    if name == "ttft":
        return option.point["ttft_ms"] <= target["ttft"] * 1000
    return option.point["tokens_per_s_per_user"] >= target["tps_user"]


def _distance(option: Option, name: str) -> float:
    """How far a point is from meeting a constraint (smaller is closer)."""
    if name == "gpus":
        return option.candidate.gpus
    if name == "ttft":
        return option.point["ttft_ms"]
    return -option.point["tokens_per_s_per_user"]


def _choice(option: Option) -> Choice:
    c = option.candidate
    return Choice(hardware=c.hardware, variant=c.variant, strategy=c.strategy,
                  concurrency=option.point["concurrency"], point=option.point)


def pick(candidates: Iterable[Candidate], workload: str, target: Target) -> Choice | Unmet:
    """The point meeting ``target`` with the most tok/s per GPU (fewer users on a tie), or what is unmet."""
    options = [Option(c, point) for c in candidates
               for point in (c.performance.get("workloads") or {}).get(workload, [])]
    if not options:
        return Unmet(unmet=Miss(constraint="workload", target=0.0, closest=None))
    for name in CONSTRAINTS:
        kept = [option for option in options if _meets(option, name, target)]
        if not kept:
            closest = min(options, key=lambda o: _distance(o, name), default=None)
            wanted = float(target[name])  # type: ignore[literal-required]
            return Unmet(unmet=Miss(constraint=name, target=wanted,
                                    closest=None if closest is None else _choice(closest)))
        options = kept
    best = max(options, key=lambda o: (o.point["tokens_per_s_per_gpu"], -o.point["concurrency"]))
    return _choice(best)
