"""The packed copy an installed tool builds from: ``builder/packed/``, written when a wheel or sdist is built.

A checkout builds its sites from ``templates/``, ``static/`` and ``node_modules/`` (``npm ci``). An
installed tool has neither, so the wheel build (``tools/build_backend.py``) calls :func:`pack`, which
runs the very functions a checkout build calls and writes what they return:

- ``templates/``: the Jinja templates, as they are;
- ``site/``: :func:`~builder.site.minify.static_assets` (the minified scripts and stylesheets) and
  :func:`~builder.site.brand.brand_files` of *every* mapped provider and platform (logos, fonts and
  their licences), by output path; a build picks the logos its content needs;
- ``browser/``: :func:`~builder.site.browser.bundle.browser_files` (the reduced, precompiled Pyodide
  runtime under its hashed folder, the resolver zip, their ``.br``/``.gz`` twins), by output path;
- ``manifest.json``: Pyodide's version and the Python sources the runtime carries.

:mod:`builder.site.paths` points an installed tool at these folders, so it publishes the same bytes
under the same names as the checkout that packed them. Whatever ``browser_files`` returns is packed:
a change of how the runtime is split needs no change here.

``python -m builder.site.packing [FOLDER]`` packs into ``FOLDER`` (default ``builder/packed``).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from builder.site.brand import brand_files, logo_map
from builder.site.browser.bundle import BrowserFilesMissing, browser_files, pyodide_version, sources_key
from builder.site.minify import static_assets
from builder.site.packed import PackedManifest, manifest_bytes, read_manifest
from builder.site.paths import CHECKOUT, PACKED_DIR, TEMPLATES_DIR


class PackingError(Exception):
    """The packed copy can't be made here (not a checkout, or ``npm ci`` has not run)."""


def packed_files() -> dict[str, bytes]:
    """Every file of the packed copy, by path under the packed folder."""
    if not CHECKOUT:
        raise PackingError(
            "packing reads the checkout's templates/, static/ and node_modules/: run it in a checkout")
    files = {f"templates/{p.relative_to(TEMPLATES_DIR).as_posix()}": p.read_bytes()
             for p in sorted(TEMPLATES_DIR.rglob("*")) if p.is_file()}
    mapping = logo_map()
    site = {**static_assets(), **brand_files(sorted(mapping["providers"]), sorted(mapping["platforms"]))}
    if not any(path.endswith(".woff2") for path in site):
        raise PackingError("node_modules has no @fontsource fonts: run `npm ci` first")
    files.update({f"site/{path}": data for path, data in site.items()})
    try:
        browser = browser_files()
    except BrowserFilesMissing as exc:
        raise PackingError(str(exc)) from exc
    files.update({f"browser/{path}": data for path, data in browser.items()})
    manifest: PackedManifest = {"pyodide_version": pyodide_version(), "sources_sha256": sources_key()}
    files["manifest.json"] = manifest_bytes(manifest)
    return files


def pack(target: Path = PACKED_DIR) -> int:
    """Write :func:`packed_files` into ``target`` (replaced as a whole); returns the bytes written."""
    files = packed_files()
    staging = target.with_name(f".{target.name}.new-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    for rel, data in files.items():
        path = staging / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    if target.exists():
        target.rename(old)
    staging.rename(target)
    shutil.rmtree(old, ignore_errors=True)
    return sum(len(data) for data in files.values())


def packed_copy_is_current() -> bool:
    """Whether ``builder/packed`` holds a runtime built from the Python sources beside it (an unpacked
    sdist: it brings its packed copy and no node_modules)."""
    manifest = read_manifest()
    return manifest is not None and manifest["sources_sha256"] == sources_key()


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else PACKED_DIR
    try:
        size = pack(target)
    except PackingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"packed {size / 1e6:.1f} MB into {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
