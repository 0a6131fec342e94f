"""The package as a user gets it: a wheel built from the checkout's files, installed into a fresh venv
(for tests/test_wheel.py and bench/wheel.py). No network: the venv borrows this environment's
dependencies through a ``.pth`` line and installs only our wheel (``--no-deps``)."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.support.paths import ROOT


def run(argv: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """``argv`` in ``cwd`` (with ``env`` added); fails with its output when it exits non-zero."""
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **env})
    if done.returncode != 0:
        raise AssertionError(f"{argv}: exit {done.returncode}\n{done.stdout}\n{done.stderr}")
    return done


def checkout_copy(target: Path) -> Path:
    """The checkout's files as a fresh clone has them (tracked and new, not ignored), with node_modules
    linked."""
    listed = run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"], ROOT).stdout
    for rel in filter(None, listed.split("\0")):
        source = ROOT / rel
        if source.is_file():
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            (target / rel).write_bytes(source.read_bytes())
    (target / "node_modules").symlink_to(ROOT / "node_modules")
    return target


def build_wheel(source: Path, dist: Path) -> Path:
    """``pip wheel`` of ``source`` (its build backend packs the runtime) into ``dist``; the wheel's path."""
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist),
         "."], source)
    return next(dist.glob("*.whl"))


def install(wheel: Path, venv: Path) -> Path:
    """A new venv at ``venv`` with ``wheel`` installed; returns its ``bin`` folder."""
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], venv.parent)
    python = venv / "bin" / "python"
    purelib = Path(run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                       venv.parent).stdout.strip())
    # this environment's dependencies, as a path: its own .pth files (our editable install) are not read
    (purelib / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "-q",
         str(wheel)],
        venv.parent)
    return venv / "bin"
