"""Median wall time of 5 full builds of ../shared/upstream (JSON only, then JSON and HTML)."""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"


def timed_build(extra: list[str], runs: int = 5) -> list[float]:
    """Wall seconds of ``runs`` builds, each a fresh process into a fresh folder."""
    times = []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "builder", "build", "--content", str(UPSTREAM), "--out", f"{tmp}/site", *extra],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            times.append(time.perf_counter() - start)
    return times


def main() -> None:
    if not UPSTREAM.is_dir():
        sys.exit(f"../shared/upstream is absent ({UPSTREAM})")
    json_only = timed_build(["--json-only"])
    full = timed_build([])
    print(f"upstream build, JSON only:     median {statistics.median(json_only):.2f} s  {[round(t, 2) for t in json_only]}")
    print(f"upstream build, JSON and HTML: median {statistics.median(full):.2f} s  {[round(t, 2) for t in full]}")
    print(f"HTML overhead: {statistics.median(full) / statistics.median(json_only):.2f}x the JSON-only build")


if __name__ == "__main__":
    main()
