"""Page weight of the MiniMax-M3 recipe page and of our CSS + JS.

Budgets: recipe page HTML ≤ 150 KB; the CSS + JS it loads (excluding Pyodide) ≤ 60 KB; the web fonts
(every WOFF2 the stylesheet names) ≤ 120 KB. The logos the page shows and its preview PNG are counted
apart, without a budget. Builds our recipes/ when it has MiniMax-M3, else the shared upstream corpus.

    .venv/bin/python bench/page_weight.py [--content DIR]
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))

HF_ID = "MiniMaxAI/MiniMax-M3"
HTML_BUDGET = 150 * 1024
ASSET_BUDGET = 60 * 1024
FONT_BUDGET = 120 * 1024


def _content_root(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    ours = PROJECT / "recipes"
    if (ours / "models" / f"{HF_ID}.yaml").exists():
        return ours
    return PROJECT.parent / "shared" / "upstream"


def page_assets(html: str, files: dict[str, bytes]) -> list[str]:
    """The CSS and JS the page loads: its stylesheets and scripts, and the worker script that
    ``builder.js`` starts (Pyodide's own files are excluded by the budget)."""
    refs = re.findall(r'<link[^>]+rel="stylesheet"[^>]+href="/([^"?]+)', html)
    refs += re.findall(r'<script[^>]+src="/([^"?]+)', html)
    if "static/builder.js" in refs:
        refs.append("static/builder-worker.js")
    return [ref for ref in dict.fromkeys(refs) if ref in files and not ref.startswith("pyodide/")]


def page_images(html: str, files: dict[str, bytes]) -> tuple[list[str], list[str]]:
    """The logos the page shows (``<img>`` under static/logos/) and its og:image PNG."""
    logos = [ref for ref in dict.fromkeys(re.findall(r'<img[^>]+src="/(static/logos/[^"?]+)', html))
             if ref in files]
    og = [ref for ref in re.findall(r'<meta property="og:image" content="[^"]*?/(og/[^"?]+)', html)
          if ref in files]
    return logos, og


def font_files(files: dict[str, bytes]) -> list[str]:
    """Every font file the stylesheet names."""
    css = files.get("static/site.css", b"").decode("utf-8", "replace")
    return [f"static/{ref}"
            for ref in dict.fromkeys(re.findall(r"url\((fonts/[^)?]+\.woff2)(?:\?v=[0-9a-f]+)?\)", css))
            if f"static/{ref}" in files]


def kb(size: int) -> str:
    return f"{size / 1024:.1f} KB"


def main() -> int:
    """Build in memory, print the sizes, exit 1 when a budget is exceeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", help="content root (default: recipes/ or ../shared/upstream)")
    args = parser.parse_args()
    from builder.cli.build import BuildOptions, render

    root = _content_root(args.content)
    result = render(BuildOptions(content=root, out=PROJECT / "site"))
    page = result.files.get(f"{HF_ID}/index.html")
    if page is None:
        print(f"{HF_ID} is not in {root}", file=sys.stderr)
        return 2
    assets = {path: result.files[path] for path in page_assets(page.decode(), result.files)}
    asset_size = sum(len(v) for v in assets.values())
    asset_gz = sum(len(gzip.compress(v)) for v in assets.values())
    ok_html = len(page) <= HTML_BUDGET
    ok_assets = asset_size <= ASSET_BUDGET
    print(f"content root: {root}")
    print(f"{HF_ID} page HTML: {len(page) / 1024:.1f} KB ({len(gzip.compress(page)) / 1024:.1f} KB gzip), "
          f"budget {HTML_BUDGET // 1024} KB: {'OK' if ok_html else 'OVER'}")
    for name, data in sorted(assets.items()):
        print(f"  {name}: {len(data) / 1024:.1f} KB")
    print(f"CSS + JS: {asset_size / 1024:.1f} KB ({asset_gz / 1024:.1f} KB gzip), "
          f"budget {ASSET_BUDGET // 1024} KB: {'OK' if ok_assets else 'OVER'}")
    fonts = font_files(result.files)
    font_size = sum(len(result.files[f]) for f in fonts)
    ok_fonts = font_size <= FONT_BUDGET
    for name in fonts:
        print(f"  {name}: {kb(len(result.files[name]))}")
    print(f"fonts ({len(fonts)} WOFF2): {kb(font_size)}, budget {FONT_BUDGET // 1024} KB: "
          f"{'OK' if ok_fonts else 'OVER'}")
    logos, og = page_images(page.decode(), result.files)
    print(f"logos on the page ({len(logos)} SVG): {kb(sum(len(result.files[x]) for x in logos))}"
          f" ({kb(sum(len(gzip.compress(result.files[x])) for x in logos))} gzip); "
          f"preview image {', '.join(og) or 'none'}: {kb(sum(len(result.files[x]) for x in og))}")
    return 0 if ok_html and ok_assets and ok_fonts else 1


if __name__ == "__main__":
    sys.exit(main())
