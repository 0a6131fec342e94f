"""Median wall time of 5 full builds of ../shared/upstream (JSON only, then JSON and HTML).

``--scale N``: one full build of the corpus once and N times over (copies 2..N with renamed
orgs: ``Qwen`` becomes ``Qwen-copy2`` in paths and in every ``Qwen/…`` id the texts mention),
each in a fresh process, with its wall time, user CPU and peak memory (the largest resident
set of the build and its forked page process), to show time stays linear and memory bounded.

Each build is a fresh process writing into a fresh folder. Wall time on this VM depends on
its disk (ext4 mounted with ``discard``: creating ~14,000 small files costs 0.3-3 s of system
time, more while earlier deletions are still being discarded), so the CPU time (user, and
the system time the file writes cost) is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"


def timed_build(extra: list[str], folder: str, runs: int = 5,
                cpu: list[tuple[float, float]] | None = None) -> list[float]:
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
            [sys.executable, "-m", "builder", "build", "--content", str(UPSTREAM), "--out", f"{out}/site",
             *extra],
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
    from builder.api.argv_lint import ArgvLint
    from builder.api.publish import ApiBuilder
    from builder.content.loader import load_content

    content, _ = load_content(UPSTREAM)
    lint = ArgvLint.record

    def one(enabled: bool) -> float:
        ArgvLint.record = lint if enabled else (lambda self, record, preset=None: None)  # type: ignore[method-assign]
        from builder.checks import vllm_lint

        vllm_lint.clear_lint_cache()
        start = time.perf_counter()
        ApiBuilder(content).build()
        return time.perf_counter() - start

    try:
        with_lint = statistics.median(one(True) for _ in range(runs))
        without = statistics.median(one(False) for _ in range(runs))
    finally:
        ArgvLint.record = lint  # type: ignore[method-assign]
    return with_lint, without


def scaled_corpus(copies: int, folder: Path) -> Path:
    """``copies`` copies of upstream's recipes in ``folder`` (the vocabulary once); returns its root."""
    root = folder / f"upstream-x{copies}"
    shutil.copytree(UPSTREAM, root)
    models = root / "models"
    orgs = sorted(p.name for p in models.iterdir() if p.is_dir())
    own_id = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(org) for org in orgs) + r")/")
    for copy in range(2, copies + 1):
        for org in orgs:
            target = models / f"{org}-copy{copy}"
            target.mkdir()
            for recipe in sorted((models / org).iterdir()):
                text = recipe.read_text(encoding="utf-8")
                (target / recipe.name).write_text(own_id.sub(rf"\1-copy{copy}/", text), encoding="utf-8")
    return root


def measured_build(content: Path, out: Path) -> tuple[float, float, float]:
    """(wall s, user CPU s, peak resident MB) of one full build of ``content`` in a fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "builder", "build", "--content", str(content), "--out", str(out)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"the build of {content} failed (exit {child.returncode})")
    return wall, usage.ru_utime, usage.ru_maxrss / 1024  # ru_maxrss: KiB on Linux


def scale(copies: int) -> None:
    """One full build at 1x and at ``copies``x the corpus: time, CPU, memory per recipe."""
    with tempfile.TemporaryDirectory() as folder:
        rows = []
        for factor in (1, copies):
            content = UPSTREAM if factor == 1 else scaled_corpus(factor, Path(folder))
            recipes = sum(1 for _ in (content / "models").rglob("*.yaml"))
            out = Path(folder) / f"site-x{factor}"
            wall, user, peak = measured_build(content, out)
            files = sum(len(names) for _, _, names in os.walk(out))
            rows.append((factor, recipes, files, wall, user, peak))
        for factor, recipes, files, wall, user, peak in rows:
            print(f"scale {factor:>2}: {recipes} recipes, {files} files: {wall:.2f} s wall, "
                  f"{user:.2f} s user, peak {peak:.0f} MB ({1000 * wall / recipes:.1f} ms wall, "
                  f"{1024 * peak / recipes:.0f} KB per recipe)")
        (_, _, _, wall1, user1, _), (_, _, _, wall_n, user_n, _) = rows
        print(
            f"{copies}x the corpus: {wall_n / wall1:.2f}x the wall time, {user_n / user1:.2f}x the user CPU")


def main() -> None:
    if not UPSTREAM.is_dir():
        sys.exit(f"../shared/upstream is absent ({UPSTREAM})")
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--scale", type=int, metavar="N", help="build the corpus N times over instead")
    scaled = options.parse_args().scale
    if scaled is not None:
        scale(scaled)
        return
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
    print(f"HTML overhead: {statistics.median(full) / statistics.median(json_only):.2f}x the "
          "JSON-only build (wall), "
          f"{statistics.median(u for u, _ in full_cpu) / statistics.median(u for u, _ in json_cpu):.2f}x "
          "(user CPU)")
    with_lint, without = lint_share()
    print(f"vLLM CLI lint: JSON API built in memory in {with_lint:.2f} s with it, {without:.2f} s without "
          f"(+{with_lint - without:.2f} s, "
          f"{100 * (with_lint - without) / statistics.median(json_only):.0f}% of the JSON-only build)")


if __name__ == "__main__":
    main()
