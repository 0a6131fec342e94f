"""Does a change leave the built site as it was? ``same_site.py [REV] [--resolver-changed]``.

Builds ``../shared/upstream`` and ``recipes/`` twice, with the working tree and with the commit
``REV`` (default ``HEAD~1``, checked out as a temporary git worktree that shares this checkout's
``node_modules`` and caches), then compares each pair byte for byte with ``bench/tree_diff.py``
(``--resolver-changed`` is passed on, for a change that re-hashes the shipped resolver). Exits 1
when any pair differs. Used to show that a refactoring changes no published byte.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTENTS = {"upstream": ROOT.parent / "shared" / "upstream", "recipes": ROOT / "recipes"}


def build(tree: Path, content: Path, out: Path) -> None:
    """``python -m builder build`` of ``content`` by the code of ``tree`` into ``out``."""
    done = subprocess.run(
        [sys.executable, "-m", "builder", "build", "--content", str(content), "--out", str(out)],
        cwd=tree, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"the build by {tree} failed:\n{done.stderr[-2000:]}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", default="HEAD~1")
    parser.add_argument("--resolver-changed", action="store_true")
    args = parser.parse_args()
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(before), args.rev], cwd=ROOT,
                       check=True)
        try:
            os.symlink(ROOT / "node_modules", before / "node_modules")  # the same runtime and its caches
            for name, content in CONTENTS.items():
                # the old tree builds its own recipes/ (the content as of REV)
                old_content = before / "recipes" if name == "recipes" else content
                build(before, old_content, Path(tmp) / f"{name}-before")
                build(ROOT, content, Path(tmp) / f"{name}-after")
                flags = ["--resolver-changed"] if args.resolver_changed else []
                print(f"{name}: ", end="", flush=True)
                compared = subprocess.run([sys.executable, str(ROOT / "bench" / "tree_diff.py"), *flags,
                                           str(Path(tmp) / f"{name}-before"),
                                           str(Path(tmp) / f"{name}-after")])
                status |= compared.returncode
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=ROOT, check=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
