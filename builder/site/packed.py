"""The manifest of an installed tool's packed files (``builder/packed/manifest.json``): which Pyodide
the runtime comes from and which Python sources it carries. Written by :mod:`builder.site.packing`."""

from __future__ import annotations

import json
from typing import TypedDict

from builder.site.paths import PACKED_MANIFEST


class PackedManifest(TypedDict):
    """What the packed copy was built from."""

    pyodide_version: str | None  # the npm package's version (``--version`` prints it)
    sources_sha256: str  # :func:`builder.site.browser.bundle.sources_key` of the packed runtime


def read_manifest() -> PackedManifest | None:
    """The packed copy's manifest, None when there is no packed copy."""
    try:
        data: PackedManifest = json.loads(PACKED_MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data


def manifest_bytes(manifest: PackedManifest) -> bytes:
    """The manifest as written (sorted keys, so that packing twice gives the same file)."""
    return (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
