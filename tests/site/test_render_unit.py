"""Fast checks of the Markdown renderer and the page helpers (no browser)."""

from __future__ import annotations

from typing import Any

from builder.api.output import BuildOutput
from builder.content.model import Content, RecipeFile
from builder.resolver.safety import env_value_problem
from builder.resolver.shell import pip_view
from builder.site.command_blocks import env_exports
from builder.site.markdown import Slugger, render_markdown, slugify
from builder.site.pages import SitePages
from builder.site.views import fmt_ctx_short, parse_params
from tests.support import sites


def test_markdown_escapes_raw_html_and_drops_unsafe_links() -> None:
    html = render_markdown(
        "Use <think> and <64K. [x](javascript:alert(1)) [d](data:text/html,hi) [ok](https://a.b)")
    assert "&lt;think&gt;" in html and "&lt;64K" in html
    assert ("javascript:" not in html.split("[x]")[0] and 'href="javascript' not in html
            and 'href="data' not in html)
    assert 'href="https://a.b"' in html


def test_heading_slugs_are_stable_and_unique() -> None:
    slugger = Slugger({"presets"})
    html = render_markdown("## Presets\n\n## Hello, World!\n\n## Hello, World!", slugger)
    assert 'id="presets-1"' in html and 'id="hello-world"' in html and 'id="hello-world-1"' in html
    assert slugify("NVIDIA — TP8 (8x H200)") == "nvidia--tp8-8x-h200"


def test_fenced_code_is_highlighted_and_images_become_links() -> None:
    html = render_markdown(
        "```bash\nvllm serve x --y '{\"a\": 1}'\n```\n\n![chart](https://example.com/c.png)")
    assert '<span class="s1">' in html and "<img" not in html
    assert 'href="https://example.com/c.png"' in html


def test_helpers() -> None:
    assert parse_params("1.2T") == 1200 and parse_params("500M") == 0.5 and parse_params("x") is None
    assert fmt_ctx_short(1048576) == "1.0M ctx" and fmt_ctx_short(2_000_000) == "2M ctx"
    assert fmt_ctx_short(131072) == "131K ctx" and fmt_ctx_short(0) == ""


def test_static_env_lines_are_the_pip_views() -> None:
    """One implementation: the page's ``export`` lines are the builder's; nothing in them needs quotes."""
    env = {"A": "1", "B": "$IFACE_NAME", "C": 0, "D": True, "E": None, "F": "a.b/c:d@e,f+g%h=i-j"}
    assert env_exports(env) == ("export A=1\nexport B=$IFACE_NAME\nexport C=0\nexport D=true\nexport E=null\n"
                                "export F=a.b/c:d@e,f+g%h=i-j")
    assert pip_view("vllm serve m", env, {}) == env_exports(env) + "\n\nvllm serve m"
    assert all(env_value_problem(value) is None for value in env.values())
    # a value the shell would read differently never reaches a record: the loader refuses it
    assert env_value_problem('{"x": 1}') == (
        "env value '{\"x\": 1}' is printed unquoted: only letters, digits and _ . / = : @ , + % - or one "
        "$UPPER_CASE variable are allowed"
    )


def _recipe(hf_id: str, added: str) -> RecipeFile:
    data: dict[str, Any] = {"meta": {"title": hf_id, "provider": hf_id.split("/")[0], "date_added": added,
                                     "date_updated": added, "tasks": ["text"]}, "model": {}, "variants": {}}
    return RecipeFile(hf_id, f"models/{hf_id}.yaml", data)


def test_latest_keeps_one_card_per_org() -> None:
    """HOME-04: two recipes of one org newer than everything else yield one card."""
    recipes = [_recipe("A/new1", "2030-01-03"), _recipe("A/new2", "2030-01-02"),
               _recipe("B/old", "2020-01-01"), _recipe("C/bad", "not-a-date"), _recipe("D/old", "2020-01-01")]
    content = Content("x", sites.load_vocab(), recipes)
    site = SitePages(content, BuildOutput())
    assert [r.hf_id for r in site.index.latest(8, one_per_org=True)] == ["A/new1", "B/old", "D/old", "C/bad"]
    pages = site.everything()
    assert "A/index.html" in pages and "A/new1/index.html" in pages and "browse/index.html" in pages
    # no lower-case redirect stub: it would replace A/new1/index.html on a case-insensitive disk
    assert not any(p.casefold() == "a/new1/index.html" for p in pages if p != "A/new1/index.html")
