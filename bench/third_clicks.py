"""What storing a third click would cost the build (issue #29: measured, not kept).

For ``../shared/upstream`` (or ``--content``), in this process, it prints the CPU seconds of every
recipe's builder data and stored clicks as the build computes them today (first and second clicks,
:func:`builder.site.browser.data._recipe_files`), then the count and CPU seconds of the views a
third stored level would need for the likeliest path only: hardware, then a variant, then a strategy
or nodes pill (the page's reading order), as patches of the second click's view, counting only
that level's own work.  Compare both with the cold build's growth (``bench/build_ab.py``, at most
30 %): today's stored clicks take most of it.

    .venv/bin/python bench/third_clicks.py [--content ../shared/upstream]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from builder import resolver  # noqa: E402
from builder.content.loader import load_content  # noqa: E402
from builder.site.browser import stored_clicks as sc  # noqa: E402
from builder.site.browser.data import _recipe_files, builder_recipe, builder_vocab, recipe_data  # noqa: E402

THIRD_ROWS = ("strategy", "nodes")


def third_level(recipe: dict[str, Any], vocab: dict[str, Any]) -> tuple[int, float]:
    """The views hardware -> variant -> strategy/nodes of one recipe: their count and the CPU seconds
    of computing and patching them (the first and second levels they start from are not counted:
    the build computes those already)."""
    initial = sc.initial_view(recipe, vocab)
    if initial is None:
        return 0, 0.0
    facts = resolver.BuilderFacts(recipe, vocab)
    unlimited = [sys.maxsize]
    first = sc._clicks_after(facts, initial, unlimited, {})
    first_steps = {key: click.step for key, click in first.items()}
    count, seconds = 0, 0.0
    for key, click in first.items():
        if json.loads(key)["type"] != "hardware":
            continue
        for key2, second in sc._clicks_after(facts, click.view, unlimited, first_steps).items():
            if json.loads(key2)["type"] != "variant" or second.view is None:
                continue
            start = time.process_time()
            state = {**second.view["state"], "_endpoints": {}}
            for event in sc.one_click_events(second.view):
                if event["type"] not in THIRD_ROWS:
                    continue
                try:
                    view = sc._as_json(resolver.step_view(facts, resolver.builder_step(facts, state, event)))
                except Exception:  # noqa: BLE001 - as the stored clicks: such a click is not stored
                    continue
                sc.view_patch(second.view, view)
                count += 1
            seconds += time.process_time() - start
    return count, seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--content", type=Path, default=ROOT.parent / "shared" / "upstream")
    args = parser.parse_args()
    content, _ = load_content(args.content)
    vocab = builder_vocab(content)
    recipes = [builder_recipe(rf.hf_id, rf.data) for rf in content.recipes]
    start = time.process_time()
    for recipe in recipes:
        _recipe_files(recipe["hf_id"], recipe, recipe_data(recipe["hf_id"], recipe), vocab)
    today = time.process_time() - start
    levels = [third_level(recipe, vocab) for recipe in recipes]
    views, third = sum(n for n, _ in levels), sum(t for _, t in levels)
    print(f"{len(recipes)} recipes of {args.content}:")
    print(f"  builder data with the stored first and second clicks (today): {today:6.2f} s CPU")
    print(f"  third level, hardware -> variant -> {'/'.join(THIRD_ROWS)}: {views} views, {third:6.2f} s CPU "
          f"({third / today:.2f}x today's stored clicks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
