"""Command line: ``vllm-recipes build|check|...`` (also ``python -m builder ...``)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from pathlib import Path

from builder.cli import diff, import_command, memory, results
from builder.cli.build import SOURCE_KEYS, BuildOptions, build, render
from builder.cli.new import new_recipe
from builder.cli.reporting import Refused, reported
from builder.cli.resolve import Choice, resolve_command
from builder.content.base_path import BasePathError, base_path
from builder.content.loader import load_content
from builder.content.log_text import log_text
from builder.content.problems import ContentError
from builder.resolver.deploy import DEPLOY_FORMATS, FORMATS

DEFAULT_CONTENT = Path("recipes")
CONTENT_HELP = "content root, the folder holding taxonomy.yaml and models/ (default: ./recipes)"


class _Version(argparse.Action):
    """``--version``: computed when asked (it reads the catalogue and Pyodide's package)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0,
                         help="print the versions of the tool, its vLLM flag catalogue "
                         "and Pyodide, and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        print(version_text())
        parser.exit()


def version_text() -> str:
    """The tool's version, the vLLM release its flag catalogue comes from, and the Pyodide it ships."""
    from importlib.metadata import PackageNotFoundError, version

    from builder.checks.vllm_catalogue import catalogue
    from builder.site.browser.bundle import pyodide_version

    try:
        tool = version("vllm-recipes-builder")
    except PackageNotFoundError:
        tool = "(not installed: run `pip install -e .` in the checkout)"
    return (f"vllm-recipes {tool}\nvLLM flag catalogue {catalogue().version}\n"
            f"Pyodide {pyodide_version() or '(missing: run `npm ci` in the checkout)'}")


def parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    top = argparse.ArgumentParser(prog="vllm-recipes", description="vLLM recipes site builder")
    top.add_argument("--version", action=_Version)
    sub = top.add_subparsers(dest="command", required=True)

    b = sub.add_parser("build", help="validate the content and write the site")
    b.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help=CONTENT_HELP)
    b.add_argument("--out", type=Path, default=Path("site"), help="output folder (default: site/)")
    b.add_argument("--strict", action="store_true", help="treat warnings as errors")
    b.add_argument("--json-only", action="store_true", help="write only the JSON API, no HTML pages")
    b.add_argument("--base-url", metavar="URL", default=None,
                   help="where the site is published, e.g. https://you.github.io/recipes (canonical "
                        "links, sitemap, feed, robots, OG; a path serves every page under it); default: "
                        "site.yaml base_url, else http://127.0.0.1:8000")
    for key in SOURCE_KEYS:
        b.add_argument(f"--source-{key}", dest=f"source_{key}", default=None, help=f"provenance: {key}")

    c = sub.add_parser("check", help="validate the content only")
    c.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help=CONTENT_HELP)
    c.add_argument("--strict", action="store_true")

    r = sub.add_parser("resolve", help="print the command for a selection, from the same resolver")
    r.add_argument("recipe", help="<org>/<repo> (a promoted variant id works too)")
    r.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help=CONTENT_HELP)
    r.add_argument("--hardware")
    r.add_argument("--variant")
    r.add_argument("--strategy")
    r.add_argument("--feature", action="append", default=[], metavar="F[=MODE]",
                   help="enable a feature (and mode)")
    r.add_argument("--no-feature", action="append", default=[], metavar="F", help="disable a feature")
    r.add_argument("--nodes", type=int)
    r.add_argument("--kv-offload", metavar="K")
    r.add_argument("--preset", metavar="P[:POINT]")
    r.add_argument("--docker", action="store_true", help="print the docker run form")
    r.add_argument("--json", action="store_true", help="print the rendering record")
    r.add_argument("--target", metavar="ttft=S,tps_user=N[,gpus=G]",
                   help="the command meeting a target (TTFT at most S seconds, at least N tokens/s "
                        "per user, at most G GPUs) with the most predicted tokens/s per GPU")
    r.add_argument("--workload", default="1k/1k", choices=["1k/1k", "8k/1k", "1k/8k"],
                   help="with --target: input/output tokens (default 1k/1k)")
    r.add_argument("--format", choices=["text", *FORMATS], default="text",
                   help="text: the commands (default); " + "; ".join(f"{f.id}: {f.label} files"
                                                                     for f in DEPLOY_FORMATS))

    n = sub.add_parser("new", help="write a commented recipe skeleton that passes check")
    n.add_argument("recipe", help="<org>/<repo>")
    n.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help=CONTENT_HELP)

    s = sub.add_parser("serve", help="build, serve on 127.0.0.1 and rebuild on every edit")
    s.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help=CONTENT_HELP)
    s.add_argument("--out", type=Path, default=Path("site"))
    s.add_argument("--port", type=int, default=8000)
    s.add_argument("--no-watch", action="store_true", help="serve without watching for edits")
    s.add_argument("--base-url", metavar="URL", default=None,
                   help="preview a deploy under this URL: with a path "
                        "(https://you.github.io/recipes) the site is served under that path, as the "
                        "host will serve it")
    p = sub.add_parser("predict",
                       help="predict every published command's speed (the perf extra) and store it beside "
                       "the recipe",
                       description="Runs AIConfigurator (pip install 'vllm-recipes-builder[perf]') for "
                       "every published command on a GPU it has measurements of: 1k/1k, 8k/1k and "
                       "1k/8k tokens over a concurrency sweep; writes models/<org>/<repo>.performance.json. "
                       "--check lists stale predictions and writes nothing.")
    p.add_argument("recipe", nargs="?", help="<org>/<repo>")
    p.add_argument("--all", action="store_true", help="every recipe")
    p.add_argument("--check", action="store_true",
                   help="list recipes whose predictions are stale (writes nothing)")
    p.add_argument("--content", type=Path, default=DEFAULT_CONTENT, help=CONTENT_HELP)
    results.add_parser(sub, DEFAULT_CONTENT, CONTENT_HELP)
    memory.add_parser(sub)
    import_command.add_parser(sub)
    diff.add_parser(sub)
    return top


def check(content: Path, strict: bool) -> int:
    """Validation only: the same loading, rendering and lint messages as the build, nothing written."""
    try:
        result = render(BuildOptions(content, out=Path(), strict=strict, html=False))
    except ContentError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return 1
    for problem in result.problems:
        print(problem, file=sys.stderr)
    print(log_text(f"{content}: ok ({len(result.problems)} warning(s))"))
    return 0


def missing_content(args: argparse.Namespace) -> str | None:
    """Why the command can't read its ``--content`` folder (None when it can, or needs none)."""
    content: Path | None = getattr(args, "content", None)
    if content is None or content.is_dir() or (args.command == "memory" and args.hardware is None):
        return None
    if content != DEFAULT_CONTENT:
        return f"--content {content}: no such folder"
    hint = " (this folder holds taxonomy.yaml: pass --content .)" if Path("taxonomy.yaml").is_file() else ""
    return (f"no recipes/ folder in {Path.cwd()}: pass --content DIR, the content root that "
            f"holds taxonomy.yaml and models/{hint}")


def main(argv: list[str] | None = None) -> int:
    """Run one subcommand; returns the exit status."""
    args = parser().parse_args(argv)
    refused = missing_content(args)
    if refused is None and getattr(args, "base_url", None) is not None:
        try:
            base_path(args.base_url)
        except BasePathError as err:
            refused = f"--base-url {err}"
    if refused is not None:
        print(log_text(f"error: {refused}"), file=sys.stderr)
        return 2
    if args.command == "memory":
        return memory.run(args)
    if args.command == "import-config":
        return import_command.run(args)
    if args.command == "diff":
        return diff.run(args)
    if args.command == "build":
        source = {key: getattr(args, f"source_{key}") for key in SOURCE_KEYS}
        options = BuildOptions(args.content, args.out, args.strict, html=not args.json_only, source=source,
                               base_url=args.base_url)
        return build(options)
    if args.command == "check":
        return check(args.content, args.strict)
    if args.command == "resolve":
        return resolve(args)
    if args.command == "predict":
        from builder.cli.predict import predict

        return reported(lambda: predict(args.content, args.recipe, args.all, args.check))
    if args.command == "add-benchmark":
        return results.run(args)
    if args.command == "new":
        return new(args.content, args.recipe)
    if args.command == "serve":
        from builder.cli.serve import serve

        return serve(args.content, args.out, args.port, watch=not args.no_watch, base_url=args.base_url)
    return 2


# Choice fields whose command-line option has another name (``--feature F`` adds to ``features``).
_RESOLVE_OPTIONS = {"features": "feature", "no_features": "no_feature", "as_json": "json", "output": "format"}


def resolve(args: argparse.Namespace) -> int:
    """``resolve``: the command for a selection, or the valid choices when one is invalid."""
    options = {name: getattr(args, _RESOLVE_OPTIONS.get(name, name)) for name in Choice.__dataclass_fields__}
    choice = Choice(**options)

    def run() -> int:
        content, _ = load_content(args.content)
        print(resolve_command(content, choice))
        return 0

    return reported(run)


def new(content: Path, hf_id: str) -> int:
    """``new``: write a recipe skeleton."""
    try:
        path = new_recipe(content, hf_id, date.today().isoformat())
    except Refused as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}; check it with: vllm-recipes check --content {content}")
    return 0


def run() -> None:
    """The ``vllm-recipes`` console script."""
    sys.exit(main())
