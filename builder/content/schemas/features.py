"""``features.<key>``: optional serve arguments a reader turns on, plain or with modes."""

from __future__ import annotations

from typing import Any

from builder.content.schemas.common import Args, HardwareText, Names, Open, Text


class ArgsBlock(Open):
    """A feature's or mode's ``hardware_overrides.<key>`` block."""

    args: Args | None = None
    """Arguments that replace the feature's (or mode's) ``args`` on the matching hardware."""


class Companion(Open):
    """A process a feature needs beside vLLM."""

    label: Text | None = None
    """Name of the companion's command tab (the feature key when absent)."""
    description: Text | None = None
    """Line shown above the companion's command."""
    command: Text
    """Shell command that starts the companion process."""


class Mode(Open):
    """``features.<key>.modes.<mode>``: one alternative of a modal feature."""

    args: Any = None  # checked by the feature-mode rules (json-api §3.2)
    """Serve arguments of this mode (a list)."""
    label: Text | None = None
    """Text of the mode's pill."""
    description: Text | None = None
    """Hint of the mode's pill."""
    variants: Any = None
    """Variant keys this mode is offered for (a list); absent or empty means every variant."""
    hardware: HardwareText = {}
    """``unsupported`` under a generation or an exact hardware id hides the mode there."""
    hardware_overrides: dict[str, ArgsBlock] = {}
    """Hardware-keyed (id, generation, brand, ``default``): arguments replacing the mode's."""


class Feature(Open):
    """``features.<key>``: an on/off feature with ``args``, or a modal one with ``modes``."""

    description: Text | None = None
    """Hint of the feature's checkbox."""
    label: Text | None = None
    """Text of the feature's checkbox (made from the key when absent)."""
    args: Args | None = None
    """Serve arguments of an on/off feature; a feature with ``modes`` has none."""
    modes: Any = None  # a mapping of Mode, checked by the feature-mode rules
    """Alternatives of a modal feature, keyed by mode; one is active at a time."""
    default_mode: Text | None = None
    """Mode used when neither the reader nor the variant's ``default_modes`` picks one."""
    strategies: Names = []
    """Strategy ids the feature works with; empty means every strategy."""
    hardware_overrides: dict[str, ArgsBlock] = {}
    """On/off features: per generation (or ``nvidia``), arguments replacing ``args``."""
    hardware: HardwareText = {}
    """Not read by any rule; a mode's ``hardware`` is what hides it on some hardware."""
    companion: Companion | None = None
    """A process to run beside vLLM while the feature is on."""
