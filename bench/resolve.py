"""Resolver throughput on a fixed random mix of selections, and the full upstream build time.

Prints resolver calls per second (one ``resolve`` per interactive selection, 2,000 fixed
cases from ../shared/upstream, best of 3 passes) and the median wall time of 5 full builds.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.build_upstream import UPSTREAM, timed_build  # noqa: E402
from builder import resolver  # noqa: E402
from builder.content.loader import load_content  # noqa: E402
from tests.support.samples import random_cases  # noqa: E402


def main() -> None:
    if not UPSTREAM.is_dir():
        sys.exit(f"../shared/upstream is absent ({UPSTREAM})")
    content, _ = load_content(UPSTREAM)
    vocab = content.vocab.resolver_vocab()
    cases = random_cases([r.data for r in content.recipes], vocab, 2000, seed=20261201)
    rates = []
    for _ in range(3):
        start = time.perf_counter()
        for recipe, selection in cases:
            resolver.resolve(recipe, vocab, selection)
        rates.append(len(cases) / (time.perf_counter() - start))
    print(f"resolver: {max(rates):,.0f} resolve() calls per second ({len(cases)} fixed random "
          "selections, best of 3)")
    with tempfile.TemporaryDirectory() as keep:
        builds = timed_build([], keep)
    print(f"full upstream build (JSON and HTML): median {statistics.median(builds):.2f} s of 5 "
          f"{[round(t, 2) for t in builds]}")


if __name__ == "__main__":
    main()
