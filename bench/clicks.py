"""What the builder's stored clicks cost the resolver, as the browser tests ask for them.

``clicks.py inputs FILE`` writes the clicks of every recipe of ``--content`` (default
../shared/upstream): its builder recipe, the state of its default view, its first clicks (every
stored pill of the default view) and after each its second clicks (the pills of that view).
``clicks.py run FILE --level first|second`` then answers them as the browser tests do
(tests/browser/test_stored_clicks.py): the first clicks of a recipe share one ``BuilderFacts``, the
second clicks of a recipe another; it prints the count and the CPU seconds of ``builder_state``
(``--out``: the views' JSON as the worker sends it, one line per view, to compare two trees byte for
byte, and its CPU seconds; ``--limit``: the first N recipes; ``--glue``: through the worker's glue,
JSON texts in and out, as the Pyodide test of the stored clicks asks for them). Run ``run`` under ``valgrind
--tool=callgrind`` for instruction counts (``--limit 0`` gives the cost of starting and reading the
inputs, to subtract).

    .venv/bin/python bench/clicks.py inputs /tmp/clicks.json
    .venv/bin/python bench/clicks.py run /tmp/clicks.json --level first
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from builder import resolver  # noqa: E402


def write_inputs(content_root: Path, path: Path) -> None:
    """The recipes' clicks (see the module docstring) as one JSON file."""
    from builder.content.loader import load_content
    from builder.site.browser import stored_clicks as sc
    from builder.site.browser.data import builder_recipe, builder_vocab

    content, _ = load_content(content_root)
    vocab = builder_vocab(content)
    recipes = []
    for rf in content.recipes:
        recipe = builder_recipe(rf.hf_id, rf.data)
        initial = sc.initial_view(recipe, vocab)
        if initial is None:
            continue
        facts = resolver.BuilderFacts(recipe, vocab)
        state = {**initial["state"], "_endpoints": {}}
        first, second = [], []
        for event in _unique(sc.one_click_events(initial)):
            try:
                view = sc._as_json(resolver.builder_state(recipe, vocab, state, event, facts=facts))
            except resolver.ResolveError:
                continue
            first.append(event)
            second.append([{**view["state"], "_endpoints": {}}, _unique(sc.one_click_events(view))])
        recipes.append({"hf_id": rf.hf_id, "recipe": recipe, "state": state, "first": first,
                        "second": second})
    path.write_text(json.dumps({"vocab": vocab, "recipes": recipes}))


def _unique(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    from builder.site.browser.stored_clicks import event_key

    return list({event_key(e): e for e in events}.values())


def glue_module() -> Any:
    """builder/site/browser/worker_glue.py as the worker imports it (beside a top-level ``resolver``)."""
    import importlib.util

    sys.modules["resolver"] = resolver
    spec = importlib.util.spec_from_file_location("recipes_worker_glue",
                                                  ROOT / "builder" / "site" / "browser" / "worker_glue.py")
    assert spec is not None and spec.loader is not None
    glue = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(glue)
    return glue


def run_glue(path: Path, level: str, limit: int | None, out: Path | None) -> None:
    """:func:`run` through the glue: its ``view`` text of every click (CPU seconds of ``view``)."""
    data = json.loads(path.read_text())
    glue = glue_module()
    glue.set_vocab(json.dumps(data["vocab"]))
    gc.freeze()
    texts: list[str] = []
    seconds = 0.0
    for doc in data["recipes"][:limit]:
        glue.set_recipe(doc["hf_id"], json.dumps(doc["recipe"]))
        clicks = ([(doc["state"], doc["first"])] if level == "first"
                  else [(state, events) for state, events in doc["second"]])
        for state, events in clicks:
            state_text = json.dumps(state)
            for event in events:
                event_text = json.dumps(event)
                start = time.process_time()
                try:
                    text = glue.view(doc["hf_id"], state_text, event_text)
                except resolver.ResolveError as error:
                    text = json.dumps(f"error: {error}", ensure_ascii=False)
                seconds += time.process_time() - start
                texts.append(text)
        glue.drop_recipe(doc["hf_id"])
    print(f"{level} clicks through the glue: {len(texts)} views, view {seconds:.2f} s CPU "
          f"({1000 * seconds / max(1, len(texts)):.3f} ms per view)")
    if out is not None:
        out.write_text("\n".join(texts) + "\n")


def run(path: Path, level: str, limit: int | None, out: Path | None) -> None:
    """Answer the clicks of ``level`` and print their count and CPU seconds."""
    data = json.loads(path.read_text())
    vocab, recipes = data["vocab"], data["recipes"][:limit]
    gc.freeze()  # the inputs are no garbage: collections walk only what the clicks allocate
    texts: list[str] = []
    count, seconds, dumping = 0, 0.0, 0.0
    for doc in recipes:
        recipe = doc["recipe"]
        facts = resolver.BuilderFacts(recipe, vocab)
        clicks = ([(doc["state"], doc["first"])] if level == "first"
                  else [(state, events) for state, events in doc["second"]])
        for state, events in clicks:
            for event in events:
                start = time.process_time()
                try:
                    view: Any = resolver.builder_state(recipe, vocab, state, event, facts=facts)
                except resolver.ResolveError as error:
                    view = f"error: {error}"
                seconds += time.process_time() - start
                count += 1
                if out is not None:  # the worker's glue sends the view as this text
                    start = time.process_time()
                    texts.append(json.dumps(view, ensure_ascii=False))
                    dumping += time.process_time() - start
    print(f"{level} clicks of {len(recipes)} recipes: {count} views, builder_state {seconds:.2f} s CPU "
          f"({1000 * seconds / max(1, count):.3f} ms per view)"
          + (f", their JSON text {dumping:.2f} s" if out is not None else ""))
    if out is not None:
        out.write_text("\n".join(texts) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", choices=("inputs", "run"))
    parser.add_argument("file", type=Path)
    parser.add_argument("--content", type=Path, default=ROOT.parent / "shared" / "upstream")
    parser.add_argument("--level", choices=("first", "second"), default="first")
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--glue", action="store_true")
    args = parser.parse_args()
    if args.command == "inputs":
        write_inputs(args.content, args.file)
    else:
        (run_glue if args.glue else run)(args.file, args.level, args.limit, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
