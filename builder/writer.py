"""Write an in-memory site to disk atomically: build into a temporary folder, then swap."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def write_tree(files: dict[str, bytes], out: Path) -> None:
    """Replace ``out`` with exactly ``files``; on failure ``out`` is left as it was."""
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        made: set[str] = set()
        for rel in sorted(files):
            target = staging / rel
            parent = str(target.parent)
            if parent not in made:
                os.makedirs(parent, exist_ok=True)
                made.add(parent)
            with open(target, "wb") as handle:
                handle.write(files[rel])
        swap_in(staging, out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def swap_in(staging: Path, out: Path) -> None:
    """Move ``staging`` to ``out``, keeping the old tree until the new one is in place."""
    if not out.exists():
        os.rename(staging, out)
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rename(out, retired / "site")
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(retired / "site", out)
        raise
    shutil.rmtree(retired, ignore_errors=True)


def update_tree(changed: dict[str, bytes], removed: set[str], out: Path) -> None:
    """Rewrite only ``changed`` files and delete ``removed`` ones (incremental rebuilds)."""
    for rel in sorted(removed):
        (out / rel).unlink(missing_ok=True)
    for rel in sorted(changed):
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.tmp")
        tmp.write_bytes(changed[rel])
        os.replace(tmp, target)
