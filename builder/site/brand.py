"""Brand assets copied into the site: provider and platform logos, and the two web fonts.

Logos come from the npm package ``@lobehub/icons-static-svg`` (MIT); which provider (HF org)
or platform uses which of its files is data, in ``builder/data/brand_logos.json``. A provider
without an entry keeps its letter tile. Files whose name does not end in ``-color.svg`` are
one-colour marks (``currentColor``, black in an ``<img>``): the page inverts them in dark mode.

Fonts are Inter and JetBrains Mono from ``@fontsource`` (OFL): the Latin subset, weights 400
and 600 only, as WOFF2. The same files draw the preview images (FreeType reads WOFF2).
Without ``node_modules`` (no ``npm ci``) there are no logos (tiles everywhere) and no font
files (the CSS falls back to system fonts); the site is otherwise the same. An installed tool
reads them from ``builder/packed/site/static/`` (:mod:`builder.site.packing` copies every mapped
logo and the fonts there, as the site publishes them).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

from builder.site.paths import CHECKOUT, DATA_DIR, NODE_MODULES, STATIC_DIR
from builder.site.versions import versioned

LOGO_MAP_PATH = DATA_DIR / "brand_logos.json"
LOGO_DIR = NODE_MODULES / "@lobehub" / "icons-static-svg" / "icons" if CHECKOUT else STATIC_DIR / "logos"
FONT_DIR = "static/fonts"
LOGO_OUT = "static/logos"


@dataclass(frozen=True)
class WebFont:
    """One font file: the CSS family and weight, and where the npm package keeps it."""

    family: str
    weight: int
    package: str
    file: str

    @property
    def source(self) -> Path:
        if not CHECKOUT:
            return STATIC_DIR / "fonts" / self.file
        return NODE_MODULES / "@fontsource" / self.package / "files" / self.file

    @property
    def licence(self) -> Path:
        """The licence file of the font's package (published beside the fonts)."""
        if not CHECKOUT:
            return STATIC_DIR / "fonts" / FONT_LICENSES[self.package]
        return self.source.parents[1] / "LICENSE"

    @property
    def url(self) -> str:
        return f"/{FONT_DIR}/{self.file}"


FONTS = (
    WebFont("Inter", 400, "inter", "inter-latin-400-normal.woff2"),
    WebFont("Inter", 600, "inter", "inter-latin-600-normal.woff2"),
    WebFont("JetBrains Mono", 400, "jetbrains-mono", "jetbrains-mono-latin-400-normal.woff2"),
    WebFont("JetBrains Mono", 600, "jetbrains-mono", "jetbrains-mono-latin-600-normal.woff2"),
)
PRELOADED = (FONTS[0], FONTS[2])  # body text and the recipe title / commands
FONT_LICENSES = {"inter": "Inter-LICENSE.txt", "jetbrains-mono": "JetBrainsMono-LICENSE.txt"}


class Logo(TypedDict):
    """A logo as the templates use it: its site URL (without cache-busting) and whether it is one colour."""

    path: str
    mono: bool


class LogoMap(TypedDict):
    """``brand_logos.json``: the icon package, then org id → file and platform id → file."""

    package: str
    providers: dict[str, str]
    platforms: dict[str, str]


@functools.cache
def logo_map() -> LogoMap:
    """The provider and platform logo mapping (keys as written; look-ups fold case)."""
    data: LogoMap = json.loads(LOGO_MAP_PATH.read_text(encoding="utf-8"))
    return data


def font(family: str, weight: int) -> WebFont:
    """The :data:`FONTS` entry of ``family`` at ``weight``."""
    return next(f for f in FONTS if f.family == family and f.weight == weight)


def _logo(file: str | None) -> Logo | None:
    if not file or not (LOGO_DIR / file).is_file():
        return None
    return {"path": f"{LOGO_OUT}/{file}", "mono": not file.endswith("-color.svg")}


@functools.cache
def _folded(kind: Literal["providers", "platforms"]) -> dict[str, str]:
    return {k.casefold(): v for k, v in logo_map()[kind].items()}


@functools.cache
def provider_logo(org: str) -> Logo | None:
    """The logo of the provider ``org`` (case-insensitive), or None for a letter tile (asked per
    tile of every page, so remembered: the mapping and the npm package don't change during a run)."""
    return _logo(_folded("providers").get(org.casefold()))


@functools.cache
def platform_logo(platform_id: str) -> Logo | None:
    """The logo of a self-host platform, or None."""
    return _logo(_folded("platforms").get(platform_id.casefold()))


def logo_svg(logo: Logo) -> bytes:
    """The SVG bytes of a logo from the npm package."""
    return (LOGO_DIR / Path(logo["path"]).name).read_bytes()


def brand_files(orgs: list[str], platforms: list[str]) -> dict[str, bytes]:
    """The logos of ``orgs`` and ``platforms`` and every font file (with their licences), by output path."""
    out: dict[str, bytes] = {}
    logos = [provider_logo(o) for o in orgs] + [platform_logo(p) for p in platforms]
    for logo in sorted((x for x in logos if x), key=lambda x: x["path"]):
        out[logo["path"]] = logo_svg(logo)
    for f in FONTS:
        if f.source.is_file():
            out[f"{FONT_DIR}/{f.file}"] = f.source.read_bytes()
            if f.licence.is_file():
                out[f"{FONT_DIR}/{FONT_LICENSES[f.package]}"] = f.licence.read_bytes()
    return out


def with_versioned_fonts(css: bytes, assets: dict[str, bytes]) -> bytes:
    """``css`` with each ``url(fonts/<file>)`` of a published font naming its content hash
    (``?v=``), so browsers keep the fonts as immutable, like the other versioned assets."""
    for f in FONTS:
        data = assets.get(f"{FONT_DIR}/{f.file}")
        if data is not None:
            css = css.replace(f"url(fonts/{f.file})".encode(),
                              f"url({versioned(f'fonts/{f.file}', data)})".encode())
    return css
