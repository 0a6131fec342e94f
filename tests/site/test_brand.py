"""Brand assets and preview images, without a browser: the logo mapping, the fonts, the PNG cards."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from builder.site import brand, og_image
from builder.site.og_image import OgCard, PreviewCache, card_key, draw_card, title_size, wrap

ROOT = Path(__file__).resolve().parents[2]
CARD: OgCard = {"title": "Qwen/Qwen3-8B", "subtitle": "", "meta": "8B · DENSE · 33K ctx",
                "pill": "vLLM 0.8.5+", "cta": "", "footer": "recipes.vllm.ai/Qwen/Qwen3-8B", "logo_svg": ""}


def need_npm() -> None:
    if not brand.LOGO_DIR.is_dir() or not all(f.source.is_file() for f in brand.FONTS):
        pytest.skip("node_modules lacks @lobehub/icons-static-svg or @fontsource: run `npm ci`")


@pytest.mark.parametrize("kind", ["providers", "platforms"])
def test_every_mapped_logo_file_exists_in_the_icon_package(kind: str) -> None:
    need_npm()
    mapping = brand.logo_map()[kind]
    assert mapping, kind
    missing = sorted(f"{key}: {file}" for key, file in mapping.items()
                     if not (brand.LOGO_DIR / file).is_file())
    assert not missing, missing
    assert len({k.casefold() for k in mapping}) == len(mapping), "keys equal case-folded"


def test_logo_lookup_folds_case_and_marks_one_colour_files() -> None:
    need_npm()
    assert brand.provider_logo("qwen") == {"path": "static/logos/qwen-color.svg", "mono": False}
    assert brand.provider_logo("OpenAI") == {"path": "static/logos/openai.svg", "mono": True}
    assert brand.provider_logo("JetBrains") is None  # not in the package: the letter tile
    assert brand.platform_logo("sagemaker") == {"path": "static/logos/aws.svg", "mono": True}
    assert brand.platform_logo("modal") is None


def test_one_colour_marks_use_current_color_and_colour_marks_are_named_so() -> None:
    need_npm()
    for file in brand.logo_map()["providers"].values():
        svg = (brand.LOGO_DIR / file).read_text(encoding="utf-8")
        if not file.endswith("-color.svg"):
            assert 'fill="currentColor"' in svg, file  # black in an <img>: inverted in dark mode


def test_font_faces_in_the_stylesheet_are_the_published_fonts_within_budget() -> None:
    need_npm()
    css = (ROOT / "static" / "site.css").read_text(encoding="utf-8")
    faces = re.findall(r'@font-face \{ font-family: "([^"]+)"; font-style: normal; font-weight: (\d+); '
                       r'font-display: swap; src: url\(fonts/([^)]+)\) format\("woff2"\)', css)
    assert sorted(faces) == sorted((f.family, str(f.weight), f.file) for f in brand.FONTS)
    files = brand.brand_files([], [])
    fonts = {k: v for k, v in files.items() if k.endswith(".woff2")}
    assert sorted(fonts) == sorted(f.url.lstrip("/") for f in brand.FONTS)
    assert sum(map(len, fonts.values())) <= 120 * 1024
    assert {"static/fonts/Inter-LICENSE.txt", "static/fonts/JetBrainsMono-LICENSE.txt"} <= set(files)


def test_the_stylesheet_names_each_font_by_its_content_hash() -> None:
    inter, mono = brand.FONTS[0], brand.FONTS[2]
    css = (f"a{{src:url(fonts/{inter.file})}}b{{src:url(fonts/{mono.file})}}c{{src:url(fonts/other.woff2)"
           "}").encode()
    assets = {f"static/fonts/{inter.file}": b"inter bytes"}  # the mono font is not published here
    assert brand.with_versioned_fonts(css, assets).decode() == (
        f"a{{src:url(fonts/{inter.file}?v=79448786ac)}}b{{src:url(fonts/{mono.file})}}c{{src:url(fonts/"
        "other.woff2)}")


def test_card_is_a_1200_by_630_png_and_the_same_card_draws_the_same_bytes() -> None:
    need_npm()
    png = draw_card(CARD)
    img = Image.open(io.BytesIO(png))
    assert (img.format, img.size) == ("PNG", (1200, 630))
    assert draw_card(CARD) == png
    assert draw_card({**CARD, "title": "Qwen/Qwen3-14B"}) != png


def test_cache_reads_back_what_it_drew_and_the_key_covers_what_is_drawn(tmp_path: Path) -> None:
    need_npm()
    cache = PreviewCache(tmp_path)
    first = cache.png(CARD)
    again = PreviewCache(tmp_path)
    assert again.png(CARD) == first
    assert (cache.drawn, cache.reused, again.drawn, again.reused) == (1, 0, 0, 1)
    assert [p.name for p in tmp_path.iterdir()] == [f"{card_key(CARD)}.png"]
    keys = {card_key({**CARD, field: "x"}) for field in CARD}
    assert len(keys) == len(CARD) and card_key(CARD) not in keys


def test_cache_key_follows_the_renderer_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = card_key(CARD)
    monkeypatch.setattr(og_image, "RENDERER_VERSION", "test")
    assert card_key(CARD) != before


def test_long_titles_step_down_and_wrap_within_the_card() -> None:
    need_npm()
    assert [title_size("x" * n) for n in (32, 33, 48, 49)] == [72, 60, 60, 50]
    title = "nvidia/Llama-3.3-Nemotron-Super-49B-v1.5-FP8-with-a-very-long-suffix-for-the-test"
    font = og_image._font("Inter", 600, title_size(title))
    draw = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    lines = wrap(draw, title, font, 1056, 3)
    assert len(lines) <= 3 and all(draw.textlength(line, font=font) <= 1056 for line in lines)
    assert "".join(lines).replace("…", "") in title and lines[0].startswith("nvidia/")


def test_pages_point_og_and_twitter_images_at_their_own_png(built_site: dict[str, Any]) -> None:
    pages = built_site["pages"]
    for page, png in [("index.html", "og/site.png"), ("Qwen/index.html", "og/Qwen.png"),
                      ("Qwen/Qwen3-1.7B/index.html", "og/Qwen/Qwen3-1.7B.png"),
                      ("browse/index.html", "og/site.png")]:
        html = pages[page].decode()
        og = re.search(r'<meta property="og:image" content="[^"]*?(/og/[^"?]+)\?v=[0-9a-f]{10}">', html)
        tw = re.search(r'<meta name="twitter:image" content="[^"]*?(/og/[^"?]+)\?v=[0-9a-f]{10}">', html)
        assert og and tw and og.group(1) == tw.group(1) == f"/{png}", page
        assert Image.open(io.BytesIO(pages[png])).size == (1200, 630)
