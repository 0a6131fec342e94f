"""The one rule for URLs taken from content (site.yaml, vocabulary, recipes).

A URL from content may become a link only when it is

- absolute ``http:``/``https:`` with a host (``https://example.com/x``), or
- site-relative without a scheme: ``/x``, ``x/y``, ``?q``, ``#a``.

Everything else is rejected: other schemes (``javascript:``, ``data:``, ``vbscript:``,
``file:``... in any letter case), protocol-relative ``//host`` (it leaves the site while
looking relative), any backslash (browsers read ``\\`` as ``/`` in http URLs, so ``/\\host``
is ``//host``), and any whitespace or control character anywhere (browsers strip or skip
them, which is how ``java\\tscript:`` and `` javascript:`` slip past naive checks). A colon
before the first ``/``, ``?`` or ``#`` is only allowed as the ``http:``/``https:`` scheme.
"""

from __future__ import annotations

import re

MAX_URL_LENGTH = 2048

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_HTTP_ABSOLUTE = re.compile(r"https?://[^/?#@]+(?:[/?#].*)?", re.IGNORECASE | re.DOTALL)


def _has_unsafe_char(url: str) -> bool:
    """Whitespace, C0/C1 controls, DEL or a backslash anywhere."""
    return any(ch <= " " or "\x7f" <= ch <= "\x9f" or ch == "\\" or ch.isspace() for ch in url)


def is_absolute_http(url: str) -> bool:
    """``http(s)://host...`` with nothing unsafe in it."""
    return not _has_unsafe_char(url) and _HTTP_ABSOLUTE.fullmatch(url) is not None


def is_safe_link(url: str) -> bool:
    """An absolute http(s) URL or a site-relative reference (see the module docstring)."""
    if _has_unsafe_char(url) or not url:
        return False
    if url.startswith("//"):
        return False
    head = re.split(r"[/?#]", url, maxsplit=1)[0]
    if ":" in head:
        return _SCHEME.match(url) is not None and is_absolute_http(url)
    return True
