"""Median wall time of 5 full builds of ../shared/upstream (JSON only, then JSON and HTML).

Each build is a fresh process writing into a fresh folder. Wall time on this VM depends on
its disk (ext4 mounted with ``discard``: creating ~14,000 small files costs 0.3-3 s of system
time, more while earlier deletions are still being discarded), so the CPU time (user, and
the system time the file writes cost) is printed beside it.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"


def timed_build(extra: list[str], folder: str, runs: int = 5, cpu: list[tuple[float, float]] | None = None) -> list[float]:
    """Wall seconds of ``runs`` builds, each a fresh process into a fresh folder under ``folder``.

    ``cpu`` collects (user, system) CPU seconds of each build when given. The caller removes
    ``folder`` only after all its builds: deleting 14,000 files right before a build slows it
    (the disk is mounted with ``discard``).
    """
    times = []
    for _ in range(runs):
        out = tempfile.mkdtemp(dir=folder)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "builder", "build", "--content", str(UPSTREAM), "--out", f"{out}/site", *extra],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if cpu is not None:
            cpu.append((after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime))
    return times


def lint_share(runs: int = 3) -> tuple[float, float]:
    """Median in-process seconds of the JSON API build with and without the vLLM CLI lint."""
    from builder.api import ApiBuilder, ArgvLint
    from builder.loader import load_content

    content, _ = load_content(UPSTREAM)
    lint = ArgvLint.record

    def one(enabled: bool) -> float:
        ArgvLint.record = lint if enabled else (lambda self, record, preset=None: None)  # type: ignore[method-assign]
        from builder import vllm_lint

        vllm_lint._lint_cached.cache_clear()
        start = time.perf_counter()
        ApiBuilder(content).build()
        return time.perf_counter() - start

    try:
        with_lint = statistics.median(one(True) for _ in range(runs))
        without = statistics.median(one(False) for _ in range(runs))
    finally:
        ArgvLint.record = lint  # type: ignore[method-assign]
    return with_lint, without


def main() -> None:
    if not UPSTREAM.is_dir():
        sys.exit(f"../shared/upstream is absent ({UPSTREAM})")
    json_cpu: list[tuple[float, float]] = []
    full_cpu: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory() as keep:  # every output stays until all ten builds are done
        json_only = timed_build(["--json-only"], keep, cpu=json_cpu)
        full = timed_build([], keep, cpu=full_cpu)
    for label, walls, cpus in (("JSON only:    ", json_only, json_cpu), ("JSON and HTML:", full, full_cpu)):
        user = statistics.median(u for u, _ in cpus)
        system = statistics.median(s for _, s in cpus)
        print(
            f"upstream build, {label} median {statistics.median(walls):.2f} s wall "
            f"({user:.2f} s user, {system:.2f} s system CPU)  runs {[round(t, 2) for t in walls]}"
        )
    print(f"HTML overhead: {statistics.median(full) / statistics.median(json_only):.2f}x the JSON-only build (wall), "
          f"{statistics.median(u for u, _ in full_cpu) / statistics.median(u for u, _ in json_cpu):.2f}x (user CPU)")
    with_lint, without = lint_share()
    print(f"vLLM CLI lint: JSON API built in memory in {with_lint:.2f} s with it, {without:.2f} s without "
          f"(+{with_lint - without:.2f} s, {100 * (with_lint - without) / statistics.median(json_only):.0f}% of the "
          f"JSON-only build)")


if __name__ == "__main__":
    main()
