"""``build --base-url``: canonical, sitemap, feed, robots and OG name the published site, and a site
published under a sub-path (``https://you.github.io/recipes/``, GitHub project pages) keeps every
internal link, asset, fetch and worker URL under that path."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from builder.cli.main import main
from builder.content.base_path import BasePathError, base_path, prefix_links
from tests.site.test_links import broken_links
from tests.support.paths import RECIPES
from tests.support.sites import build_for

SUB_URL = "https://example.github.io/recipes"
ROOT_URL = "https://recipes.example.org"
RECIPE = "Qwen/Qwen3-8B"


@pytest.fixture(scope="module")
def root_site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return build_for(RECIPES, tmp_path_factory.mktemp("root-site") / "site", ROOT_URL)


def _text(site: dict[str, Any], path: str) -> str:
    return site["files"][path].decode()


def test_base_path_of_a_url() -> None:
    assert base_path("https://x.io") == "" and base_path("https://x.io/") == ""
    assert base_path("https://x.github.io/recipes/") == "/recipes"
    for bad in ("ftp://x.io", "x.io/recipes", "https://x.io/a b", "https://x.io/../etc", "https://x.io/?q=1"):
        with pytest.raises(BasePathError):
            base_path(bad)


def test_prefix_links_moves_site_absolute_attributes_only() -> None:
    html = ('<a href="/browse"><img src="/static/a.svg"><a href="//cdn.x/y"><a href="https://x.io/z">'
            '<a href="#top"><a href="rel/x"><form action="/browse"><meta http-equiv="refresh" '
            'content="0; url=/a/b"><pre>href=&#34;/kept&#34;</pre><div data-value="/kept">')
    assert prefix_links(html, "/recipes") == (
        '<a href="/recipes/browse"><img src="/recipes/static/a.svg"><a href="//cdn.x/y"><a '
        'href="https://x.io/z"><a href="#top"><a href="rel/x"><form action="/recipes/browse">'
        '<meta http-equiv="refresh" content="0; url=/recipes/a/b"><pre>href=&#34;/kept&#34;</pre><div '
        'data-value="/kept">')
    assert prefix_links(html, "") == html


def test_cli_refuses_a_base_url_it_cannot_serve(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["build", "--out", str(tmp_path / "site"), "--base-url", "ftp://x.io"]) == 2
    assert capsys.readouterr().err == "error: --base-url must be http(s)://host[/path], got 'ftp://x.io'\n"
    assert not (tmp_path / "site").exists()


HOST_RULE = "the host must be a name or an IP address with an optional port, got"


@pytest.mark.parametrize(("url", "reason"), [
    ("https://x.io\r\nSitemap: https://evil.example/s.xml", "must be http(s)://host[/path], got "
     "'https://x.io\\r\\nSitemap: https://evil.example/s.xml'"),
    ("https://" + "a" * 100_000 + ".io", "must be at most 2,048 characters, got 100,011"),
    ("https://" + "a." * 200 + "io", f"{HOST_RULE} '{'a.' * 50}'... (402 characters)"),
    ("https://x.io/\x1b]8;;https://evil.example\x07", "must be http(s)://host[/path], got "
     "'https://x.io/\\x1b]8;;https://evil.example\\x07'"),
    ("https://x.io\u2028/recipes", "must be http(s)://host[/path], got 'https://x.io\\u2028/recipes'"),
    ("https://user:secret@x.io", "must be http(s)://host[/path], got 'https://user:secret@x.io'"),
    ("https://x.io\\@evil.example", "must be http(s)://host[/path], got 'https://x.io\\\\@evil.example'"),
    ("https://<script>.io", f"{HOST_RULE} '<script>.io'"),
    ('https://x.io"onload="alert(1)', f"{HOST_RULE} 'x.io\"onload=\"alert(1)'"),
    ("https://x.io:99999", f"{HOST_RULE} 'x.io:99999'"),
    ("http://[::1", "must be http(s)://host[/path], got 'http://[::1'"),
    ("::error::https://x.io", "must be http(s)://host[/path], got '::error::https://x.io'"),
])
@pytest.mark.parametrize("command", ["build", "serve"])
def test_a_hostile_base_url_from_the_command_line(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                                  command: str, url: str, reason: str) -> None:
    """``--base-url`` gets the check ``site.yaml``'s base_url gets: one line, exit 2, nothing written."""
    assert main([command, "--content", str(RECIPES), "--out", str(tmp_path / "site"), "--base-url", url]) == 2
    assert capsys.readouterr() == ("", f"error: --base-url {reason}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("url", "reason"), [
    ("https://x.io:0", f"{HOST_RULE} 'x.io:0'"),
    ("https://-x.io", f"{HOST_RULE} '-x.io'"),
    ("https://x.io%0d%0a", f"{HOST_RULE} 'x.io%0d%0a'"),
])
def test_site_yaml_base_url_gets_the_same_check(tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str,
                                                reason: str) -> None:
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content)
    (content / "site.yaml").write_text(f"base_url: {url}\n")
    assert main(["check", "--content", str(content)]) == 1
    assert capsys.readouterr().err == f"site.yaml:1: base_url: {reason}\n"


def test_root_base_url_names_the_published_site(root_site: dict[str, Any]) -> None:
    page = _text(root_site, f"{RECIPE}/index.html")
    assert f'<link rel="canonical" href="{ROOT_URL}/{RECIPE}">' in page
    assert f'<meta property="og:url" content="{ROOT_URL}/{RECIPE}">' in page
    assert f"<loc>{ROOT_URL}/{RECIPE}</loc>" in _text(root_site, "sitemap.xml")
    assert f'<link href="{ROOT_URL}/"/>' in _text(root_site, "feed.xml")
    assert _text(root_site, "robots.txt") == (
        f"User-agent: *\nAllow: /\nDisallow: /api/\n\nSitemap: {ROOT_URL}/sitemap.xml\n"
        "Host: recipes.example.org\n")
    for path, data in root_site["pages"].items():
        if path.endswith((".html", ".xml", ".txt")):
            assert b"127.0.0.1:8000" not in data, path
    assert 'data-base=""' in page and 'href="/browse"' in page


def test_sub_path_build_has_no_broken_link(sub_path_site: dict[str, Any]) -> None:
    pages = [p for p in sub_path_site["pages"] if p.endswith(".html")]
    checked, broken = broken_links(sub_path_site["dir"], pages, "/recipes")
    assert checked > 100
    assert not broken, f"{len(broken)} broken links, e.g. {broken[:15]}"


def test_sub_path_texts_and_scripts_stay_under_the_path(sub_path_site: dict[str, Any]) -> None:
    page = _text(sub_path_site, f"{RECIPE}/index.html")
    assert '<html lang="en" class="no-js" data-base="/recipes">' in page
    assert f'<link rel="canonical" href="{SUB_URL}/{RECIPE}">' in page
    assert 'data-worker="/recipes/static/builder-worker.js?v=' in page
    assert re.search(r'data-pyodide="/recipes/pyodide/[0-9a-f]+/"', page)
    assert re.search(r'data-resolver="/recipes/static/resolver.zip\?v=[0-9a-f]{10}"', page)
    assert f'data-builder-clicks="/recipes/builder-data/{RECIPE}.clicks.json"' in page
    robots = _text(sub_path_site, "robots.txt")
    assert "Allow: /recipes/\nDisallow: /recipes/api/\n" in robots and "Host: example.github.io\n" in robots
    assert f"<loc>{SUB_URL}/{RECIPE}</loc>" in _text(sub_path_site, "sitemap.xml")
    # the JSON API keeps its site-absolute paths (the reference documents are byte-identical)
    assert '"/Qwen/Qwen3-8B.json"' in _text(sub_path_site, "models.json")


