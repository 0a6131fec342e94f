"""The anchor check: ``#fragment`` links of runbooks, notes and guides against the ids a page has."""

from __future__ import annotations

from builder.site.anchors import broken_anchors


def test_guide_anchor_lint() -> None:
    """Fragment links are checked against the ids of the built page (here: a page with these ids)."""
    ids = {"matrix", "preset-fast", "steps", "serving-it", "steps-1"}
    recipe = {
        "presets": {"fast": {"runbook": "## Steps\n\nSee [the guide](#serving-it)."}},
        "notes": [{"title": "n", "body": "Use [the fast preset](#preset-fast) or [this](#preset-slow)."}],
        "guide": "# Serving it\n\nText\n\n## Steps\n\n[steps](#steps-1) [matrix](#matrix)\n[gone](#nowhere)\n",
    }
    assert broken_anchors(recipe, ids) == [
        ("notes[0].body", "link to #preset-slow (line 1 of the text) names no anchor of the recipe page"),
        ("guide", "link to #nowhere (line 8 of the text) names no anchor of the recipe page"),
    ]
