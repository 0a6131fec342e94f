"""Tests of builder/checks/vllm_lint.py: one table of argvs with exact messages, record walking, and the
golden corpus (pure lint; the real-parser comparison lives in tests/vllm_real/)."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # plain `pytest` without an installed package or pythonpath setting
    sys.path.insert(0, str(ROOT))

from builder.checks import vllm_lint  # noqa: E402
from builder.checks.vllm_lint import Finding, FlagProblem, format_problem, iter_argvs, lint_argv, lint_record  # noqa: E402

SHARED = ROOT.parent / "shared"
GOLDEN = SHARED / "golden"
MODEL = "org/model"

# (case id, argv after `vllm serve MODEL` (after `vllm serve` when it starts with --model or
# MODEL), exact one-line messages). The real-parser test
# (tests/vllm_real) re-runs this table through vLLM and checks the verdicts agree, except the
# ids in LINT_ONLY, which vLLM accepts but the lint flags on purpose.
CASES: list[tuple[str, list[str], list[str]]] = [
    # accepted forms
    ("ok-plain", ["--tensor-parallel-size", "8", "--enable-expert-parallel"], []),
    ("ok-underscores", ["--tensor_parallel_size", "8", "--max_model_len=32k"], []),
    ("ok-short-flags", ["-tp", "8", "-O3", "-asc", "2"], []),
    ("ok-negations", ["--no-enable-prefix-caching", "--disable-log-stats", "--no-enable-flashinfer-autotune"],
     []),
    ("ok-choices", ["--dtype", "bfloat16", "--kv-cache-dtype", "fp8", "--moe-backend", "Flashinfer-Cutlass"],
     []),
    ("ok-optional-none", ["--max-log-len", "None", "--grpc-port", "", "--safetensors-load-strategy", "None"],
     []),
    ("ok-human-ints",
     ["--max-model-len", "auto", "--max-num-batched-tokens", "16k", "--kv-cache-memory-bytes", "80G"], []),
    ("ok-float", ["--gpu-memory-utilization", "0.95"], []),
    ("ok-nargs-plus", ["--served-model-name", "a", "b", "--port", "8001"], []),
    ("ok-nargs-optional", ["--hf-token", "--trust-remote-code"], []),
    ("ok-json", ["--compilation-config", '{"mode": 3, "pass_config": {"fuse_allreduce_rms": true}}',
                 "--speculative-config", '{"method": "mtp", "anything": 1}'], []),
    ("ok-json-human-number", ["--kv-transfer-config", '{"kv_connector": "X", "kv_role": "kv_both", '
                              '"kv_connector_extra_config": {"cpu_bytes_to_use": 80g}}'], []),
    ("ok-dotted", ["--attention_config.backend", "FLASHINFER", "--attention-config.indexer_kv_dtype=fp8",
                   "--default-chat-template-kwargs.thinking=true",
                   "--compilation-config.pass_config.fuse_allreduce_rms", "true",
                   "--compilation-config.cudagraph_capture_sizes+", "1,2,4"], []),
    ("ok-placeholders", ["--data-parallel-address", "$HEAD_IP", "--data-parallel-rpc-port",
                         "$PREFILL_DP_RPC_PORT", "--master-port", "${MASTER_PORT}"], []),
    ("ok-model-flag", ["--model", "org/other", "--port", "8001"], []),  # no positional model: see case_argv
    ("model-twice", [MODEL, "--model", "org/other"],
     [f"{MODEL}: unexpected argument (not a flag or a flag's value)"]),
    ("ok-negative-number", ["--seed", "-1"], []),
    # unknown flags
    ("unknown-flag", ["--tensor-paralel-size", "8"],
     ["--tensor-paralel-size: unknown flag (did you mean --tensor-parallel-size?)"]),
    ("unknown-abbreviation", ["--tensor-parallel", "8"],
     ["--tensor-parallel: unknown flag (argparse would take it as an abbreviation of "
      "--tensor-parallel-size; write the full name)"]),
    ("unknown-ambiguous", ["--max-num", "8"],
     ["--max-num: unknown flag (ambiguous abbreviation of --max-num-active-seqs, --max-num-batched-tokens, "
      "--max-num-queued-reqs, --max-num-queued-tokens, ...)"]),
    ("unknown-dotted-root", ["--attn_config.backend", "X"], ["--attn_config.backend: unknown flag"]),
    ("flag-and-value-one-item", ["--max-model-len auto"],
     ["--max-model-len auto: flag and value in one argv item; split it into '--max-model-len' and 'auto'"]),
    # boolean flags and values
    ("bool-with-value", ["--enable-prefix-caching", "true"],
     ["--enable-prefix-caching: takes no value, got 'true'"]),
    ("bool-with-explicit-value", ["--trust-remote-code=1"], ["--trust-remote-code: takes no value, got '1'"]),
    ("missing-value", ["--max-num-seqs", "--trust-remote-code"], ["--max-num-seqs: expects a value"]),
    ("missing-value-at-end", ["--port"], ["--port: expects a value"]),
    ("missing-values-plus", ["--served-model-name", "--port", "8001"],
     ["--served-model-name: expects at least one value"]),
    ("stray-positional", ["--port", "8001", "extra"],
     ["extra: unexpected argument (not a flag or a flag's value)"]),
    ("value-starts-with-dash", ["--tokenizer", "-x"], ["--tokenizer: expects a value", "-x: unknown flag"]),
    # types and choices
    ("int-type", ["--max-num-seqs", "eight"], ["--max-num-seqs: expects an integer, got 'eight'"]),
    ("int-short-flag", ["-tp", "8.0"], ["-tp: expects an integer, got '8.0'"]),
    ("float-type", ["--gpu-memory-utilization", "95%"],
     ["--gpu-memory-utilization: expects a number, got '95%'"]),
    ("human-int-type", ["--max-num-batched-tokens", "1.5K"],
     ["--max-num-batched-tokens: expects an integer (1k, 2M allowed), got '1.5K'"]),
    ("human-int-auto-type", ["--max-model-len", "max"],
     ["--max-model-len: expects an integer, -1 or auto (1k, 2M allowed), got 'max'"]),
    ("choice", ["--dtype", "fp16"],
     ["--dtype: invalid choice 'fp16' (choose from auto, bfloat16, float, float16, float32, half)"]),
    ("choice-int", ["--max-lora-rank", "12"],
     ["--max-lora-rank: invalid choice '12' (choose from 1, 128, 16, 256, 32, 320, 512, 64, 8)"]),
    # JSON-valued flags
    ("json-syntax", ["--compilation-config", "{mode: 3}"],
     ["--compilation-config: invalid JSON value '{mode: 3}' (Expecting property name enclosed in double "
      "quotes: line 1 column 2 (char 1))"]),
    ("json-not-object", ["--attention-config", "[1]"],
     ["--attention-config: expects a JSON object, got '[1]'"]),
    ("json-unknown-key", ["--compilation-config", '{"use_inductor": true}'],
     ["--compilation-config: unknown key 'use_inductor' (CompilationConfig has no field 'use_inductor')"]),
    ("json-unknown-nested-key", ["-cc", '{"pass_config": {"fuse_everything": true}}'],
     ["-cc: unknown key 'pass_config.fuse_everything' (PassConfig has no field 'fuse_everything')"]),
    ("json-unknown-key-equals",
     ['--kv-transfer-config={"kv_connector": "X", "kv_role": "kv_both", "role": 1}'],
     ["--kv-transfer-config: unknown key 'role' (KVTransferConfig has no field 'role')"]),
    ("dotted-unknown-key", ["--attention_config.use_fp4_indexer_cache", "true"],
     ["--attention_config.use_fp4_indexer_cache: unknown key 'use_fp4_indexer_cache' "
      "(AttentionConfig has no field 'use_fp4_indexer_cache')"]),
    ("dotted-unknown-nested-key", ["--compilation-config.pass_config.fuse_everything=true"],
     ["--compilation-config.pass_config.fuse_everything: unknown key 'pass_config.fuse_everything' "
      "(PassConfig has no field 'fuse_everything')"]),
    ("dotted-on-bool", ["--enable-prefix-caching.x", "1"],
     ["--enable-prefix-caching.x: --enable-prefix-caching does not take JSON, so it has no dotted "
      "sub-flags"]),
    ("ok-lora", ["--lora-modules", "a=/loras/a", '{"name": "b", "path": "/loras/b"}'], []),
    ("lora-not-json", ["--lora-modules", "a,b"],
     ["--lora-modules: expects name=path or a JSON object, got 'a,b'"]),
    ("lora-missing-key", ["--lora-modules", '{"name": "b"}'],
     ["--lora-modules: missing key(s) path in '{\"name\": \"b\"}'"]),
    ("lora-unknown-key", ["--lora-modules", '{"name": "b", "path": "/p", "rank": 8}'],
     ["--lora-modules: unknown key 'rank' (LoRAModulePath has no field 'rank')"]),
    ("config-not-yaml", ["--config", "serve.json"],
     ["--config: expects a .yaml/.yml file (read while parsing), got 'serve.json'"]),
    ("help", ["--port", "8001", "--help"], ["--help: prints the help and exits; the server would not start"]),
    ("double-dash", ["--port", "8001", "--"],
     ["--: ends option parsing: every later item is taken as a value"]),
    # the same flag twice (vLLM only warns; the lint flags it)
    ("twice", ["--max-model-len", "8k", "--max_model_len", "16k"],
     ["--max-model-len: given twice; last value wins"]),
    ("twice-alias", ["--tensor-parallel-size", "8", "-tp", "4"],
     ["-tp: given twice (also as --tensor-parallel-size); last value wins"]),
    ("twice-bool-negation", ["--enable-prefix-caching", "--no-enable-prefix-caching"],
     ["--no-enable-prefix-caching: given twice (also as --enable-prefix-caching); last value wins"]),
    ("twice-dotted",
     ["--attention-config.backend", "FLASH_ATTN", "--attention-config.backend", "TRITON_ATTN"],
     ["--attention-config.backend: given twice (--attention-config.backend); last value wins"]),
    ("dotted-replaces-json", ["--compilation-config", '{"mode": 3}', "--compilation-config.cudagraph_mode",
                              "FULL"],
     ["--compilation-config.cudagraph_mode: the dotted form replaces the whole --compilation-config JSON "
      "given elsewhere (given twice)"]),
    ("dotted-on-str", ["--tokenizer.revision", "main"],
     ["--tokenizer.revision: --tokenizer does not take JSON, so it has no dotted sub-flags"]),
    # names vLLM looks up at start-up (tool-call / reasoning parsers, attention backends, quantization)
    ("ok-names",
     ["--enable-auto-tool-choice", "--tool-call-parser", "qwen3_coder", "--reasoning-parser", "qwen3",
      "--attention-backend", "flashinfer", "--quantization", "FP8"], []),
    ("ok-names-unset",
     ["--tool-call-parser", "None", "--reasoning-parser", "NONE", "--attention-backend", "Auto",
      "-q", ""], []),
    ("ok-names-json", ["--attention-config", '{"backend": "triton_attn"}', "--reasoning-config",
                       '{"reasoning_parser": "deepseek_r1"}', "--speculative-config",
                       '{"method": "mtp", "attention_backend": "FLASH_ATTN", "quantization": "fp8"}'], []),
    ("ok-names-dotted",
     ["--attention_config.backend", "auto", "--structured-outputs-config.reasoning_parser=glm45",
      "--speculative-config.attention_backend", "TRITON_ATTN"], []),
    ("ok-names-plugin",
     ["--enable-auto-tool-choice", "--tool-call-parser", "my_parser", "--tool-parser-plugin",
      "/plugins/my_parser.py", "--reasoning-parser", "my_reasoner", "--reasoning-parser-plugin",
      "/plugins/my_reasoner.py"], []),
    ("ok-names-placeholder", ["--quantization", "$QUANT"], []),
    ("unknown-tool-call-parser", ["--enable-auto-tool-choice", "--tool-call-parser", "qwen3-coder"],
     ["--tool-call-parser: unknown tool call parser 'qwen3-coder' (did you mean qwen3_coder?)"]),
    ("unknown-tool-call-parser-equals", ["--tool-call-parser=hermes2", "--enable-auto-tool-choice"],
     ["--tool-call-parser: unknown tool call parser 'hermes2' (did you mean hermes?)"]),
    ("unknown-tool-call-parser-no-hint", ["--enable-auto-tool-choice", "--tool-call-parser", "nope"],
     ["--tool-call-parser: unknown tool call parser 'nope'"]),
    ("unknown-reasoning-parser-case", ["--reasoning-parser", "Qwen3"],
     ["--reasoning-parser: unknown reasoning parser 'Qwen3' (did you mean qwen3?)"]),
    ("unknown-reasoning-parser-json", ["--reasoning-config", '{"reasoning_parser": "deepseek_v5"}'],
     ["--reasoning-config: unknown reasoning parser 'deepseek_v5' at key 'reasoning_parser' "
      "(did you mean deepseek_v4?)"]),
    ("unknown-reasoning-parser-dotted", ["--structured-outputs-config.reasoning_parser", "deepseek-r1"],
     ["--structured-outputs-config.reasoning_parser: unknown reasoning parser 'deepseek-r1' at key "
      "'reasoning_parser' (did you mean deepseek_r1?)"]),
    ("unknown-attention-backend", ["--attention-backend", "FLASH_ATTENTION"],
     ["--attention-backend: unknown attention backend 'FLASH_ATTENTION' (did you mean FLASH_ATTN?)"]),
    ("unknown-attention-backend-equals", ["--attention-backend=B12X_MLA_SPARSE"],
     ["--attention-backend: unknown attention backend 'B12X_MLA_SPARSE'"]),
    ("unknown-attention-config-backend", ["--attention-config", '{"backend": "tritn_attn"}'],
     ["--attention-config: unknown attention backend 'tritn_attn' at key 'backend' (did you mean "
      "TRITON_ATTN?)"]),
    ("unknown-attention-config-backend-dotted", ["--attention_config.backend", "flashinfermla"],
     ["--attention_config.backend: unknown attention backend 'flashinfermla' at key 'backend' "
      "(did you mean FLASHINFER_MLA?)"]),
    ("unknown-speculative-attention-backend", ["--speculative-config",
                                               '{"method": "mtp", "attention_backend": "B12X_MLA_SPARSE"}'],
     ["--speculative-config: unknown attention backend 'B12X_MLA_SPARSE' at key 'attention_backend'"]),
    ("unknown-quantization", ["-q", "compressed_tensors"],
     ["-q: unknown quantization method 'compressed_tensors' (did you mean compressed-tensors?)"]),
    ("unknown-quantization-equals", ["--quantization=ascend"],
     ["--quantization: unknown quantization method 'ascend'"]),
    ("unknown-speculative-quantization-dotted", ["--speculative-config.quantization", "nvfp4"],
     ["--speculative-config.quantization: unknown quantization method 'nvfp4' at key 'quantization'"]),
]

# Cases whose problems vLLM's parser does not see: the server fails (or, for a tool-call parser
# without --enable-auto-tool-choice, ignores the name) at start-up. Problem.startup is True for
# exactly these; tests/vllm_real checks them against vLLM's own start-up lookups.
STARTUP_ONLY = {
    "unknown-tool-call-parser", "unknown-tool-call-parser-equals", "unknown-tool-call-parser-no-hint",
    "unknown-reasoning-parser-case", "unknown-reasoning-parser-json", "unknown-reasoning-parser-dotted",
    "unknown-attention-backend", "unknown-attention-backend-equals", "unknown-speculative-attention-backend",
    "unknown-quantization", "unknown-quantization-equals", "unknown-speculative-quantization-dotted",
}

# Accepted by vLLM 0.33.0's parser, flagged by the lint on purpose (id -> why).
LINT_ONLY: dict[str, str] = {
    "unknown-abbreviation": "argparse accepts unique prefixes (allow_abbrev); the recipe should not rely on "
                            "it",
    "twice": "vLLM only warns 'Found duplicate keys'; the first value is silently lost",
    "twice-alias": "same dest given twice; vLLM keeps the last value",
    "twice-bool-negation": "contradictory booleans; vLLM keeps the last one",
    "twice-dotted": "vLLM warns about the duplicate key and keeps the last value",
    "dotted-replaces-json": "the merged dotted JSON is appended last and replaces the plain --flag JSON",
    "dotted-on-str": "a str flag stores the JSON text '{\"revision\": \"main\"}' as its value",
}


def case_argv(tail: list[str]) -> list[str]:
    """The full argv of a CASES entry."""
    if tail[:1] in (["--model"], [MODEL]):
        return ["vllm", "serve", *tail]
    return ["vllm", "serve", MODEL, *tail]


@pytest.mark.parametrize(("tail", "expected"), [(t, e) for _i, t, e in CASES], ids=[c[0] for c in CASES])
def test_rules_exact_messages(tail: list[str], expected: list[str]) -> None:
    assert [p.message() for p in lint_argv(case_argv(tail))] == expected


def test_case_ids_unique_and_lint_only_known() -> None:
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))
    assert set(LINT_ONLY) <= {i for i, _t, e in CASES if e}
    assert STARTUP_ONLY <= {i for i, _t, e in CASES if e} and not STARTUP_ONLY & set(LINT_ONLY)


@pytest.mark.parametrize(("case_id", "tail"), [(i, t) for i, t, e in CASES if e],
                         ids=[c[0] for c in CASES if c[2]])
def test_startup_flag(case_id: str, tail: list[str]) -> None:
    """Problem.startup marks the problems vLLM's parser lets through (attention-config backends it
    rejects)."""
    assert {p.startup for p in lint_argv(case_argv(tail))} == {case_id in STARTUP_ONLY}


def test_name_problem_carries_the_argv_item() -> None:
    spec = '{"method": "mtp", "attention_backend": "B12X_MLA_SPARSE"}'
    (problem,) = lint_argv(case_argv(["--speculative-config", '{"method": "mtp"}', "-q", "fp8",
                                      "--speculative-config", spec]))[1:]
    assert (problem.flag, problem.value) == ("--speculative-config", spec)
    (dotted,) = lint_argv(case_argv(["--attention_config.backend=NOPE"]))
    assert (dotted.flag, dotted.value, dotted.startup) == ("--attention_config.backend", "NOPE", False)


def test_not_a_serve_argv() -> None:
    assert (lint_argv(["vllm", "bench", "x"])
            == (FlagProblem("vllm bench", "argv does not start with 'vllm serve'"),))


def test_format_problem_one_line() -> None:
    argv = case_argv(["--dtype", "fp16"])
    (problem,) = lint_argv(argv)
    assert format_problem(argv, problem) == (
        "vllm serve org/model: --dtype: invalid choice 'fp16' (choose from auto, bfloat16, float, "
        "float16, float32, half) (vLLM 0.33.0)")


def test_lint_argv_is_cached() -> None:
    argv = case_argv(["--dtype", "fp16"])
    assert lint_argv(argv) is lint_argv(tuple(argv))


def test_argvs_differing_in_a_plain_model_share_one_lint() -> None:
    first = lint_argv(["vllm", "serve", "org/one", "--dtype", "fp16"])
    assert lint_argv(["vllm", "serve", "org/two", "--dtype", "fp16"]) is first
    assert [p.message() for p in first] == [
        "--dtype: invalid choice 'fp16' (choose from auto, bfloat16, float, float16, float32, half)"]


def test_a_model_given_as_a_flag_keeps_the_positional_in_the_lint() -> None:
    """With ``--model``, the item after ``serve`` is a stray value: reported with its own text."""
    def messages(first: str) -> list[str]:
        return [p.message() for p in lint_argv(["vllm", "serve", first, "--model", "org/m"])]

    assert messages("org/one") == ["org/one: unexpected argument (not a flag or a flag's value)"]
    assert messages("org/two") == ["org/two: unexpected argument (not a flag or a flag's value)"]


def test_catalogue_is_complete() -> None:
    cat = vllm_lint.catalogue()
    assert cat.version == "0.33.0"
    opts = cat.options
    assert opts["--no-enable-prefix-caching"] is opts["--enable-prefix-caching"]  # hidden negation
    assert opts["-tp"].name == "--tensor-parallel-size" and opts["-tp"].type == "int"
    assert opts["--enable-expert-parallel"].nargs == 0
    assert opts["--served-model-name"].nargs == "+"
    assert opts["--dtype"].choices is not None and "bfloat16" in opts["--dtype"].choices
    schema = opts["--compilation-config"].schema
    assert schema is not None and schema["class"] == "CompilationConfig" and schema["extra"] == "forbid"
    assert schema["keys"]["pass_config"]["class"] == "PassConfig"
    assert opts["--speculative-config"].schema == {"class": None, "extra": "allow", "keys": None}
    assert len({id(o) for o in opts.values()}) > 300


def test_catalogue_names() -> None:
    names = vllm_lint.catalogue().names
    assert set(names) == {"tool_call_parser", "reasoning_parser", "attention_backend", "quantization"}
    assert {"qwen3_coder", "hermes", "kimi_k2", "minimax_m2"} <= names["tool_call_parser"].values
    assert {"qwen3", "deepseek_r1", "glm45"} <= names["reasoning_parser"].values
    assert {"FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "B12X"} <= names["attention_backend"].values
    assert {"fp8", "awq", "compressed-tensors", "modelopt_fp4"} <= names["quantization"].values
    assert (names["attention_backend"].case, names["attention_backend"].unset_words) == ("upper", {"auto"})
    assert (names["quantization"].case, names["reasoning_parser"].unset_words) == ("lower", {"none"})
    assert names["tool_call_parser"].case == "exact"
    counts = json.loads(vllm_lint.CATALOGUE_PATH.read_text(encoding="utf-8"))["counts"]["names"]
    assert counts == {kind: len(n.values) for kind, n in names.items()}
    sources = vllm_lint.catalogue().name_sources
    assert [(s.kind, s.key, s.parser_checks) for s in sources["attention_config"]] == [
        ("attention_backend", "backend", True)]
    assert [(s.kind, s.key) for s in sources["speculative_config"]] == [
        ("attention_backend", "attention_backend"), ("quantization", "quantization")]


def test_catalogue_without_names_checks_no_names() -> None:
    """An older catalogue without ``names`` loads, and its lint knows no start-up names."""
    data = json.loads(vllm_lint.CATALOGUE_PATH.read_text(encoding="utf-8"))
    del data["names"]
    cat = vllm_lint.Catalogue(data)
    assert cat.names == {} and cat.name_sources == {}


PD_RECORD = {
    "hardware": "h200", "strategy": "pd_cluster", "deploy_type": "pd_cluster", "env": {},
    "prefill": {"command": "vllm serve m --port 8001", "argv": ["vllm", "serve", "m", "--port", "8001"],
                "docker_argv": ["docker", "run", "img", "m", "--port", "8001"]},
    "decode": {"argv": ["vllm", "serve", "m", "--port", "8002", "--enable-sleep-mode", "yes"]},
    "router": {"command": "vllm-router ..."},
}


def test_iter_argvs_every_shape() -> None:
    multi = {"deploy_type": "multi_node", "head_argv": ["vllm", "serve", "m"],
             "worker_argv": ["vllm", "serve", "m", "--headless"],
             "worker_argvs": [["vllm", "serve", "m", "--headless"],
                              ["vllm", "serve", "m", "--node-rank", "2"]],
             "head_docker_argv": ["docker", "run", "x"]}
    kv = {"vllm_argv": ["vllm", "serve", "m"], "vllm_worker_argv": None, "vllm_worker_argvs": None}
    preset = {"points": {"c1": {"label": "1", "argv": ["vllm", "serve", "m"]}}}
    doc = {"recommended_command": {"argv": ["vllm", "serve", "m"]}, "presets": {"p": {"args": ["--x"]}}}
    assert [label for label, _a in iter_argvs(multi)] == ["head_argv", "worker_argv", "worker_argvs[0]",
                                                         "worker_argvs[1]"]
    assert [label for label, _a in iter_argvs(PD_RECORD)] == ["prefill.argv", "decode.argv"]
    assert [label for label, _a in iter_argvs(kv)] == ["vllm_argv"]
    assert [label for label, _a in iter_argvs(preset)] == ["points.c1.argv"]
    assert [label for label, _a in iter_argvs(doc)] == ["recommended_command.argv"]


def test_lint_record_findings() -> None:
    findings = lint_record(PD_RECORD)
    assert findings == [Finding("decode.argv", "--enable-sleep-mode", "takes no value, got 'yes'")]
    assert findings[0].message() == "decode.argv: --enable-sleep-mode: takes no value, got 'yes'"
    named = lint_record({"argv": ["vllm", "serve", "m", "--tool-call-parser", "nope"]})
    assert named == [Finding("argv", "--tool-call-parser", "unknown tool call parser 'nope'", "nope")]


# ---- golden corpus (pure lint; the real parser's verdicts are checked by tests/vllm_real) ----

# Distinct argvs in /work/shared/golden and those the lint flags (start-up names aside), per
# model; the real parser (make test-vllm) rejects exactly the same set.
GOLDEN_DISTINCT = 4969
GOLDEN_FLAGGED = {
    "deepseek-ai/DeepSeek-V4-Flash-0731": 27,
    "deepseek-ai/DeepSeek-V4-Flash-DSpark": 27,
    "deepseek-ai/DeepSeek-V4-Pro-0813": 26,
    "deepseek-ai/DeepSeek-V4-Pro-DSpark": 26,
    "inclusionAI/Ring-1T-FP8": 30,
    "nvidia/DeepSeek-V4-Flash-NVFP4": 27,
    "nvidia/DeepSeek-V4-Pro-NVFP4": 26,
    "XiaomiMiMo/MiMo-V2.5-Pro": 12,
}
GOLDEN_REASONS = {
    "--attention_config.use_fp4_indexer_cache: unknown key 'use_fp4_indexer_cache' "
    "(AttentionConfig has no field 'use_fp4_indexer_cache')",
    "--compilation-config: unknown key 'use_inductor' (CompilationConfig has no field 'use_inductor')",
    "--max-model-len auto: flag and value in one argv item; split it into '--max-model-len' and 'auto'",
}
# Argvs with a name vLLM 0.33.0 would reject at start-up (the parser accepts them), per model:
# B12X_MLA_SPARSE is an attention backend of the DGX Spark image eugr/spark-vllm-b12x (a vLLM
# fork; 0.33.0 has only B12X), as --attention-backend in every dgx_spark_gb10 rendering and in the
# dspark speculative config; 'ascend' is registered by the vllm-ascend platform plugin, not by
# vLLM itself (see /work/notes/upstream_name_lint.md).
GOLDEN_STARTUP_FLAGGED = {
    "deepseek-ai/DeepSeek-V4-Flash-0731": 13,
    "deepseek-ai/DeepSeek-V4-Flash-DSpark": 13,
    "nvidia/DeepSeek-V4-Flash-NVFP4": 13,
    "Eco-Tech/Qwen3.8-27B-w8a8": 1,
}
GOLDEN_STARTUP_REASONS = {
    "--attention-backend: unknown attention backend 'B12X_MLA_SPARSE'",
    "--speculative-config: unknown attention backend 'B12X_MLA_SPARSE' at key 'attention_backend'",
    "--quantization: unknown quantization method 'ascend'",
}


@pytest.fixture(scope="module")
def golden_argvs() -> dict[tuple[str, ...], str]:
    """Every distinct argv of the golden API -> the label of its first occurrence."""
    if not GOLDEN.is_dir():
        pytest.skip(f"golden JSON API not found at {GOLDEN} (shared fixtures absent)")
    seen: dict[tuple[str, ...], str] = {}
    for rel, label, argv in vllm_lint.iter_tree(GOLDEN):
        seen.setdefault(tuple(argv), f"{rel}: {label}")
    return seen


def _parse_problems(argv: tuple[str, ...]) -> list[FlagProblem]:
    return [p for p in lint_argv(argv) if not p.startup]


def test_golden_flagged_set(golden_argvs: dict[tuple[str, ...], str]) -> None:
    assert len(golden_argvs) == GOLDEN_DISTINCT
    flagged = {a: _parse_problems(a) for a in golden_argvs if _parse_problems(a)}
    assert Counter(a[2] for a in flagged) == GOLDEN_FLAGGED
    assert {p.message() for probs in flagged.values() for p in probs} == GOLDEN_REASONS
    assert all(len(probs) == 1 for probs in flagged.values())


def test_golden_startup_names(golden_argvs: dict[tuple[str, ...], str]) -> None:
    startup = {a: [p for p in lint_argv(a) if p.startup] for a in golden_argvs}
    startup = {a: probs for a, probs in startup.items() if probs}
    assert Counter(a[2] for a in startup) == GOLDEN_STARTUP_FLAGGED
    assert {p.message() for probs in startup.values() for p in probs} == GOLDEN_STARTUP_REASONS


def test_golden_without_kv_store_head_matches_readme_figure(golden_argvs: dict[tuple[str, ...], str]) -> None:
    """The shared README's 4,409 / 176 figure leaves out kv-store `vllm_argv`; the lint covers both."""
    if not GOLDEN.is_dir():
        pytest.skip("golden absent")
    others: set[tuple[str, ...]] = set()
    for path in sorted(GOLDEN.rglob("*.json")):
        for label, argv in iter_argvs(json.loads(path.read_text(encoding="utf-8"))):
            if not label.endswith("vllm_argv"):
                others.add(tuple(argv))
    assert len(others) == 4409
    assert sum(bool(_parse_problems(a)) for a in others) == 176


# ---- in the build: start-up names are located warnings, errors under --strict ----


def test_unknown_names_in_a_recipe_are_located(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Located at the argument list item that gives the bad value (MiniMax-M3 writes --speculative-config in
    several modes; the bad one is the third), a warning, and an error under --strict."""
    from builder.cli.main import main

    root = tmp_path / "content"
    shutil.copytree(ROOT / "recipes", root)
    minimax = root / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    text = minimax.read_text(encoding="utf-8")
    gqa = ("- '{\"method\": \"eagle3\", \"model\": \"Inferact/MiniMax-M3-EAGLE3-GQA\", "
           "\"num_speculative_tokens\": 3, \"attention_backend\": \"FLASH_ATTN\"}'")
    assert text.count(gqa) == 1 and text.index('- "--speculative-config"') < text.index(gqa)
    minimax.write_text(text.replace(gqa, gqa.replace("FLASH_ATTN", "FLASH_ATTENTION")), encoding="utf-8")
    gqa_line = text[: text.index(gqa)].count("\n")  # the "--speculative-config" item just above it
    qwen = root / "models" / "Qwen" / "Qwen3-14B.yaml"
    text = qwen.read_text(encoding="utf-8")
    parser = '      - "--tool-call-parser"\n      - "hermes"\n'
    assert text.count(parser) == 1
    qwen.write_text(text.replace(parser, parser.replace('"hermes"', '"hermes2"')), encoding="utf-8")
    parser_line = text[: text.index(parser)].count("\n") + 1

    assert main(["check", "--content", str(root)]) == 0
    warned = sorted(line for line in capsys.readouterr().err.splitlines() if "unknown" in line)
    assert main(["check", "--content", str(root), "--strict"]) == 1
    strict = sorted(line for line in capsys.readouterr().err.splitlines() if "unknown" in line)
    assert warned == strict == [
        f"models/MiniMaxAI/MiniMax-M3.yaml:{gqa_line}: features.spec_decoding.modes.eagle3_gqa.args[0]: "
        "warning: --speculative-config: unknown attention backend 'FLASH_ATTENTION' at key "
        "'attention_backend' (did you mean FLASH_ATTN?) [vLLM 0.33.0; hardware h200, variant mxfp8, strategy "
        "single_node_tp, preset h200_agentx:c1 (+7 more renderings)]",
        f"models/Qwen/Qwen3-14B.yaml:{parser_line}: features.tool_calling.args[0]: warning: "
        "--tool-call-parser: unknown tool call parser 'hermes2' (did you mean hermes?) [vLLM 0.33.0; "
        "hardware rtx_pro_6000, variant default, strategy single_node_tp (+104 more renderings)]",
    ]
