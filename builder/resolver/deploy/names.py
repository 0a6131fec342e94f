"""Kubernetes and Compose names derived from untrusted ids (model ids, hardware ids, labels)."""

from __future__ import annotations

import hashlib
import re

BASE_MAX = 40  # leaves room for role suffixes (``-mooncake-master``) and LWS pod suffixes under 63
_NOT_NAME = re.compile(r"[^a-z0-9]+")


def dns_label(text: str, max_len: int = BASE_MAX) -> str:
    """An RFC 1035 label (``[a-z]([-a-z0-9]*[a-z0-9])?``, at most ``max_len``) naming ``text``.

    Lower-cased, runs of other characters become one ``-``; a label that had to change length
    or start gains a short hash of the original so that different ids stay apart.
    """
    slug = _NOT_NAME.sub("-", text.lower()).strip("-")
    changed = False
    if not slug or not slug[0].isalpha():
        slug, changed = f"m-{slug}".rstrip("-"), True
    if len(slug) > max_len:
        slug, changed = slug[: max_len - 9].rstrip("-"), True
    if changed:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        slug = f"{slug}-{digest}"
    return slug


def model_base_name(model_id: object) -> str:
    """The base resource name of a served model id (``org/Repo`` or an absolute path): its last segment."""
    text = model_id if isinstance(model_id, str) else "model"
    last = text.rstrip("/").rsplit("/", 1)[-1] or "model"
    return dns_label(last)


def label_value(text: str) -> str:
    """A Kubernetes label value (at most 63 of ``[A-Za-z0-9._-]``, alphanumeric at both ends)."""
    value = re.sub(r"[^A-Za-z0-9._-]+", "-", text)[:63].strip("-._")
    return value or "none"
