"""Memoisation of the estimate's pure functions by the content of their inputs.

A build asks for the same estimate many times (the weights of one configuration are the same on every
hardware and strategy, and many records share one command's settings). The key is the inputs themselves,
frozen (types, order and float signs kept), so two builds of different content never share an entry; inputs
that are not plain data (dict, list, tuple, str, int, float, bool, None) are computed afresh every time.
Results handed out are copies of their dicts and lists: a caller changing one changes no other.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
CACHED = 4096  # entries per memoised function: far more than one build of the largest content asks for


class _Unkeyable(Exception):
    """A value that is not plain data."""


def frozen(value: Any) -> Any:
    """A hashable key equal only for equal plain data of the same types (``1``, ``1.0`` and ``True``
    differ, ``0.0`` and ``-0.0`` too, and mappings keep their order); raises :class:`_Unkeyable`."""
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return kind, value
    if kind is float:
        return kind, repr(value)
    if kind is dict:  # a text key stands for itself: no frozen value is a str
        return kind, tuple((key if type(key) is str else frozen(key), frozen(item))
                           for key, item in value.items())
    if kind is list or kind is tuple:
        kinds = set(map(type, value))
        if len(kinds) == 1 and (int in kinds or str in kinds):  # one exact type throughout: kept as it is
            return kind, kinds.pop(), tuple(value)
        return kind, tuple(frozen(item) for item in value)
    raise _Unkeyable(kind.__name__)


def content_key(value: Any) -> Any:
    """:func:`frozen` ``value``, or None when it is not plain data."""
    try:
        return frozen(value)
    except _Unkeyable:
        return None


def copied(value: R) -> R:
    """Fresh dicts and lists all the way down (tuples and scalars are shared: they cannot change)."""
    if isinstance(value, dict):  # (a scalar item is not passed down: most are, and calls cost)
        return {key: copied(item) if isinstance(item, (dict, list)) else item  # type: ignore[return-value]
                for key, item in value.items()}
    if isinstance(value, list):
        return [copied(item) if isinstance(item, (dict, list)) else item  # type: ignore[return-value]
                for item in value]
    return value


class _Call:
    """The arguments of one call, hashed and compared by their frozen key only."""

    __slots__ = ("args", "key")

    def __init__(self, key: Any, args: tuple[Any, ...]) -> None:
        self.key = key
        self.args = args

    def __hash__(self) -> int:
        return hash(self.key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Call) and self.key == other.key


def memoised(function: Callable[P, R]) -> Callable[P, R]:
    """``function`` answered from a bounded cache keyed by its positional arguments' content (calls with
    keywords, or with arguments that are not plain data, are computed; exceptions are not cached); the
    answer is :func:`copied`."""

    @lru_cache(maxsize=CACHED)
    def cached(call: _Call) -> R:
        return function(*call.args)  # type: ignore[call-arg]

    @wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        key = None if kwargs else content_key(args)
        if key is None:
            return function(*args, **kwargs)
        return copied(cached(_Call(key, args)))

    wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return wrapper
