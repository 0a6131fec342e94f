"""Forked processes that write the staging folder's files while the build renders the next ones.

Creating ~14,000 small files waits on the disk far longer than it costs CPU (an ``open`` that
creates a file took 0.6 ms of wall time against 0.1 ms of CPU on this VM, under load): written
inline, those waits add up to the renderer's own time. The build hands each file's absolute path
and bytes down a pipe (no disk, no GIL convoy as with a thread) and goes on rendering while a
child waits for the disk (:class:`Writers`: two of them, each owning some folders). A child writes
files and deletions in the order they were sent.

A child's first failure stops its writing and is sent back when the parent asks
(:meth:`WriterProcess.sync`, :meth:`WriterProcess.finish`); a child that died answers nothing,
which counts as a failure too, so a staging folder with a lost write is never committed.
"""

from __future__ import annotations

import fcntl
import os
import pickle
import signal
import struct
import zlib
from collections.abc import Callable, Sequence
from typing import BinaryIO

from builder.output.forked import can_fork

HEADER = struct.Struct("<cIQ")  # operation, path length, data length
WRITE, REMOVE, SYNC, END = b"W", b"D", b"S", b"E"
PIPE_BYTES = 1 << 20  # the pipe's capacity: the renderer runs ahead of the disk by up to this much
CHUNK = 1 << 18  # bytes per pipe read or write (files are ~8 KiB: one wake-up of a writer per ~30 files)
F_SETPIPE_SZ = 1031  # Linux fcntl (not in the fcntl module before Python 3.10)
LOST = "the writer process ended before writing every file"
WRITERS = 2


class WriterProcess:
    """The parent's end: :meth:`write` and :meth:`remove` queue work, :meth:`sync` waits for it."""

    def __init__(self, pid: int, inbox: BinaryIO, answers: BinaryIO) -> None:
        self.pid, self.inbox, self.answers = pid, inbox, answers
        self.pending = False  # something was sent since the last answer

    @classmethod
    def start(cls, put: Callable[[str, bytes], None], remove: Callable[[str], None],
              others: Sequence[WriterProcess] = ()) -> WriterProcess:
        """A child calling ``put(path, data)`` and ``remove(path)`` for what the parent sends;
        ``others``: the writers started before (the child closes its copies of their pipes)."""
        down_read, down_write = os.pipe()
        up_read, up_write = os.pipe()
        try:
            fcntl.fcntl(down_write, F_SETPIPE_SZ, PIPE_BYTES)
        except OSError:
            pass  # the default capacity (64 KiB) only makes the renderer wait sooner
        pid = os.fork()
        if pid == 0:  # the child
            status = 1
            try:
                for fd in (down_write, up_read, *(p.fileno() for o in others for p in (o.inbox, o.answers))):
                    os.close(fd)
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; EOF stops us
                inbox = os.fdopen(down_read, "rb", buffering=CHUNK)
                with inbox, os.fdopen(up_write, "wb") as answers:
                    status = _serve(inbox, answers, put, remove)
            finally:
                os._exit(status)
        os.close(down_read)
        os.close(up_write)
        return cls(pid, os.fdopen(down_write, "wb", buffering=CHUNK), os.fdopen(up_read, "rb"))

    def write(self, path: str, data: bytes) -> None:
        """Queue ``data`` for the absolute ``path`` (raises OSError once the child is gone)."""
        self._send(WRITE, path, data)

    def remove(self, path: str) -> None:
        """Queue the deletion of ``path`` (absent is fine)."""
        self._send(REMOVE, path, b"")

    def sync(self) -> BaseException | None:
        """Wait until everything sent is on disk; the child's first failure, if any."""
        if not self.pending:
            return None
        return self._ask(SYNC)

    def finish(self) -> BaseException | None:
        """Wait for everything sent, end the child; its first failure, if any."""
        error = self._ask(END)
        self.stop()
        return error

    def stop(self, kill: bool = False) -> None:
        """Close the pipes and reap the child; ``kill`` it first when the build was abandoned (what
        it has not written is not wanted, and a forked page process may still hold its pipe open)."""
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pipe in (self.inbox, self.answers):
            try:
                pipe.close()
            except OSError:
                pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass

    def _send(self, operation: bytes, path: str, data: bytes) -> None:
        name = os.fsencode(path)
        self.pending = True
        self.inbox.write(HEADER.pack(operation, len(name), len(data)) + name)
        self.inbox.write(data)

    def _ask(self, operation: bytes) -> BaseException | None:
        try:
            self._send(operation, "", b"")
            self.inbox.flush()
            answer: BaseException | None = pickle.load(self.answers)
        except (OSError, EOFError, pickle.UnpicklingError):
            return OSError(LOST)
        self.pending = False
        return answer


class Writers:
    """:data:`WRITERS` writer processes; a file goes to the one its folder is assigned to, so its
    write and a later deletion keep their order. Creating files in two processes took half the wall
    time of one on this VM (the disk serves concurrent creations)."""

    def __init__(self, writers: list[WriterProcess]) -> None:
        self.writers = writers

    @classmethod
    def start(cls, put: Callable[[str, bytes], None], remove: Callable[[str], None],
              count: int = 0) -> Writers | None:
        """``count`` (default :data:`WRITERS`) writer processes; None where
        :func:`~builder.output.forked.can_fork` says no (the caller writes inline)."""
        if not can_fork():
            return None
        writers: list[WriterProcess] = []
        for _ in range(count or WRITERS):
            writers.append(WriterProcess.start(put, remove, writers))
        return cls(writers)

    @property
    def pids(self) -> list[int]:
        return [writer.pid for writer in self.writers]

    def write(self, path: str, data: bytes) -> None:
        self._for(path).write(path, data)

    def remove(self, path: str) -> None:
        self._for(path).remove(path)

    def sync(self) -> BaseException | None:
        """Wait for every writer; the first failure, if any."""
        return _first([writer.sync() for writer in self.writers])

    def finish(self) -> BaseException | None:
        """Wait for every writer and end them; the first failure, if any."""
        return _first([writer.finish() for writer in self.writers])

    def stop(self) -> None:
        """End every writer now (the build was abandoned)."""
        for writer in reversed(self.writers):
            writer.stop(kill=True)

    def _for(self, path: str) -> WriterProcess:
        return self.writers[zlib.crc32(os.fsencode(os.path.dirname(path))) % len(self.writers)]


def _first(errors: list[BaseException | None]) -> BaseException | None:
    return next((error for error in errors if error is not None), None)


def _serve(inbox: BinaryIO, answers: BinaryIO, put: Callable[[str, bytes], None],
           remove: Callable[[str], None]) -> int:
    """The child's loop: 0 once the parent sent END, 1 when the pipe closed before."""
    error: BaseException | None = None
    while True:
        head = inbox.read(HEADER.size)
        if len(head) < HEADER.size:
            return 1
        operation, name_size, data_size = HEADER.unpack(head)
        path = os.fsdecode(inbox.read(name_size))
        data = inbox.read(data_size)
        if len(data) < data_size:
            return 1
        if operation in (WRITE, REMOVE):
            if error is None:
                try:
                    if operation == WRITE:
                        put(path, data)
                    else:
                        remove(path)
                except Exception as exc:
                    error = exc
            continue
        answers.write(_picklable(error))
        answers.flush()
        if operation == END:
            return 0


def _picklable(error: BaseException | None) -> bytes:
    """``error`` pickled, or an OSError with its text when it does not pickle."""
    try:
        return pickle.dumps(error, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return pickle.dumps(OSError(str(error)), protocol=pickle.HIGHEST_PROTOCOL)
