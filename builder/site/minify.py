"""Minified CSS and JavaScript for the published site, by esbuild (npm, pinned in package.json).

Results are cached on disk by content hash. Without ``node_modules/.bin/esbuild`` (no
``npm ci``) the sources are published as they are: same behaviour, larger files.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

from builder.site.paths import NODE_MODULES

ESBUILD = NODE_MODULES / ".bin" / "esbuild"
CACHE = NODE_MODULES / ".cache" / "vllm-recipes-minify"
LOADERS = {".js": "js", ".css": "css"}


def minify(name: str, data: bytes) -> bytes:
    """``data`` minified when ``name`` is a .js or .css file and esbuild is installed."""
    loader = LOADERS.get(Path(name).suffix)
    if loader is None or not ESBUILD.is_file():
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
