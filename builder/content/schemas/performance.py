"""``models/<org>/<repo>.performance.json``: the predictions ``vllm-recipes predict`` stores beside a recipe.

Written by the tool, read by every build (which never runs the predictor): shapes and bounds are
strict (unknown keys are errors), and names that reach a page or a log line are plain tokens.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from builder.content.schemas.common import MAX_CONCURRENCY, MAX_PARALLEL_SIZE, AbsoluteUrl, Text
from builder.resolver.performance.results import workload_name
from builder.resolver.performance.store import WORKLOADS

Token = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")]
RepoId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}$")]
Size = Annotated[int, Field(ge=1, le=MAX_PARALLEL_SIZE)]
Figure = Annotated[float, Field(ge=0, le=1e12)]
Workload = Literal["1k/1k", "8k/1k", "1k/8k"]
MAX_REPRODUCER = 4000
assert set(Workload.__args__) == set(WORKLOADS)  # type: ignore[attr-defined]


class Strict(BaseModel):
    """Base: strict types, finite numbers, no unknown keys."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, use_attribute_docstrings=True)


class StoredPoint(Strict):
    """One predicted operating point."""

    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)]
    """Requests in flight."""
    ttft_ms: Figure
    """Time to the first token (ms)."""
    tpot_ms: Figure
    """Time per output token after the first (ms)."""
    tokens_per_s_per_user: Figure
    """Output tokens per second seen by one request."""
    tokens_per_s_per_gpu: Figure
    """Output tokens per second of the deployment, per GPU."""


class StoredDatabase(Strict):
    """The predictor's kernel measurements."""

    system: Token
    """GPU system, e.g. h200_sxm."""
    backend: Token
    """Serving framework the kernels were measured with (vllm)."""
    version: Token
    """Version of the framework the measurements belong to."""


class StoredTool(Strict):
    """The predictor that wrote the file."""

    name: Token
    """Distribution name (aiconfigurator-core)."""
    version: Token
    """Its version."""


class StoredInputs(Strict):
    """What the predictor was asked (builder.resolver.performance.mapping.PredictorInputs)."""

    model: RepoId
    """Repository whose config.json the predictor read."""
    revision: Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")] | None
    """Commit of that config (the facts' revision); null when the facts are unpinned."""
    system: Token
    """Predictor system of the hardware."""
    backend: Token
    """Serving framework (vllm)."""
    tp: Size
    """Tensor parallel size."""
    pp: Size
    """Pipeline parallel size."""
    attention_dp: Size
    """Data parallel size (attention)."""
    moe_tp: Size
    """Tensor parallel size of the experts."""
    moe_ep: Size
    """Expert parallel size."""
    gemm_quant: Token
    """GEMM quantization mode."""
    moe_quant: Token
    """MoE quantization mode."""
    kv_cache_quant: Token
    """KV cache quantization mode."""
    nextn: Annotated[int, Field(ge=0, le=16)]
    """Speculative tokens per step (0: none)."""
    nextn_accepted: Annotated[float, Field(ge=0, le=16)]
    """Mean accepted draft tokens per step."""
    acceptance_source: Text | None
    """Where the acceptance rate comes from."""
    max_num_seqs: Annotated[int, Field(ge=1, le=1 << 20)]
    """Sequences per engine (caps the concurrency sweep)."""
    max_num_batched_tokens: Annotated[int, Field(ge=1, le=1 << 34)]
    """Tokens per scheduler step."""
    kv_tokens: Annotated[int, Field(ge=1, le=1 << 40)]
    """KV cache tokens per engine (memory model)."""


class StoredEntry(Strict):
    """One prediction: its inputs and either the database and workloads or why the predictor gave none."""

    inputs: StoredInputs
    """The predictor's inputs (the key a command finds its prediction by)."""
    database: StoredDatabase | None = None
    """The measurements used."""
    workloads: dict[Workload, Annotated[list[StoredPoint], Field(max_length=64)]] | None = None
    """Points per workload (input/output tokens), by increasing concurrency."""
    unavailable: Text | None = None
    """Why the predictor could not answer."""

    @model_validator(mode="after")
    def _one_answer(self) -> StoredEntry:
        answered = self.database is not None and self.workloads is not None
        if (answered == (self.unavailable is not None)
            or (self.unavailable is not None and self.database is not None)):
            raise ValueError("an entry has database and workloads, or unavailable")
        return self


class PerformanceFile(Strict):
    """A recipe's stored predictions."""

    predictor: StoredTool
    """The predictor and its version."""
    predictions: Annotated[list[StoredEntry], Field(max_length=10_000)]
    """One entry per distinct set of inputs."""


# ── measured results (``models/<org>/<repo>.benchmarks.json``, written by ``vllm-recipes add-benchmark``) ──

FileName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._+=,-]{0,199}$")]
Image = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._/:@+-]{0,255}$")]
GpuName = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._()+-]{0,63}$")]
RunDate = Annotated[str, Field(pattern=r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2}:[0-9]{2})?$")]
Tokens = Annotated[int, Field(ge=1, le=1 << 24)]
# bounds of a measured figure: beyond them a file is wrong, not fast (an hour to the first token, a minute
# per token)
MEASURED_BOUNDS = {"ttft_ms": 3_600_000.0, "tpot_ms": 60_000.0, "tokens_per_s_per_user": 100_000.0,
                   "tokens_per_s_per_gpu": 1_000_000.0}


def _bounded(name: str) -> Any:
    return Field(gt=0, le=MEASURED_BOUNDS[name])


class MeasuredProvenance(Strict):
    """Where a measured result comes from."""

    format: Literal["vllm-bench-serve", "inferencex-row"]
    """The source file's format: a ``vllm bench serve --save-result`` file or an InferenceX result row."""
    file: FileName
    """The source file's name."""
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]
    """SHA-256 of the source file's bytes."""
    vllm_version: Token | None
    """The vLLM version that served the run, when the file says."""
    image: Image | None
    """The container image that served the run, when the file says."""
    gpu: GpuName
    """The GPU as the file names it."""
    date: RunDate | None
    """When the run was made (local time of the benchmark client), when the file says."""
    source: AbsoluteUrl | None
    """Where the file was published (http(s)), when given to add-benchmark."""


class MeasuredFigures(Strict):
    """One measured point."""

    workload: Annotated[str, Field(pattern=r"^(1k/1k|8k/1k|1k/8k|[0-9]{1,8}/[0-9]{1,8})$")]
    """Input/output tokens: a standard workload (1k/1k, 8k/1k, 1k/8k) or "<input>/<output>"."""
    input_tokens: Tokens
    """Mean input tokens per request."""
    output_tokens: Tokens
    """Mean output tokens per request."""
    concurrency: Annotated[int, Field(ge=1, le=MAX_CONCURRENCY)]
    """Requests in flight (the benchmark's maximum concurrency)."""
    ttft_ms: Annotated[float, _bounded("ttft_ms")]
    """Median time to the first token (ms)."""
    tpot_ms: Annotated[float, _bounded("tpot_ms")]
    """Median time per output token after the first (ms)."""
    tokens_per_s_per_user: Annotated[float, _bounded("tokens_per_s_per_user")]
    """Output tokens per second seen by one request (1000 / median TPOT)."""
    tokens_per_s_per_gpu: Annotated[float, _bounded("tokens_per_s_per_gpu")]
    """Output tokens per second of the deployment, per GPU."""

    @model_validator(mode="after")
    def _named_workload(self) -> MeasuredFigures:
        expected = workload_name(self.input_tokens, self.output_tokens)
        if self.workload != expected:
            raise ValueError(f"workload {self.workload} does not match the lengths ({expected})")
        return self


class StoredMeasured(MeasuredFigures):
    """One measured result: the command it measured (a selection the recipe publishes), its figures and
    provenance."""

    hardware: Token
    """Hardware profile id of the command."""
    variant: Token
    """Variant key of the command."""
    strategy: Token
    """Strategy id of the command."""
    provenance: MeasuredProvenance
    """Where the result comes from."""


class BenchmarksFile(Strict):
    """A recipe's measured results."""

    results: Annotated[list[StoredMeasured], Field(max_length=10_000)]
    """One line per result, by selection, workload and concurrency."""


# ── the ``performance`` block of a JSON API rendering record (published at /schema/performance.json) ──


class MeasuredPoint(MeasuredFigures):
    """A measured result of the record's command."""

    measured_over_predicted: Annotated[float, Field(ge=0)] | None
    """Measured over predicted tokens/s per GPU at the same workload and concurrency; null without a
    prediction there."""
    provenance: MeasuredProvenance
    """Where the result comes from."""


Measured = Annotated[list[MeasuredPoint], Field(min_length=1)]


class BlockPredictor(StoredTool):
    """The predictor and the kernel measurements it read."""

    database: StoredDatabase
    """GPU system, backend and backend version of the measurements."""


class PublishedPoint(StoredPoint):
    """One predicted operating point, with the benchmark that measures it."""

    reproducer: Annotated[str, Field(max_length=MAX_REPRODUCER)]
    """The ``vllm bench serve`` command (shell text, one flag group per line) measuring this point against the
    record's command: random prompts of the workload's lengths, ``--max-concurrency`` this point's, its result
    saved under a file name naming the recipe, GPU, variant, strategy, workload and concurrency, with
    ``--metadata`` for the GPU, the parallel sizes, the image and the selection."""


class PredictedBlock(Strict):
    """Predicted speed of the record's command."""

    predictor: BlockPredictor
    """Which predictor made these figures (they are predictions, not measurements)."""
    workloads: dict[Workload, list[PublishedPoint]]
    """Points per workload (input/output tokens: 1k/1k, 8k/1k, 1k/8k), by increasing concurrency."""
    measured: Measured | None = None
    """Measured results of this command (``vllm-recipes add-benchmark``)."""


class UnavailableBlock(Strict):
    """Why the record's command has no prediction."""

    unavailable: Text
    """The reason, e.g. "the predictor has no AMD data"."""
    measured: Measured | None = None
    """Measured results of this command (``vllm-recipes add-benchmark``)."""


class MeasuredBlock(Strict):
    """Measured results of a command of a recipe without stored predictions."""

    measured: Measured
    """Measured results of this command (``vllm-recipes add-benchmark``)."""


PerformanceBlock = TypeAdapter(PredictedBlock | UnavailableBlock | MeasuredBlock)
"""A rendering record's ``performance``: predicted TTFT, TPOT and tokens/s, or why there are none; and what
was measured."""
