"""``vllm-recipes diff`` on the upstream corpus against one build of it.

Copies ../shared/upstream, changes one flag of one recipe (Qwen/Qwen3-8B's ``--max-num-batched-tokens``
on CPUs), then alternates ``--runs`` times: one full build (``python -m builder build``, a fresh
process into a fresh folder) and one ``python -m builder diff UPSTREAM COPY`` (both sides built in
memory, the base in a forked child). Prints the medians (wall, user CPU) and their ratio; the target
is a diff within 2x one build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"
RECIPE = Path("models/Qwen/Qwen3-8B.yaml")


def timed(argv: list[str]) -> tuple[float, float, int]:
    """(wall s, user CPU s with children, exit status) of one fresh process."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - start, usage.ru_utime, os.waitstatus_to_exitcode(status)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--runs", type=int, default=5)
    runs = options.parse_args().runs
    with tempfile.TemporaryDirectory() as tmp:
        head = Path(tmp) / "upstream-changed"
        shutil.copytree(UPSTREAM, head)
        recipe = head / RECIPE
        recipe.chmod(0o644)
        text = recipe.read_text(encoding="utf-8")
        assert '      - "16384"\n' in text
        recipe.write_text(text.replace('      - "16384"\n', '      - "32768"\n', 1), encoding="utf-8")
        builds: list[tuple[float, float, int]] = []
        diffs: list[tuple[float, float, int]] = []
        for run in range(runs):
            builds.append(timed([sys.executable, "-m", "builder", "build", "--content", str(UPSTREAM),
                                 "--out", str(Path(tmp) / f"site-{run}")]))
            diffs.append(timed([sys.executable, "-m", "builder", "diff", str(UPSTREAM), str(head)]))
    assert all(status == 0 for *_, status in builds) and all(status == 1 for *_, status in diffs)
    for label, measured in (("one build", builds), ("diff     ", diffs)):
        print(f"{label}: median {statistics.median(w for w, *_ in measured):.2f} s wall, "
              f"{statistics.median(u for _, u, _ in measured):.2f} s user  runs "
              f"{[round(w, 2) for w, *_ in measured]}")
    ratio = statistics.median(w for w, *_ in diffs) / statistics.median(w for w, *_ in builds)
    print(f"diff of two upstream builds (one recipe changed) = {ratio:.2f}x one build (wall, "
          "medians; target <= 2x)")


if __name__ == "__main__":
    main()
