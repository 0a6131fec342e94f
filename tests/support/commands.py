"""``vllm-recipes`` commands run as processes of their own, without paying the interpreter's start and
the command line's imports (about 0.4 CPU s) each time: a zygote (:mod:`tests.support.zygote`) imports
them once per test process and forks a child per command.

For tests where the command must be a process (its environment read at import, as huggingface_hub
reads ``HF_*``; a deadline that kills a hang) but not about the interpreter's start itself: those run
``python -m builder`` (the Action's tests, ``PYTHONPATH``).
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.paths import ROOT

_ZYGOTE: list[subprocess.Popen[str]] = []


def _zygote() -> subprocess.Popen[str]:
    """This process's zygote (started on first use, again if it died)."""
    if _ZYGOTE and _ZYGOTE[0].poll() is None:
        return _ZYGOTE[0]
    process = subprocess.Popen([sys.executable, "-m", "tests.support.zygote"], cwd=ROOT, text=True,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, encoding="utf-8")
    _ZYGOTE[:] = [process]
    return process


@atexit.register
def _stop() -> None:
    for process in _ZYGOTE:
        if process.stdin is not None:
            process.stdin.close()
        process.wait(timeout=30)


def run_builder(argv: list[str], env: dict[str, str], timeout: float,
                cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m builder ARGV`` as a process with exactly ``env``, in ``cwd``: its status, stdout and
    stderr; raises :class:`subprocess.TimeoutExpired` (the process killed) after ``timeout`` seconds."""
    zygote = _zygote()
    assert zygote.stdin is not None and zygote.stdout is not None
    with tempfile.TemporaryDirectory() as folder:
        out, err = os.path.join(folder, "out"), os.path.join(folder, "err")
        request = {"argv": argv, "env": env, "cwd": str(cwd), "out": out, "err": err, "timeout": timeout}
        zygote.stdin.write(json.dumps(request) + "\n")
        zygote.stdin.flush()
        answer = json.loads(zygote.stdout.readline())
        with open(out, encoding="utf-8") as o, open(err, encoding="utf-8") as e:
            stdout, stderr = o.read(), e.read()
    command = [sys.executable, "-m", "builder", *argv]
    if answer.get("timeout"):
        raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
    return subprocess.CompletedProcess(command, answer["status"], stdout, stderr)
