"""Compare two built sites byte for byte: ``tree_diff.py REFERENCE CANDIDATE``.

Prints the files only one side has and those whose bytes differ, and exits 1 when any do;
used to prove that a speed change leaves every output unchanged.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path


def digests(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root``, keyed by its root-relative path."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def main() -> int:
    reference, candidate = (digests(Path(arg)) for arg in sys.argv[1:3])
    only_ref = sorted(set(reference) - set(candidate))
    only_new = sorted(set(candidate) - set(reference))
    changed = sorted(p for p in set(reference) & set(candidate) if reference[p] != candidate[p])
    for label, paths in (("missing", only_ref), ("extra", only_new), ("changed", changed)):
        for path in paths[:20]:
            print(f"{label}: {path}")
        if len(paths) > 20:
            print(f"{label}: ... {len(paths) - 20} more")
    print(f"{len(reference)} reference files, {len(candidate)} candidate files, "
          f"{len(only_ref)} missing, {len(only_new)} extra, {len(changed)} changed")
    return 1 if only_ref or only_new or changed else 0


if __name__ == "__main__":
    sys.exit(main())
