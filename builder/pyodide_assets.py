"""Former name of :mod:`builder.browser_bundle` (kept until build.py and serve.py import the new name)."""

from builder.browser_bundle import builder_data_files, pyodide_files, resolver_files

__all__ = ["builder_data_files", "pyodide_files", "resolver_files"]
