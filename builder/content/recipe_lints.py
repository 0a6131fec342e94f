"""Authoring lints beyond the schema (warnings; errors under ``--strict``).

:data:`LINTS` names each one; its id starts every message it gives and heads its entry in CONTRIBUTING.md:

- ``docker-image-command``: a docker image value that is a command (``docker pull ...``);
- ``tp-overridden``: ``--tensor-parallel-size`` in an argument list the strategy's parallel size always
  overrides;
- ``repeated-flag``: the same flag twice in one argument list;
- ``nightly-covered``: ``nightly_required`` although a pinned release image already covers
  ``min_vllm_version``.

Unknown hardware ids are reported by :mod:`builder.content.validate`; ``#fragment`` links by
:mod:`builder.site.anchors` once the pages are built (against the ids they really have).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from builder import resolver
from builder.content.fieldpaths import join_path

RELEASE_TAG = re.compile(r"^v?(\d+(?:\.\d+)*)(?:[-+].*)?$")


class Lint(NamedTuple):
    """One named authoring lint: its id (printed in every message it gives, and the heading authors
    search for in CONTRIBUTING.md) and the function finding ``(field path, message)`` in a recipe."""

    id: str
    find: Callable[[dict[str, Any]], Iterator[tuple[str, str]]]


def recipe_lints(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(field path, ``[lint-id] message``) for every lint finding of one recipe, lint by lint."""
    return [(path, f"[{lint.id}] {message}") for lint in LINTS for path, message in lint.find(data)]


def _image_commands(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """A docker image value that is a command (``docker pull ...``) or holds white space."""
    for path, image in docker_images(data):
        if (isinstance(image, str)
            and (image.strip().startswith("docker ") or any(c.isspace() for c in image.strip()))):
            yield path, f"docker image {image!r} is a command, not an image reference"


def _tp_overridden(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``--tensor-parallel-size`` in a list that the strategy's parallel size always overrides."""
    if resolver.is_omni(data):
        return
    for path, args in arg_lists(data):
        if _overridden_tp(path) and "--tensor-parallel-size" in args:
            yield (
                join_path(path, args.index("--tensor-parallel-size")),
                "--tensor-parallel-size here is always overridden by the strategy's parallel size; "
                "set the variant's `tp` instead",
            )


def _repeated_in_lists(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """The same flag twice in one argument list."""
    for path, args in arg_lists(data):
        yield from _repeated_flags(path, args)


def _overridden_tp(path: str) -> bool:
    """Lists assembled before the strategy's parallel pair (single-node spec §8 steps 1-3)."""
    return path == "model.base_args" or bool(
        re.fullmatch(r"variants\.[^.]+\.(extra_args|hardware_overrides\.[^.]+\.extra_args)", path)
    )


def _repeated_flags(path: str, args: list[Any]) -> Iterator[tuple[str, str]]:
    """A flag written twice in one list: only the last one takes effect."""
    seen: dict[str, int] = {}
    for i, token in enumerate(args):
        if isinstance(token, str) and token.startswith("--"):
            if token in seen:
                yield join_path(path,
                                i), f"flag {token} is given twice in this list (also at [{seen[token]}])"
            else:
                seen[token] = i


def arg_lists(data: dict[str, Any]) -> Iterator[tuple[str, list[Any]]]:
    """Every argument list of a recipe with its field path."""

    def lists_in(block: Any, path: str, keys: tuple[str, ...]) -> Iterator[tuple[str, list[Any]]]:
        if isinstance(block, dict):
            for key in keys:
                if isinstance(block.get(key), list):
                    yield join_path(path, key), block[key]

    def overrides(block: Any, path: str) -> Iterator[tuple[str, list[Any]]]:
        for hw, inner in (block or {}).items() if isinstance(block, dict) else ():
            yield from lists_in(inner, f"{path}.{hw}", ("extra_args", "args"))

    yield from lists_in(data.get("model"), "model", ("base_args",))
    yield from overrides(data.get("hardware_overrides"), "hardware_overrides")
    for vkey, variant in _items(data.get("variants")):
        yield from lists_in(variant, f"variants.{vkey}", ("extra_args",))
        yield from overrides((variant or {}).get("hardware_overrides"), f"variants.{vkey}.hardware_overrides")
    for skey, override in _items(data.get("strategy_overrides")):
        yield from lists_in(override, f"strategy_overrides.{skey}", ("extra_args", "vllm_args"))
        yield from overrides((override or {}).get("hardware_overrides"),
                             f"strategy_overrides.{skey}.hardware_overrides")
        for role in ("prefill", "decode"):
            role_block = (override or {}).get(role)
            yield from lists_in(role_block, f"strategy_overrides.{skey}.{role}", ("extra_args", "vllm_args"))
            yield from overrides((role_block or {}).get("hardware_overrides"),
                                 f"strategy_overrides.{skey}.{role}.hardware_overrides")
    for fkey, feature in _items(data.get("features")):
        yield from lists_in(feature, f"features.{fkey}", ("args",))
        yield from overrides((feature or {}).get("hardware_overrides"), f"features.{fkey}.hardware_overrides")
        for mkey, mode in _items((feature or {}).get("modes")):
            yield from lists_in(mode, f"features.{fkey}.modes.{mkey}", ("args",))
            yield from overrides((mode or {}).get("hardware_overrides"),
                                 f"features.{fkey}.modes.{mkey}.hardware_overrides")
    for pkey, preset in _items(data.get("presets")):
        yield from lists_in(preset, f"presets.{pkey}", ("args",))
        for point_key, point in _items((preset or {}).get("points")):
            yield from lists_in(point, f"presets.{pkey}.points.{point_key}", ("args",))


def _items(block: Any) -> list[tuple[str, Any]]:
    return list(block.items()) if isinstance(block, dict) else []


def docker_images(data: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """Every docker image value of a recipe (strings inside brand and CUDA maps too)."""

    def leaves(value: Any, path: str) -> Iterator[tuple[str, Any]]:
        if isinstance(value, dict):
            for key, inner in value.items():
                yield from leaves(inner, join_path(path, key))
        elif value is not None:
            yield path, value

    yield from leaves((data.get("model") or {}).get("docker_image"), "model.docker_image")
    for vkey, variant in _items(data.get("variants")):
        yield from leaves((variant or {}).get("docker_image"), f"variants.{vkey}.docker_image")
        for hw, block in _items((variant or {}).get("hardware_overrides")):
            yield from leaves((block or {}).get("docker_image"),
                              f"variants.{vkey}.hardware_overrides.{hw}.docker_image")


def _nightly_covered(data: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """``nightly_required`` while an image pins a release at or past ``min_vllm_version``."""
    model = data.get("model") or {}
    wanted = model.get("min_vllm_version")
    if model.get("nightly_required") is not True or not wanted:
        return
    for path, image in docker_images(data):
        tag = image.rsplit(":", 1)[-1] if isinstance(image, str) and ":" in image else ""
        match = RELEASE_TAG.match(tag)
        if match and resolver.version_key(match.group(1)) >= resolver.version_key(wanted):
            yield (
                "model.nightly_required",
                f"nightly_required is set, but {path} pins release {image} which already covers "
                f"min_vllm_version {wanted}",
            )
            return


LINTS: tuple[Lint, ...] = (
    Lint("docker-image-command", _image_commands),
    Lint("tp-overridden", _tp_overridden),
    Lint("repeated-flag", _repeated_in_lists),
    Lint("nightly-covered", _nightly_covered),
)
