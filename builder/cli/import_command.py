"""``import-config``: a config.json's architecture facts written into a recipe, from a file
(:mod:`builder.cli.import_config`) or the Hub (:mod:`builder.cli.hub_import`), or checked against the Hub."""

from __future__ import annotations

import argparse
from pathlib import Path

from builder.cli.reporting import Refused, reported


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``import-config`` to the top-level subparsers."""
    i = sub.add_parser("import-config", help="write a config.json's architecture facts into a recipe",
                       description="From a file: import-config <org>/<repo> CONFIG.json. From the Hub "
                       "(honours HF_ENDPOINT, HF_TOKEN, HF_HOME and HF_HUB_OFFLINE): import-config "
                       "--from-hub <org>/<repo> | --all. Compare recorded revisions with the Hub: "
                       "import-config --check.")
    i.add_argument("recipe", nargs="?", help="<org>/<repo>")
    i.add_argument("config", nargs="?", type=Path, metavar="CONFIG.json")
    i.add_argument("--from-hub", action="store_true", help="read config.json from the Hugging Face Hub")
    i.add_argument("--all", action="store_true",
                   help="with --from-hub: every recipe and variant lacking facts")
    i.add_argument("--check", action="store_true",
                   help="which recipes' facts are behind the Hub (writes nothing)")
    i.add_argument("--revision", metavar="REV",
                   help="with --from-hub: a branch, tag or commit (default main)")
    i.add_argument("--variant", metavar="V", help="write into variants.<V> instead of model")
    i.add_argument("--content", type=Path, default=Path("recipes"))


def run(args: argparse.Namespace) -> int:
    """Run ``import-config``; returns the exit status."""
    return reported(lambda: import_command(args))


def import_command(args: argparse.Namespace) -> int:
    """``import-config`` in its three forms: a file, the Hub, or ``--check``."""
    # imported here: every other command starts without the Hub client and the recipe editor
    from builder.cli.hub_import import check_sources, import_from_hub
    from builder.cli.import_config import import_config

    if args.check:
        if args.recipe or args.config or args.all or args.variant or args.revision:
            raise Refused("--check takes only --content")
        return check_sources(args.content)
    if args.from_hub:
        if args.config is not None or (args.all and (args.recipe or args.variant or args.revision)):
            raise Refused("use --from-hub <org>/<repo> [--revision REV] [--variant V], or --from-hub --all")
        return import_from_hub(args.content, args.recipe, args.revision, args.variant, args.all)
    if args.recipe is None or args.config is None or args.all or args.revision:
        raise Refused("expected <org>/<repo> CONFIG.json (or --from-hub, or --check)")
    return import_config(args.content, args.recipe, args.config, args.variant)
