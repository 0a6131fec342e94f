"""The HTML side of the site: pages built from the published objects of the JSON API.

:mod:`.index` (``SiteIndex``: recipes, orgs, slugs, latest, labels) → page builders returning
dataclasses (:mod:`.recipe_page`, :mod:`.listings`, :mod:`.matrix`, :mod:`.command_blocks`, text
outputs in :mod:`.texts`) → :mod:`.jinja` (one :class:`~.jinja.Page` context per template) →
:mod:`.pages` (everything, on two cores, or what an edit touches) and :mod:`.anchors` (the guide's
``#fragment`` links checked against the ids the pages really have).

Pages are complete without JavaScript; the scripts under ``static/`` only enhance them.
"""

from __future__ import annotations

from builder.site.pages import SitePages, edited_pages, site_pages, site_pages_parallel

__all__ = ["SitePages", "edited_pages", "site_pages", "site_pages_parallel"]
