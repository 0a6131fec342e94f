#!/usr/bin/env python3
"""Check the ``vllm-config`` form with vLLM's own ``--config`` handling (run in the vLLM venv).

stdin: a JSON list of ``{"argv": [...], "config": YAML text, "cli": [...]}``; each ``config``/``cli`` pair
is what the form writes for ``argv``. For each, the YAML is written to a file and
``vllm serve MODEL --config FILE *cli`` is parsed by the real parser (``FlexibleArgumentParser`` reads the
file in ``load_config_file``), beside ``argv`` itself; placeholders are filled with the same sample
values in both. stdout: one ``{"ok": bool, "error": str | null}`` per case: ok when both parse to the
same namespace (apart from ``config``, the file's path, and the random ``engine_id`` a
``KVTransferConfig`` draws for itself).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from check_argv import fill_placeholders  # noqa: E402
from vllm_flags import build_serve_parser  # noqa: E402


def _parsed(parser: Any, args: list[str]) -> dict[str, Any]:
    with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
        namespace = vars(parser.parse_args(args))
    namespace.pop("config", None)
    namespace.pop("dispatch_function", None)
    return namespace


def _comparable(value: Any) -> str:
    """``repr(value)`` without the ``engine_id`` a ``KVTransferConfig`` draws at random."""
    return re.sub(r"engine_id='[^']*'", "engine_id=...", repr(value))


def check(parser: Any, case: dict[str, Any], folder: Path) -> dict[str, Any]:
    argv = [fill_placeholders(t) for t in case["argv"]]
    cli = [fill_placeholders(t) for t in case["cli"]]
    path = folder / "config.yaml"
    path.write_text(case["config"], encoding="utf-8")
    try:
        direct = _parsed(parser, argv[1:])
    except (SystemExit, Exception) as e:  # noqa: BLE001  (the argv itself is refused: not this form's doing)
        return {"ok": None, "error": f"argv refused: {e}"}
    try:
        from_file = _parsed(parser, [argv[1], argv[2], "--config", str(path), *cli])
    except SystemExit as e:
        return {"ok": False, "error": f"config refused (exit {e.code})"}
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    differ = sorted(k for k in set(direct) | set(from_file)  # the same object (a default) has the same repr
                    if direct.get(k) is not from_file.get(k)
                    and _comparable(direct.get(k)) != _comparable(from_file.get(k)))
    if differ:
        return {"ok": False,
                "error": "; ".join(f"{k}: {direct.get(k)!r} != {from_file.get(k)!r}" for k in differ[:5])}
    return {"ok": True, "error": None}


def main() -> int:
    cases = json.load(sys.stdin)
    parser, _serve = build_serve_parser()
    logging.getLogger("vllm").setLevel(logging.ERROR)
    with tempfile.TemporaryDirectory() as folder:
        verdicts = [check(parser, case, Path(folder)) for case in cases]
    json.dump(verdicts, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
