#!/usr/bin/env python3
"""Feed ``vllm serve`` argvs through vLLM's real argument parser and print a verdict for each.

Run with the python of a venv that has vLLM installed (see tools/vllm_flags.py):

    echo '[["vllm", "serve", "m", "--tensor-parallel-size", "8"]]' | VENV/bin/python tools/check_argv.py

stdin: a JSON list of argv lists (each ``["vllm", "serve", MODEL, ...]``). With
``--placeholders``, shell variables such as ``$HEAD_IP`` / ``$PREFILL_DP_RPC_PORT`` are first
replaced by sample values (a port number when the name contains PORT, else an address). stdout: a JSON list,
one ``{"ok": bool, "error": str | null}`` per argv, in input order. Nothing is started: only
``parse_args`` of the top-level ``vllm`` parser runs on ``argv[1:]``, so the parser's own
pre-processing (``_`` -> ``-``, dotted sub-flags, ``-O3``) applies.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from vllm_flags import build_serve_parser  # noqa: E402

_PLACEHOLDER = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def fill_placeholders(token: str) -> str:
    """Replace ``$NAME`` by a sample value the parser accepts (port or address)."""
    return _PLACEHOLDER.sub(lambda m: "13345" if "PORT" in m.group(1).upper() else "10.0.0.1", token)


def _error_message(stderr: str) -> str:
    """argparse prints usage then ``prog: error: msg``; keep the message."""
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if ": error: " in line:
            return "\n".join([line.split(": error: ", 1)[1], *lines[i + 1:]]).strip()
    return stderr.strip()


def check(parser: Any, argv: Any) -> dict[str, Any]:
    """Parse one argv; return {"ok", "error"}."""
    if not (isinstance(argv, list) and len(argv) >= 2 and argv[:2] == ["vllm", "serve"]
            and all(isinstance(a, str) for a in argv)):
        return {"ok": False, "error": "not a list of strings starting with vllm serve"}
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            parser.parse_args(argv[1:])
    except SystemExit as e:
        if e.code in (0, None):
            return {"ok": False, "error": "exited without parsing (--help or --version)"}
        return {"ok": False, "error": _error_message(err.getvalue())}
    except Exception as e:  # noqa: BLE001  (vLLM's pre-processing raises ValueError etc.)
        return {"ok": False, "error": f"{type(e).__name__}: {e}"}
    return {"ok": True, "error": None}


def main() -> int:
    """Read argvs from stdin, write verdicts to stdout; exit 0 when all parse."""
    argvs = json.load(sys.stdin)
    if not isinstance(argvs, list):
        print("stdin must be a JSON list of argv lists", file=sys.stderr)
        return 2
    if "--placeholders" in sys.argv[1:]:
        argvs = [[fill_placeholders(t) if isinstance(t, str) else t for t in a] if isinstance(a, list) else a
                 for a in argvs]
    t0 = time.perf_counter()
    parser, _serve = build_serve_parser()
    logging.getLogger("vllm").setLevel(logging.ERROR)  # duplicate-key / deprecation warnings
    t1 = time.perf_counter()
    verdicts = [check(parser, a) for a in argvs]
    t2 = time.perf_counter()
    json.dump(verdicts, sys.stdout)
    sys.stdout.write("\n")
    print(f"check_argv: built parser in {t1 - t0:.1f} s, parsed {len(argvs)} argvs in {t2 - t1:.2f} s",
          file=sys.stderr)
    return 0 if all(v["ok"] for v in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
