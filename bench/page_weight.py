"""Page weight of the MiniMax-M3 recipe page and of our CSS + JS.

Budgets: recipe page HTML ≤ 150 KB; the CSS + JS it loads (excluding Pyodide) ≤ 60 KB.
Builds our recipes/ when it has MiniMax-M3, else the shared upstream corpus.

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


def main() -> int:
    """Build in memory, print the sizes, exit 1 when a budget is exceeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", help="content root (default: recipes/ or ../shared/upstream)")
    args = parser.parse_args()
    from builder.build import BuildOptions, render

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
    return 0 if ok_html and ok_assets else 1


if __name__ == "__main__":
    sys.exit(main())
