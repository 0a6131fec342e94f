"""Temporary git repositories for the tests of ``diff --git`` and the GitHub Action."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS`` with a committer set; its stdout, stripped (fails the test on an error)."""
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org", *args],
        capture_output=True, text=True, check=True)
    return done.stdout.strip()
