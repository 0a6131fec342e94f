"""A site served under a sub-path: the base URL's path, and the page links that move under it.

A build for ``https://example.github.io/recipes`` is published at ``/recipes/`` (GitHub project
pages), so every site-absolute link of a page (``href="/browse"``, ``src="/static/site.js"``) must
read ``/recipes/browse``. Pages and templates write site-absolute paths as for a root deployment;
:func:`prefix_links` moves them under the base path once, when a page is rendered. Scripts read the
base path from ``<html data-base>`` (``siteUrl`` in site.js and builder.js). The JSON API is not
touched: its documents keep their site-absolute paths (byte-identical to the reference output).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from builder.content.urls import MAX_URL_LENGTH, is_absolute_http

DEFAULT_BASE_URL = "http://127.0.0.1:8000"
MAX_HOST = 253  # characters of a DNS name

_SAFE_PATH = re.compile(r"(?:/[A-Za-z0-9._~-]+)*")
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
# a host name or IPv4 address, or a bracketed IPv6 address; then an optional port
_AUTHORITY = re.compile(rf"(?:(?:{_LABEL}\.)*{_LABEL}\.?|\[[0-9A-Fa-f:.]+\])(?::(?P<port>[0-9]{{1,5}}))?")
# attributes whose value is a URL (data-* ones the scripts fetch), and the meta refresh's "url="
_LINK = re.compile(r'(\s(?:href|src|action|poster|data-[a-z-]*(?:url|src|json|worker|data|clicks|vocab|pyodid'
                   r'e|resolver))=")/(?!/)|(\scontent="\d+;\s*url=)/(?!/)')


class BasePathError(ValueError):
    """A base URL the site cannot be served under."""


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 100 else f"{text[:100]!r}... ({len(text):,} characters)"


def base_path(base_url: str) -> str:
    """The path of ``base_url`` without its trailing slash: ``""`` at a host's root, else ``/recipes``.

    The one check of a base URL, wherever it comes from (``--base-url`` of ``build`` and ``serve``,
    ``site.yaml``'s ``base_url``/``site_url``): raises BasePathError for a URL longer than
    :data:`MAX_URL_LENGTH`, with a control character, space or backslash (:func:`is_absolute_http`), that is
    not ``http(s)://host[:port][/path]`` with a host name or IP address, or whose path has characters a
    link would have to escape (or a query or fragment); its message names no option."""
    if len(base_url) > MAX_URL_LENGTH:
        raise BasePathError(f"must be at most {MAX_URL_LENGTH:,} characters, got {len(base_url):,}")
    try:
        parts = urlsplit(base_url)
    except ValueError:  # an unclosed IPv6 bracket
        raise BasePathError(f"must be http(s)://host[/path], got {_shown(base_url)}") from None
    if (not is_absolute_http(base_url) or parts.scheme not in ("http", "https") or not parts.netloc
            or parts.query or parts.fragment):
        raise BasePathError(f"must be http(s)://host[/path], got {_shown(base_url)}")
    authority = _AUTHORITY.fullmatch(parts.netloc)
    if (authority is None or not 0 < int(authority["port"] or 80) < 65536
        or len(parts.hostname or "") > MAX_HOST):
        raise BasePathError(
            f"the host must be a name or an IP address with an optional port, got {_shown(parts.netloc)}")
    path = parts.path.rstrip("/")
    if not _SAFE_PATH.fullmatch(path) or any(seg in (".", "..") for seg in path.split("/")):
        raise BasePathError(f"path may hold only letters, digits and ._~- segments, got {parts.path!r}")
    return path


def site_base_url(option: str | None, site: Mapping[str, Any]) -> str:
    """The address a build publishes for: the ``--base-url`` option, else ``site.yaml``'s ``base_url``
    (or its older name ``site_url``), else :data:`DEFAULT_BASE_URL`; without a trailing slash."""
    return str(option or site.get("base_url") or site.get("site_url") or DEFAULT_BASE_URL).rstrip("/")


def prefix_links(html: str, prefix: str) -> str:
    """``html`` with every site-absolute link attribute moved under ``prefix`` (unchanged when empty)."""
    if not prefix:
        return html
    return _LINK.sub(lambda m: (m.group(1) or m.group(2)) + prefix + "/", html)
