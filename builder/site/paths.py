"""Where the project's own files live (templates, static assets, node tools), wherever it runs from."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
TEMPLATES_DIR = PROJECT_ROOT / "templates"
STATIC_DIR = PROJECT_ROOT / "static"
NODE_MODULES = PROJECT_ROOT / "node_modules"
