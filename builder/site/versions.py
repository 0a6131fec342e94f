"""Content-versioned URLs: ``?v=`` and the SHA-256 prefix of the file's bytes.

The site names its static assets, fonts, preview images and builder data this way; ``serve``
marks such a URL immutable when the prefix is the file's own (:data:`VERSION_CHARS` or more
hex digits), so browsers reuse the file until a rebuild changes it, and its URL with it.
"""

from __future__ import annotations

import hashlib

VERSION_CHARS = 10


def version(data: bytes) -> str:
    """The version of a file's bytes: the first :data:`VERSION_CHARS` hex digits of their SHA-256."""
    return hashlib.sha256(data).hexdigest()[:VERSION_CHARS]


def versioned(url: str, data: bytes) -> str:
    """``url?v=<version of data>``."""
    return f"{url}?v={version(data)}"
