"""Minified CSS and JavaScript for the published site, by esbuild (npm, pinned in package.json).

Results are cached on disk by content hash. Without ``node_modules/.bin/esbuild`` (no
``npm ci``) the sources are published as they are: same behaviour, larger files. An installed tool
reads the static files minified already (``builder/packed/``, :mod:`builder.site.packing`) and has
no esbuild: they pass through unchanged.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from builder.site.paths import CHECKOUT, NODE_CACHE_DIR, NODE_MODULES, STATIC_DIR

ESBUILD = NODE_MODULES / ".bin" / "esbuild"
CACHE = NODE_CACHE_DIR / "vllm-recipes-minify"
LOADERS = {".js": "js", ".css": "css"}


def minify(name: str, data: bytes) -> bytes:
    """``data`` minified when ``name`` is a .js or .css file and esbuild is installed."""
    loader = LOADERS.get(Path(name).suffix)
    if loader is None or not CHECKOUT or not ESBUILD.is_file():
        return data
    cached = CACHE / f"{hashlib.sha256(data).hexdigest()}.{loader}"
    if cached.is_file():
        return cached.read_bytes()
    try:
        done = subprocess.run(
            [str(ESBUILD), f"--loader={loader}", "--minify", "--log-level=error"],
            input=data,
            capture_output=True,
            timeout=60,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return data
    try:
        CACHE.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        tmp.write_bytes(done.stdout)
        os.replace(tmp, cached)
    except OSError:
        pass
    return done.stdout


def static_assets() -> dict[str, bytes]:
    """``static/*`` minified, keyed by output path (an installed tool's are minified already)."""
    out: dict[str, bytes] = {}
    if STATIC_DIR.is_dir():
        for path in sorted(STATIC_DIR.iterdir()):
            if path.is_file() and not path.name.startswith("."):
                out[f"static/{path.name}"] = minify(path.name, path.read_bytes())
    return out
