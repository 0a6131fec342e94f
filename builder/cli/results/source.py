"""One benchmark file read without trusting it: a regular file (a symbolic link is refused, never followed)
of at most :data:`MAX_BYTES`, UTF-8 JSON whose numbers are finite and whose keys are unique.

Problems are :class:`~builder.content.problems.Problem` values without a line: ``file: field: message``.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from builder.content.problems import Problem

MAX_BYTES = 1 << 20  # a --save-result file without --save-detailed is a few kB


class NonFinite(str):
    """A number JSON cannot hold (``NaN``, ``Infinity``, an overflowing exponent), kept to be reported
    where it is."""


class _DuplicateKey(ValueError):
    pass


@dataclass(frozen=True)
class Source:
    """A benchmark file as read: what the command line named it, its bytes' SHA-256 and its JSON value."""

    shown: str  # the path as given, for messages
    name: str  # the file's name (provenance)
    sha256: str
    value: Any


class SourceError(Exception):
    """A file that cannot be read as a benchmark result; carries its problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _refuse(shown: str, message: str, field: str = "") -> SourceError:
    return SourceError(Problem(shown, 0, field, message))


def _float(text: str) -> float | NonFinite:
    value = float(text)
    return value if math.isfinite(value) else NonFinite(text)


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(f"duplicate key {key!r}")
        out[key] = value
    return out


def read_bytes(path: Path, shown: str) -> bytes:
    """The bytes of a regular file of at most :data:`MAX_BYTES`; a link, a folder, a device or a larger
    file is refused before its content is read."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        raise _refuse(shown, f"cannot read file: {exc.strerror}") from None
    if stat.S_ISLNK(info.st_mode):
        raise _refuse(shown, "a symbolic link: pass the file it points to (links are not followed)")
    if not stat.S_ISREG(info.st_mode):
        raise _refuse(shown, "not a regular file")
    if info.st_size > MAX_BYTES:
        raise _refuse(shown, f"file is too large: {info.st_size:,} bytes (the limit is {MAX_BYTES:,})")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    try:
        with os.fdopen(os.open(path, flags), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise _refuse(shown, "not a regular file")
            data = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise _refuse(shown, f"cannot read file: {exc.strerror}") from None
    if len(data) > MAX_BYTES:
        raise _refuse(shown, f"file is too large: more than {MAX_BYTES:,} bytes (the limit is {MAX_BYTES:,})")
    return data


def parse_json(data: bytes, shown: str) -> Any:
    """Strict JSON: UTF-8, unique keys; ``NaN``/``Infinity`` become :class:`NonFinite` values."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        where = f"byte 0x{data[exc.start]:02x} at offset {exc.start}"
        raise _refuse(shown, f"not JSON: not UTF-8 text ({where})") from None
    try:
        return json.loads(text, parse_constant=NonFinite, parse_float=_float, object_pairs_hook=_pairs)
    except _DuplicateKey as exc:
        raise _refuse(shown, f"not JSON: {exc}") from None
    except RecursionError:
        raise _refuse(shown, "not JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        more = " (one result per file: --append-result files hold several)" if exc.msg == "Extra data" else ""
        raise _refuse(shown, f"not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}{more}") from None


def read_source(path: Path) -> Source:
    """One benchmark file: its bytes checked and parsed; raises :class:`SourceError`."""
    shown = str(path)
    data = read_bytes(path, shown)
    value = parse_json(data, shown)
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else f"a {type(value).__name__}"
        raise _refuse(shown, f"expected a JSON object (one result), got {kind}")
    return Source(shown=shown, name=path.name, sha256=hashlib.sha256(data).hexdigest(), value=value)
