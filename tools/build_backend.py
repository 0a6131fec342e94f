"""The build backend of the wheel and the sdist: setuptools, after packing the tool's own files.

``pip wheel .``, ``pip install .`` (or ``pip install git+…``) and ``python -m build`` call
:func:`build_wheel` or :func:`build_sdist`, which first write ``builder/packed/`` with
:func:`builder.site.packing.pack` (the templates, the minified static files, fonts, logos and the
Pyodide runtime as a checkout build makes them, from ``node_modules/``), so the package is complete.
A checkout without ``node_modules`` gets ``npm ci`` first (Node.js and npm on PATH; the versions are
pinned by ``package-lock.json``). An unpacked sdist has no ``node_modules`` and brings its packed
copy: it is used as it is, after checking it carries the runtime built from the Python sources beside
it. Editable installs (``pip install -e .``) build from the checkout and pack nothing.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from setuptools import build_meta
from setuptools.build_meta import *  # noqa: F403 - every other hook is setuptools' own

ROOT = Path(__file__).resolve().parents[1]


def pack_tool_files() -> None:
    """Fill ``builder/packed/`` (a checkout) or check it (an unpacked sdist); exits with the reason
    otherwise."""
    sys.path.insert(0, str(ROOT))
    from builder.site import packing
    from builder.site.paths import CHECKOUT, PACKED_DIR

    if CHECKOUT:
        npm = shutil.which("npm")
        if not (ROOT / "node_modules" / "pyodide").is_dir() and npm is not None:
            print("node_modules is missing: npm ci", flush=True)
            subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], cwd=ROOT, check=True)
        try:
            size = packing.pack()
        except packing.PackingError as exc:
            sys.exit(f"error: cannot pack the tool's files for the package: {exc}")
        print(f"packed {size / 1e6:.1f} MB of templates, static files and the Pyodide runtime "
              f"into {PACKED_DIR}")
    elif not packing.packed_copy_is_current():
        sys.exit(f"error: {PACKED_DIR} is missing or was packed from other sources; build the package in a "
                 "checkout where `npm ci` has run")


def build_wheel(wheel_directory: str, config_settings: dict[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    pack_tool_files()
    return build_meta.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    pack_tool_files()
    return build_meta.build_sdist(sdist_directory, config_settings)
