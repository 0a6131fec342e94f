"""The anchor check: ``#fragment`` links of runbooks, notes and guides against the ids a page has."""

from __future__ import annotations

from builder.site.anchors import broken_anchors


def test_guide_anchor_lint() -> None:
    """Fragment links are checked against the ids of the built page (here: a page with these ids)."""
    ids = {"matrix", "preset-fast", "steps", "serving-it", "steps-1"}
    recipe = {
        "presets": {"fast": {"runbook": "## Steps\n\nSee [the guide](#serving-it)."}},
        "notes": [{"title": "n", "body": "Use [the fast preset](#preset-fast) or [this](#preset-slow)."}],
        "guide": "# Serving it\n\nText\n\n## Steps\n\n[steps](#steps-1) "
                 "[matrix](#matrix)\n[gone](#nowhere)\n",
    }
    assert broken_anchors(recipe, ids) == [
        ("notes[0].body", "link to #preset-slow (line 1 of the text) names no anchor of the recipe page"),
        ("guide", "link to #nowhere (line 8 of the text) names no anchor of the recipe page"),
    ]


def test_every_spelling_of_a_fragment_link_is_checked() -> None:
    """The quick pre-check that skips texts without fragment links lets every spelling of one through:
    plain, spaced, angle-bracketed, on the next line, escaped, as an entity, as a reference definition."""
    spellings = ["[a](#gone)", "[a]( #gone)", "[a](<#gone>)", "[a](\n#gone)", r"[a](\#gone)",
                 "[a](&#35;gone)",
                 "[a](&num;gone)", "[a][r]\n\n[r]: #gone", "[a][r]\n\n[r]:\n  <#gone>"]
    for spelling in spellings:
        found = broken_anchors({"guide": f"Intro.\n\n{spelling}\n"}, {"kept"})
        assert [field for field, _ in found] == ["guide"], spelling
        assert "link to #gone" in found[0][1], spelling


def test_ids_are_read_only_for_texts_with_fragment_links() -> None:
    """The page's ids are not computed at all when no text links to a fragment."""

    def ids() -> set[str]:
        raise AssertionError("ids read")

    assert (broken_anchors({"guide": "# Title\n\n[docs](https://example.com/#x) and `(#not-a-link`"}, ids)
            == [])
