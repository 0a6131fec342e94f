"""Cost of the preview images: every page's card drawn into an empty cache (cold), then read back (warm).

Builds the shared upstream corpus (or ``--content``), then renders every page twice on one core
with a fresh cache folder and prints the images drawn, the drawing time and the bytes.

    .venv/bin/python bench/og_images.py [--content DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", default=str(PROJECT.parent / "shared" / "upstream"))
    args = parser.parse_args()
    from builder.cli.build import BuildOptions, Pipeline
    from builder.site.og_image import PreviewCache
    from builder.site.pages import SitePages

    result = Pipeline(BuildOptions(content=Path(args.content), out=PROJECT / "site")).run()
    with tempfile.TemporaryDirectory() as folder:
        runs = []
        for label in ("cold", "warm"):
            site = SitePages(result.content, result.output)
            site.previews = PreviewCache(Path(folder))
            start = time.perf_counter()
            files = site.everything()
            total = time.perf_counter() - start
            pngs = {k: v for k, v in files.items() if k.startswith("og/")}
            runs.append(pngs)
            cache = site.previews
            per = cache.draw_seconds / cache.drawn * 1000 if cache.drawn else 0.0
            print(f"{label}: all pages {total:.1f} s; {len(pngs)} images, drawn {cache.drawn} "
                  f"({cache.draw_seconds:.1f} s, {per:.0f} ms each), read from the cache {cache.reused}; "
                  f"{sum(map(len, pngs.values())) / 1e6:.2f} MB")
    print(f"byte-identical cold and warm: {runs[0] == runs[1]}")
    return 0 if runs[0] == runs[1] else 1


if __name__ == "__main__":
    sys.exit(main())
