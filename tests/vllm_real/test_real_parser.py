"""The lint against vLLM 0.33.0's real `vllm serve` parser (``make test-vllm``).

Skipped unless the environment variable ``VLLM_VENV`` names a venv with vLLM installed
(``bash /work/shared/vllm/install.sh /work/vllm-venv``). One run of ``tools/check_argv.py`` parses
every distinct argv of the golden API (once per test run, shared by the workers), another the unit-test
table; the verdicts are computed here, never committed, and compared argv by argv. The lint's
start-up problems (``FlagProblem.startup``: names the parser lets through) are compared with
``startup_names.py``, which looks the names up with vLLM's own start-up code. Each script runs as it
would as a command of its own, in a child forked by the test process's zygote in the vLLM venv, which
imported vLLM once (:mod:`tests.vllm_real.scripts`).
"""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
GOLDEN = SHARED / "golden"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from builder.checks import vllm_lint  # noqa: E402
from tests.support.shared_builds import once  # noqa: E402
from tests.vllm_real.scripts import VENV, run_script  # noqa: E402

pytestmark = pytest.mark.skipif(
    not VENV,
    reason="set VLLM_VENV to a venv with vLLM 0.33.0 (make test-vllm) to compare with the real parser")

# Golden argvs the lint flags although vLLM's parser accepts them: argv label -> reason.
# None today; add an entry (with why the lint is right) if a recipe starts relying on, e.g.,
# a prefix abbreviation or a duplicated flag.
GOLDEN_LINT_ONLY: dict[str, str] = {}


def _unit_cases() -> ModuleType:
    """tests/checks/test_vllm_lint.py, loaded by path (CASES and LINT_ONLY)."""
    spec = importlib.util.spec_from_file_location("_vllm_lint_unit_cases",
                                                  ROOT / "tests" / "checks" / "test_vllm_lint.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def real_verdicts(argvs: list[list[str]], script: Path = ROOT / "tools" / "check_argv.py",
                  *options: str) -> list[dict[str, Any]]:
    """Run ``script`` (default tools/check_argv.py, placeholders filled) in the vLLM venv on all argvs."""
    if script.name == "check_argv.py" and not options:
        options = ("--placeholders",)
    proc = run_script(script, list(options), json.dumps(argvs))
    if proc.returncode not in (0, 1):
        pytest.fail(f"{script.name} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    verdicts = json.loads(proc.stdout)
    assert len(verdicts) == len(argvs)
    return verdicts


STARTUP_SCRIPT = Path(__file__).resolve().parent / "startup_names.py"


def parse_problems(argv: tuple[str, ...] | list[str]) -> list[vllm_lint.FlagProblem]:
    """The lint's problems that vLLM's parser itself should see (start-up names left out)."""
    return [p for p in vllm_lint.lint_argv(argv) if not p.startup]


def golden_verdicts(_folder: Path) -> dict[str, Any]:
    """{"labels": distinct golden argv -> first label, "verdicts": argv -> real parser verdict}."""
    labels: dict[tuple[str, ...], str] = {}
    for rel, label, argv in vllm_lint.iter_tree(GOLDEN):
        labels.setdefault(tuple(argv), f"{rel}: {label}")
    argvs = list(labels)
    verdicts = real_verdicts([list(a) for a in argvs])
    return {"labels": labels, "verdicts": dict(zip(argvs, verdicts, strict=True))}


@pytest.fixture(scope="session")  # the run order interleaves this module with another
def golden(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[tuple[str, ...], str],
                                                              dict[tuple[str, ...], dict[str, Any]]]:
    """(distinct golden argv -> first label, argv -> real parser verdict), once per test run."""
    if not GOLDEN.is_dir():
        pytest.skip(f"golden JSON API not found at {GOLDEN} (shared fixtures absent)")
    computed = once(tmp_path_factory, "vllm-golden-verdicts", golden_verdicts)
    return computed["labels"], computed["verdicts"]


def test_golden_lint_agrees_with_real_parser(golden: tuple[dict, dict]) -> None:
    labels, verdicts = golden
    missed, lint_only = [], []
    for argv, verdict in verdicts.items():
        problems = parse_problems(argv)
        if not verdict["ok"] and not problems:
            missed.append(f"{labels[argv]}: parser: {verdict['error'][:300]}")
        if verdict["ok"] and problems and labels[argv] not in GOLDEN_LINT_ONLY:
            lint_only.append(f"{labels[argv]}: lint: {'; '.join(p.message() for p in problems)}")
    assert not missed, "rejected by vLLM but not flagged by the lint:\n" + "\n".join(missed[:30])
    assert not lint_only, "flagged by the lint but accepted by vLLM:\n" + "\n".join(lint_only[:30])


def test_golden_rejected_set(golden: tuple[dict, dict]) -> None:
    """The figures of the shared README, plus the kv-store `vllm_argv`s it leaves out."""
    _labels, verdicts = golden
    rejected = [a for a, v in verdicts.items() if not v["ok"]]
    assert len(verdicts) == 4969
    assert len(rejected) == 201
    assert Counter(a[2] for a in rejected) == _unit_cases().GOLDEN_FLAGGED


def test_unit_cases_agree_with_real_parser() -> None:
    cases = _unit_cases()
    argvs = [cases.case_argv(tail) for _id, tail, _exp in cases.CASES]
    verdicts = real_verdicts(argvs)
    wrong = []
    for (case_id, _tail, expected), verdict in zip(cases.CASES, verdicts, strict=True):
        should_parse = not expected or case_id in cases.LINT_ONLY or case_id in cases.STARTUP_ONLY
        if verdict["ok"] != should_parse:
            wrong.append(f"{case_id}: lint expects {expected or 'no problem'}; parser: "
                         f"{'ok' if verdict['ok'] else verdict['error'][:300]}")
    assert not wrong, "\n".join(wrong)


def _startup_disagreements(argvs: list[tuple[str, ...]], labels: list[str]) -> tuple[list[str], int]:
    """(argvs where the lint's start-up problems and vLLM's start-up lookups disagree, argvs compared)."""
    verdicts = real_verdicts([list(a) for a in argvs], STARTUP_SCRIPT)
    wrong, compared = [], 0
    for argv, label, verdict in zip(argvs, labels, verdicts, strict=True):
        if verdict["ok"] is None:  # rejected by the parser, a parser plugin, or a placeholder name
            continue
        compared += 1
        flagged = [p.message() for p in vllm_lint.lint_argv(argv) if p.startup]
        if verdict["ok"] == bool(flagged):
            wrong.append(
                f"{label}: lint: {flagged or 'no start-up problem'}; vLLM: {verdict['error'] or 'ok'}")
    return wrong, compared


def test_unit_cases_startup_names_agree_with_vllm() -> None:
    cases = _unit_cases()
    argvs = [tuple(cases.case_argv(tail)) for _id, tail, _exp in cases.CASES]
    wrong, compared = _startup_disagreements(argvs, [c[0] for c in cases.CASES])
    assert not wrong, "\n".join(wrong)
    assert compared >= len(cases.CASES) - 40  # most cases parse; only those are compared


def test_golden_startup_names_agree_with_vllm(golden: tuple[dict, dict]) -> None:
    labels, verdicts = golden
    argvs = [a for a, v in verdicts.items() if v["ok"]]
    wrong, compared = _startup_disagreements(argvs, [labels[a] for a in argvs])
    assert not wrong, "\n".join(wrong[:30])
    plugins = [a for a in argvs if {"--tool-parser-plugin", "--reasoning-parser-plugin"} & set(a)]
    assert Counter(a[2] for a in plugins) == {"nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": 18,
                                              "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-FP8": 18}
    assert compared == len(argvs) - len(plugins) == 4969 - 201 - 36  # every other accepted argv
    startup_rejected = {a[2] for a in argvs if any(p.startup for p in vllm_lint.lint_argv(a))}
    assert startup_rejected == set(_unit_cases().GOLDEN_STARTUP_FLAGGED)  # agreed on above, argv by argv


def test_committed_catalogue_matches_venv(tmp_path: Path) -> None:
    """builder/data/vllm-0.33.0-flags.json and its ``bench serve`` twin are what tools/vllm_flags.py writes
    from this venv."""
    out, bench = tmp_path / "flags.json", tmp_path / "bench.json"
    proc = run_script(ROOT / "tools" / "vllm_flags.py", ["--out", str(out), "--bench-out", str(bench)], "",
                      timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.read_text(encoding="utf-8") == vllm_lint.CATALOGUE_PATH.read_text(encoding="utf-8")
    committed = vllm_lint.CATALOGUE_PATH.with_name("vllm-0.33.0-bench-serve-flags.json")
    assert bench.read_text(encoding="utf-8") == committed.read_text(encoding="utf-8")


CONFIG_SCRIPT = Path(__file__).resolve().parent / "config_files.py"


def published_config_cases() -> dict[str, dict[str, Any]]:
    """label -> case for the first file of every hardware in our recipes' ``/<base>/vllm-config.json`` (built
    in memory): the YAML text as published, with the tokens its ``apply`` command leaves after ``--config
    FILE``, beside the argv of the record it was made of."""
    from builder.api.publish import ApiBuilder
    from builder.content.loader import load_content

    content, _ = load_content(ROOT / "recipes")
    out = ApiBuilder(content).build()
    cases = {}
    for path, data in out.files.items():
        if not path.endswith("/vllm-config.json"):
            continue
        for hw, entry in json.loads(data)["by_hardware"].items():
            record = out.objects[entry["record"].lstrip("/")]
            first = entry["files"][0]
            tokens = shlex.split(first["apply"].rsplit(" && ", 1)[-1])
            argv = record.get("argv") or record["head_argv"]
            cases[f"{path}: {hw}"] = {"argv": argv, "config": first["text"],
                                      "cli": tokens[tokens.index("--config") + 2:]}
    return cases


def test_vllm_config_form_parses_like_the_command(golden: tuple[dict, dict]) -> None:
    """Every golden argv the parser accepts, written in the ``vllm-config`` form (the YAML file plus the
    tokens left on the command line), parses through vLLM's own ``--config`` handling to the same
    namespace; so does every file our recipes publish in ``/<base>/vllm-config.json`` (one run of
    ``config_files.py``)."""
    from builder.resolver.deploy.vllm_config import split_argv
    from builder.resolver.deploy.yaml_text import dump

    labels, verdicts = golden
    argvs = [a for a, v in verdicts.items() if v["ok"]]
    cases = []
    for argv in argvs:
        config, cli = split_argv(list(argv))
        cases.append({"argv": list(argv), "config": dump(config), "cli": cli})
    published = published_config_cases()
    results = real_verdicts([*cases, *published.values()], CONFIG_SCRIPT)  # type: ignore[list-item]
    wrong = [f"{labels[a]}: {r['error']}" for a, r in zip(argvs, results[:len(cases)], strict=True)
             if r["ok"] is not True]
    assert not wrong, "\n".join(wrong[:30])
    assert len(cases) == 4969 - 201
    assert all(c["config"] != "{}\n" for c in cases)  # every argv puts at least one flag in the file
    wrong = [f"{label}: {r['error']}" for label, r in zip(published, results[len(cases):], strict=True)
             if r["ok"] is not True]
    assert not wrong, "\n".join(wrong[:30])
    assert "MiniMaxAI/MiniMax-M3/vllm-config.json: h200" in published
