"""``import-config --from-hub`` and ``--check`` against a hostile or broken Hub (a local stand-in): headers
that try to choose paths, answers that never end or grow without bound, redirects to other hosts, bad
JSON, resets and 5xx. Each is one line with its reason and exit 1; nothing is written outside the content
root and the Hugging Face cache (the whole temporary tree is compared) and the recipe stays as it was.
The cache keeps huggingface_hub's layout both ways, and proxies and the offline mode still work."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_hub_import import cli, content, hub, recipe_data  # noqa: F401 - fixtures
from tests.support.hub_server import HubServer, strip_blocks
from tests.support.paths import ROOT

RECIPE = "models/Qwen/Qwen3-8B.yaml"


def tree(root: Path) -> dict[str, bytes]:
    """Every file and link under ``root`` with its bytes (a link: its target)."""
    found = {}
    for path in root.rglob("*"):
        if path.is_symlink():
            found[str(path.relative_to(root))] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


@pytest.fixture
def untouched(tmp_path: Path, content: Path) -> Iterator[None]:  # noqa: F811
    """After the test: the recipes as they were, and nothing new outside the Hugging Face cache."""
    before = tree(tmp_path)
    yield
    after = tree(tmp_path)
    changed = sorted(k for k in after.keys() | before.keys() if after.get(k) != before.get(k))
    assert [k for k in changed if not k.startswith("hf-home/")] == []


def refused(hub: HubServer, content: Path, reason: str, *argv: str, **env: str) -> None:  # noqa: F811
    """The import of Qwen/Qwen3-8B fails with exactly ``reason``, exit 1."""
    status, out, err = cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", *argv, **env)
    assert (status, out) == (1, "imported facts into 0 recipe(s); 1 import(s) failed\n")
    assert err == f"{RECIPE}: model.architecture_config: Qwen/Qwen3-8B: {reason}\n"


@pytest.mark.parametrize("etag", ["../../../../escaped", "/tmp/hub-hostile-escaped", "../../../../a\x00b",
                                  "x" * 10_000, '"0123456789abcdef0123456789abcdef0123456/"', ""])
def test_a_path_shaped_etag_writes_nothing(hub: HubServer, content: Path, untouched: None, etag: str) -> None:  # noqa: F811
    hub.hub.headers = {"ETag": etag}
    refused(hub, content, f"the Hub sent an ETag that is not a file hash: {etag.strip(chr(34))[:100]!r}")
    assert not Path("/tmp/hub-hostile-escaped").exists()
    assert not (hub.cache / "hub").exists()  # not even the folder: nothing was stored


def test_an_etag_that_is_not_the_files_hash(hub: HubServer, content: Path, untouched: None) -> None:  # noqa: F811
    hub.hub.headers = {"ETag": '"' + "0" * 40 + '"'}
    refused(hub, content, f"the Hub's ETag {'0' * 40} is not the hash of the config.json it sent")


@pytest.mark.parametrize("commit", ["../../../../escaped", "0" * 39, "main", "A" * 40])
def test_a_commit_that_is_not_a_sha(hub: HubServer, content: Path, untouched: None, commit: str) -> None:  # noqa: F811
    hub.hub.headers = {"X-Repo-Commit": commit}
    refused(hub, content, f"the Hub gave no commit sha for 'main' (X-Repo-Commit {commit!r})")


def test_a_pinned_revision_answered_by_another_commit(hub: HubServer, content: Path, untouched: None) -> None:  # noqa: F811
    asked, other = "2" * 40, "1" * 40
    hub.hub.repos["Qwen/Qwen3-8B"].sha = asked  # the server resolves the asked commit...
    hub.hub.headers = {"X-Repo-Commit": other}  # ...and says it is another
    refused(hub, content, f"the Hub answered for commit {other}, not {asked}", "--revision", asked)


@pytest.mark.parametrize("location",
                         ["http://localhost:{port}/x", "https://127.0.0.1:{port}/x", "http://127.0.0.1:1/x",
                          "//evil.example/x", "file:///etc/passwd"])
def test_redirects_stay_on_the_endpoint(hub: HubServer, content: Path, untouched: None,  # noqa: F811
                                        location: str) -> None:  # noqa: F811
    port = hub.hub.url.rsplit(":", 1)[1]
    target = location.format(port=port)
    hub.hub.headers = {"Location": target}
    shown = target if "://" in target else f"http:{target}" if target.startswith("//") else target
    refused(hub, content, f"the Hub at {hub.hub.url}: the server redirected to another host: {shown!r}")
    assert [path for _, path in hub.hub.requests] == ["/Qwen/Qwen3-8B/resolve/main/config.json"]


def test_a_redirect_loop_ends(hub: HubServer, content: Path, untouched: None) -> None:  # noqa: F811
    hub.hub.headers = {"Location": "/Qwen/Qwen3-8B/resolve/main/config.json"}
    refused(hub, content, f"the Hub at {hub.hub.url}: the server redirected more than 5 times")
    assert len(hub.hub.requests) == 6


@pytest.mark.parametrize("mode", ["trickle-body", "trickle-headers"])
def test_a_trickle_meets_the_deadline(hub: HubServer, content: Path, untouched: None, mode: str) -> None:  # noqa: F811
    hub.hub.mode = mode
    started = time.monotonic()
    refused(hub, content, f"the Hub at {hub.hub.url}: no complete answer within 1 s",
            HF_HUB_DOWNLOAD_TIMEOUT="1")
    assert time.monotonic() - started < 15  # the process's start and the one-second deadline


@pytest.mark.parametrize("mode", ["endless", "oversize"])
def test_an_answer_too_large_is_cut(hub: HubServer, content: Path, untouched: None, mode: str) -> None:  # noqa: F811
    hub.hub.mode = mode
    refused(hub, content, f"the Hub at {hub.hub.url}: the answer is larger than 4,000,000 bytes")


@pytest.mark.parametrize(("mode", "reason"), [
    ("reset", "the Hub at {url}: the answer broke off: connection reset"),
    ("503", "the Hub answered HTTP 503"),
])
def test_resets_and_server_errors(hub: HubServer, content: Path, untouched: None, mode: str,  # noqa: F811
                                  reason: str) -> None:  # noqa: F811
    hub.hub.mode = mode
    refused(hub, content, reason.format(url=hub.hub.url))


def test_an_unreachable_hub(hub: HubServer, content: Path, untouched: None) -> None:  # noqa: F811
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    refused(hub, content,
            f"the Hub could not be reached at {closed} (connection refused) and the file is not in the "
            "cache", HF_ENDPOINT=closed)


@pytest.mark.parametrize(("body", "reason"), [
    (b'{"num_hidden_layers": ', "config.json is not JSON (Expecting value at line 1 column 23)"),
    (b"[1, 2]", "config.json is not a JSON object (it is a JSON list)"),
    (b'"text"', "config.json is not a JSON object (it is a JSON str)"),
    (b'{"a": ' + b"[" * 40 + b"]" * 40 + b"}", "config.json nests deeper than 32 levels"),
    (b'{"a": ' + b"[" * 200_000 + b"]" * 200_000 + b"}", "config.json nests deeper than 32 levels"),
    (b'{"a": "\xff"}', "config.json is not UTF-8 text"),
    (b'{"a": "' + b"x" * 4_000_000 + b'"}', "the Hub at {url}: the answer is larger than 4,000,000 bytes"),
])
def test_bad_json(hub: HubServer, content: Path, untouched: None, body: bytes, reason: str) -> None:  # noqa: F811
    repo = hub.hub.repos["Qwen/Qwen3-8B"]
    repo.files["config.json"] = body
    repo.commit()
    refused(hub, content, reason.format(url=hub.hub.url))
    assert not (hub.cache / "hub").exists()  # what is not a config never enters the cache


@pytest.mark.parametrize("revision", ["../../x", "/etc/passwd", "a\nb", "refs/../x", "x" * 300])
def test_revisions_that_are_not_names(hub: HubServer, content: Path, untouched: None, revision: str) -> None:  # noqa: F811
    refused(hub, content, f"not a branch, tag or commit: {revision[:200]!r}", "--revision", revision)
    assert hub.hub.requests == []


def test_check_prints_recipe_text_inert(hub: HubServer, content: Path, tmp_path: Path) -> None:  # noqa: F811
    recipe = content / RECIPE
    recipe.write_text(recipe.read_text().replace(
        "  base_env: {}\n",
        '  base_env: {}\n  architecture_config:\n    source:\n      repo: '
        '"::error::pwned\\e[2J\\n::add-mask::x"\n'
        f"      revision: '{'1' * 40}'\n    num_hidden_layers: 36\n    hidden_size: 4096\n    "
        "num_attention_heads: 32\n    vocab_size: 151936\n", 1))
    before = tree(tmp_path)
    status, out, err = cli(hub, content, "--check")
    assert (status, out) == (1, "0 current, 0 stale, 0 unpinned, 1 unchecked\n")
    assert err == (f"{RECIPE}: model.architecture_config.source: ::error::pwned\\x1b[2J\\n::add-mask::x: not "
                   "checked: not a Hub repository id: '::error::pwned\\x1b[2J\\n::add-mask::x'\n")
    assert hub.hub.requests == [] and tree(tmp_path) == before


def test_check_bounds_the_model_info(hub: HubServer, content: Path) -> None:  # noqa: F811
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B")[0] == 0
    hub.hub.mode = "trickle-body"
    status, out, err = cli(hub, content, "--check", HF_HUB_DOWNLOAD_TIMEOUT="1")
    assert (status, out) == (1, "0 current, 0 stale, 0 unpinned, 1 unchecked\n")
    assert err == (
        f"{RECIPE}: model.architecture_config.source: Qwen/Qwen3-8B: not checked: the Hub at {hub.hub.url}: "
        "no complete answer within 1 s\n")


def hf_python(server: HubServer, code: str, **env: str) -> str:
    """Run ``code`` with huggingface_hub pointed at the local hub and its cache; its stdout."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**clean, **server.env(**env)},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_cache_is_huggingface_hubs(hub: HubServer, content: Path) -> None:  # noqa: F811
    repo = hub.hub.repos["Qwen/Qwen3-8B"]
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B")[0] == 0
    folder = hub.cache / "hub" / "models--Qwen--Qwen3-8B"
    assert (folder / "refs" / "main").read_text() == repo.sha
    # huggingface_hub, offline, finds what the importer stored
    found = hf_python(
        hub, "from huggingface_hub import hf_hub_download as d; print(d('Qwen/Qwen3-8B', 'config.json'))",
        HF_HUB_OFFLINE="1")
    assert found == f"{folder}/snapshots/{repo.sha}/config.json\n"
    assert Path(found.strip()).read_bytes() == repo.files["config.json"]
    # and the importer, offline, finds what huggingface_hub stored (in a cache of its own)
    library = str(hub.cache.parent / "hf-library")
    hf_python(hub, "from huggingface_hub import hf_hub_download as d; d('Qwen/Qwen3-8B', 'config.json')",
              HF_HOME=library)
    imported = (content / RECIPE).read_text()
    (content / RECIPE).write_text(strip_blocks(imported))
    asked = len(hub.hub.requests)
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", HF_HUB_OFFLINE="1", HF_HOME=library) == (
        0, f"Qwen/Qwen3-8B: wrote model.architecture_config (Qwen/Qwen3-8B@{repo.sha[:12]})\n"
        "imported facts into 1 recipe(s); 0 import(s) failed\n", "")
    assert (content / RECIPE).read_text() == imported
    assert len(hub.hub.requests) == asked


def test_an_unreachable_hub_falls_back_to_the_cache(hub: HubServer, content: Path) -> None:  # noqa: F811
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B")[0] == 0
    imported = (content / RECIPE).read_text()
    hub.hub.mode = "reset"  # a broken answer is not a missing network: no fallback
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B")[0] == 1
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    assert cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", HF_ENDPOINT=closed)[:3:2] == (0, "")
    assert (content / RECIPE).read_text() == imported


def test_a_proxy_from_the_environment(hub: HubServer, content: Path) -> None:  # noqa: F811
    status, out, err = cli(hub, content, "--from-hub", "Qwen/Qwen3-8B", HF_ENDPOINT="http://hub.invalid",
                           http_proxy=hub.hub.url, no_proxy="")
    assert (status, err) == (0, "")
    assert hub.hub.requests[0] == ("GET", "/Qwen/Qwen3-8B/resolve/main/config.json")
    assert recipe_data(content, "Qwen/Qwen3-8B")["model"]["architecture_config"]["source"] == {
        "repo": "Qwen/Qwen3-8B", "revision": hub.hub.repos["Qwen/Qwen3-8B"].sha}
