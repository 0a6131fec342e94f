"""The sites the browser tests read: the shared upstream build, and our recipes/ with provenance."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from builder.build import BuildOptions, Pipeline
from builder.content import Vocabulary
from builder.loader import load_content
from builder.writer import write_tree

PROJECT = Path(__file__).resolve().parents[2]
SHARED = PROJECT.parent / "shared"
UPSTREAM = SHARED / "upstream"
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
    return {"content": result.content, "output": result.output, "pages": pages, "dir": out_dir}


def build_presets_site(out_dir: Path) -> dict[str, Any]:
    """Our recipes/ (MiniMax-M3 has presets, notes and overlays) with site provenance."""
    return build_real(PROJECT / "recipes", out_dir, PRESETS_SOURCE)


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
