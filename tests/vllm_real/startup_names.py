#!/usr/bin/env python3
"""Check the start-up names of ``vllm serve`` argvs with vLLM's own lookups (run in the vLLM venv).

stdin: a JSON list of argv lists; stdout: one ``{"ok": bool | null, "error": str | null}`` per
argv (``ok`` null when the real parser rejects the argv, when a parser plugin is loaded, whose
names cannot be known without importing it, or when a name is a ``$PLACEHOLDER``). Nothing is
started: each argv is parsed by the real parser (tools/vllm_flags.py), then the names are looked
up the way the server does when it starts: ``validate_api_server_args`` (tool-call parser, with
``--enable-auto-tool-choice`` assumed, and the reasoning parser of ``--reasoning-parser`` /
``--structured-outputs-config``), ``ReasoningParserManager`` for ``--reasoning-config``, ``AttentionConfig`` /
``SpeculativeConfig`` validators for attention backends, and ``ModelConfig``'s lower-casing plus
``QUANTIZATION_METHODS`` for quantization.
"""

from __future__ import annotations

import contextlib
import copy
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

from check_argv import fill_placeholders  # noqa: E402
from vllm_flags import build_serve_parser  # noqa: E402


def startup_errors(args: Any) -> list[str]:
    """vLLM's start-up name checks on a parsed namespace; one message per rejected name."""
    from vllm.config.attention import AttentionConfig
    from vllm.config.model import ModelConfig
    from vllm.config.speculative import SpeculativeConfig
    from vllm.entrypoints.common.cli_args import validate_api_server_args
    from vllm.model_executor.layers.quantization import QUANTIZATION_METHODS
    from vllm.reasoning import ReasoningParserManager

    errors: list[str] = []
    ns = copy.copy(args)
    ns.enable_auto_tool_choice = bool(args.tool_call_parser)  # the lint checks the name either way
    ns.structured_outputs_config = copy.copy(args.structured_outputs_config)
    if args.reasoning_parser:  # EngineArgs copies the flag into the config before the check
        ns.structured_outputs_config.reasoning_parser = args.reasoning_parser
    for only in ("tool", "reasoning"):  # validate_api_server_args stops at the first bad name
        probe = copy.copy(ns)
        if only == "reasoning":
            probe.enable_auto_tool_choice = False
        else:
            probe.structured_outputs_config = copy.copy(ns.structured_outputs_config)
            probe.structured_outputs_config.reasoning_parser = ""
        try:
            validate_api_server_args(probe)
        except KeyError as e:
            errors.append(str(e))
    reasoning_config = args.reasoning_config
    name = getattr(reasoning_config, "reasoning_parser", None)
    if name and name not in ReasoningParserManager.list_registered():
        errors.append(f"reasoning_config: reasoning parser {name!r} not found")
    try:
        AttentionConfig.validate_backend_before(args.attention_backend)
    except ValueError as e:
        errors.append(str(e))
    quantizations = [args.quantization]
    if isinstance(args.speculative_config, dict):
        try:
            SpeculativeConfig._parse_attention_backend(args.speculative_config.get("attention_backend"))
        except ValueError as e:
            errors.append(f"speculative_config: {e}")
        quantizations.append(args.speculative_config.get("quantization"))
    for q in quantizations:
        if isinstance(q, str) and ModelConfig.validate_quantization_before(q) not in QUANTIZATION_METHODS:
            errors.append(f"Unknown quantization method: {q}")
    return errors


def check(parser: Any, argv: list[str]) -> dict[str, Any]:
    """Parse one argv; return its start-up verdict."""
    try:
        with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
            args = parser.parse_args(argv[1:])
    except (SystemExit, Exception):  # noqa: BLE001  (rejected by the parser: not a start-up question)
        return {"ok": None, "error": "rejected by the parser"}
    if args.tool_parser_plugin or args.reasoning_parser_plugin:
        return {"ok": None, "error": "loads a parser plugin"}
    errors = startup_errors(args)
    return {"ok": not errors, "error": "; ".join(errors)[:500] or None}


NAME_FLAGS = {"--tool-call-parser", "--reasoning-parser", "--attention-backend", "--quantization", "-q"}


def names_a_placeholder(argv: list[str]) -> bool:
    """A name given as ``$VAR``: the lint takes it as valid; no sample value can stand for it here."""
    return any(a in NAME_FLAGS and b.startswith("$") for a, b in zip(argv, argv[1:], strict=False))


def main() -> int:
    """Read argvs from stdin, write verdicts to stdout."""
    argvs = json.load(sys.stdin)
    parser, _serve = build_serve_parser()
    logging.getLogger("vllm").setLevel(logging.ERROR)
    verdicts = [{"ok": None, "error": "a name is a placeholder"} if names_a_placeholder(a)
                else check(parser, [fill_placeholders(t) for t in a]) for a in argvs]
    json.dump(verdicts, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
