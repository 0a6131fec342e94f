"""The ``#fragment`` links of a recipe's texts, checked against the ids its built page really has."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any

from builder.content.model import RecipeFile
from builder.content.problems import Problem
from builder.site.markdown import outline

_ID = re.compile(r'\sid="([^"]*)"')
# A link whose target starts with "#" needs, in the Markdown source, a "(" (inline link) or ":"
# (reference definition), optional whitespace, an optional "<", then "#" itself or the "\\" or "&"
# of an escaped "#"; texts without one are not parsed at all (most guides have none).
_MAY_LINK_FRAGMENT = re.compile(r"[(:]\s*<?[#&\\]")


def page_ids(page: bytes) -> set[str]:
    """Every ``id`` attribute of an HTML page."""
    return {html.unescape(value) for value in _ID.findall(page.decode("utf-8"))}


def fragment_links(data: dict[str, Any]) -> list[tuple[str, str, int]]:
    """(field, fragment, 0-based line) of every ``#fragment`` link in the runbooks, notes and guide."""
    presets = data.get("presets") if isinstance(data.get("presets"), dict) else {}
    texts = [(f"presets.{key}.runbook", p.get("runbook")) for key, p in presets.items()
             if isinstance(p, dict)]
    texts += [(f"notes[{i}].body", n.get("body")) for i, n in enumerate(data.get("notes") or [])
              if isinstance(n, dict)]
    texts.append(("guide", data.get("guide")))
    links = []
    for field, body in texts:
        if not isinstance(body, str) or not _MAY_LINK_FRAGMENT.search(body):
            continue
        _, fragments = outline(body)
        links.extend((field, fragment, line) for fragment, line in fragments)
    return links


def broken_anchors(data: dict[str, Any], ids: set[str] | Callable[[], set[str]]) -> list[tuple[str, str]]:
    """(field, message) for each fragment link that names no id in ``ids``.

    ``ids`` may be a function giving them, called only when the texts link to a fragment."""
    links = fragment_links(data)
    if not links:
        return []
    known = ids() if callable(ids) else ids
    return [
        (field, f"link to #{fragment} (line {line + 1} of the text) names no anchor of the recipe page")
        for field, fragment, line in links
        if fragment not in known
    ]


def anchor_problems(recipes: list[RecipeFile], pages: Mapping[str, bytes]) -> list[Problem]:
    """Located warnings for the broken fragment links of every recipe page in ``pages``, in walk order.

    A page's bytes are read only when its texts link to a fragment (``pages`` may be streamed to disk)."""
    problems = []
    for recipe in recipes:
        path = f"{recipe.hf_id}/index.html"
        if path not in pages:
            continue
        for field, message in broken_anchors(recipe.data, lambda at=path: page_ids(pages[at])):
            file, line = recipe.where(field)
            problems.append(Problem(file, line, field, message, warning=True))
    return problems
