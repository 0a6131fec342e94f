"""``vllm-recipes`` commands run as processes of their own, without paying the interpreter's start and
the command line's imports (about 0.4 CPU s) each time: a zygote (:mod:`tests.support.zygote`) imports
them once per test process and forks a child per command.

For tests where the command must be a process (its environment read at import, as huggingface_hub
reads ``HF_*``; a deadline that kills a hang; the Action's scripts starting the tool) but not about the
interpreter's start itself: those run ``python -m builder`` (the Action run as released, ``PYTHONPATH``).
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

from tests.support.paths import ROOT
from tests.support.zygote import ZygoteDied, call


class Zygote(NamedTuple):
    """A started zygote: its process and the socket it listens on, in a folder of its own beside
    ``stderr``, the file its standard error goes to."""

    process: subprocess.Popen[str]
    socket: str

    @property
    def stderr(self) -> Path:
        return Path(self.socket).with_name("stderr")

    def died(self, what: str) -> ZygoteDied:
        """The error for a zygote found dead (``what``: when), with the end of its standard error."""
        self.process.poll()
        return ZygoteDied(f"{what} (exit status {self.process.returncode}); its standard error:\n"
                          f"{self.stderr.read_text(encoding='utf-8', errors='replace')[-3000:]}")


_STARTED: list[Zygote] = []  # stopped at exit
_ZYGOTE: list[Zygote] = []  # this process's zygote for our command line


def start_zygote(command: list[str], timeout: float | None = None) -> Zygote:
    """``command SOCKET`` (a :mod:`tests.support.zygote` server) started in the project root, once it printed
    ``ready``; raises :class:`ZygoteDied` when it exits first, or after killing it if it takes more than
    ``timeout`` seconds."""
    path = os.path.join(tempfile.mkdtemp(prefix="zygote-"), "socket")
    with open(Path(path).with_name("stderr"), "w", encoding="utf-8") as stderr:
        process = subprocess.Popen([*command, path], cwd=ROOT, text=True, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=stderr, encoding="utf-8")
    zygote = Zygote(process, path)
    _STARTED.append(zygote)
    assert process.stdout is not None
    if not select.select([process.stdout], [], [], timeout)[0]:
        process.kill()
        process.wait()
        raise zygote.died(f"{command[0]} was not ready after {timeout} s: killed")
    if process.stdout.readline() != "ready\n":
        process.wait()
        raise zygote.died(f"{' '.join(command)} exited before it was ready")
    return zygote


@atexit.register
def _stop() -> None:
    for zygote in _STARTED:
        zygote.process.kill()
        zygote.process.wait(timeout=30)
        shutil.rmtree(os.path.dirname(zygote.socket), ignore_errors=True)


def zygote_socket() -> str:
    """The socket of this process's zygote (started on first use, again if it died)."""
    if not _ZYGOTE or _ZYGOTE[0].process.poll() is not None:
        _ZYGOTE[:] = [start_zygote([sys.executable, "-m", "tests.support.zygote"])]
    return _ZYGOTE[0].socket


def run_builder(argv: list[str], env: dict[str, str], timeout: float,
                cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m builder ARGV`` as a process with exactly ``env``, in ``cwd``, no input: its status,
    stdout and stderr; raises :class:`subprocess.TimeoutExpired` (the process killed) after ``timeout``
    seconds."""
    answer, stdout, stderr = call(zygote_socket(), {"argv": argv, "env": env, "cwd": str(cwd),
                                                    "timeout": timeout})
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
