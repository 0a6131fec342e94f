"""What a benchmark file says, in the two formats ``add-benchmark`` reads.

- ``vllm bench serve --save-result`` (vLLM 0.33's ``result_json``): ``model_id``, ``date``
  (``%Y%m%d-%H%M%S``), ``max_concurrency``, ``completed``, ``failed``, ``total_input_tokens``,
  ``total_output_tokens`` (mean lengths per request), ``output_throughput`` (output tokens/s of the whole
  deployment), ``median_ttft_ms``, ``median_tpot_ms``; and the ``--metadata KEY=VALUE`` pairs it copies
  to the top level: ``recipe``, ``gpu``, ``variant``, ``strategy``, ``tp``, ``pp``, ``dp``, ``ep``, ``image``,
  ``vllm_version``, ``workload``, ``isl``, ``osl`` (what the reproducer of a predicted point passes).
- an InferenceX result row (``agg_*.json`` of its ``process_result.py``; perf.vllm.ai draws the same rows):
  ``hw``, ``model``, ``framework``, ``conc``, ``isl``, ``osl``, ``tp``, ``ep``, ``image``, ``disagg``,
  ``is_multinode``, ``tput_per_gpu`` (input and output tokens/s per GPU, checked against the next),
  ``output_tput_per_gpu``, ``median_ttft`` and ``median_tpot`` (seconds), ``median_intvty`` (tokens/s per
  user), and ``date`` when a row carries one.

Other keys are not read. Every number must be finite and positive; strings that are stored must be plain
names (:mod:`builder.content.schemas.performance`).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Literal, TypedDict

from builder.cli.results.source import NonFinite, Source
from builder.content.problems import Problem
from builder.resolver.performance.results import LENGTH_TOLERANCE, workload_name


class Reading(TypedDict):
    """What one file says, before it is checked against the recipe."""

    format: Literal["vllm-bench-serve", "inferencex-row"]
    model: str
    model_field: str  # the key the model id came from
    recipe: str | None  # the recipe the file says it measured (the reproducer's --metadata recipe=)
    gpu: str | None  # the GPU as the file names it
    gpu_field: str
    variant: str | None
    strategy: str | None
    gpus: dict[str, int]  # the parallel sizes the file declares: tp, pp, dp, ep (a row: tp, its GPU count)
    input_tokens: int
    output_tokens: int
    concurrency: int
    ttft_ms: float
    tpot_ms: float
    tokens_per_s_per_user: float
    throughput: float  # output tokens/s: of the deployment (vllm-bench-serve) or per GPU (a row)
    throughput_field: str
    vllm_version: str | None
    image: str | None
    date: str | None


class Fields:
    """The top-level keys of one file, read with a problem for each that is missing or wrong."""

    def __init__(self, source: Source) -> None:
        self.source, self.data = source, source.value
        self.problems: list[Problem] = []

    def problem(self, field: str, message: str) -> None:
        self.problems.append(Problem(self.source.shown, 0, field, message))

    def number(self, key: str) -> float:
        """A required positive finite number (0.0 after a problem)."""
        value = self.data.get(key)
        if key not in self.data:
            self.problem(key, "missing")
        elif isinstance(value, NonFinite):
            self.problem(key, f"not a finite number ({value})")
        elif isinstance(value, bool) or not isinstance(value, int | float):
            self.problem(key, f"expected a number, got {_kind(value)}")
        elif not value > 0:
            self.problem(key, f"must be positive, got {value}")
        else:
            return float(value)
        return 0.0

    def integer(self, key: str, required: bool = True) -> int | None:
        """A positive integer (metadata values are strings of digits); None when absent and optional."""
        value = self.data.get(key)
        if key not in self.data and not required:
            return None
        if isinstance(value, str) and re.fullmatch(r"[0-9]{1,9}", value):
            value = int(value)
        if key not in self.data:
            self.problem(key, "missing")
        elif isinstance(value, bool) or not isinstance(value, int):
            self.problem(key, f"expected an integer, got {_kind(value)}")
        elif value < 1 or value > 1 << 24:
            self.problem(key, f"must be from 1 to {1 << 24:,}, got {value}")
        else:
            return value
        return None if not required else 0

    def text(self, key: str, required: bool = False) -> str | None:
        """A string (its content is checked where it is stored)."""
        value = self.data.get(key)
        if value is None and not required:
            return None
        if not isinstance(value, str) or not value:
            self.problem(key, "missing" if key not in self.data else f"expected a string, got {_kind(value)}")
            return None
        return value


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        return f"string {value[:40]!r}"
    return {dict: "an object", list: "an array"}.get(type(value), f"number {value}")


def _mean(fields: Fields, total: str, completed: int, declared: str) -> int:
    """Tokens per request: the run's mean, or the length ``--metadata`` declares when the mean is within
    :data:`LENGTH_TOLERANCE` of it (random prompts re-tokenised drift by a token or two)."""
    value = fields.integer(total) or 0
    mean = max(1, round(value / completed)) if completed else 0
    length = fields.integer(declared, required=False)
    if length is None or not mean:
        return mean
    if abs(mean - length) > length * LENGTH_TOLERANCE:
        fields.problem(total, f"the requests averaged {mean:,} tokens, --metadata {declared}={length}")
    return length


def _vllm_date(fields: Fields) -> str | None:
    text = fields.text("date")
    if text is None:
        return None
    try:
        return datetime.strptime(text, "%Y%m%d-%H%M%S").isoformat()
    except ValueError:
        fields.problem("date", f"expected vLLM's YYYYMMDD-HHMMSS, got {text[:40]!r}")
        return None


def vllm_bench_serve(source: Source) -> tuple[Reading, list[Problem]]:
    """A ``vllm bench serve --save-result`` file."""
    f = Fields(source)
    completed = f.integer("completed") or 0
    if (f.data.get("failed") or 0) != 0:
        f.problem("failed", f"{f.data['failed']} request(s) failed: the figures would not measure the "
                            "command")
    concurrency = 0
    if f.data.get("max_concurrency") is None:
        f.problem("max_concurrency", "missing: run vllm bench serve with --max-concurrency")
    else:
        concurrency = f.integer("max_concurrency") or 0
    tpot = f.number("median_tpot_ms")
    sizes = {key: f.integer(key, required=False) for key in ("tp", "pp", "dp", "ep")}
    lengths = (_mean(f, "total_input_tokens", completed, "isl"),
               _mean(f, "total_output_tokens", completed, "osl"))
    named = f.text("workload")
    if named is not None and all(lengths) and named != workload_name(*lengths):
        f.problem("workload", f"{named[:40]!r} does not match the lengths ({workload_name(*lengths)})")
    reading = Reading(
        format="vllm-bench-serve", model=f.text("model_id", required=True) or "", model_field="model_id",
        recipe=f.text("recipe"),
        gpu=f.text("gpu"), gpu_field="gpu", variant=f.text("variant"), strategy=f.text("strategy"),
        gpus={key: value for key, value in sizes.items() if value is not None},
        input_tokens=lengths[0], output_tokens=lengths[1],
        concurrency=concurrency,
        ttft_ms=f.number("median_ttft_ms"), tpot_ms=tpot,
        tokens_per_s_per_user=1000.0 / tpot if tpot else 0.0,
        throughput=f.number("output_throughput"), throughput_field="output_throughput",
        vllm_version=f.text("vllm_version"), image=f.text("image"), date=_vllm_date(f))
    return reading, f.problems


def inferencex_row(source: Source) -> tuple[Reading, list[Problem]]:
    """An InferenceX result row (single node, aggregated serving)."""
    f = Fields(source)
    framework = f.text("framework")
    if framework is not None and framework.lower() != "vllm":
        f.problem("framework", f"a vLLM recipe takes vLLM results, this row is {framework[:40]!r}")
    for key in ("disagg", "is_multinode"):
        if f.data.get(key) not in (None, False, "false", "False"):
            f.problem(key, "disaggregated and multi-node rows are not read")
    total, output = f.number("tput_per_gpu"), f.number("output_tput_per_gpu")
    if output > total > 0:
        f.problem("output_tput_per_gpu", f"{output:g} is more than tput_per_gpu ({total:g}), which "
                                         "includes it")
    tpot_s = f.number("median_tpot") if "median_tpot" in f.data else None
    per_user = f.number("median_intvty")
    date = f.text("date")
    if date is not None and not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", date):
        f.problem("date", f"expected YYYY-MM-DD, got {date[:40]!r}")
        date = None
    sizes = {"tp": f.integer("tp") or 0, "ep": f.integer("ep", required=False)}
    reading = Reading(
        format="inferencex-row", model=f.text("model", required=True) or "", model_field="model", recipe=None,
        gpu=f.text("hw", required=True), gpu_field="hw", variant=None, strategy=None,
        gpus={key: value for key, value in sizes.items() if value is not None},
        input_tokens=f.integer("isl") or 0, output_tokens=f.integer("osl") or 0,
        concurrency=f.integer("conc") or 0,
        ttft_ms=f.number("median_ttft") * 1000.0,
        tpot_ms=tpot_s * 1000.0 if tpot_s is not None else (1000.0 / per_user if per_user else 0.0),
        tokens_per_s_per_user=per_user, throughput=output, throughput_field="output_tput_per_gpu",
        vllm_version=None, image=f.text("image"), date=date)
    return reading, f.problems


def read_format(source: Source) -> tuple[Reading | None, list[Problem]]:
    """The file's reading in the format its keys name, or why it is neither."""
    data = source.value
    if "output_throughput" in data or "max_concurrency" in data:
        return vllm_bench_serve(source)
    if "tput_per_gpu" in data or "hw" in data:
        return inferencex_row(source)
    problem = Problem(source.shown, 0, "", "neither a vllm bench serve --save-result file (no "
                      "output_throughput) "
                      "nor an InferenceX row (no tput_per_gpu)")
    return None, [problem]
