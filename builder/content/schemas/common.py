"""What every schema module shares: the bounds, the constrained value types, the
:class:`Open` base and :func:`unknown_keys`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from pydantic_core import PydanticCustomError

from builder.content.base_path import BasePathError, base_path
from builder.content.fieldpaths import Link, path_of
from builder.content.urls import MAX_URL_LENGTH, is_absolute_http, is_safe_link
from builder.resolver import InvalidVersion, version_key

# ── bounds (measured on ../shared/upstream and recipes/, set well above them) ──
# Upstream maxima: gpu_count 8, vram_gb 2304, vram_minimum_gb 5871, tp 8,
# strategy_min_gpus 32, preset nodes 2, 21 args per list, 24 env entries, guide 27,473
# characters, 4 variants, 12 points per preset, 27 hardware profiles.
MAX_GPUS_PER_NODE = 64
MAX_NODES = 16  # the resolver's MAX_NODES: the largest cluster it offers
MAX_PARALLEL_SIZE = 1024  # TP/PP/DP sizes
MAX_MIN_GPUS = MAX_NODES * MAX_GPUS_PER_NODE  # the largest GPU floor a cluster can meet
MAX_VRAM_GB = 8192  # per node
MAX_VARIANT_VRAM_GB = 65536
MAX_INSTANCES = 64  # Mooncake instances behind one router
MAX_CONCURRENCY = 1_000_000
MAX_ARGS = 256  # tokens in one args list, entries in one env mapping
MAX_ENTRIES = 256  # ids in a list, hardware keys in a mapping, features, notes...
MAX_VARIANTS = 64
MAX_PRESETS = 64
MAX_POINTS = 64  # per preset
MAX_TEXT = 10_000  # characters of a plain string (labels, descriptions, args, commands)
MAX_MARKDOWN = 200_000  # characters of a guide, a runbook or a note body


def _safe_link(value: str) -> str:
    if not is_safe_link(value):
        raise PydanticCustomError("unsafe_url", "must be an http(s) URL or a site-relative path")
    return value


def _absolute_http(value: str) -> str:
    if not is_absolute_http(value):
        raise PydanticCustomError("not_absolute_url", "must be an absolute http(s) URL")
    return value


def _servable_base(value: str) -> str:
    try:
        base_path(value)
    except BasePathError as err:
        raise PydanticCustomError("base_path", "{reason}", {"reason": str(err)}) from None
    return value


def _orderable_version(value: str) -> str:
    try:
        version_key(value)
    except InvalidVersion as err:
        raise PydanticCustomError("version", "{reason}", {"reason": str(err)}) from None
    return value


Text = Annotated[str, Field(max_length=MAX_TEXT)]
Version = Annotated[str, Field(max_length=40), AfterValidator(_orderable_version)]
"""A vLLM version the install block can order (``0.11.0``, ``0.11.0rc1``, ``nightly``)."""
Markdown = Annotated[str, Field(max_length=MAX_MARKDOWN)]
SafeUrl = Annotated[str, Field(max_length=MAX_URL_LENGTH), AfterValidator(_safe_link)]
"""A URL that may become a link: http(s) or site-relative (:mod:`builder.content.urls`)."""
AbsoluteUrl = Annotated[str, Field(max_length=MAX_URL_LENGTH), AfterValidator(_absolute_http)]
"""An absolute http(s) URL."""
BaseUrl = Annotated[AbsoluteUrl, AfterValidator(_servable_base)]
"""Where a site is served from (``base_url``): an absolute http(s) URL whose path the pages can move under."""
GpuCount = Annotated[int, Field(ge=1, le=MAX_GPUS_PER_NODE)]
ParallelSize = Annotated[int, Field(ge=1, le=MAX_PARALLEL_SIZE)]
NodeCount = Annotated[int, Field(ge=1, le=MAX_NODES)]
MinGpus = Annotated[int, Field(ge=0, le=MAX_MIN_GPUS)]
Scalar = Text | int | float | bool
Env = Annotated[dict[str, Scalar | None], Field(max_length=MAX_ARGS)]
Args = Annotated[list[Text], Field(max_length=MAX_ARGS)]
Names = Annotated[list[Text], Field(max_length=MAX_ENTRIES)]
HardwareText = Annotated[dict[str, Text], Field(max_length=MAX_ENTRIES)]
"""A hardware-keyed mapping of strings (``meta.hardware``, ``strategy_hardware.<s>``...)."""

class Open(BaseModel):
    """Base: strict types, finite numbers, unknown keys kept (and reported as warnings).

    Each field's docstring becomes its ``description`` in the published JSON Schema.
    """

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True, allow_inf_nan=False,
                              use_attribute_docstrings=True)


def unknown_keys(model: BaseModel, path: str = "") -> list[str]:
    """Dotted paths of every key that no model declares (warnings)."""
    found: list[Link] = []
    _unknown_in(model, None, found)
    return [path_of(link, path) for link in found]


def _unknown_in(value: Any, link: Link, found: list[Link]) -> None:
    if isinstance(value, BaseModel):
        found.extend((link, key) for key in value.model_extra or {})
        for name in type(value).model_fields:
            _unknown_in(getattr(value, name), (link, name), found)
    elif isinstance(value, dict):
        for key, item in value.items():
            _unknown_in(item, (link, key), found)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _unknown_in(item, (link, index), found)
