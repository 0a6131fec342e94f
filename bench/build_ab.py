"""What a change costs the build: paired full builds of ``../shared/upstream``, before and after.

``build_ab.py [REV] [--pairs 5]`` checks out ``REV`` (default ``HEAD``) as a temporary git worktree
("before") and builds the corpus with it and with the working tree ("after"), alternating, in fresh
processes into fresh folders:

- **cold**: each tree's caches emptied before every build (``.cache/`` and ``node_modules/.cache/``:
  Brotli of the runtime, the runtime byte-compiled by Pyodide, the preview images, the templates);
- **warm**: the caches as the previous build of the same tree left them (one unmeasured build first).

Each tree gets its own ``node_modules`` of symlinks into this checkout's (the same packages, its own
``.cache``), so the two never share a cache. Prints the medians of wall time and user CPU and the
after/before ratios. Figures only, no pass/fail (issue #29's budget: cold +30 %, warm +5 %).
"""

from __future__ import annotations

import argparse
import os
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


def private_node_modules(tree: Path) -> None:
    """``tree/node_modules``: a symlink to each of this checkout's packages, and an own ``.cache``."""
    folder = tree / "node_modules"
    if folder.is_symlink():
        folder.unlink()
    folder.mkdir(exist_ok=True)
    for entry in (ROOT / "node_modules").iterdir():
        if entry.name != ".cache" and not (folder / entry.name).exists():
            os.symlink(entry, folder / entry.name)


def clear_caches(tree: Path) -> None:
    for cache in (tree / ".cache", tree / "node_modules" / ".cache"):
        shutil.rmtree(cache, ignore_errors=True)


def timed_build(tree: Path, scratch: Path) -> tuple[float, float]:
    """Wall and user-CPU seconds of one build of the corpus by ``tree`` into a fresh folder."""
    out = Path(tempfile.mkdtemp(dir=scratch)) / "site"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "builder", "build", "--content", str(UPSTREAM), "--out", str(out)],
        cwd=tree, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        sys.exit(f"the build by {tree} failed:\n{done.stderr[-2000:]}")
    return wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before.ru_utime


def _not_sources(folder: str, names: list[str]) -> set[str]:
    """What the copy of the working tree leaves out: caches, outputs, environments (top level only)."""
    top = ({".git", "node_modules", ".cache", "site", "dist", "build", "out"} if Path(folder) == ROOT
           else set())
    return {n for n in names if n in top or n.startswith(".venv") or n in {"__pycache__", ".pytest_cache"}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", default="HEAD")
    parser.add_argument("--pairs", type=int, default=5)
    parser.add_argument("--modes", default="cold,warm")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        before, after = Path(tmp) / "before", Path(tmp) / "after"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), args.rev], cwd=ROOT,
                       check=True)
        # the working tree as it is (uncommitted changes included), without its caches and outputs
        shutil.copytree(ROOT, after, symlinks=True, ignore=_not_sources)
        scratch = Path(tmp) / "out"
        scratch.mkdir()
        try:
            trees = {"before": before, "after": after}
            for tree in trees.values():
                private_node_modules(tree)
            for mode in args.modes.split(","):
                runs: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
                if mode == "warm":
                    for tree in trees.values():
                        timed_build(tree, scratch)
                for _ in range(args.pairs):
                    for name, tree in trees.items():
                        if mode == "cold":
                            clear_caches(tree)
                        runs[name].append(timed_build(tree, scratch))
                wall = {name: statistics.median(w for w, _ in r) for name, r in runs.items()}
                user = {name: statistics.median(u for _, u in r) for name, r in runs.items()}
                print(f"{mode} ({args.pairs} pairs, {args.rev} vs the working tree):")
                for name in trees:
                    print(f"  {name:7s} wall {wall[name]:6.2f} s  user {user[name]:6.2f} s   "
                          f"(wall runs: {', '.join(f'{w:.2f}' for w, _ in runs[name])})")
                print(f"  after/before: wall {wall['after'] / wall['before']:.3f}x, "
                      f"user {user['after'] / user['before']:.3f}x", flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
