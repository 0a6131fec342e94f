"""The recipes read on two cores (``builder/output/parallel_load.py``): the content and the problems of
../shared/upstream, and of a copy with broken recipes on both cores' shares, are those of one process
reading every recipe; a child that fails costs only the time."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.content.loader import load_content
from builder.content.model import Content
from builder.content.problems import ContentError, Problem
from builder.output import forked, parallel_load
from tests.support.paths import UPSTREAM, need_shared
from tests.support.turns import dies_after_taking


@pytest.fixture()
def forks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Forks allowed beside xdist's threads; the jobs the reading forked."""
    need_shared()
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    started: list[object] = []
    real = forked.fork_job

    def recorded(job: Any) -> Any:
        started.append(job)
        return real(job)

    monkeypatch.setattr(forked, "fork_job", recorded)
    return started


def loaded(content: Content, problems: list[Problem]) -> tuple[list[Any], list[str]]:
    """Everything the build takes from the reading: each recipe's fields, and the problems as printed."""
    recipes = [(r.hf_id, r.rel_path, r.data, r.locations, r.overlays, r.resolved_presets, r.performance,
                r.benchmarks) for r in content.recipes]
    return recipes, [str(problem) for problem in problems]


def test_two_cores_read_what_one_process_reads(forks: list[object]) -> None:
    serial = loaded(*load_content(UPSTREAM))
    parallel = loaded(*load_content(UPSTREAM, reader=parallel_load.read_on_two_cores))
    assert len(forks) == 1
    assert len(parallel[0]) == 150 and len(parallel[1]) == 15
    assert parallel == serial


def test_broken_recipes_on_both_shares_are_reported_in_walk_order(tmp_path: Path,
                                                                   forks: list[object]) -> None:
    root = tmp_path / "content"
    shutil.copytree(UPSTREAM, root)
    for rel, key in (("models/Google/gemma-4-12B-it.yaml", "meta"),  # read by the child
                     ("models/Google/gemma-4-26B-A4B-it.yaml", "variants")):  # read by the parent
        path = root / rel
        path.write_text(path.read_text(encoding="utf-8") + f"\n{key}: 1\n", encoding="utf-8")
    with pytest.raises(ContentError) as serial:
        load_content(root)
    with pytest.raises(ContentError) as parallel:
        load_content(root, reader=parallel_load.read_on_two_cores)
    assert len(forks) == 1
    assert [str(p) for p in parallel.value.problems if not p.warning] == [
        "models/Google/gemma-4-12B-it.yaml:255: meta: duplicate key 'meta'",
        "models/Google/gemma-4-26B-A4B-it.yaml:465: variants: duplicate key 'variants'"]
    assert [str(p) for p in parallel.value.problems] == [str(p) for p in serial.value.problems]


class FailedChild:
    """A forked job that died: no result."""

    def result(self) -> None:
        return None


def test_a_failed_child_leaves_its_recipes_to_the_parent(forks: list[object],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    serial = loaded(*load_content(UPSTREAM))
    monkeypatch.setattr(forked, "fork_job", lambda job: FailedChild())
    assert loaded(*load_content(UPSTREAM, reader=parallel_load.read_on_two_cores)) == serial


def test_few_recipes_are_read_without_a_fork(forks: list[object]) -> None:
    rels = [f"r{i}" for i in range(parallel_load.MIN_RECIPES - 1)]
    assert parallel_load.read_on_two_cores(rels, lambda rel: (None, [])) == [(None, [])] * len(rels)
    assert forks == []


def test_a_child_dying_midway_leaves_what_it_took_to_the_parent(forks: list[object],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    serial = loaded(*load_content(UPSTREAM))
    dies_after_taking(monkeypatch, 4)
    assert loaded(*load_content(UPSTREAM, reader=parallel_load.read_on_two_cores)) == serial
    assert len(forks) == 1
