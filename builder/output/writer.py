"""Write an in-memory site to disk atomically: build into a staging folder beside ``out``, then swap.

Safety: :func:`check_out` refuses an ``out`` the swap would destroy (``/``, ``$HOME``, the
current directory, the content root or anything holding them, a git checkout, a file, a folder
of other files). Every site carries :data:`MARKER` in its root; a non-empty ``out`` is only
replaced when it has that marker. Staging folders are named ``.<out>.new-<pid>-<random>``
(``.old-`` for the fallback swap): ones left by killed builds are removed on the next start.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import re
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from builder.content.identifiers import output_path_problem
from builder.output.discard import discard
from builder.output.writer_process import Writers

MARKER = ".vllm-recipes-site"
MARKER_PREFIX = b"vllm-recipes site"
MARKER_TEXT = (MARKER_PREFIX
               + b": written by `python -m builder build`; every build replaces this whole folder\n")
LEGACY_STALE_SECONDS = 3600  # staging folders of builds before pid names: removed once this old

AT_FDCWD = -100
RENAME_EXCHANGE = 2
CREATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


class UnsafeOutput(Exception):
    """``out`` names something the writer must not replace."""

    def __init__(self, out: Path | str, reason: str):
        super().__init__(f"refusing to write the site to {out}: {reason}")
        self.out = out
        self.reason = reason


class UnsafePath(ValueError):
    """An output-relative path that is absolute or climbs out of the output folder."""


# ── where the site may go ──


def check_out(out: Path, content: Path | None = None) -> None:
    """Raise :class:`UnsafeOutput` unless replacing ``out`` with a site is harmless.

    Fine: a path that does not exist yet, an empty folder, or a folder holding our marker.
    """
    target = os.path.realpath(out)
    if os.path.dirname(target) == target:
        raise UnsafeOutput(out, f"it is the root folder {target}")
    guarded = [("the current directory", _cwd()), ("your home folder", _home())]
    if content is not None:
        guarded.insert(1, ("the content root", os.path.realpath(content)))
    relations = [(label, path, _relation(target, path)) for label, path in guarded if path]
    for label, _, relation in relations:
        if relation == "is":
            raise UnsafeOutput(out, f"it is {label}")
    for label, path, relation in relations:
        if relation == "contains":
            raise UnsafeOutput(out, f"it contains {label} {path}")
    if not os.path.lexists(target):
        return
    if not os.path.isdir(target):
        raise UnsafeOutput(out, "it is a file, not a folder")
    if os.path.lexists(os.path.join(target, ".git")):
        raise UnsafeOutput(out, "it is a git checkout (it has .git)")
    try:
        entries = os.listdir(target)
    except OSError as exc:
        raise UnsafeOutput(out, f"it cannot be listed ({exc.strerror})") from exc
    if entries and not has_marker(Path(target)):
        raise UnsafeOutput(
            out, f"it is not empty and has no {MARKER} marker from an earlier build (delete it or "
                 "choose another --out)"
        )


def has_marker(folder: Path) -> bool:
    """True when ``folder`` holds the marker file every build writes into the site root."""
    path = folder / MARKER
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return False
        with open(path, "rb") as handle:
            return handle.read(len(MARKER_PREFIX)) == MARKER_PREFIX
    except OSError:
        return False


def _relation(target: str, guarded: str) -> str | None:
    """``"is"`` when ``target`` is the folder ``guarded``, ``"contains"`` when ``guarded`` lies inside it.

    Compares inodes as well as names (case-insensitive file systems, bind mounts)."""
    try:
        target_stat: os.stat_result | None = os.stat(target)
    except OSError:
        target_stat = None
    path, first = guarded, True
    while True:
        if path == target or target_stat is not None and _same_file(path, target_stat):
            return "is" if first else "contains"
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path, first = parent, False


def _same_file(path: str, known: os.stat_result) -> bool:
    try:
        found = os.stat(path)
    except OSError:
        return False
    return (found.st_dev, found.st_ino) == (known.st_dev, known.st_ino)


def _cwd() -> str | None:
    try:
        return os.path.realpath(os.getcwd())
    except OSError:  # the current directory was deleted
        return None


def _home() -> str | None:
    home = os.path.expanduser("~")
    return os.path.realpath(home) if os.path.isabs(home) else None


def inside(root: Path, rel: str) -> Path:
    """``root / rel``, refusing (:class:`UnsafePath`) a ``rel`` that is empty, absolute or leaves ``root``.

    A pure path check (``os.path.normpath``); the site's own folders hold no symlinks."""
    return Path(_inside(os.path.normpath(root), rel))


def _inside(base: str, rel: str) -> str:
    """:func:`inside` for a normalised ``base``, as a string."""
    target = os.path.normpath(os.path.join(base, rel))
    if output_path_problem(rel) or os.path.isabs(rel) or not target.startswith(base.rstrip(os.sep) + os.sep):
        raise UnsafePath(f"refusing to write outside the site: {rel!r}")
    return target


# ── modes ──


def current_umask() -> int:
    """The process umask, read without changing it where Linux allows (``/proc/self/status``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o077)  # a racing thread gets a stricter mode, never a looser one
    os.umask(mask)
    return mask


# ── stale staging folders ──


def staging_name_pattern(out: Path) -> re.Pattern[str]:
    """Names of the staging folders of ``out``: ``.<name>.new-<pid>-<random>`` or ``.old-``;
    group ``pid`` is absent for those of builds before pid names (``.<name>.new-<random>``)."""
    return re.compile(rf"\.{re.escape(out.name)}\.(?:new|old)-(?:(?P<pid>[0-9]+)-)?[a-z0-9_]{{8}}")


def process_alive(pid: int) -> bool:
    """True when process ``pid`` exists (ours counts as alive)."""
    if pid == os.getpid():
        return True
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    except (OverflowError, OSError):
        return False
    return True


def remove_stale_staging(out: Path) -> list[Path]:
    """Delete the staging folders beside ``out`` that no live process owns; returns them."""
    pattern = staging_name_pattern(out)
    removed = []
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return removed
    for entry in entries:
        found = pattern.fullmatch(entry.name)
        if not found or not entry.is_dir(follow_symlinks=False):
            continue
        pid = found.group("pid")
        if pid is not None:
            stale = not process_alive(int(pid))
        else:
            stale = time.time() - entry.stat(follow_symlinks=False).st_mtime > LEGACY_STALE_SECONDS
        if stale:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(Path(entry.path))
    return removed


# ── the swap ──


@functools.cache
def _renameat2() -> Callable[..., int] | None:
    """libc's ``renameat2`` on Linux (glibc 2.28+), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    function.restype = ctypes.c_int
    return function


def exchange(first: Path, second: Path) -> bool:
    """Swap two existing paths in one atomic step (``renameat2`` with ``RENAME_EXCHANGE``).

    False where the system or the file system cannot; other failures raise OSError."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(AT_FDCWD, os.fsencode(first), AT_FDCWD, os.fsencode(second), RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code), str(first), None, str(second))


def swap_in(staging: Path, out: Path) -> None:
    """Put ``staging`` in place of ``out`` and delete the old tree (in the background: :func:`discard`).

    On Linux the two trees are exchanged atomically, so ``out`` always holds a whole site.
    Elsewhere ``out`` is renamed aside, then ``staging`` renamed in: a crash between those two
    renames leaves no ``out`` (the old tree survives in ``.<out>.old-<pid>-*/site`` until the next
    build removes it)."""
    if not os.path.lexists(out):
        os.rename(staging, out)
        return
    if exchange(staging, out):
        discard(staging, out)  # now the old tree
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
    os.rename(out, retired / "site")
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(retired / "site", out)
        os.rmdir(retired)
        raise
    discard(retired, out)


class Staging:
    """A staging folder beside ``out`` that replaces it on :meth:`commit` (and vanishes otherwise).

    Refuses an unsafe ``out`` (:func:`check_out`), removes stale staging folders of killed
    builds, creates folders with the umask's modes and writes :data:`MARKER` first. With
    ``background``, the files this process writes are handed to
    :class:`~builder.output.writer_process.Writers` (forked children of the build write theirs
    inline); :meth:`commit` waits for them and refuses to swap when any write failed."""

    def __init__(self, out: Path, background: bool = False):
        check_out(out)
        self.out = Path(os.path.realpath(out))
        mode = 0o777 & ~current_umask()
        self.out.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_staging(self.out)
        self.folder = Path(
            tempfile.mkdtemp(prefix=f".{self.out.name}.new-{os.getpid()}-", dir=self.out.parent))
        self._base = os.path.normpath(self.folder)
        os.chmod(self.folder, mode)  # mkdtemp makes 0700 whatever the umask
        (self.folder / MARKER).write_bytes(MARKER_TEXT)
        self.made: set[str] = set()
        self.error: BaseException | None = None
        self._owner = os.getpid()
        self.writer = Writers.start(self._put, self._remove) if background else None

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.writer is not None and os.getpid() == self._owner:
            self.writer.stop()
            self.writer = None
        if self.folder.exists():
            shutil.rmtree(self.folder, ignore_errors=True)

    def write(self, files: dict[str, bytes]) -> None:
        """Write ``files`` (output-relative paths) into the staging folder."""
        for rel in sorted(files):
            self.write_file(rel, files[rel])

    def write_file(self, rel: str, data: bytes) -> None:
        """Write one file (an output-relative path) into the staging folder."""
        target = _inside(self._base, rel)
        writer = self._own_writer()
        if writer is None:
            self._put(target, data)
        else:
            writer.write(target, data)

    def remove_file(self, rel: str) -> None:
        """Delete one file written before (absent is fine)."""
        target = _inside(self._base, rel)
        writer = self._own_writer()
        if writer is None:
            self._remove(target)
        else:
            writer.remove(target)

    def flush(self) -> None:
        """Wait until every file written so far is in the folder (raises the first failed write)."""
        writer = self._own_writer()
        error = writer.sync() if writer is not None else None
        if error is not None:
            self.error = self.error or error
            raise error

    def commit(self) -> None:
        """Swap the staging folder in place of ``out``."""
        writer, self.writer = self._own_writer(), None
        if writer is not None:
            self.error = self.error or writer.finish()
        if self.error is not None:
            raise self.error
        swap_in(self.folder, self.out)

    def _own_writer(self) -> Writers | None:
        """The writer processes, in the process that started them (a forked child writes inline)."""
        return self.writer if os.getpid() == self._owner else None

    def _put(self, target: str, data: bytes) -> None:
        parent = os.path.dirname(target)
        if parent not in self.made:
            os.makedirs(parent, exist_ok=True)
            self.made.add(parent)
        handle = os.open(target, CREATE, 0o666)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(handle, view):]
        finally:
            os.close(handle)

    @staticmethod
    def _remove(target: str) -> None:
        try:
            os.unlink(target)
        except FileNotFoundError:
            pass


def write_tree(files: dict[str, bytes], out: Path) -> None:
    """Replace ``out`` with exactly ``files`` (plus the marker); on failure ``out`` is left as it was."""
    with Staging(out) as staging:
        staging.write(files)
        staging.commit()


def update_tree(changed: dict[str, bytes], removed: set[str], out: Path) -> None:
    """Rewrite only ``changed`` files and delete ``removed`` ones (incremental rebuilds), inside ``out``."""
    targets = {rel: inside(out, rel) for rel in (*removed, *changed)}  # refuse before touching anything
    for rel in sorted(removed):
        targets[rel].unlink(missing_ok=True)
    for rel in sorted(changed):
        target = targets[rel]
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_bytes(changed[rel])
        os.replace(tmp, target)
