"""Our ``--json-only`` build of ../shared/upstream against the upstream's own JSON build, paired.

The upstream's builder is ``scripts/build-recipes-api.mjs`` of vllm-project/recipes (its output is
../shared/golden). ``--repo GITDIR`` names a clone or mirror of that repository; the script and the
``src/lib`` it imports are read from ``--commit`` (default: the one whose taxonomy and strategies
../shared/upstream holds) into a temporary folder, with ``js-yaml`` pinned to the lock file's
version (``npm install`` from the registry, or ``--node-modules DIR`` holding it already).

Each pair runs both builds in fresh processes, alternating which goes first; each build writes
into a fresh folder (``--replace``: over the output of that side's previous build, as a rebuild
does: theirs writes over ``public/``, ours swaps the staging folder in). Every output is kept until
all runs are done: deleting 14,000 files right before a build slows it (the disk is mounted with
``discard``). Prints the medians of wall time, user and system CPU (the build and the children it
waits for; not a detached process deleting a replaced tree after the build has returned).

Our ``builder/`` is compiled to bytecode first (``compileall``, as pip does for an installed tool): with
``PYTHONDONTWRITEBYTECODE`` set, as in this machine's sessions, a checkout without ``__pycache__``
otherwise compiles every module in every build (0.15-0.2 s of CPU before anything is read).
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
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]
UPSTREAM = ROOT.parent / "shared" / "upstream"
COMMIT = "8959cf64189c71d36e11c6a30335f923f261b1f7"  # taxonomy.yaml and strategies/ as in ../shared/upstream
JS_YAML = "js-yaml@4.1.1"  # pnpm-lock.yaml of that commit
SCRIPT = "scripts/build-recipes-api.mjs"
CONTENT = ("models", "strategies", "kv_store", "taxonomy.yaml", "platforms.yaml")


class Run(NamedTuple):
    """One build: wall seconds, user and system CPU seconds, files written."""

    wall: float
    user: float
    system: float
    files: int


def timed(argv: list[str], cwd: Path, output: Path) -> Run:
    """One fresh process; fails loudly when it does."""
    start = time.perf_counter()
    child = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{' '.join(argv)} failed:\n{err.decode(errors='replace')}")
    files = sum(len(names) for _, _, names in os.walk(output))
    return Run(wall, usage.ru_utime, usage.ru_stime, files)


def their_tree(repo: Path, commit: str, folder: Path, node_modules: Path | None) -> Path:
    """The upstream's JSON builder at ``commit`` with js-yaml beside it, in ``folder``."""
    tree = folder / "theirs"
    tree.mkdir()
    archive = subprocess.run(
        ["git", "--git-dir", str(repo), "archive", commit, SCRIPT, "src/lib"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    if node_modules is not None:
        (tree / "node_modules").symlink_to(node_modules.resolve())
    else:
        subprocess.run(
            ["npm", "install", "--no-save", "--no-package-lock", "--ignore-scripts", "--prefix", str(tree),
             JS_YAML],
            check=True, capture_output=True,
        )
    return tree


def their_build(tree: Path, run: Path) -> Run:
    """Their build with ``run`` as its root: the content linked in, the output in ``run/public``."""
    for name in CONTENT:
        if not (run / name).exists():
            (run / name).symlink_to(UPSTREAM / name)
    return timed(["node", str(tree / SCRIPT)], run, run / "public")


def our_build(run: Path) -> Run:
    argv = [sys.executable, "-m", "builder", "build", "--json-only", "--content", str(UPSTREAM),
            "--out", str(run / "site")]
    return timed(argv, ROOT, run / "site")


def report(label: str, runs: list[Run]) -> None:
    wall, user, system = (statistics.median(getattr(r, k) for r in runs) for k in ("wall", "user", "system"))
    print(f"{label}: median {wall:.2f} s wall, {user:.2f} s user, {system:.2f} s system; "
          f"{runs[0].files} files; walls {[round(r.wall, 2) for r in runs]}")


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--repo", type=Path, required=True, help="git dir of vllm-project/recipes")
    options.add_argument("--commit", default=COMMIT)
    options.add_argument("--node-modules", type=Path, help=f"a node_modules folder holding {JS_YAML}")
    options.add_argument("--pairs", type=int, default=5)
    options.add_argument("--replace", action="store_true", help="each build over the previous output")
    args = options.parse_args()
    if shutil.which("node") is None:
        sys.exit("node is not installed: the upstream's builder cannot run")
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "builder")], check=True,
                   stdout=subprocess.DEVNULL)
    ours: list[Run] = []
    theirs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="json-io-") as folder:
        tree = their_tree(args.repo, args.commit, Path(folder), args.node_modules)
        if args.replace:  # one unmeasured build of each first: every measured one replaces an output
            mine, their_run = Path(folder) / "ours", Path(folder) / "their-run"
            mine.mkdir()
            their_run.mkdir()
            our_build(mine)
            their_build(tree, their_run)
        for pair in range(args.pairs):
            if not args.replace:
                mine = Path(tempfile.mkdtemp(dir=folder, prefix="ours-"))
                their_run = Path(tempfile.mkdtemp(dir=folder, prefix="theirs-"))
            if pair % 2 == 0:
                ours.append(our_build(mine))
                theirs.append(their_build(tree, their_run))
            else:
                theirs.append(their_build(tree, their_run))
                ours.append(our_build(mine))
            print(f"pair {pair + 1}: ours {ours[-1].wall:.2f} s, theirs {theirs[-1].wall:.2f} s", flush=True)
        # printed before the outputs are deleted (minutes on this disk)
        mode = "over the previous output" if args.replace else "into a fresh folder"
        print(f"--json-only of {UPSTREAM.name}, {args.pairs} pairs, each build {mode}:")
        report("ours  ", ours)
        report("theirs", theirs)
        ratios = sorted(o.wall / t.wall for o, t in zip(ours, theirs, strict=True))
        print(f"ours / theirs (wall, per pair): median {statistics.median(ratios):.2f}, "
              f"{[round(r, 2) for r in ratios]}")


if __name__ == "__main__":
    main()
