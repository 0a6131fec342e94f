"""The JSON API resolved on two cores (``builder/output/parallel_api.py``): a ``--json-only`` build of
../shared/upstream whose forked child resolves every other recipe writes the same files and prints the
same lines as one process resolving them all, and a child that fails costs only the time."""

from __future__ import annotations

from pathlib import Path

import pytest

from builder.cli.main import main
from builder.content.loader import load_content
from builder.output import parallel_api
from tests.support.paths import UPSTREAM, need_shared
from tests.support.sites import JsonBuild
from tests.support.trees import discards_done
from tests.support.turns import allow_forks, dies_after_taking


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def json_build(out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, bytes], str, str]:
    """``build --json-only`` of ../shared/upstream into ``out``: its files, stdout (without the folder's
    name) and stderr."""
    assert main(["build", "--json-only", "--content", str(UPSTREAM), "--out", str(out)]) == 0
    printed = capsys.readouterr()
    discards_done(out.parent)
    return tree_bytes(out), printed.out.replace(str(out), "OUT"), printed.err


@pytest.fixture()
def forks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    need_shared()
    return allow_forks(monkeypatch)


@pytest.fixture(scope="module")
def two_cores(upstream_json_build: JsonBuild) -> tuple[dict[str, bytes], str, str]:
    """The session's two-core ``--json-only`` build of ../shared/upstream, which the tests compare with."""
    assert upstream_json_build["forked"] == ["their_share"]
    return tree_bytes(upstream_json_build["dir"]), upstream_json_build["out"], upstream_json_build["err"]


def test_two_cores_write_what_one_process_writes(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 two_cores: tuple[dict[str, bytes], str, str],
                                                 forks: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel_api, "MIN_RECIPES", 10**6)  # one process: ApiBuilder.build itself
    serial = json_build(tmp_path / "serial" / "site", capsys)
    assert forks == []
    assert sorted(two_cores[0]) == sorted(serial[0]) and len(serial[0]) > 13_654
    assert [p for p in serial[0] if two_cores[0][p] != serial[0][p]] == []
    assert two_cores[1:] == serial[1:]
    assert serial[1].startswith("built 150 recipes, 286 documents, ")


class FailedChild:
    """A forked job that died: no result."""

    def result(self) -> None:
        return None


def test_a_failed_child_leaves_its_recipes_to_the_parent(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         two_cores: tuple[dict[str, bytes], str, str],
                                                         forks: list[str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel_api, "fork_job", lambda job: FailedChild())
    assert json_build(tmp_path / "fallback" / "site", capsys) == two_cores


def test_a_child_dying_midway_leaves_what_it_took_to_the_parent(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 two_cores: tuple[dict[str, bytes], str, str],
                                                                 forks: list[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    dies_after_taking(monkeypatch, 6)  # five recipes' files written into the staging folder, then dead
    assert json_build(tmp_path / "fallback" / "site", capsys) == two_cores
    assert forks == ["their_share"]


def test_recipes_publishing_the_same_base_are_resolved_by_one_process() -> None:
    need_shared()
    content, _ = load_content(UPSTREAM, strict=False)
    bases = parallel_api.bases_of(content.recipes)
    assert sum(len(own) for own in bases) == 286  # every document's base: the upstream's are all distinct
    assert parallel_api.disjoint(bases)
    assert not parallel_api.disjoint([{"a/b"}, {"c/d", "e/f"}, {"e/f"}])
