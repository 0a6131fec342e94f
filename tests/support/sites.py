"""Building the sites tests read: any content root, and our recipes/ with provenance."""

from __future__ import annotations

from functools import cache
from io import StringIO
from pathlib import Path
from typing import Any, TypedDict

import pytest

from builder.cli.build import BuildOptions, Pipeline
from builder.content.loader import load_content
from builder.content.model import Vocabulary
from builder.output.writer import write_tree
from tests.support.paths import RECIPES, UPSTREAM
from tests.support.trees import discards_done
from tests.support.turns import allow_forks

# what the presets site says it is built from, so that its pages carry edit links
PRESETS_SOURCE = {"repo": "vllm-project/recipes", "ref": "main", "prefix": "recipes",
                  "sha": "0123456789abcdef0123456789abcdef01234567"}


@cache
def load_vocab() -> Vocabulary:
    """The upstream vocabulary, through the real loader."""
    return load_content(UPSTREAM)[0].vocab


def build_real(root: Path, out_dir: Path, source: dict[str, str | None] | None = None) -> dict[str, Any]:
    """Run the project's build (JSON API + pages) on a content root and write it to ``out_dir``."""
    result = Pipeline(BuildOptions(content=root, out=out_dir, source=source or {})).run()
    write_tree(result.files, out_dir)
    pages = {k: v for k, v in result.files.items() if k not in result.output.files}
    return {"content": result.content, "output": result.output, "pages": pages, "files": result.files,
            "dir": out_dir}


def build_for(root: Path, out_dir: Path, base_url: str) -> dict[str, Any]:
    """``root`` built for publishing at ``base_url`` into ``out_dir``: ``{"dir", "pages", "files"}``."""
    result = Pipeline(BuildOptions(content=root, out=out_dir, base_url=base_url)).run()
    write_tree(result.files, out_dir)
    pages = {k: v for k, v in result.files.items() if k not in result.output.files}
    return {"dir": out_dir, "pages": pages, "files": result.files}


def build_presets_site(out_dir: Path) -> dict[str, Any]:
    """Our recipes/ (MiniMax-M3 has presets, notes and overlays) with site provenance."""
    return build_real(RECIPES, out_dir, PRESETS_SOURCE)


class JsonBuild(TypedDict):
    """A ``build --json-only`` by the command: its folder, what it printed (the folder's name as OUT) and
    the jobs it forked."""

    dir: Path
    out: str
    err: str
    forked: list[str]


def json_build_on_two_cores(root: Path, out_dir: Path) -> JsonBuild:
    """``build --json-only`` of ``root`` into ``out_dir`` by the command, the API resolved on two cores
    (forks allowed beside threads an earlier test left)."""
    from builder.cli.main import main

    with pytest.MonkeyPatch.context() as monkeypatch, StringIO() as stdout, StringIO() as stderr:
        started = allow_forks(monkeypatch)
        monkeypatch.setattr("sys.stdout", stdout)
        monkeypatch.setattr("sys.stderr", stderr)
        assert main(["build", "--json-only", "--content", str(root), "--out", str(out_dir)]) == 0
        printed = stdout.getvalue().replace(str(out_dir), "OUT"), stderr.getvalue()
    discards_done(out_dir.parent)
    return {"dir": out_dir, "out": printed[0], "err": printed[1], "forked": started}


def text_on_screen(locator: Any) -> str:
    """``locator``'s text as a reader sees it once scrolled there: sections off screen are not laid
    out (``content-visibility: auto``), and their ``innerText`` stays empty until the next rendering
    update has laid them out (polled: a page without JavaScript runs no animation frames for us)."""
    locator.scroll_into_view_if_needed()
    text = ""
    for _ in range(100):
        text = str(locator.inner_text())
        if text.strip():
            break
        locator.page.wait_for_timeout(50)
    return text
