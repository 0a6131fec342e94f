"""``vllm-recipes add-benchmark``: measured results read from benchmark files, checked, and stored beside the
recipe (``models/<org>/<repo>.benchmarks.json``).

:mod:`.source` reads one file without trusting it (no link followed, a size cap, strict JSON without NaN or
Infinity); :mod:`.formats` reads a ``vllm bench serve --save-result`` file or an InferenceX result row;
:mod:`.command` checks each against the recipe (the model, the selection it names, the figures' bounds)
and writes the results file only when every file is good.
"""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction, default_content: Path, content_help: str) -> None:
    """Add ``add-benchmark`` to the top-level subparsers."""
    a = sub.add_parser(
        "add-benchmark", help="store measured results beside a recipe (vllm bench serve --save-result files, "
        "InferenceX rows)", description="Reads vllm bench serve --save-result JSON files (the selection from "
        "--metadata gpu=, variant=, strategy=) and InferenceX result rows, checks them against the recipe "
        "and the commands it publishes, and stores them with their provenance in "
        "models/<org>/<repo>.benchmarks.json. A bad file: file: field: message, exit 1, nothing written.")
    a.add_argument("recipe", help="<org>/<repo>")
    a.add_argument("files", nargs="+", type=Path, metavar="RESULT.json")
    a.add_argument("--hardware", help="hardware profile id (when a file does not name one)")
    a.add_argument("--variant", help="variant key (when a file does not name one)")
    a.add_argument("--strategy", help="strategy id (when a file does not name one)")
    a.add_argument("--source", metavar="URL", help="where the files are published (http(s); provenance)")
    a.add_argument("--content", type=Path, default=default_content, help=content_help)


def run(args: argparse.Namespace) -> int:
    """Run ``add-benchmark``; the exit status."""
    from builder.cli.reporting import reported
    from builder.cli.results.command import Options, add_benchmark

    options = Options(args.recipe, args.files, args.content, args.hardware, args.variant, args.strategy,
                      args.source)
    return reported(lambda: add_benchmark(options))
