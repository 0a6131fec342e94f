"""``vllm-recipes`` commands run as processes of their own, without paying the interpreter's start and
the command line's imports (about 0.4 CPU s) each time: a zygote (:mod:`tests.support.zygote`) imports
them once per test process and forks a child per command.

For tests where the command must be a process (its environment read at import, as huggingface_hub
reads ``HF_*``; a deadline that kills a hang; the Action's scripts starting the tool) but not about the
interpreter's start itself: those run ``python -m builder`` (the Action run as released, ``PYTHONPATH``).
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.support.paths import ROOT
from tests.support.zygote import send_request

_ZYGOTE: list[tuple[subprocess.Popen[str], str]] = []  # the process and its socket


def zygote_socket() -> str:
    """The socket of this process's zygote (started on first use, again if it died)."""
    if _ZYGOTE and _ZYGOTE[0][0].poll() is None:
        return _ZYGOTE[0][1]
    path = os.path.join(tempfile.mkdtemp(prefix="zygote-"), "socket")
    process = subprocess.Popen([sys.executable, "-m", "tests.support.zygote", path], cwd=ROOT, text=True,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, encoding="utf-8")
    assert process.stdout is not None and process.stdout.readline() == "ready\n"
    _ZYGOTE[:] = [(process, path)]
    return path


@atexit.register
def _stop() -> None:
    for process, path in _ZYGOTE:
        process.kill()
        process.wait(timeout=30)
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)


def run_builder(argv: list[str], env: dict[str, str], timeout: float,
                cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m builder ARGV`` as a process with exactly ``env``, in ``cwd``, no input: its status,
    stdout and stderr; raises :class:`subprocess.TimeoutExpired` (the process killed) after ``timeout``
    seconds."""
    path = zygote_socket()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out, \
            tempfile.TemporaryFile("w+", encoding="utf-8") as err, \
            open(os.devnull, "rb") as stdin, socket.socket(socket.AF_UNIX) as conn:
        conn.connect(path)
        send_request(conn, {"argv": argv, "env": env, "cwd": str(cwd), "timeout": timeout},
                     [stdin.fileno(), out.fileno(), err.fileno()])
        answer = json.loads(conn.makefile("r", encoding="utf-8").readline())
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    command = [sys.executable, "-m", "builder", *argv]
    if answer.get("timeout"):
        raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
    return subprocess.CompletedProcess(command, answer["status"], stdout, stderr)


CLIENT = """#!{python} -I
# vllm-recipes: this command run by the test process's zygote (tests/support/commands.py)
import json, os, socket, sys
with socket.socket(socket.AF_UNIX) as conn:
    conn.connect({socket!r})
    data = json.dumps({{"argv": sys.argv[1:], "env": dict(os.environ), "cwd": os.getcwd(), "timeout": None}})
    socket.send_fds(conn, [len(data.encode()).to_bytes(4, "big") + data.encode()], [0, 1, 2])
    status = json.loads(conn.makefile("r", encoding="utf-8").readline())["status"]
sys.exit(status if status >= 0 else 128 - status)
"""


def client_command(folder: Path) -> Path:
    """An executable ``vllm-recipes`` in ``folder`` that has this process's zygote run the command with its
    arguments, environment, folder, input and output, and exits with the command's status."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "vllm-recipes"
    script.write_text(CLIENT.format(python=sys.executable, socket=zygote_socket()))
    script.chmod(0o755)
    return script
