"""Where the tool's own files live: templates, static assets, fonts, logos, the browser runtime, caches.

Two layouts, decided once per process:

- **a checkout** (``templates/`` beside the ``builder`` package): the sources of the repository and
  ``node_modules/`` (``npm ci``), from which the build minifies the scripts, copies fonts and logos
  and builds the reduced Pyodide runtime; caches under ``.cache/`` and ``node_modules/.cache/``.
- **an installed package** (a wheel): ``builder/packed/``, which the wheel build filled by running
  the checkout's own code (:mod:`builder.site.packing`): the templates, the static assets as the
  site publishes them (minified, fonts and every mapped logo) and the browser files. Nothing is
  read from the working directory; caches go to :data:`CACHE_DIR` (``$VLLM_RECIPES_CACHE``, else
  ``$XDG_CACHE_HOME/vllm-recipes``, else ``~/.cache/vllm-recipes``).
"""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # builder/
PROJECT_ROOT = PACKAGE_DIR.parent  # the checkout (or site-packages when installed)
PACKED_DIR = PACKAGE_DIR / "packed"
CHECKOUT = ((PROJECT_ROOT / "templates" / "base.html").is_file()
            and (PROJECT_ROOT / "pyproject.toml").is_file())

NODE_MODULES = PROJECT_ROOT / "node_modules"  # a checkout's development-time source (absent when installed)
TEMPLATES_DIR = PROJECT_ROOT / "templates" if CHECKOUT else PACKED_DIR / "templates"
STATIC_DIR = PROJECT_ROOT / "static" if CHECKOUT else PACKED_DIR / "site" / "static"
PACKED_BROWSER_DIR = PACKED_DIR / "browser"  # what site.browser.bundle produced, by output path
PACKED_MANIFEST = PACKED_DIR / "manifest.json"
DATA_DIR = PACKAGE_DIR / "data"


def user_cache() -> Path:
    """The installed tool's cache folder (see the module docstring)."""
    chosen = os.environ.get("VLLM_RECIPES_CACHE")
    if chosen:
        return Path(chosen)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "vllm-recipes"


CACHE_DIR = PROJECT_ROOT / ".cache" if CHECKOUT else user_cache()
NODE_CACHE_DIR = NODE_MODULES / ".cache" if CHECKOUT else CACHE_DIR  # slow results of the node tools
