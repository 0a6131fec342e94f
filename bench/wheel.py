"""The installed tool against the checkout: the wheel's size, and build times of ../shared/upstream.

Builds the wheel from a copy of the checkout (as tests/test_wheel.py does), installs it into a fresh
venv, then times full builds of the corpus, each a fresh process into a fresh folder, alternating the
installed ``vllm-recipes build`` (run from another folder, its own cache) and the checkout's
``python -m builder build``: medians of ``--runs`` each (wall and user CPU), and whether the two sites
are byte-identical.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.package import build_wheel, checkout_copy, install  # noqa: E402
from tests.support.paths import UPSTREAM  # noqa: E402


def timed(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(wall s, user CPU s of the process and its children) of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed")
    return time.perf_counter() - start, usage.ru_utime


def digest(root: Path) -> str:
    hashes = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file():
            hashes.update(
                path.relative_to(root).as_posix().encode() + hashlib.sha256(path.read_bytes()).digest())
    return hashes.hexdigest()


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=3)
    runs = options.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        wheel = build_wheel(checkout_copy(folder / "src"), folder / "dist")
        print(f"wheel {wheel.name}: {wheel.stat().st_size / 1e6:.1f} MB ({wheel.stat().st_size:,} bytes), "
              f"built in {time.perf_counter() - start:.1f} s (warm node_modules caches)")
        tool = install(wheel, folder / "venv") / "vllm-recipes"
        elsewhere = folder / "elsewhere"
        elsewhere.mkdir()
        env = {**os.environ, "VLLM_RECIPES_CACHE": str(folder / "user-cache")}
        results: dict[str, list[tuple[float, float]]] = {"installed": [], "checkout": []}
        sites: dict[str, Path] = {}
        for run in range(runs + 1):  # the first round warms the installed tool's cache; not counted
            for label in ("installed", "checkout"):
                out = folder / f"{label}-{run}"
                argv = ([str(tool), "build", "--content", str(UPSTREAM), "--out", str(out)]
                        if label == "installed"
                        else [sys.executable, "-m", "builder", "build", "--content", str(UPSTREAM), "--out",
                              str(out)])
                measured = timed(argv, elsewhere if label == "installed" else ROOT, env)
                if run:
                    results[label].append(measured)
                sites[label] = out
        for label, measured in results.items():
            print(f"{label:9} build of upstream: median "
                  f"{statistics.median(w for w, _ in measured):.2f} s wall, "
                  f"{statistics.median(u for _, u in measured):.2f} s user  runs "
                  f"{[round(w, 2) for w, _ in measured]}")
        same = digest(sites["installed"]) == digest(sites["checkout"])
        print(f"sites byte-identical: {'yes' if same else 'NO'}")


if __name__ == "__main__":
    main()
