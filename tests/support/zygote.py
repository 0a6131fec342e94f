"""A Python process that imports the command line once and runs each command in a forked child.

Run as ``python -m tests.support.zygote`` (from the project root) by :mod:`tests.support.commands`.
It reads one JSON request a line on stdin (``argv``, ``env``, ``cwd``, ``out``, ``err``, ``timeout``)
and answers one JSON line (``{"status": N}``, or ``{"timeout": true}`` once it killed a child that ran
too long). The child gets exactly ``env`` as its environment, ``cwd`` as its folder, its standard
output and error in the files ``out`` and ``err``, and no input; it exits as ``python -m builder``
would. What reads the environment when imported (huggingface_hub) is imported by the child, never here.
"""

from __future__ import annotations

import json
import os
import select
import signal
import sys
import traceback
from typing import TypedDict


class Request(TypedDict):
    """One command to run."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    out: str  # file for the child's standard output
    err: str  # file for its standard error
    timeout: float


def exit_status(code: object) -> int:
    """The status ``python`` exits with after ``SystemExit(code)`` (a message is printed, status 1)."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def child(request: Request, main: object) -> None:
    """In the forked child: set the process up as the request says, run the command, exit."""
    status = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        for fd, path in ((1, request["out"]), (2, request["err"])):
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        sys.argv = ["builder", *request["argv"]]
        try:
            status = exit_status(main(request["argv"]))  # type: ignore[operator]
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


def wait(pid: int, timeout: float) -> int | None:
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


def serve() -> None:
    from builder.cli.main import main

    assert "huggingface_hub" not in sys.modules  # it reads HF_* when imported: by each child
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nothing but answers on the answer pipe
    for line in sys.stdin:
        request: Request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            replies.close()
            child(request, main)
        status = wait(pid, request["timeout"])
        replies.write(json.dumps({"timeout": True} if status is None else {"status": status}) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve()
