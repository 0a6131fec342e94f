"""``vllm-recipes diff``: what a change of the content publishes, for the reviewers of a pull request."""

from __future__ import annotations

import dataclasses
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from builder.cli.diff import sides as sides_module
from builder.cli.diff.inputs import Tree
from builder.cli.diff.markdown import render
from builder.cli.diff.report import compare
from builder.cli.diff.sides import Side, build_side, build_sides
from builder.cli.main import main
from tests.support.git_repo import git
from tests.support.paths import RECIPES, UPSTREAM, need_runtime, need_shared
from tests.support.shared_builds import once

QWEN8 = "models/Qwen/Qwen3-8B.yaml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["diff", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def edited(tmp_path: Path, change: Callable[[Path], None], source: Path = RECIPES,
           name: str = "head") -> Path:
    """A copy of ``source`` with ``change`` applied to it."""
    root = tmp_path / name
    shutil.copytree(source, root)
    for path in root.rglob("*"):
        path.chmod(path.stat().st_mode | 0o200)  # ../shared is read-only
    change(root)
    return root


def replace_in(rel: str, old: str, new: str) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        text = (root / rel).read_text()
        assert old in text, old
        (root / rel).write_text(text.replace(old, new, 1))
    return change


def diff_json(capsys: pytest.CaptureFixture[str], base: Path, head: Path) -> tuple[int, dict[str, Any]]:
    status, out, err = run(capsys, str(base), str(head), "--format", "json")
    assert err == ""
    return status, json.loads(out)


# ── the upstream corpus ──


@pytest.fixture(scope="module")
def upstream_side() -> Side:
    need_shared()
    need_runtime()
    return build_side(Tree("upstream", UPSTREAM))


def test_one_flag_changed_in_upstream_names_the_recipe_the_endpoints_and_the_flag(
    upstream_side: Side, tmp_path: Path
) -> None:
    assert compare(upstream_side, upstream_side)["changed"] is False
    head = edited(tmp_path, replace_in(QWEN8, '      - "16384"\n', '      - "32768"\n'), UPSTREAM)
    report = compare(upstream_side, build_side(Tree("head", head)))
    assert report["changed"] is True
    assert [r["recipe"] for r in report["recipes"]] == ["Qwen/Qwen3-8B"]
    shell = report["recipes"][0]["commands"][0]
    assert shell["form"] == "shell"
    assert (shell["endpoints"]
            == ["/Qwen/Qwen3-8B/hw/xeon6.json", "/Qwen/Qwen3-8B/hw/xeon6/strategies/multi_node_tp.json"])
    assert shell["flags"] == ["--max-num-batched-tokens 16384 → 32768"]
    assert "-  --max-num-batched-tokens 16384 \\\n+  --max-num-batched-tokens 32768 \\" in shell["diff"]
    assert list(dict.fromkeys(c["form"] for c in report["recipes"][0]["commands"])) == [
        "shell", "docker", "kubernetes", "compose", "vllm-config"]
    config = next(c for c in report["recipes"][0]["commands"] if c["form"] == "vllm-config")
    assert "-max-num-batched-tokens: 16384\n+max-num-batched-tokens: 32768" in config["diff"]
    assert report["added"] == report["removed"] == report["renamed"] == [] and report["new_warnings"] == []
    markdown = render(report)
    assert "### `Qwen/Qwen3-8B` · `models/Qwen/Qwen3-8B.yaml`" in markdown
    assert "- Flags (2 endpoints): `--max-num-batched-tokens 16384 → 32768`" in markdown
    assert ("<details><summary>Shell command · 2 endpoints: "
            "<code>/Qwen/Qwen3-8B/hw/xeon6.json</code> and 1 more") in markdown


# ── our recipes against a changed copy ──


@pytest.fixture(scope="module")
def recipes_side(tmp_path_factory: pytest.TempPathFactory) -> Side:
    """Our recipes built as a side once per test run (xdist workers share it): the unchanged base of the
    tests below."""
    need_runtime()
    side: Side = once(tmp_path_factory, "diff-recipes-side",
                      lambda folder: {"side": build_side(Tree("recipes", RECIPES))})["side"]
    return side


@pytest.fixture()
def shared_base(recipes_side: Side, monkeypatch: pytest.MonkeyPatch) -> None:
    """``diff`` takes its base side, when it is our recipes, from :func:`recipes_side` (labelled as the
    command line names it) and builds only the head; ``test_git_revisions`` builds both sides."""
    def sides(base: Tree, head: Tree) -> tuple[Side, Side]:
        if base.root != RECIPES:
            return build_sides(base, head)
        return dataclasses.replace(recipes_side, label=base.label, root=base.root), build_side(head)

    monkeypatch.setattr(sides_module, "build_sides", sides)


# ── exit status and formats ──


@pytest.mark.usefixtures("shared_base")
def test_equal_trees_exit_0_and_say_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    copy = edited(tmp_path, lambda root: None)
    status, out, err = run(capsys, str(RECIPES), str(copy))
    assert (status, err) == (0, "")
    assert out == (f"## vLLM recipes: what this change publishes\n\n`{RECIPES}` → `{copy}`\n\nNothing "
                   "published changes.\n")


@pytest.mark.usefixtures("shared_base")
def test_a_change_exits_1_unless_told_otherwise(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    head = edited(tmp_path, replace_in(QWEN8, "  base_args: []", '  base_args: ["--max-num-seqs", "64"]'))
    status, out, _ = run(capsys, str(RECIPES), str(head), "--format", "json", "--exit-zero")
    report = json.loads(out)
    assert status == 0 and report["changed"] is True  # exit 1 without --exit-zero: the tests below
    assert report["recipes"][0]["commands"][0]["flags"] == ["added --max-num-seqs 64"]


@pytest.mark.usefixtures("shared_base")
def test_rename_and_removal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()

    def change(root: Path) -> None:
        (root / QWEN8).rename(root / "models/Qwen/Qwen3-8B-Base.yaml")
        (root / "models/Google/gemma-2-9b-it.yaml").unlink()

    status, report = diff_json(capsys, RECIPES, edited(tmp_path, change))
    assert status == 1
    assert (report["renamed"]
            == [{"before": "Qwen/Qwen3-8B", "after": "Qwen/Qwen3-8B-Base", "similarity": 1.0}])
    assert ([(r["recipe"], r["file"]) for r in report["removed"]]
            == [("Google/gemma-2-9b-it", "models/Google/gemma-2-9b-it.yaml")])
    assert report["added"] == []
    renamed = next(r for r in report["recipes"] if r["recipe"] == "Qwen/Qwen3-8B-Base")
    assert renamed["renamed_from"] == "Qwen/Qwen3-8B"
    assert renamed["commands"] == [] and renamed["endpoints_added"] == renamed["endpoints_removed"] == []
    # the others' pages: other files
    assert [r["recipe"] for r in report["recipes"]] == ["Qwen/Qwen3-8B-Base"]
    assert "Google/index.html" in report["other_files"]["removed"]
    assert "models.json" in report["other_files"]["changed"]


@pytest.mark.usefixtures("shared_base")
def test_added_recipe_shows_its_default_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()

    def change(root: Path) -> None:
        text = (root / QWEN8).read_text().replace('model_id: "Qwen/Qwen3-8B"', 'model_id: "Qwen/Tiny-Copy"')
        (root / "models/Qwen/Qwen3-8B-Instruct-Copy.yaml").write_text(text)

    status, out, _ = run(capsys, str(RECIPES), str(edited(tmp_path, change)))
    assert status == 1
    assert "### Added `Qwen/Qwen3-8B-Instruct-Copy` · `models/Qwen/Qwen3-8B-Instruct-Copy.yaml`" in out
    assert "<details><summary>Default command</summary>\n\n```sh\nvllm serve Qwen/Tiny-Copy \\\n" in out


@pytest.mark.usefixtures("shared_base")
def test_memory_verdict_change(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    head = edited(tmp_path,
                  replace_in(QWEN8, "  base_args: []", '  base_args: ["--gpu-memory-utilization", "0.1"]'))
    _, report = diff_json(capsys, RECIPES, head)
    memory = {m["endpoints"][0]: m for m in report["recipes"][0]["memory"]}
    h200 = memory["/Qwen/Qwen3-8B/hw/h200.json"]
    assert h200["before"] == "fits, 785,680 KV tokens"
    assert h200["after"].startswith("won't start, 0 KV tokens (no room for the KV cache: ")
    assert memory["/Qwen/Qwen3-8B/hw/b300.json"]["after"].startswith("tight, ")


@pytest.mark.usefixtures("shared_base")
def test_new_warning_with_its_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    rel = "models/Qwen/Qwen3-14B.yaml"
    head = edited(tmp_path, replace_in(rel, "  hardware:\n", "  hardware:\n    h20: verified\n"))
    line = (head / rel).read_text().splitlines().index("    h20: verified") + 1
    status, out, _ = run(capsys, str(RECIPES), str(head))
    assert status == 1
    assert (f"### New warnings\n\n- `{rel}:{line}: meta.hardware.h20: warning: unknown hardware 'h20'`\n"
            in out)


@pytest.mark.usefixtures("shared_base")
def test_errors_of_the_head_are_listed_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    head = edited(tmp_path, replace_in(QWEN8, "compatible_strategies:\n",
                                       "compatible_strategies:\n  - single_node_xx\n"))
    line = (head / QWEN8).read_text().splitlines().index("  - single_node_xx") + 1
    status, out, _ = run(capsys, str(RECIPES), str(head))
    assert status == 1
    assert ("### HEAD does not build: 1 error(s)\n\n```text\n"
            f"{QWEN8}:{line}: compatible_strategies[0]: unknown strategy 'single_node_xx'\n```\n") in out


@pytest.mark.usefixtures("shared_base")
def test_markdown_is_capped_with_what_is_left(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    head = edited(tmp_path, replace_in(QWEN8, "  base_args: []", '  base_args: ["--max-num-seqs", "64"]'))
    status, out, _ = run(capsys, str(RECIPES), str(head), "--max-lines", "12")
    assert status == 1
    assert len(out.splitlines()) <= 12 + 1
    assert out.splitlines()[-1].startswith("_… ") and out.rstrip().endswith(
        "not shown: `vllm-recipes diff --format json` lists everything._")
    assert out.count("<details>") == out.count("</details>")


# ── two revisions of a git repository ──


def test_git_revisions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    need_runtime()
    repo = tmp_path / "repo"
    shutil.copytree(RECIPES, repo / "recipes")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "recipes")
    replace_in(QWEN8, "  base_args: []", '  base_args: ["--max-num-seqs", "64"]')(repo / "recipes")
    git(repo, "commit", "-q", "-am", "one flag")
    base, head = git(repo, "rev-parse", "HEAD~1"), git(repo, "rev-parse", "HEAD")
    status, out, err = run(capsys, "--git", str(repo), "HEAD~1", "HEAD")
    assert (status, err) == (1, "")
    assert f"`HEAD~1 ({base[:12]})` → `HEAD ({head[:12]})`" in out
    assert "- Flags (" in out and "`added --max-num-seqs 64`" in out
    assert git(repo, "status", "--porcelain") == ""  # the work tree is left alone
    assert run(capsys, "--git", str(repo), "--content", "recipes", "main", "main")[:2] == (0, (
        f"## vLLM recipes: what this change publishes\n\n`main ({head[:12]})` → `main ({head[:12]})`\n\n"
        "Nothing published changes.\n"))


# ── bad input: exit 2, one line, no traceback ──


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    folder = tmp_path / "repo"
    shutil.copytree(RECIPES, folder)
    git(folder, "init", "-q")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "recipes")
    return folder


def test_bad_input(tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing"
    cases = [
        ((str(missing), str(RECIPES)), f"error: {missing}: no such folder\n"),
        ((str(RECIPES), str(tmp_path)), f"error: {tmp_path}: not a content root (no taxonomy.yaml)\n"),
        (("--git", str(repo), "HEAD", "nope"), f"error: unknown revision 'nope' in {repo}\n"),
        (("--git", str(repo), "--", "HEAD", "--upload-pack=x"),
         "error: '--upload-pack=x' is not a revision (a branch, tag or commit id, with ~N or ^N)\n"),
        (("--git", str(tmp_path / "elsewhere"), "a", "b"),
         f"error: --git {tmp_path / 'elsewhere'}: not a git repository\n"),
        (("--git", str(repo), "--content", "../x", "HEAD", "HEAD"),
         "error: --content ../x: must be a folder inside the repository\n"),
        (("--content", "x", str(RECIPES), str(RECIPES)),
         "error: --content names the content folder inside the repository of --git\n"),
        (("--git", str(repo), "--content", "nowhere", "HEAD", "HEAD"),
         f"error: HEAD ({git(repo, 'rev-parse', 'HEAD')[:12]}): not a content root (no taxonomy.yaml)\n"),
    ]
    for argv, message in cases:
        status, out, err = run(capsys, *argv)
        assert (status, out, err) == (2, "", message), argv


def test_an_internal_failure_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    def broken(base: Tree, head: Tree) -> None:
        raise KeyError("hf_id")

    monkeypatch.setattr(sides_module, "build_sides", broken)
    status, out, err = run(capsys, str(RECIPES), str(RECIPES))
    assert (status, out) == (2, "")
    assert err == "error: the comparison failed (KeyError: 'hf_id'); please report it\n"
