"""The static host: Brotli or gzip twins by Accept-Encoding, caching headers, ETag revalidation."""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.cli.static_host import StaticHandler, accepted_encodings, serve_directory
from builder.site.compression import brotli_bytes, gzip_bytes, with_twins
from tests.support.dropped import drop_connections

RUNTIME = "pyodide/0123456789abcdef/pyodide.asm.wasm"
DATA = b'{"hf_id": "org/repo", "padding": "' + b"x" * 4000 + b'"}'
PAGE = b"<!doctype html><title>big</title>" + b"<p>text</p>" * 300


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    root = tmp_path_factory.mktemp("served")
    files = with_twins({"builder-data/org/repo.json": DATA, RUNTIME: b"\0asm" + b"\1" * 5000,
                        "static/builder.js": b"// js\n" * 400})
    files["org/repo/index.html"] = b"<!doctype html><title>x</title>"
    files["org/big/index.html"] = PAGE
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    server, url = serve_directory(root)
    yield root, int(url.rsplit(":", 1)[1])
    server.shutdown()


def get(port: int, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


@pytest.mark.parametrize(("accept", "encoding", "pack"), [
    ("gzip, deflate, br, zstd", "br", brotli_bytes),
    ("gzip", "gzip", gzip_bytes),
    ("br;q=0, gzip;q=0.5", "gzip", gzip_bytes),
    ("*", "br", brotli_bytes),
])
def test_twin_chosen_by_accept_encoding(site: tuple[Path, int], accept: str, encoding: str,
                                        pack: object) -> None:
    status, headers, body = get(site[1], "/builder-data/org/repo.json", **{"Accept-Encoding": accept})
    assert status == 200
    assert headers["content-encoding"] == encoding
    assert headers["vary"] == "Accept-Encoding"
    assert body == pack(DATA)  # type: ignore[operator]


def test_identity_without_accept_encoding(site: tuple[Path, int]) -> None:
    status, headers, body = get(site[1], "/builder-data/org/repo.json")
    assert (status, body) == (200, DATA)
    assert "content-encoding" not in headers
    assert headers["content-type"] == "application/json"


def test_cache_control(site: tuple[Path, int]) -> None:
    port = site[1]
    digest = hashlib.sha256((site[0] / "static/builder.js").read_bytes()).hexdigest()
    immutable = "public, max-age=31536000, immutable"
    assert get(port, "/" + RUNTIME)[1]["cache-control"] == immutable
    assert get(port, f"/static/builder.js?v={digest[:10]}")[1]["cache-control"] == immutable
    assert get(port, "/static/builder.js?v=0000000000")[1]["cache-control"] == "no-cache"  # not this content
    assert get(port, "/static/builder.js")[1]["cache-control"] == "no-cache"
    assert get(port, "/builder-data/org/repo.json")[1]["cache-control"] == "no-cache"
    assert get(port, "/org/repo/")[1]["cache-control"] == "no-cache"


def test_etag_revalidation_and_a_changed_file(site: tuple[Path, int]) -> None:
    root, port = site
    _, headers, _ = get(port, "/builder-data/org/repo.json", **{"Accept-Encoding": "br"})
    status, _, body = get(port, "/builder-data/org/repo.json",
                          **{"Accept-Encoding": "br", "If-None-Match": headers["etag"]})
    assert (status, body) == (304, b"")
    (root / "builder-data/org/repo.json").write_bytes(b'{"new": 1}')  # a rebuild without twins for it
    for twin in (".br", ".gz"):
        (root / f"builder-data/org/repo.json{twin}").unlink()
    status, _, body = get(port, "/builder-data/org/repo.json",
                          **{"Accept-Encoding": "br", "If-None-Match": headers["etag"]})
    assert (status, body) == (200, b'{"new": 1}')


@pytest.mark.parametrize(("accept", "encoding", "pack"),
                         [("gzip, br", "br", brotli_bytes), ("gzip", "gzip", gzip_bytes)])
def test_pages_without_twins_are_compressed_as_they_are_sent(site: tuple[Path, int], accept: str,
                                                             encoding: str, pack: object) -> None:
    status, headers, body = get(site[1], "/org/big/", **{"Accept-Encoding": accept})
    assert (status, headers["content-encoding"], headers["vary"]) == (200, encoding, "Accept-Encoding")
    assert body == pack(PAGE)  # type: ignore[operator]
    assert get(site[1], "/org/big/")[2] == PAGE  # identity when nothing is accepted
    _, headers, body = get(site[1], "/org/repo/", **{"Accept-Encoding": accept})  # under 1 KB: as it is
    assert "content-encoding" not in headers and body == b"<!doctype html><title>x</title>"


def test_a_page_compressed_as_sent_follows_its_edits(site: tuple[Path, int]) -> None:
    root, port = site
    (root / "org/edited").mkdir(parents=True)
    (root / "org/edited/index.html").write_bytes(PAGE)
    assert get(port, "/org/edited/", **{"Accept-Encoding": "br"})[2] == brotli_bytes(PAGE)
    (root / "org/edited/index.html").write_bytes(PAGE + b"<p>more</p>")
    assert get(port, "/org/edited/", **{"Accept-Encoding": "br"})[2] == brotli_bytes(PAGE + b"<p>more</p>")


def test_a_page_is_served_at_its_canonical_url_without_a_redirect(site: tuple[Path, int]) -> None:
    """``/<org>/<repo>`` (what the pages link and name as canonical) answers with the folder's page
    itself: a redirect to ``/<org>/<repo>/`` would cost every navigation a round trip."""
    port = site[1]
    for path in ("/org/big", "/org/big?hardware=h200"):
        status, headers, body = get(port, path, **{"Accept-Encoding": "br"})
        assert (status, headers["content-encoding"], "location" in headers) == (200, "br", False), path
        assert body == brotli_bytes(PAGE)
        assert headers["cache-control"] == "no-cache"
    assert get(port, "/org/big")[2] == get(port, "/org/big/")[2] == PAGE
    status, _, body = get(port, "/builder-data/org")  # a folder without a page: still no listing
    assert status == 404 and b"Directory listing" not in body


def test_accepted_encodings() -> None:
    assert accepted_encodings("gzip, br;q=0.8, zstd;q=0, x;q=abc") == {"gzip", "br"}
    assert accepted_encodings("") == set()


def test_twins_only_for_files_that_shrink() -> None:
    files = with_twins({"a.json": DATA, "tiny.json": b"{}",
                        "random.bin": b"".join(hashlib.sha256(bytes([i])).digest() for i in range(64))})
    assert sorted(files) == ["a.json", "a.json.br", "a.json.gz", "random.bin", "tiny.json"]


def test_a_dropped_connection_is_a_non_event(site: tuple[Path, int],
                                             capfd: pytest.CaptureFixture[str]) -> None:
    """A browser that resets or closes a connection at any stage: nothing on stderr, and the host serves
    on."""
    root, port = site
    (root / "large.bin").write_bytes(os.urandom(8 * 1024 * 1024))  # more than the socket buffers hold
    assert drop_connections(port, "/large.bin") == 16
    assert get(port, "/org/big")[2] == PAGE
    assert capfd.readouterr().err == ""


def test_any_other_error_is_one_line(tmp_path: Path, capfd: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(handler: StaticHandler) -> None:
        raise RuntimeError("boom\n::error::forged \x1b[2J")

    monkeypatch.setattr(StaticHandler, "send_head", broken)
    server, url = serve_directory(tmp_path)
    try:
        with socket.create_connection(("127.0.0.1", server.server_port), timeout=10) as sock:
            sock.sendall(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert sock.recv(100) == b""  # no answer: the connection is closed
    finally:
        server.shutdown()
    err = capfd.readouterr().err
    assert re.fullmatch(
        r"error: a request from 127\.0\.0\.1:\d+ failed: RuntimeError: boom\\n::error::forged \\x1b\[2J\n",
        err), err
