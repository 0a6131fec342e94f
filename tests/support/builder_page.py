"""What a built recipe page embeds for the command builder."""

from __future__ import annotations

import json
import re
from typing import Any

EMBEDDED_VIEW = re.compile(rb'<script type="application/json" id="builder-initial">(.*?)</script>', re.S)


def embedded_view(html: bytes) -> Any:
    """The default view a recipe page embeds for builder.js to paint first (None when it has none)."""
    found = EMBEDDED_VIEW.findall(html)
    assert len(found) <= 1, "one embedded view at most"
    return json.loads(found[0]) if found else None
