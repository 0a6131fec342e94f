"""The GitHub Action for recipes repositories: ``action.yml`` is a valid composite action, the README's
example workflow is a valid workflow using it, and its script runs offline in a temporary git repository
of two commits with ``GITHUB_STEP_SUMMARY`` and ``GITHUB_OUTPUT`` pointed at temporary files."""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from tests.support.action import ACTION, SCRIPT_PATH, action, recipes_repo, run_action
from tests.support.git_repo import git
from tests.support.paths import ROOT, need_runtime


def schema_check(schema: str, path: Path) -> subprocess.CompletedProcess[str]:
    """check-jsonschema with one of its vendored SchemaStore schemas (no network)."""
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
                          capture_output=True, text=True, timeout=120)


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
        assert (re.fullmatch(r"[a-z][a-z0-9-]*", name) and spec["description"]
                and isinstance(spec.get("default"), str))
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


@pytest.fixture()
def repo(tmp_path: Path) -> tuple[Path, str]:
    return recipes_repo(tmp_path / "recipes-repo")


def test_the_action_reports_the_pull_request(repo: tuple[Path, str], tmp_path: Path) -> None:
    need_runtime()
    folder, base = repo
    status, log, outputs, summary = run_action(folder, tmp_path, INPUT_BASE=base)
    assert status == 0, log
    assert (outputs
            == {"changed": "true", "summary-path": str(tmp_path / "runner" / "vllm-recipes-summary.md")})
    assert Path(outputs["summary-path"]).read_text() == summary
    assert summary.startswith(f"## vLLM recipes: what this change publishes\n\n`{base} ({base[:12]})` → ")
    assert "### `Qwen/Qwen3-8B` · `models/Qwen/Qwen3-8B.yaml`" in summary
    assert "`added --max-num-seqs 64`" in summary
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
        "### `vllm-recipes check --strict` failed\n\n```text\n"
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
    assert summary == (
        f"### `vllm-recipes diff` failed (exit 2)\n\n```text\nerror: unknown revision '{'0' * 40}' in .\n"
        "```\n\n")
