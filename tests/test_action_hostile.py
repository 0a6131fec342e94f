"""The Action under a hostile pull request: nothing its checkout holds runs or configures the steps
(planted ``pip/``, ``builder/``, ``sitecustomize.py``, pip configuration, programs on ``PATH``, Python,
pip and git variables), revision inputs git would take for options fail the job, and what the recipes
put into the job log and the summary stays inert (no workflow command, no live Markdown)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support.action import recipes_repo, run_action, run_step, step_script
from tests.support.git_repo import git
from tests.support.inert import headings, live_markup, log_commands
from tests.support.paths import need_runtime

MARK = "touch {marks}/{name}\n"


def plant(checkout: Path, marks: Path) -> dict[str, str]:
    """A fork's traps in ``checkout``; every one that runs leaves a file in ``marks``. Returns the
    variables an earlier step of the job could have set to point at them."""
    marks.mkdir(exist_ok=True)
    python = f"open({str(marks)!r} + '/{{}}', 'w').close()\n"
    for name in ("pip", "builder"):
        (checkout / name).mkdir(exist_ok=True)
        (checkout / name / "__init__.py").write_text(python.format(f"{name}-init"))
        (checkout / name / "__main__.py").write_text(python.format(f"{name}-main"))
    for name in ("sitecustomize", "usercustomize"):
        (checkout / f"{name}.py").write_text(python.format(name))
    site = (checkout / "userbase" / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
            / "site-packages")
    site.mkdir(parents=True, exist_ok=True)
    (site / "usercustomize.py").write_text(python.format("userbase"))
    for name in ("pip.conf", "pip.ini"):
        (checkout / name).write_text(f"[global]\nlog = {checkout}/{name}.log\n")
    (checkout / "bin").mkdir(exist_ok=True)
    for program in ("python", "python3", "pip", "git", "npm", "node", "vllm-recipes"):
        (checkout / "bin" / program).write_text(
            f"#!/bin/sh\n{MARK.format(marks=marks, name='bin-' + program)}")
        (checkout / "bin" / program).chmod(0o755)
    (checkout / "startup.py").write_text(python.format("startup"))
    return {"PYTHONPATH": str(checkout), "PYTHONUSERBASE": str(checkout / "userbase"),
            "PYTHONSTARTUP": str(checkout / "startup.py"), "PIP_CONFIG_FILE": str(checkout / "pip.conf"),
            "PIP_LOG_FILE": str(checkout / "pip-env.log"), "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "core.fsmonitor", "GIT_CONFIG_VALUE_0": str(checkout / "bin" / "git"),
            "NODE_OPTIONS": f"--require {checkout}/startup.js",
            "PATH": f"{checkout / 'bin'}{os.pathsep}.{os.pathsep}{os.pathsep}{os.environ['PATH']}"}


def recorder(folder: Path, name: str) -> Path:
    """A program that records its arguments (one line each, NUL-separated) and its variables' names."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / name
    script.write_text(f"#!/usr/bin/env bash\n{{ printf '%s\\0' \"$PWD\" \"$@\"; echo; }} >> {folder}/argv\n"
                      f"compgen -e >> {folder}/env\n")
    script.chmod(0o755)
    return script


def recorded(folder: Path) -> tuple[list[list[str]], set[str]]:
    calls = [line.rstrip("\0").split("\0") for line in (folder / "argv").read_text().splitlines()]
    return calls, set((folder / "env").read_text().split())


SCRUBBED = ("PYTHON", "PIP_", "GIT_", "NODE_OPTIONS")


def test_install_runs_nothing_of_the_checkout(tmp_path: Path) -> None:
    checkout, marks = tmp_path / "checkout", tmp_path / "marks"
    checkout.mkdir()
    env = plant(checkout, marks)
    empty_action = tmp_path / "action"
    empty_action.mkdir()
    # the real interpreter: pip refuses the empty folder, after anything planted would have run
    done = run_step(step_script("Install"), checkout, tmp_path, GITHUB_ACTION_PATH=str(empty_action),
                    VLLM_RECIPES_PYTHON=sys.executable, **env)
    assert done.status == 1 and "Neither 'setup.py' nor 'pyproject.toml' found" in done.log, done.log
    assert sorted(os.listdir(marks)) == []
    assert sorted(p.name for p in checkout.iterdir() if p.name.endswith(".log")) == []
    # the command line, working directory and variables pip and the tool get
    fake = recorder(tmp_path / "rec", "python")
    done = run_step(step_script("Install"), checkout, tmp_path, GITHUB_ACTION_PATH=str(empty_action),
                    VLLM_RECIPES_PYTHON=str(fake), **env)
    assert done.status == 0, done.log
    calls, names = recorded(tmp_path / "rec")
    runner = str(tmp_path / "runner")
    assert calls == [
        [runner, "-I", "-m", "pip", "install", "--isolated", "--no-input", "--disable-pip-version-check",
         "--quiet", str(empty_action)], [runner, "-I", "-m", "builder", "--version"]]
    assert [n for n in names if n.startswith(SCRUBBED)] == []
    assert sorted(os.listdir(marks)) == []


def test_the_report_step_runs_nothing_of_the_checkout(tmp_path: Path) -> None:
    need_runtime()
    folder, base = recipes_repo(tmp_path / "recipes-repo")
    marks = tmp_path / "marks"
    env = plant(folder, marks)
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "a fork's traps")
    head = git(folder, "rev-parse", "HEAD")
    # the tool as the action runs it: python -I -m builder, the installed package
    done = run_action(folder, tmp_path, INPUT_BASE=base, VLLM_RECIPES="", VLLM_RECIPES_PYTHON=sys.executable,
                      **env)
    assert (done.status, done.outputs["changed"]) == (0, "true"), done.log
    assert done.summary.startswith("## vLLM recipes: what this change publishes\n")
    assert sorted(os.listdir(marks)) == []
    assert git(folder, "status", "--porcelain") == "" and git(folder, "rev-parse", "HEAD") == head
    # what the tool is given
    fake = recorder(tmp_path / "rec", "vllm-recipes")
    done = run_action(folder, tmp_path, INPUT_BASE=base, INPUT_CONTENT="--help", VLLM_RECIPES=str(fake),
                      **env)
    calls, names = recorded(tmp_path / "rec")
    assert [call[1:] for call in calls] == [["check", "--content=--help", "--strict"],
                                            ["diff", "--git", ".", "--content=--help", "--", base, "HEAD"]]
    assert [n for n in names if n.startswith(SCRUBBED)] == []
    assert sorted(os.listdir(marks)) == []


@pytest.mark.parametrize(("base", "head"), [
    ("--help", "HEAD"), ("-x", "HEAD"), ("--upload-pack=touch {marks}/upload", "HEAD"),
    ("main\n::error::pwned", "HEAD"), ("HEAD:taxonomy.yaml", "HEAD"), ("main", "--output={marks}/out"),
    ("main", "--end-of-options"),
])
def test_revision_inputs_git_would_misread_fail_the_job(tmp_path: Path, base: str, head: str) -> None:
    need_runtime()
    folder, _ = recipes_repo(tmp_path / "recipes-repo")
    marks = tmp_path / "marks"
    marks.mkdir()
    base, head = base.format(marks=marks), head.format(marks=marks)
    before = git(folder, "rev-parse", "HEAD")
    done = run_action(folder, tmp_path, INPUT_BASE=base, INPUT_HEAD=head)
    assert (done.status, done.outputs["changed"]) == (1, "false"), done.log
    bad = base if base != "main" else head
    error = f"error: {bad!r} is not a revision (a branch, tag or commit id, with ~N or ^N)"
    assert done.summary == f"### `vllm-recipes diff` failed (exit 2)\n\n```text\n{error}\n```\n\n"
    assert error in done.log.splitlines() and log_commands(done.log) == []
    assert sorted(os.listdir(marks)) == []
    assert git(folder, "status", "--porcelain") == "" and git(folder, "rev-parse", "HEAD") == before


def test_recipe_text_is_inert_in_the_log_and_the_summary(tmp_path: Path) -> None:
    need_runtime()
    # the check's "ok" line starts with the content folder
    folder, base = recipes_repo(tmp_path / "recipes-repo", "::notice::content")
    content = folder / "::notice::content"
    recipe = content / "models" / "Qwen" / "Qwen3-14B.yaml"
    keys = ['"h20\\n::error title=x::pwned"',
            '"```\\n## Approved by @maintainers <img src=https://evil.example/p.png>"',
            '"\\e[31m##[error]red"', '"</code></details>\\n\\n![x](https://evil.example/x.png) fixes #1"',
            *(f"h{i}" for i in range(50))]
    recipe.write_text(recipe.read_text().replace("  hardware:\n", "  hardware:\n" + "".join(
        f"    {key}: verified\n" for key in keys), 1))
    git(folder, "commit", "-q", "-am", "hostile keys")
    done = run_action(folder, tmp_path, INPUT_BASE=base, INPUT_CONTENT=content.name)
    assert done.status == 1, done.log
    assert log_commands(done.log) == []
    assert ("models/Qwen/Qwen3-14B.yaml:19: meta.hardware.h20\\n::error title=x::pwned: warning: "
            "unknown hardware 'h20\\n::error title=x::pwned'") in done.log.splitlines()
    assert live_markup(done.summary) == []
    assert headings(done.summary) == ["vllm-recipes check --strict failed",
                                      "vLLM recipes: what this change publishes",
                                      "New warnings", "Qwen/Qwen3-14B · models/Qwen/Qwen3-14B.yaml",
                                      "Qwen/Qwen3-8B · models/Qwen/Qwen3-8B.yaml"]
    assert len(done.summary) < 65_536
    check = done.summary.split("\n\n## vLLM recipes")[0]
    # longer than the ``` inside
    assert check.startswith("### `vllm-recipes check --strict` failed\n\n````text\n")
    assert check.endswith("\n… 14 more lines in the job log\n````")
    # the same with --strict off: the check passes, its "ok" line names the content folder, escaped
    done = run_action(folder, tmp_path, INPUT_BASE=base, INPUT_CONTENT=content.name, INPUT_STRICT="false")
    assert done.status == 0 and log_commands(done.log) == [], done.log
    assert "\\::notice::content: ok (54 warning(s))" in done.log.splitlines()


def test_a_content_input_with_a_workflow_command_is_inert(tmp_path: Path) -> None:
    folder, base = recipes_repo(tmp_path / "recipes-repo")
    done = run_action(folder, tmp_path, INPUT_BASE=base, INPUT_CONTENT="x\n::error::pwned\n##[error]x")
    assert (done.status, done.outputs["changed"]) == (1, "false")
    assert log_commands(done.log) == [] and live_markup(done.summary) == []
    error = "error: --content x\\n::error::pwned\\n##[error]x: no such folder"
    assert error in done.log.splitlines()
    assert done.summary.startswith(f"### `vllm-recipes check --strict` failed\n\n```text\n{error}\n```\n\n"
                                   "### `vllm-recipes diff` failed (exit 2)\n\n```text\n")
