"""Compare two built sites byte for byte: ``tree_diff.py [--resolver-changed] REFERENCE CANDIDATE``.

Prints the files only one side has and those whose bytes differ, and exits 1 when any do;
used to prove that a speed change leaves every output unchanged.

``--resolver-changed``: for a change of ``builder/resolver/``'s source, which the site ships as
code: ``static/resolver.zip`` must differ, and with it the name that hashes it (``?v=`` in the
recipe pages' ``data-resolver``). It is listed as expected; every other file must be the same once
the reference's names are replaced by the candidate's (the runtime folder ``pyodide/<hash>/`` too,
for a tree from before the code left the runtime).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

RESOLVER_CODE = ("static/resolver.zip",)  # files (and their twins) holding the resolver


def digests(root: Path) -> dict[str, str]:
    """SHA-256 of every file under ``root``, keyed by its root-relative path."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def resolver_names(root: Path) -> dict[str, str]:
    """What names the resolver code in a built site: the runtime folder and the code zip's version."""
    names = {}
    runtime = (sorted(p.name for p in (root / "pyodide").iterdir() if p.is_dir())
               if (root / "pyodide").is_dir() else [])
    if len(runtime) == 1:
        names["runtime"] = f"pyodide/{runtime[0]}/"
    code = root / "static" / "resolver.zip"
    if code.is_file():
        names["code"] = f"resolver.zip?v={hashlib.sha256(code.read_bytes()).hexdigest()[:10]}"
    return names


def holds_resolver(path: str) -> bool:
    return any(path.removesuffix(twin).endswith(name) for name in RESOLVER_CODE
               for twin in ("", ".br", ".gz"))


def renamed_digests(root: Path, renames: dict[str, str]) -> dict[str, str]:
    """:func:`digests` of ``root`` with every ``old -> new`` of ``renames`` applied to paths and bytes
    (files holding the resolver's code keep their own digest, under the renamed path)."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            data = path.read_bytes()
            for old, new in renames.items():
                rel = rel.replace(old, new)
                if not holds_resolver(rel):
                    data = data.replace(old.encode(), new.encode())
            found[rel] = hashlib.sha256(data).hexdigest()
    return found


def same_content(ref_root: Path, new_root: Path, path: str, renames: dict[str, str]) -> bool:
    """A compressed twin whose decompressed bytes match once the reference's hashes are renamed."""
    import gzip

    import brotli

    def plain(root: Path, rel: str) -> bytes:
        data = (root / rel).read_bytes()
        return gzip.decompress(data) if rel.endswith(".gz") else brotli.decompress(data)

    ref_path = path
    for old, new in renames.items():
        ref_path = ref_path.replace(new, old)
    before = plain(ref_root, ref_path)
    for old, new in renames.items():
        before = before.replace(old.encode(), new.encode())
    return before == plain(new_root, path)


def main() -> int:
    args = sys.argv[1:]
    resolver_changed = "--resolver-changed" in args
    ref_root, new_root = (Path(a) for a in args if a != "--resolver-changed")
    expected: list[str] = []
    if resolver_changed:
        old, new = resolver_names(ref_root), resolver_names(new_root)
        reference = renamed_digests(ref_root, {old[k]: new[k] for k in old if k in new and old[k]})
        candidate = digests(new_root)
        expected = sorted(p for p in set(reference) & set(candidate) if holds_resolver(p)
                          and reference[p] != candidate[p])
        renames = {old[k]: new[k] for k in old if k in new and old[k]}
        for path in sorted(p for p in set(reference) & set(candidate) if reference[p] != candidate[p]):
            if path.endswith((".br", ".gz")) and same_content(ref_root, new_root, path, renames):
                expected.append(path)  # a twin of a file that names the resolver: compressed again
        for path in expected:
            reference[path] = candidate[path]
    else:
        reference, candidate = digests(ref_root), digests(new_root)
    only_ref = sorted(set(reference) - set(candidate))
    only_new = sorted(set(candidate) - set(reference))
    changed = sorted(p for p in set(reference) & set(candidate) if reference[p] != candidate[p])
    for label, paths in (("missing", only_ref), ("extra", only_new), ("changed", changed)):
        for path in paths[:20]:
            print(f"{label}: {path}")
        if len(paths) > 20:
            print(f"{label}: ... {len(paths) - 20} more")
    if expected:
        print(f"expected (the resolver's own code, twins compressed again): {', '.join(expected)}")
    print(f"{len(reference)} reference files, {len(candidate)} candidate files, "
          f"{len(only_ref)} missing, {len(only_new)} extra, {len(changed)} changed")
    return 1 if only_ref or only_new or changed else 0


if __name__ == "__main__":
    sys.exit(main())
