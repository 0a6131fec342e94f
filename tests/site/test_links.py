"""Link checker: every internal link and #anchor of every generated page resolves."""

from __future__ import annotations

import posixpath
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest


class _Collector(HTMLParser):
    """Collects element ids and link-like attributes of one page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
        if tag == "a" and a.get("name"):
            self.ids.add(a["name"] or "")
        for key in ("href", "src", "action"):
            if (a.get(key)
                and not (tag == "link" and a.get("rel") in ("canonical", "alternate") and key == "href")):
                self.links.append(a[key] or "")


def _serve_path(root: Path, path: str) -> Path | None:
    """The file a static server returns for ``path`` (None → 404)."""
    target = root / path.lstrip("/")
    if target.is_dir():
        index = target / "index.html"
        return index if index.exists() else None
    return target if target.is_file() else None


def broken_links(root: Path, pages: list[str], prefix: str = "") -> tuple[int, list[str]]:
    """(links checked, broken ones) of the built ``pages`` (paths under ``root``), as a static host
    serving ``root`` at ``prefix`` (``""``, or ``/recipes`` for a sub-path build) resolves them: a
    site-absolute link outside ``prefix`` is broken too (it leaves the site)."""
    parsed: dict[Path, _Collector] = {}

    def parse(file: Path) -> _Collector:
        if file not in parsed:
            c = _Collector()
            c.feed(file.read_text(encoding="utf-8"))
            parsed[file] = c
        return parsed[file]

    broken: list[str] = []
    checked = 0
    for rel in pages:
        file = root / rel
        page_url = prefix + "/" + (rel[: -len("index.html")] if rel.endswith("index.html") else rel)
        for href in parse(file).links:
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                continue
            checked += 1
            path = unquote(parts.path)
            if path and not path.startswith("/"):
                path = posixpath.normpath(posixpath.join(posixpath.dirname(page_url) + "/", path))
            if path and prefix and not (path == prefix or path.startswith(prefix + "/")):
                broken.append(f"{page_url}: {href} (outside {prefix}/)")
                continue
            target = file if not path else _serve_path(root, path[len(prefix):])
            if target is None:
                broken.append(f"{page_url}: {href}")
                continue
            if parts.fragment and target.suffix == ".html":
                if unquote(parts.fragment) not in parse(target).ids:
                    broken.append(f"{page_url}: {href} (missing anchor)")
    return checked, broken


@pytest.mark.parametrize("site_fixture", ["built_site", "presets_site"])
def test_no_broken_internal_links(request: pytest.FixtureRequest, site_fixture: str) -> None:
    built_site = request.getfixturevalue(site_fixture)
    checked, broken = broken_links(built_site["dir"], [p for p in built_site["pages"] if p.endswith(".html")])
    assert checked > 100
    assert not broken, f"{len(broken)} broken links, e.g. {broken[:15]}"


def test_every_recipe_reachable_from_home(built_site: dict[str, Any]) -> None:
    """SEO-07: a crawl from / through plain links reaches every recipe and org page."""
    root: Path = built_site["dir"]
    seen: set[str] = set()
    queue = ["/"]
    while queue:
        url = queue.pop()
        if url in seen:
            continue
        seen.add(url)
        file = _serve_path(root, url)
        if file is None or file.suffix != ".html":
            continue
        c = _Collector()
        c.feed(file.read_text(encoding="utf-8"))
        for href in c.links:
            parts = urlsplit(href)
            if not parts.scheme and parts.path.startswith("/") and not parts.path.startswith("/static/"):
                queue.append(unquote(parts.path).rstrip("/") or "/")
    missing = [r.hf_id for r in built_site["content"].recipes if f"/{r.hf_id}" not in seen]
    assert not missing
