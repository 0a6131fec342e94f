"""Incremental rebuild under ``python -m builder serve`` on the upstream corpus.

Touches one recipe five times (a new description each time) and measures how long it
takes until its recipe document and its page are rewritten with the new text. Prints the
median and every run.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from builder.cli.serve import start_dev_server  # noqa: E402

UPSTREAM = ROOT.parent / "shared" / "upstream"
RECIPE = "models/MiniMaxAI/MiniMax-M3.yaml"
DOC = "MiniMaxAI/MiniMax-M3.json"
PAGE = "MiniMaxAI/MiniMax-M3/index.html"


def wait_for(check, timeout: float) -> float:
    """Poll ``check`` every 5 ms; return the seconds it took."""
    start = time.perf_counter()
    while time.perf_counter() - start < timeout:
        if check():
            return time.perf_counter() - start
        time.sleep(0.005)
    raise TimeoutError("no rebuild seen")


def main() -> None:
    if not UPSTREAM.is_dir():
        sys.exit(f"../shared/upstream is absent ({UPSTREAM})")
    with tempfile.TemporaryDirectory() as tmp:
        content, out = Path(tmp) / "content", Path(tmp) / "site"
        shutil.copytree(UPSTREAM, content)
        server = start_dev_server(content, out)
        try:
            recipe = content / RECIPE
            original = recipe.read_text()
            times = []
            for run in range(5):
                marker = f"Incremental benchmark run {run} {time.time()}"
                recipe.write_text(
                    original.replace('description: "MiniMax M3', f'description: "{marker} MiniMax M3', 1))

                def rewritten(marker: str = marker) -> bool:
                    try:
                        return marker in (out / DOC).read_text() and marker in (out / PAGE).read_text()
                    except OSError:
                        return False

                times.append(wait_for(rewritten, 60))
                time.sleep(0.3)
        finally:
            server.stop()
    print(f"incremental rebuild of one recipe (JSON and page): median {statistics.median(times):.3f} s "
          f"{[round(t, 3) for t in times]}")


if __name__ == "__main__":
    main()
