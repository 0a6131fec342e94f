"""Command line: ``python -m builder build|check|...``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from builder.build import SOURCE_KEYS, BuildOptions, build
from builder.errors import ContentError
from builder.loader import load_content


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    top = argparse.ArgumentParser(prog="python -m builder", description="vLLM recipes site builder")
    sub = top.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="validate the content and write the site")
    b.add_argument("--content", type=Path, default=Path("recipes"), help="content root (default: recipes/)")
    b.add_argument("--out", type=Path, default=Path("site"), help="output folder (default: site/)")
    b.add_argument("--strict", action="store_true", help="treat warnings as errors")
    b.add_argument("--json-only", action="store_true", help="write only the JSON API, no HTML pages")
    for key in SOURCE_KEYS:
        b.add_argument(f"--source-{key}", dest=f"source_{key}", default=None, help=f"provenance: {key}")

    c = sub.add_parser("check", help="validate the content only")
    c.add_argument("--content", type=Path, default=Path("recipes"))
    c.add_argument("--strict", action="store_true")
    return top


def check(content: Path, strict: bool) -> int:
    """Validation only; same messages as the build."""
    try:
        _, problems = load_content(content, strict=strict)
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{content}: ok ({len(problems)} warning(s))")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; returns the exit status."""
    args = parser().parse_args(argv)
    if args.command == "build":
        source = {key: getattr(args, f"source_{key}") for key in SOURCE_KEYS}
        options = BuildOptions(args.content, args.out, args.strict, html=not args.json_only, source=source)
        return build(options)
    if args.command == "check":
        return check(args.content, args.strict)
    return 2
