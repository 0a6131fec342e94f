"""One build per test run, however many xdist workers ask for it.

A session fixture that builds a site calls :func:`once`: the first worker to get there builds (holding
a lock beside the run's temporary folders) and leaves the written site and a pickle of what the
build returned; the other workers wait for the lock and load the pickle. Without xdist it just builds.
The sites are only read by the tests that share them.
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def run_folder(factory: pytest.TempPathFactory) -> Path | None:
    """The folder every worker of this run shares (None outside xdist)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return None
    return factory.getbasetemp().parent


def once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], dict[str, Any]]) -> dict[str,
                                                                                                      Any]:
    """``build(folder)`` run once per test run for ``name``; its result, from a pickle after the first."""
    shared = run_folder(factory)
    if shared is None:
        return build(factory.mktemp(name))
    folder = shared / f"shared-{name}"
    result = folder / "result.pickle"
    with open(shared / f"shared-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if result.is_file():
            with open(result, "rb") as handle:
                loaded: dict[str, Any] = pickle.load(handle)
            return loaded
        folder.mkdir(exist_ok=True)
        built = build(folder)
        partial = folder / "result.pickle.tmp"
        with open(partial, "wb") as handle:
            pickle.dump(built, handle, protocol=pickle.HIGHEST_PROTOCOL)
        partial.rename(result)
        return built
