"""Notes a recipe shows beside the command: ``notes`` (conditional) and ``hardware_notes``."""

from __future__ import annotations

from builder.content.schemas.common import Markdown, Names, Open, SafeUrl, Text


class NoteWhen(Open):
    """``notes[].when``: the selections a note applies to; every list given must match."""

    hardware: Names = []
    """Hardware ids the note applies to."""
    variant: Names = []
    """Variant keys the note applies to."""
    strategy: Names = []
    """Strategy ids the note applies to."""


class NoteLink(Open):
    """A hardware note's link with its own text."""

    label: Text | None = None
    """Text of the link."""
    href: SafeUrl | None = None
    """Target of the link."""


class HardwareNote(Open):
    """``hardware_notes.<hardware>``: shown by the command builder for that hardware."""

    title: Text | None = None
    """Heading of the note (default "Hardware note")."""
    body: Markdown | None = None
    """Markdown text; a note without one is not shown."""
    link: SafeUrl | NoteLink | None = None
    """A guide to read further: a URL, or ``{label, href}``."""
    url: SafeUrl | None = None  # read when link is absent
    """Older name of ``link``, read when ``link`` is absent."""
    link_text: Text | None = None
    """Text of a bare-URL link (default "Read guide")."""


class Note(Open):
    """``notes[]``: a note shown while the selection matches its ``when``."""

    title: Text
    """Heading of the note."""
    when: NoteWhen | None = None
    """Selections the note applies to; without it the note always shows."""
    body: Markdown
    """Markdown text; it may link ``#preset-<key>`` anchors."""
