"""Preview images (SEO-05): a 1200 × 630 PNG per page, drawn at build time with Pillow.

The drawing uses only pinned inputs: the fonts the site serves (``@fontsource`` WOFF2, read by
FreeType), the provider logo (an SVG of ``@lobehub/icons-static-svg`` rasterised by ``resvg-py``,
since Pillow reads no SVG) and the vLLM mark drawn from its two strokes (its "LLM" lettering is
set in Inter, so no system font is involved). Images are cached in ``.cache/og/`` under the
project root (git-ignored; an installed tool uses its user cache, :mod:`builder.site.paths`), named
by the SHA-256 of everything drawn plus the renderer version and the Pillow / resvg versions: a rebuild reads
them back, so the site stays byte-identical and fast; a changed title, logo, font or renderer draws a new
file.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

import resvg_py
from PIL import Image, ImageDraw, ImageFont
from PIL import __version__ as PILLOW_VERSION

from builder.site.brand import WebFont, font
from builder.site.paths import CACHE_DIR as TOOL_CACHE

RENDERER_VERSION = "2"
WIDTH, HEIGHT = 1200, 630
CACHE_DIR = TOOL_CACHE / "og"
MARGIN = 72

INK = (26, 29, 35)
MUTED = (85, 91, 102)
BLUE_TEXT = (11, 95, 184)
YELLOW = (253, 181, 23)
BLUE = (48, 162, 255)
RING = (234, 239, 246)
PILL_BG = (255, 246, 224)
PILL_INK = (122, 74, 0)

# The vLLM "V" of static/vllm-logo.svg (its two strokes), on the logo's 64 × 24 grid.
VLLM_MARK = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 21 24" width="21" height="24">'
    '<path d="M2 3l6 18 3-8" fill="none" stroke="#d99400" stroke-width="3.4" stroke-linejoin="round"/>'
    '<path d="M11 13l3-10h5L12 21" fill="none" stroke="#1a7fd6" stroke-width="3.4" '
    'stroke-linejoin="round"/></svg>'
)


class OgCard(TypedDict):
    """What one preview image shows (every field is part of the cache key)."""

    title: str
    subtitle: str  # blue line under the title, or ""
    meta: str  # mono line (the recipe's spec line), or ""
    pill: str  # bottom-left version pill ("vLLM 0.11.0+"), or ""
    cta: str  # bottom-left text when there is no pill, or ""
    footer: str  # bottom-right "<host><path>"
    logo_svg: str  # the provider's SVG markup, or ""


Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@functools.cache
def _font(family: str, weight: int, size: int) -> Font:
    source = font(family, weight).source
    if source.is_file():
        return ImageFont.truetype(str(source), size)
    return ImageFont.load_default(size)  # no npm ci: Pillow's own font


@functools.cache
def fonts_digest() -> str:
    """The SHA-256 of the font files drawn with (``default`` where one is missing)."""
    digest = hashlib.sha256()
    for f in (font("Inter", 400), font("Inter", 600), font("JetBrains Mono", 400)):
        digest.update(_file_digest(f).encode())
    return digest.hexdigest()


def _file_digest(f: WebFont) -> str:
    return hashlib.sha256(f.source.read_bytes()).hexdigest() if f.source.is_file() else "default"


def _svg_image(svg: str, width: int, height: int) -> Image.Image:
    png = resvg_py.svg_to_bytes(svg_string=svg, width=width, height=height, skip_system_fonts=True)
    return Image.open(io.BytesIO(bytes(png))).convert("RGBA")


def _text_width(draw: ImageDraw.ImageDraw, text: str, f: Font) -> float:
    return draw.textlength(text, font=f)


def _fit(draw: ImageDraw.ImageDraw, text: str, f: Font, width: float) -> str:
    """``text`` cut with an ellipsis to fit ``width``."""
    if _text_width(draw, text, f) <= width:
        return text
    while text and _text_width(draw, text + "…", f) > width:
        text = text[:-1]
    return text + "…"


def wrap(draw: ImageDraw.ImageDraw, text: str, f: Font, width: float, max_lines: int) -> list[str]:
    """Lines of ``text`` within ``width``, broken after ``/ - _ .`` or spaces (inside a word when
    it must), at most ``max_lines`` (the last one cut with an ellipsis)."""
    pieces = [p for p in re.split(r"(?<=[/\-_. ])", text) if p]
    lines: list[str] = []
    line = ""
    for piece in pieces:
        if _text_width(draw, line + piece, f) <= width:
            line += piece
            continue
        if line:
            lines.append(line.rstrip())
            line = ""
        while _text_width(draw, piece, f) > width:  # a piece wider than a line: break it by characters
            cut = len(piece)
            while cut > 1 and _text_width(draw, piece[:cut], f) > width:
                cut -= 1
            lines.append(piece[:cut])
            piece = piece[cut:]
        line = piece
    if line:
        lines.append(line.rstrip())
    if len(lines) > max_lines:
        lines = lines[: max_lines - 1] + [_fit(draw, "".join(lines[max_lines - 1:]), f, width)]
    return lines


def title_size(title: str) -> int:
    """The title's font size: it steps down for titles over 32 and over 48 characters."""
    return 72 if len(title) <= 32 else 60 if len(title) <= 48 else 50


@functools.cache
def _gradient_bar(height: int) -> Image.Image:
    row = Image.new("RGB", (WIDTH, 1))
    for x in range(WIDTH):
        t = x / (WIDTH - 1)
        row.putpixel((x, 0), tuple(round(a + (b - a) * t) for a, b in zip(YELLOW, BLUE, strict=True)))
    return row.resize((WIDTH, height))


def draw_card(card: OgCard) -> bytes:
    """The PNG of one card (deterministic for the same card, fonts and library versions)."""
    img = Image.new("RGB", (WIDTH, HEIGHT), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    for i, radius in enumerate(range(150, 560, 82)):  # faint rings, bottom right
        cx, cy = WIDTH + 40, HEIGHT + 60
        draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), outline=RING,
                     width=3 if i % 2 else 2)
    img.paste(_gradient_bar(8), (0, 0))

    # top left: the vLLM mark, "LLM", "/ Recipes"
    mark = _svg_image(VLLM_MARK, 42, 48)
    img.paste(mark, (MARGIN, 58), mark)
    brand = _font("Inter", 600, 40)
    x: float = MARGIN + 44
    draw.text((x, 58 + 24), "LLM", font=brand, fill=INK, anchor="lm")
    x += _text_width(draw, "LLM ", brand)
    draw.text((x, 58 + 24), "/ Recipes", font=_font("Inter", 400, 40), fill=MUTED, anchor="lm")

    text_width = WIDTH - 2 * MARGIN
    if card["logo_svg"]:
        logo = _svg_image(card["logo_svg"], 104, 104)
        img.paste(logo, (WIDTH - MARGIN - 104, 40), logo)

    size = title_size(card["title"])
    title_font = _font("Inter", 600, size)
    y = 190
    for line in wrap(draw, card["title"], title_font, text_width, 3 if size < 72 else 2):
        draw.text((MARGIN, y), line, font=title_font, fill=INK)
        y += round(size * 1.18)
    y += 14
    if card["subtitle"]:
        sub = _font("Inter", 400, 38)
        draw.text((MARGIN, y), _fit(draw, card["subtitle"], sub, text_width), font=sub, fill=BLUE_TEXT)
        y += 54
    if card["meta"]:
        meta = _font("JetBrains Mono", 400, 30)
        draw.text((MARGIN, y), _fit(draw, card["meta"], meta, text_width), font=meta, fill=MUTED)

    bottom = HEIGHT - 64
    foot = _font("JetBrains Mono", 400, 26)
    left_end = MARGIN
    if card["pill"]:
        pill = _font("JetBrains Mono", 400, 28)
        w = _text_width(draw, card["pill"], pill)
        draw.rounded_rectangle((MARGIN, bottom - 26, MARGIN + w + 40, bottom + 26), radius=26, fill=PILL_BG,
                               outline=YELLOW, width=2)
        draw.text((MARGIN + 20, bottom), card["pill"], font=pill, fill=PILL_INK, anchor="lm")
        left_end = MARGIN + round(w) + 72
    elif card["cta"]:
        cta = _font("Inter", 600, 30)
        draw.text((MARGIN, bottom), card["cta"], font=cta, fill=BLUE_TEXT, anchor="lm")
        left_end = MARGIN + round(_text_width(draw, card["cta"], cta)) + 40
    footer = _fit(draw, card["footer"], foot, WIDTH - MARGIN - left_end)
    draw.text((WIDTH - MARGIN, bottom), footer, font=foot, fill=MUTED, anchor="rm")

    out = io.BytesIO()
    # 256 colours: a card is flat colours and anti-aliased text; half the bytes and faster to encode
    img.quantize(256, method=Image.Quantize.FASTOCTREE).save(out, "PNG")
    return out.getvalue()


def card_key(card: OgCard) -> str:
    """The cache key: everything drawn, the fonts, the renderer and the libraries' versions."""
    blob = json.dumps(
        {"renderer": RENDERER_VERSION, "pillow": PILLOW_VERSION, "resvg": resvg_py.__version__,
         "fonts": fonts_digest(), "card": card},
        sort_keys=True, ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


@dataclass
class PreviewCache:
    """Cards → PNG bytes through the content-addressed folder; counts what it drew and read."""

    folder: Path = CACHE_DIR
    drawn: int = 0
    reused: int = 0
    draw_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def png(self, card: OgCard) -> bytes:
        path = self.folder / f"{card_key(card)}.png"
        try:
            data = path.read_bytes()
            with self._lock:
                self.reused += 1
            return data
        except OSError:
            pass
        start = time.perf_counter()
        data = draw_card(card)
        with self._lock:
            self.drawn += 1
            self.draw_seconds += time.perf_counter() - start
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only checkout still builds, only slower
        return data
