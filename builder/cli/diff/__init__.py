"""``vllm-recipes diff BASE HEAD``: what a change of the content publishes, for its reviewers.

:mod:`.inputs` turns two folders, or two revisions of a git repository, into two content roots;
:mod:`.sides` builds both in memory with the build's own pipeline (one in a forked child);
:mod:`.report` compares them (:mod:`.commands`: a record's commands in each published form);
:mod:`.markdown` writes the pull-request comment. Exit 0 when nothing published changes, 1 when
something does (``--exit-zero``: always 0), 2 on bad input; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

MARKDOWN_LINES = 400  # a reviewer reads far fewer
MARKDOWN_CHARS = 56_000  # GitHub comments hold 65,536 characters; the Action adds a failed check's output


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``diff`` to the top-level subparsers."""
    d = sub.add_parser("diff",
                       help="what a change of the content publishes: recipes, endpoints, commands, memory, "
                                    "warnings")
    d.add_argument("base", metavar="BASE", help="the content root before the change (with --git: a revision)")
    d.add_argument("head", metavar="HEAD", help="the content root after the change (with --git: a revision)")
    d.add_argument("--git", type=Path, metavar="REPO_DIR",
                   help="compare two revisions of this git repository, e.g. origin/main HEAD")
    d.add_argument("--content", dest="git_content", metavar="PATH",
                   help="with --git: the content root inside the repository (default: recipes/ when the head "
                        "revision has one, else the repository's root)")
    d.add_argument("--format", choices=["markdown", "json"], default="markdown",
                   help="markdown (default, short enough for a pull-request comment) or json (everything)")
    d.add_argument("--exit-zero", action="store_true", help="exit 0 even when something published changes")
    d.add_argument("--max-lines", type=int, default=MARKDOWN_LINES, metavar="N",
                   help=f"cap of the Markdown (whole sections; default {MARKDOWN_LINES})")
    d.add_argument("--max-chars", type=int, default=MARKDOWN_CHARS, metavar="N",
                   help="cap of the Markdown in characters (whole sections; default "
                        f"{MARKDOWN_CHARS:,}, under "
                        "GitHub's 65,536 for a comment)")


def run(args: argparse.Namespace) -> int:
    """Compare, print the report; the exit status."""
    from builder.cli.diff.inputs import InputError, trees
    from builder.cli.diff.markdown import render
    from builder.cli.diff.report import compare
    from builder.cli.diff.sides import build_sides
    from builder.content.log_text import log_text
    from builder.site.browser.bundle import BrowserFilesMissing

    try:
        with trees(args.base, args.head, args.git, args.git_content) as (base, head):
            report = compare(*build_sides(base, head))
    except (InputError, BrowserFilesMissing) as exc:
        print(log_text(f"error: {exc}"), file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug of ours: one line, no traceback, in a reviewer's CI log
        print(log_text(f"error: the comparison failed ({type(exc).__name__}: {exc}); please report it"),
              file=sys.stderr)
        return 2
    if args.format == "json":
        sys.stdout.write(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render(report, args.max_lines, args.max_chars))
    return 0 if args.exit_zero or not report["changed"] else 1
