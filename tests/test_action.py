"""The GitHub Action for recipes repositories: ``action.yml`` is a valid composite action, the README's
example workflow is a valid workflow using it, and its script runs offline in a temporary git repository
of two commits with ``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT`` pointed at temporary files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.paths import RECIPES, ROOT, need_runtime

ACTION = ROOT / "action.yml"
SCRIPT_PATH = re.compile(r'"\$GITHUB_ACTION_PATH/([^"]+)"')


def schema_check(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    """check-jsonschema with one of its vendored SchemaStore schemas (no network)."""
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120)


def action() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    return loaded


def test_action_yml_validates_against_the_published_schema() -> None:
    done = schema_check("vendor.github-actions", ACTION)
    assert done.returncode == 0, done.stdout + done.stderr


def test_action_is_composite_and_well_formed() -> None:
    data = action()
    assert {"name", "description", "inputs", "outputs", "runs"} <= set(data)
    runs = data["runs"]
    assert runs["using"] == "composite"
    ids = {step["id"] for step in runs["steps"] if "id" in step}
    for step in runs["steps"]:
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step["shell"] == "bash", step
            for script in SCRIPT_PATH.findall(step["run"]):
                assert (ROOT / script).is_file(), script
    for name, spec in data["inputs"].items():
        assert re.fullmatch(r"[a-z][a-z0-9-]*", name) and spec["description"] and isinstance(spec.get("default"), str)
    assert set(data["outputs"]) == {"changed", "summary-path"}
    for spec in data["outputs"].values():
        step = re.fullmatch(r"\$\{\{ steps\.([a-z-]+)\.outputs\.[a-z-]+ \}\}", spec["value"])
        assert spec["description"] and step and step.group(1) in ids


def test_the_readme_workflow_is_a_valid_workflow_using_the_action(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"\n( +)```yaml\n(.*?)\n\1```\n", readme, re.S)
    assert block is not None
    workflow = tmp_path / "recipes.yml"
    workflow.write_text(textwrap.dedent(block.group(2)) + "\n")
    done = schema_check("vendor.github-workflows", workflow)
    assert done.returncode == 0, done.stdout + done.stderr
    steps = yaml.safe_load(workflow.read_text())["jobs"]["recipes"]["steps"]
    used = next(s for s in steps if s.get("id") == "recipes")
    assert used["uses"] == "OWNER/REPO@REF" and set(used.get("with", {})) <= set(action()["inputs"])
    assert "steps.recipes.outputs.summary-path" in steps[-1]["run"]


# ── the action's script, offline ──


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
                          capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, str]:
    """A recipes repository (content root at its root) with two commits: the second changes one flag."""
    folder = tmp_path / "recipes-repo"
    shutil.copytree(RECIPES, folder)
    git(folder, "init", "-q", "-b", "main")
    git(folder, "add", ".")
    git(folder, "commit", "-q", "-m", "recipes")
    base = git(folder, "rev-parse", "HEAD")
    recipe = folder / "models" / "Qwen" / "Qwen3-8B.yaml"
    recipe.write_text(recipe.read_text().replace("  base_args: []", '  base_args: ["--max-num-seqs", "64"]', 1))
    git(folder, "commit", "-q", "-am", "one flag")
    return folder, base


def run_action(repo: Path, tmp_path: Path, **inputs: str) -> tuple[int, str, dict[str, str], str]:
    """The action's report step as the runner runs it: (exit status, log, outputs, step summary)."""
    runner = tmp_path / "runner"
    runner.mkdir(exist_ok=True)
    summary, outputs = runner / "step-summary.md", runner / "output"
    summary.write_text("")
    outputs.write_text("")
    env = {**os.environ, "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs),
           "RUNNER_TEMP": str(runner), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "INPUT_CONTENT": ".", "INPUT_HEAD": "HEAD", "INPUT_STRICT": "true", **inputs}
    step = next(s for s in action()["runs"]["steps"] if s.get("id") == "report")
    script = ROOT / SCRIPT_PATH.findall(step["run"])[0]
    done = subprocess.run(["bash", str(script)], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    pairs = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    return done.returncode, done.stdout + done.stderr, pairs, summary.read_text()


def test_the_action_reports_the_pull_request(repo: tuple[Path, str], tmp_path: Path) -> None:
    need_runtime()
    folder, base = repo
    status, log, outputs, summary = run_action(folder, tmp_path, INPUT_BASE=base)
    assert status == 0, log
    assert outputs == {"changed": "true", "summary-path": str(tmp_path / "runner" / "vllm-recipes-summary.md")}
    assert Path(outputs["summary-path"]).read_text() == summary
    assert summary.startswith(f"## vLLM recipes: what this change publishes\n\n`{base} ({base[:12]})` → ")
    assert "### `Qwen/Qwen3-8B` · `models/Qwen/Qwen3-8B.yaml`" in summary
    assert "added `--max-num-seqs 64`" in summary
    assert ".: ok (0 warning(s))" in log


def test_errors_fail_the_job_and_lead_the_summary(repo: tuple[Path, str], tmp_path: Path) -> None:
    need_runtime()
    folder, base = repo
    recipe = folder / "models" / "Qwen" / "Qwen3-14B.yaml"
    recipe.write_text(recipe.read_text().replace("  hardware:\n", "  hardware:\n    h20: verified\n", 1))
    git(folder, "commit", "-q", "-am", "an unknown hardware id")
    line = recipe.read_text().splitlines().index("    h20: verified") + 1
    status, _, outputs, summary = run_action(folder, tmp_path, INPUT_BASE=base)
    assert status == 1
    assert outputs["changed"] == "true"
    assert summary.startswith(
        "### `vllm-recipes check --content . --strict` failed\n\n```text\n"
        f"models/Qwen/Qwen3-14B.yaml:{line}: meta.hardware.h20: warning: unknown hardware 'h20'\n```\n\n"
        "## vLLM recipes: what this change publishes\n")


def test_without_a_base_it_only_checks(repo: tuple[Path, str], tmp_path: Path) -> None:
    need_runtime()
    status, _, outputs, summary = run_action(repo[0], tmp_path, INPUT_BASE="")
    assert (status, outputs["changed"]) == (0, "false")
    assert summary == "No base revision to compare with (not a pull request): checked only.\n"


def test_an_unknown_base_fails_the_job(repo: tuple[Path, str], tmp_path: Path) -> None:
    status, _, outputs, summary = run_action(repo[0], tmp_path, INPUT_BASE="0" * 40)
    assert status == 1 and outputs["changed"] == "false"
    assert summary == (f"### `vllm-recipes diff` failed (exit 2)\n\n```text\nerror: unknown revision '{'0' * 40}' in .\n"
                       "```\n")
