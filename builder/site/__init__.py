"""The HTML side of the site: pages built from the published objects of the JSON API.

:mod:`.index` (``SiteIndex``: recipes, orgs, slugs, latest, labels) → page builders returning
dataclasses (:mod:`.recipe_page`, :mod:`.listings`, :mod:`.matrix`, :mod:`.command_blocks`, text
outputs in :mod:`.texts`) → :mod:`.jinja` (one :class:`~.jinja.Page` context per template) →
:mod:`.pages` (everything, a share of the recipes, or what an edit touches) and :mod:`.anchors` (the guide's
``#fragment`` links checked against the ids the pages really have).

Pages are complete without JavaScript; the scripts under ``static/`` only enhance them.

Also here: what the in-browser builder loads (:mod:`.browser`), the content-versioned URL rule
(:mod:`.versions`), the ``.br``/``.gz`` twins (:mod:`.compression`), Markdown and the minifier.

Imports the resolver, :mod:`builder.content`, :mod:`builder.checks`, :mod:`builder.api` and itself;
the package itself imports nothing, so loading one module does not load the page machinery."""
