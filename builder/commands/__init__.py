"""Terminal commands for users and agents: ``resolve`` (:mod:`.resolve`) and ``new`` (:mod:`.new`)."""

from __future__ import annotations


class Refused(Exception):
    """An invalid choice; the message lists the valid ones."""
