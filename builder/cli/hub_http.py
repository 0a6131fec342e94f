"""Bounded HTTP GETs for the Hub importer: a deadline for the whole answer, a size cap checked while
reading, and redirects followed only within the endpoint's own origin.

The standard library's client is used so that nothing the server sends can stretch a request: a
watchdog shuts the socket at the deadline, which ends any read however slowly the server trickles
its headers or body. Proxies come from the usual ``HTTP(S)_PROXY``/``NO_PROXY`` variables.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
import urllib.request
from dataclasses import dataclass
from email.message import Message
from urllib.parse import urljoin, urlsplit

MAX_REDIRECTS = 5
_READ_CHUNK = 65_536
_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class HttpFailure(Exception):
    """Why a request got no usable answer (one line; server text quoted with ``repr``)."""


class Unreachable(HttpFailure):
    """No connection could be made: the server may be down, or the network off."""


@dataclass(frozen=True)
class Answer:
    """A complete HTTP answer: the final status, the headers of every hop (first hop first) and the body."""

    status: int
    hops: tuple[Message, ...]
    body: bytes

    def header(self, name: str) -> str | None:
        """``name`` from the last hop that sent it (a redirect's ``X-Repo-Commit`` counts when the file's
        lacks it)."""
        for headers in reversed(self.hops):
            value = headers.get(name)
            if value is not None:
                return value
        return None


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of ``url``, the port made explicit."""
    parts = urlsplit(url)
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:
        port = None
    return parts.scheme, (parts.hostname or "").lower(), port


def get(url: str, headers: dict[str, str], limit: int, seconds: float) -> Answer:
    """GET ``url``: redirects within its origin followed, at most ``limit`` body bytes, everything within
    ``seconds``."""
    home = origin(url)
    end = time.monotonic() + seconds
    hops: list[Message] = []
    for _ in range(MAX_REDIRECTS + 1):
        status, response_headers, body = _one(url, headers, limit, end, seconds)
        hops.append(response_headers)
        if status not in _REDIRECTS:
            return Answer(status, tuple(hops), body)
        target = urljoin(url, response_headers.get("Location") or "")
        if origin(target) != home or not target.startswith(("http://", "https://")):
            raise HttpFailure(f"the server redirected to another host: {target[:200]!r}")
        url = target
    raise HttpFailure(f"the server redirected more than {MAX_REDIRECTS} times")


def _connection(url: str, timeout: float) -> tuple[http.client.HTTPConnection, str]:
    """A connection for ``url`` (through a proxy when the environment names one) and the request target."""
    parts = urlsplit(url)
    scheme, host, port = origin(url)
    if scheme not in ("http", "https") or not host or port is None:
        raise HttpFailure(f"not an http(s) URL: {url[:200]!r}")
    target = parts.path or "/"
    if parts.query:
        target += "?" + parts.query
    proxy = urllib.request.getproxies().get(scheme)
    if proxy and urllib.request.proxy_bypass(host):
        proxy = None
    via = urlsplit(proxy) if proxy else None
    connect_host, connect_port = (via.hostname or "", via.port or 80) if via else (host, port)
    if scheme == "https":
        https = http.client.HTTPSConnection(connect_host, connect_port, timeout=timeout,
                                            context=ssl.create_default_context())
        if via:
            https.set_tunnel(host, port)
        return https, target
    plain = http.client.HTTPConnection(connect_host, connect_port, timeout=timeout)
    return plain, (f"http://{host}:{port}{target}" if via else target)


def _one(url: str, headers: dict[str, str], limit: int, end: float, seconds: float) -> tuple[int, Message,
                                                                                             bytes]:
    """One request and its whole answer, cut at ``end`` (a monotonic time)."""
    remaining = end - time.monotonic()
    if remaining <= 0:
        raise HttpFailure(f"no complete answer within {seconds:g} s")
    connection, target = _connection(url, remaining)
    expired = threading.Event()
    # the connection's, kept: http.client lets go of it once it has an answer
    sockets: list[socket.socket] = []

    def cut() -> None:
        expired.set()
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    watchdog = threading.Timer(remaining, cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        try:
            connection.connect()
        except (OSError, http.client.HTTPException) as error:
            if expired.is_set():
                raise HttpFailure(f"no complete answer within {seconds:g} s") from None
            raise Unreachable(_words(error)) from None
        if connection.sock is not None:
            sockets.append(connection.sock)
        if expired.is_set():
            cut()
        try:
            connection.request("GET", target, headers={**headers, "Accept-Encoding": "identity"})
            response = connection.getresponse()
            length = response.getheader("Content-Length")
            if length is not None and length.strip().isdigit() and int(length) > limit:
                raise HttpFailure(f"the answer is larger than {limit:,} bytes")
            body = bytearray()
            while chunk := response.read1(_READ_CHUNK):
                body += chunk
                if len(body) > limit:
                    raise HttpFailure(f"the answer is larger than {limit:,} bytes")
            if length is not None and length.strip().isdigit() and len(body) != int(length):
                raise http.client.IncompleteRead(bytes(body))
        except (OSError, http.client.HTTPException) as error:
            if expired.is_set():
                raise HttpFailure(f"no complete answer within {seconds:g} s") from None
            raise HttpFailure(f"the answer broke off: {_words(error)}") from None
        if expired.is_set():
            raise HttpFailure(f"no complete answer within {seconds:g} s")
        return response.status, response.msg, bytes(body)
    finally:
        watchdog.cancel()
        connection.close()


def _words(error: BaseException) -> str:
    """A network error in a few words."""
    if isinstance(error, ConnectionResetError):
        return "connection reset"
    if isinstance(error, http.client.IncompleteRead):
        return "the body is shorter than its Content-Length"
    if isinstance(error, http.client.RemoteDisconnected):
        return "the server closed the connection without answering"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error.reason or type(error).__name__}"
    if isinstance(error, socket.gaierror):
        return "host name not found"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, TimeoutError):
        return "timed out"
    return type(error).__name__
