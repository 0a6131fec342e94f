"""Scripts run in the vLLM venv (``VLLM_VENV``) by one zygote per test process.

Each script (``tools/check_argv.py``, ``tools/vllm_flags.py``, ``startup_names.py``, ``config_files.py``,
``bench_argv.py``) is a command of its own; run as a process each would import vLLM again (about 8.8 s).
:mod:`tests.vllm_real.zygote` imports it once per test process (per xdist worker), started on first use
and stopped at exit, and runs each script in a forked child. A zygote that dies fails the test with
its standard error; a script that outlives its deadline is killed and fails the test.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.commands import Zygote, start_zygote
from tests.support.zygote import Request, ZygoteDied, call

VENV = os.environ.get("VLLM_VENV", "")
TIMEOUT = 900.0  # seconds, for the zygote's start and for each script
_ZYGOTE: list[Zygote] = []


def venv_python() -> Path:
    """``VLLM_VENV``'s python (the test fails when there is none)."""
    python = Path(VENV) / "bin" / "python"
    if not python.exists():
        pytest.fail(f"VLLM_VENV={VENV!r} has no bin/python; create it with /work/shared/vllm/install.sh")
    return python


def vllm_zygote() -> Zygote:
    """This process's zygote in the vLLM venv (started on first use, again if it died)."""
    if _ZYGOTE and _ZYGOTE[0].process.poll() is None:
        return _ZYGOTE[0]
    try:
        _ZYGOTE[:] = [start_zygote([str(venv_python()), "-m", "tests.vllm_real.zygote"], TIMEOUT)]
    except ZygoteDied as e:
        problem = str(e)
    else:
        return _ZYGOTE[0]
    pytest.fail(f"the vLLM venv's zygote did not start: {problem}", pytrace=False)  # no chained traceback


def run_script(script: Path, options: list[str], stdin: str,
               timeout: float = TIMEOUT) -> subprocess.CompletedProcess[str]:
    """``VENV/bin/python SCRIPT *options`` with ``stdin`` as its input, in this folder and environment, run
    by the zygote: its status, standard output and standard error."""
    zygote = vllm_zygote()
    request: Request = {"argv": [str(script), *options], "env": dict(os.environ), "cwd": os.getcwd(),
                        "timeout": timeout}
    try:
        answer, stdout, stderr = call(zygote.socket, request, stdin)
    except ZygoteDied as e:
        answer, stdout, stderr = {}, "", f"{zygote.died(f'the zygote died running {script.name}')}\n{e}"
    if not answer:
        pytest.fail(stderr, pytrace=False)
    if answer.get("timeout"):
        pytest.fail(f"{script.name} outlived {timeout} s (killed); its standard error:\n{stderr[-3000:]}")
    return subprocess.CompletedProcess([str(venv_python()), str(script), *options], answer["status"],
                                       stdout, stderr)
