"""A Python process that imports a command once and runs each command in a forked child.

Run as ``python -m tests.support.zygote SOCKET`` (from the project root) by :mod:`tests.support.commands`
for our command line; the real-parser suite's zygote (:mod:`tests.vllm_real.zygote`, in the vLLM venv,
which lacks our package: this module imports nothing but the standard library) serves the same way. It
listens on the Unix socket ``SOCKET``, prints ``ready``, and serves one connection at a time. A
connection sends a request (4-byte length, then JSON: ``argv``, ``env``, ``cwd``, ``timeout``) with
three file descriptors (the command's standard input, output and error); the zygote answers one JSON
line, ``{"status": N}`` (as ``subprocess`` reports it: -N for a signal), or ``{"timeout": true}`` once
it killed a child that outlived ``timeout`` seconds (None: no limit). The child gets exactly ``env`` as
its environment, ``cwd`` as its folder and the three descriptors, and exits as the command run as a
process would (``python -m builder`` here). What reads the environment when imported
(huggingface_hub) is imported by the child, never here. :func:`call` is the caller's side.
"""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import sys
import tempfile
import traceback
from collections.abc import Callable
from contextlib import ExitStack
from typing import TypedDict


class Request(TypedDict):
    """One command to run."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    timeout: float | None


class Answer(TypedDict, total=False):
    """The zygote's answer: the command's exit status, or that it was killed at its deadline."""

    status: int
    timeout: bool


class ZygoteDied(Exception):
    """The zygote exited (or never said ``ready``): what it printed is in the message."""


def send_request(conn: socket.socket, request: Request, fds: list[int]) -> None:
    """``request`` and the command's standard input, output and error, over ``conn``."""
    data = json.dumps(request).encode()
    socket.send_fds(conn, [len(data).to_bytes(4, "big") + data], fds)


def receive_request(conn: socket.socket) -> tuple[Request, list[int]]:
    data, fds, _, _ = socket.recv_fds(conn, 1 << 16, 3)
    while len(data) < 4 or len(data) < 4 + int.from_bytes(data[:4], "big"):
        more = conn.recv(1 << 16)
        if not more:
            raise EOFError("the request broke off")
        data += more
    request: Request = json.loads(data[4:])
    return request, fds


def call(path: str, request: Request, stdin: str | None = None) -> tuple[Answer, str, str]:
    """Have the zygote on the socket ``path`` run ``request`` with ``stdin`` as its input (None: /dev/null):
    (its answer, the command's standard output, its standard error). Raises :class:`ZygoteDied` when the
    zygote closes the connection without an answer."""
    with ExitStack() as stack:
        out, err = (stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8")) for _ in range(2))
        given = stack.enter_context(open(os.devnull, encoding="utf-8") if stdin is None
                                    else tempfile.TemporaryFile("w+", encoding="utf-8"))
        if stdin is not None:
            given.write(stdin)
            given.seek(0)
        conn = stack.enter_context(socket.socket(socket.AF_UNIX))
        conn.connect(path)
        send_request(conn, request, [given.fileno(), out.fileno(), err.fileno()])
        line = conn.makefile("r", encoding="utf-8").readline()
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if not line:
        raise ZygoteDied(f"the zygote on {path} closed the connection without an answer; the command's "
                         f"standard error:\n{stderr[-3000:]}")
    answer: Answer = json.loads(line)
    return answer, stdout, stderr


def exit_status(code: object) -> int:
    """The status ``python`` exits with after ``SystemExit(code)`` (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def child(request: Request, fds: list[int], main: Callable[[list[str]], object]) -> None:
    """In the forked child: set the process up as the request says, run ``main(argv)`` (which sets
    ``sys.argv``), exit with the status it returns or raises."""
    status = 1
    try:
        for fd, given in enumerate(fds):
            os.dup2(given, fd)
            os.close(given)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        try:
            status = exit_status(main(request["argv"]))
        except SystemExit as exc:
            status = exit_status(exc.code)
        except BaseException:  # noqa: BLE001 - as the interpreter reports an uncaught exception
            traceback.print_exc()
            status = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)


def wait(pid: int, timeout: float | None) -> int | None:
    """The child's exit status, or None after killing it when it outlives ``timeout`` seconds."""
    handle = os.pidfd_open(pid)
    try:
        if not select.select([handle], [], [], timeout)[0]:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
    finally:
        os.close(handle)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def serve(path: str, main: Callable[[list[str]], object]) -> None:
    """Answer requests on the socket ``path`` forever, each by a child running ``main(argv)``."""
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(path)
    listener.listen()
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        with conn:
            try:
                request, fds = receive_request(conn)
            except (OSError, EOFError, ValueError):
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                listener.close()
                conn.close()
                child(request, fds, main)
            for fd in fds:
                os.close(fd)
            status = wait(pid, request["timeout"])
            answer = {"timeout": True} if status is None else {"status": status}
            try:
                conn.sendall((json.dumps(answer) + "\n").encode())
            except OSError:  # the caller is gone
                pass


def builder_main() -> Callable[[list[str]], object]:
    """``python -m builder``'s entry point, imported here once."""
    from builder.cli.main import main

    assert "huggingface_hub" not in sys.modules  # it reads HF_* when imported: by each child

    def run(argv: list[str]) -> object:
        sys.argv = ["builder", *argv]
        return main(argv)

    return run


if __name__ == "__main__":
    serve(sys.argv[1], builder_main())
