"""Cold caches filled on two cores: :func:`~builder.output.forked.on_two_cores` gives the results of one
process, in order; the builder data of recipes not cached yet computed by a forked child and this
process are the files and the order one process writes; the build starts the warm-up jobs of the
in-browser builder's files in children and collects them."""

from __future__ import annotations

import functools
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.cli import build
from builder.content.loader import load_content
from builder.output import forked
from builder.output.parallel import builder_data_two_cores
from builder.site.browser import bundle, data
from tests.support.paths import RECIPES


@pytest.fixture()
def forks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forks allowed beside threads an earlier test left in this worker (a session's local server)."""
    monkeypatch.setattr(forked, "can_fork", lambda: True)
    monkeypatch.setattr(build, "can_fork", lambda: True)


def square_and_pid(n: int) -> tuple[int, int]:
    time.sleep(0.05)  # long enough for the child to start and take its turns
    return n * n, os.getpid()


def test_jobs_on_two_cores_come_back_in_order_some_of_them_from_a_child(forks: None) -> None:
    results = forked.on_two_cores([functools.partial(square_and_pid, n) for n in range(7)])
    assert [value for value, _ in results] == [0, 1, 4, 9, 16, 25, 36]
    pids = {pid for _, pid in results}
    assert len(pids) == 2 and os.getpid() in pids
    assert forked.on_two_cores([functools.partial(square_and_pid, 3)]) == [(9, os.getpid())]
    assert forked.on_two_cores([]) == []


def fails_in_a_child(parent: int, n: int) -> int:
    if os.getpid() != parent:
        raise RuntimeError("the child fails")
    return n


def test_the_jobs_of_a_failed_child_are_run_here(forks: None) -> None:
    jobs = [functools.partial(fails_in_a_child, os.getpid(), n) for n in range(5)]
    assert forked.on_two_cores(jobs) == [0, 1, 2, 3, 4]


def test_a_process_that_cannot_fork_runs_every_job(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(forked, "can_fork", lambda: False)
    results = forked.on_two_cores([functools.partial(square_and_pid, n) for n in range(3)])
    assert results == [(0, os.getpid()), (1, os.getpid()), (4, os.getpid())]


def test_cold_builder_data_on_two_cores_are_the_files_of_one_process(
        forks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    content = load_content(RECIPES)[0]
    assert len(content.recipes) >= 8  # enough for the child
    monkeypatch.setattr(data, "CACHE", tmp_path / "one")
    one = dict(data.builder_data_files(content))
    monkeypatch.setattr(data, "CACHE", tmp_path / "two")
    assert len(data.cold_recipe_files(content)) == len(content.recipes)  # a fresh cache
    log = tmp_path / "computed-by"
    real = data._recipe_files

    def logged(*args: object) -> dict[str, bytes]:
        with log.open("a") as out:
            out.write(f"{os.getpid()}\n")
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(data, "_recipe_files", logged)
    two = dict(builder_data_two_cores(content))
    assert list(two) == list(one) and two == one
    pids = log.read_text().split()
    assert len(pids) == len(content.recipes) and len(set(pids)) == 2
    assert data.cold_recipe_files(content) == {}  # stored: a second build computes nothing
    assert dict(builder_data_two_cores(content)) == one and len(log.read_text().split()) == len(pids)


def test_the_build_runs_the_warm_up_jobs_in_children_and_collects_them(
        forks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def job(name: str) -> bool:
        (tmp_path / name).write_text(str(os.getpid()))
        return True

    jobs = [functools.partial(job, "a"), functools.partial(job, "b")]
    monkeypatch.setattr(bundle, "warm_up_jobs", lambda: jobs)
    started = build.warm_up()
    assert [child.result() for child in started] == [True, True]
    pids = {(tmp_path / name).read_text() for name in "ab"}
    assert len(pids) == 2 and str(os.getpid()) not in pids
    monkeypatch.setattr(build, "can_fork", lambda: False)
    assert build.warm_up() == []


@pytest.fixture()
def fresh_browser_files() -> Iterator[None]:
    """The in-browser builder's files computed again (from the disk caches) before and after the test."""
    for cached in (bundle.browser_files, bundle._runtime, bundle._code):
        cached.cache_clear()
    yield
    for cached in (bundle.browser_files, bundle._runtime, bundle._code):
        cached.cache_clear()


def test_a_cold_compile_cache_makes_a_job_compiling_into_it(
        fresh_browser_files: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    published = bundle.browser_files()  # every twin cached
    assert bundle.warm_up_jobs() == []
    monkeypatch.setattr(bundle, "CACHE", tmp_path / "compiled")  # nothing compiled there
    bundle.browser_files.cache_clear()
    bundle._runtime.cache_clear()
    bundle._code.cache_clear()
    jobs = bundle.warm_up_jobs()
    assert len(jobs) == 1 and jobs[0]() is True
    assert len(list((tmp_path / "compiled").glob("compiled-*.zip"))) == 2  # the stdlib and our code
    assert bundle.warm_up_jobs() == [] and bundle.browser_files() == published
