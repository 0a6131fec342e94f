#!/usr/bin/env python3
"""Parse ``vllm bench serve`` argvs with vLLM's real parser (run in the vLLM venv).

stdin: a JSON list of argvs, each ``["vllm", "bench", "serve", ...]``. The top-level ``vllm`` parser with the
real ``bench serve`` subcommand (``tools/vllm_flags.build_bench_serve_parser``) parses ``argv[1:]``; nothing
runs. stdout: one ``{"ok": bool, "error": str | null, "namespace": {...} | null}`` per argv, the namespace
holding the values the reproducers set.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("VLLM_TARGET_DEVICE", "cpu")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from vllm_flags import build_bench_serve_parser  # noqa: E402

KEPT = ("subparser", "bench_type", "backend", "model", "served_model_name", "host", "port", "dataset_name",
        "random_input_len", "random_output_len", "random_range_ratio", "max_concurrency", "num_prompts",
        "ignore_eos", "percentile_metrics", "save_result", "result_dir", "result_filename", "metadata")


def check(parser: Any, argv: list[str]) -> dict[str, Any]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            namespace = vars(parser.parse_args(argv[1:]))
    except SystemExit as e:
        lines = [line for line in err.getvalue().splitlines() if ": error: " in line]
        return {"ok": False, "error": lines[-1] if lines else f"exit {e.code}", "namespace": None}
    except Exception as e:  # noqa: BLE001
        return {"ok": False, "error": f"{type(e).__name__}: {e}", "namespace": None}
    return {"ok": True, "error": None, "namespace": {key: namespace.get(key) for key in KEPT}}


def main() -> int:
    argvs = json.load(sys.stdin)
    parser, _serve = build_bench_serve_parser()
    logging.getLogger("vllm").setLevel(logging.ERROR)
    json.dump([check(parser, argv) for argv in argvs], sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
