"""Where the suite's CPU goes: per test, the CPU seconds of the test process and of every process it
started (Chromium, the Playwright driver, builds run as subprocesses), setup and teardown included.

On when ``VLLM_RECIPES_CPU_PROFILE`` names a file: each test appends one JSON line
``{"test", "worker", "wall", "cpu"}`` to it (xdist workers share the file). ``python -m
tests.support.cpu_profile FILE`` sums it per directory, per file and lists the costliest tests.
Wall time on a shared machine is noise; CPU seconds are what a test costs.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import TypedDict

ENV = "VLLM_RECIPES_CPU_PROFILE"
COSTS = Path(__file__).with_name("cpu_costs.json")  # CPU seconds per test file, measured: the run order
TICKS = os.sysconf("SC_CLK_TCK")


class Record(TypedDict):
    """One test's line in the profile."""

    test: str
    worker: str
    wall: float
    cpu: float


def _proc_stats() -> dict[tuple[int, int], tuple[int, float]]:
    """``(pid, start tick) -> (parent pid, user+system CPU seconds)`` of every readable process."""
    stats: dict[tuple[int, int], tuple[int, float]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                raw = handle.read()
        except OSError:
            continue
        fields = raw[raw.rfind(b")") + 2:].split()  # after "pid (comm) "
        stats[(int(entry.name), int(fields[19]))] = (int(fields[1]),
                                                     (int(fields[11]) + int(fields[12])) / TICKS)
    return stats


class Meter(threading.Thread):
    """Samples this process's descendants every ``interval`` seconds, so that CPU of a process that
    ends between two tests (a Chromium renderer, a build subprocess) is still counted (up to the last
    sample), once; appends each test's record to the profile file."""

    def __init__(self, path: str, interval: float = 0.2) -> None:
        super().__init__(daemon=True, name="cpu-profile")
        self.path = path
        self.interval = interval
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.seen: dict[tuple[int, int], float] = {}  # descendant -> its CPU at the last sample
        self.lock = threading.Lock()
        self.sample()
        self.start()

    def sample(self) -> None:
        stats = _proc_stats()
        children: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for key, (parent, _) in stats.items():
            children[parent].append(key)
        todo = list(children[os.getpid()])
        with self.lock:
            while todo:
                key = todo.pop()
                self.seen[key] = stats[key][1]
                todo.extend(children[key[0]])

    def run(self) -> None:
        while True:
            time.sleep(self.interval)
            self.sample()

    def measure(self) -> tuple[float, float]:
        """Wall clock and the CPU seconds of this process and every descendant seen so far."""
        self.sample()
        own = os.times()
        with self.lock:
            return time.perf_counter(), own.user + own.system + sum(self.seen.values())

    def record(self, test: str, wall: float, cpu: float) -> None:
        line: Record = {"test": test, "worker": self.worker, "wall": round(wall, 3), "cpu": round(cpu, 3)}
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")


_METER: list[Meter] = []


def meter() -> Meter | None:
    """This process's meter when ``VLLM_RECIPES_CPU_PROFILE`` is set (started on first use)."""
    path = os.environ.get(ENV)
    if not path:
        return None
    if not _METER:
        _METER.append(Meter(path))
    return _METER[0]


def load(path: Path) -> list[Record]:
    """The records of a profile file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def report(records: list[Record], top: int = 40) -> str:
    """CPU per directory, per file and the ``top`` costliest tests."""
    lines = [f"{len(records)} tests, {sum(r['cpu'] for r in records):.0f} s CPU, "
             f"{sum(r['wall'] for r in records):.0f} s wall (summed over workers)"]
    for depth, title in ((2, "per directory"), (None, "per file")):
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
        for r in records:
            path = r["test"].split("::")[0]
            key = "/".join(path.split("/")[:depth]) if depth else path
            sums[key][0] += r["cpu"]
            sums[key][1] += r["wall"]
            sums[key][2] += 1
        lines.append(f"-- {title}: cpu s, wall s, tests")
        for key, (cpu, wall, n) in sorted(sums.items(), key=lambda kv: -kv[1][0])[:top]:
            lines.append(f"{cpu:8.1f} {wall:8.1f} {int(n):5d}  {key}")
    lines.append("-- tests: cpu s, wall s")
    for r in sorted(records, key=lambda r: -r["cpu"])[:top]:
        lines.append(f"{r['cpu']:8.1f} {r['wall']:8.1f}  {r['test']}")
    return "\n".join(lines)


def file_costs(records: list[Record]) -> dict[str, float]:
    """CPU seconds per test file, costliest first (what :data:`COSTS` holds)."""
    sums: dict[str, float] = defaultdict(float)
    for r in records:
        sums[r["test"].split("::")[0]] += r["cpu"]
    return {path: round(cpu, 1) for path, cpu in sorted(sums.items(), key=lambda kv: (-kv[1], kv[0]))}


def main(argv: list[str]) -> None:
    """``FILE [TOP]`` prints the report; ``FILE --write`` rewrites :data:`COSTS` from it."""
    records = load(Path(argv[0]))
    if argv[1:] == ["--write"]:
        COSTS.write_text(json.dumps(file_costs(records), indent=1) + "\n", encoding="utf-8")
        return
    print(report(records, int(argv[1]) if len(argv) > 1 else 40))


if __name__ == "__main__":
    main(sys.argv[1:])
