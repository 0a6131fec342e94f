"""The GitHub Action's steps run offline, as the runner runs them: a recipes repository's checkout as the
working directory, ``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT`` pointed at temporary files. The tool
(``VLLM_RECIPES``) is this checkout's builder run by the test process's zygote
(:func:`~tests.support.commands.client_command`); ``VLLM_RECIPES=""`` runs ``python -I -m builder`` as
released."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from tests.support.commands import client_command
from tests.support.git_repo import git
from tests.support.paths import RECIPES, ROOT

ACTION = ROOT / "action.yml"
SCRIPT_PATH = re.compile(r'"\$GITHUB_ACTION_PATH/([^"]+)"')


class StepRun(NamedTuple):
    status: int
    log: str  # stdout then stderr, as the job log shows them
    outputs: dict[str, str]
    summary: str


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return loaded


def step_script(step_id: str) -> Path:
    """The script the action's step runs (``report``; ``install`` by its name)."""
    steps = action()["runs"]["steps"]
    step = next(s for s in steps if s.get("id") == step_id or s.get("name", "").startswith(step_id))
    return ROOT / SCRIPT_PATH.findall(step["run"])[0]


def recipes_repo(folder: Path, content: str = ".") -> tuple[Path, str]:
    """A recipes repository (content root at ``content``) with two commits: the second changes one flag.
    Returns the folder and the first commit."""
    shutil.copytree(RECIPES, folder / content)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "recipes")
    base = git(folder, "rev-parse", "HEAD")
    recipe = folder / content / "models" / "Qwen" / "Qwen3-8B.yaml"
    recipe.write_text(
        recipe.read_text().replace("  base_args: []", '  base_args: ["--max-num-seqs", "64"]', 1))
    git(folder, "commit", "-q", "-am", "one flag")
    return folder, base


def run_step(script: Path, repo: Path, tmp_path: Path, **env: str) -> StepRun:
    """One of the action's scripts in ``repo`` (the runner's variables, then ``env``)."""
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    summary, outputs = runner / "step-summary.md", runner / "output"
    summary.write_text("")
    outputs.write_text("")
    base_env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs),
                "RUNNER_TEMP": str(runner), "GITHUB_WORKSPACE": str(repo),
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                "VLLM_RECIPES": str(client_command(tmp_path / "tool")),
                "INPUT_CONTENT": ".", "INPUT_HEAD": "HEAD", "INPUT_STRICT": "true"}
    done = subprocess.run(["bash", str(script)], cwd=repo, env={**base_env, **env}, capture_output=True,
                          text=True, timeout=300)
    pairs = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    return StepRun(done.returncode, done.stdout + done.stderr, pairs, summary.read_text())


def run_action(repo: Path, tmp_path: Path, **env: str) -> StepRun:
    """The action's report step: (exit status, log, outputs, step summary)."""
    return run_step(step_script("report"), repo, tmp_path, **env)
