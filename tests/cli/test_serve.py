"""``python -m builder serve``: serves the site, rebuilds what an edit touches, tells pages to reload."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from builder.cli.serve import start_dev_server
from tests.support.dropped import drop_connections
from tests.support.paths import RECIPES


def get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def eventually(check, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[int, Path, Path, list[str]]]:
    content, out = tmp_path / "content", tmp_path / "site"
    shutil.copytree(RECIPES, content)
    dev = start_dev_server(content, out)
    try:
        assert _up(dev.port)
        yield dev.port, content, out, dev.lines
    finally:
        dev.stop()


def _up(port: int) -> bool:
    try:
        return get(port, "/models.json")[0] == 200
    except OSError:
        return False


def test_serve_rebuilds_an_edited_recipe_and_reloads_pages(server) -> None:
    port, content, out, lines = server
    assert any(line.startswith("serving ") for line in lines)
    for path in ("/MiniMaxAI/MiniMax-M3/", "/MiniMaxAI/MiniMax-M3"):  # the canonical URL: no redirect
        status, page = get(port, path)
        assert status == 200
        assert "new EventSource('/__events')" in page, path  # injected by the dev server only
    assert "EventSource" not in (out / "MiniMaxAI" / "MiniMax-M3" / "index.html").read_text()

    events = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    events.request("GET", "/__events")
    stream = events.getresponse()
    assert stream.getheader("Content-Type") == "text/event-stream"

    recipe = content / "models" / "Qwen" / "Qwen3-14B.yaml"
    recipe.write_text(recipe.read_text().replace('title: "', 'title: "Edited ', 1))
    eventually(lambda: '"title": "Edited ' in (out / "Qwen" / "Qwen3-14B.json").read_text())
    eventually(lambda: "Edited " in get(port, "/Qwen/Qwen3-14B/")[1])
    assert "Edited " in get(port, "/search-index.json")[1]  # and the indexes that list it
    # and the builder
    assert '"title":"Edited ' in (out / "builder-data" / "Qwen" / "Qwen3-14B.json").read_text()
    assert stream.readline() == b"data: reload\n"
    events.close()


def test_serve_keeps_the_site_when_an_edit_is_invalid(server) -> None:
    port, content, out, lines = server
    before = (out / "Qwen" / "Qwen3-14B.json").read_text()
    recipe = content / "models" / "Qwen" / "Qwen3-14B.yaml"
    recipe.write_text(
        recipe.read_text().replace("compatible_strategies:\n", "compatible_strategies:\n  - nope\n", 1))
    eventually(lambda: "rebuild failed; the site is unchanged\n" in lines)
    assert any("compatible_strategies[0]: unknown strategy 'nope'" in line for line in lines)
    assert (out / "Qwen" / "Qwen3-14B.json").read_text() == before
    assert get(port, "/Qwen/Qwen3-14B/")[0] == 200


def test_serve_lists_no_folders_and_a_deleted_recipe_is_a_404(server) -> None:
    port, content, out, lines = server
    status, page = get(port, "/static/")
    assert status == 404 and "Directory listing" not in page
    assert get(port, "/builder-data/")[0] == 404
    assert get(port, "/Qwen/Qwen3-14B/")[0] == 200
    (content / "models" / "Qwen" / "Qwen3-14B.yaml").unlink()
    eventually(lambda: not (out / "Qwen" / "Qwen3-14B.json").exists())
    for path in ("/Qwen/Qwen3-14B/", "/Qwen/Qwen3-14B"):
        status, page = get(port, path)
        assert status == 404 and "Directory listing" not in page, path
    assert get(port, "/Qwen/Qwen3-8B/")[0] == 200  # the rest of the site is still served


def test_serve_ignores_dropped_connections(server) -> None:
    """A browser dropping connections (resets, closes, at every stage of a request) prints nothing: no
    ``Exception occurred ... ConnectionResetError`` traceback; the server serves on."""
    port, content, out, lines = server
    (out / "large.bin").write_bytes(os.urandom(8 * 1024 * 1024))  # more than the socket buffers hold
    printed = len(lines)
    assert drop_connections(port, "/large.bin") == 16
    assert drop_connections(port, "/MiniMaxAI/MiniMax-M3") == 16  # a page the dev server writes itself
    assert get(port, "/Qwen/Qwen3-8B/")[0] == 200
    assert lines[printed:] == []


def test_serve_rebuilds_a_recipe_whose_predictions_change(server) -> None:
    port, content, out, _ = server
    stored = content / "models" / "Qwen" / "Qwen3-8B.performance.json"
    text = stored.read_text()
    first = '"ttft_ms": '
    value = text[text.index(first) + len(first):].split(",")[0]
    stored.write_text(text.replace(f"{first}{value},", f"{first}12345.0,", 1))

    def b200() -> dict:
        return json.loads(get(port, "/Qwen/Qwen3-8B/hw/b200.json")[1])

    eventually(lambda: b200()["performance"]["workloads"]["1k/1k"][0]["ttft_ms"] == 12345.0)
    stored.unlink()  # no predictions: no block (a full rebuild)
    eventually(lambda: "performance" not in b200())
