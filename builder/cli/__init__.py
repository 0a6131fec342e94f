"""The commands: ``build``, ``check``, ``serve``, ``resolve``, ``new``, ``memory`` and
``import-config``; :class:`~builder.cli.build.Pipeline` composes the stages below.

The top of the house: it may import every package, and none imports it."""

from __future__ import annotations

from builder.cli.main import main

__all__ = ["main"]
