"""The memory model's errors and shapes: settings, per-stage and per-GPU estimates."""

from __future__ import annotations

from typing import Literal, NamedTuple, TypedDict


class ArchitectureError(ValueError):
    """A bad architecture fact: ``field`` is its dotted path, ``message`` what is wrong."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}" if field else message)
        self.field = field
        self.message = message


class SettingsError(ArchitectureError):
    """A bad serving setting (``field`` is the setting's name)."""


class Finding(NamedTuple):
    """One sharding rule broken: a stable rule id and a message with the numbers."""

    rule: str
    message: str


class Speculative(TypedDict, total=False):
    """``--speculative-config``: the method, the draft's repository and how many tokens it proposes."""

    method: str
    model: str
    num_speculative_tokens: int


class Settings(TypedDict, total=False):
    """Serving settings; every key is optional except ``gpu_memory_gib``."""

    tp: int
    pp: int
    dp: int
    expert_parallel: bool
    gpus: int | None  # GPUs the serving strategy uses (for the TP×PP×DP rule)
    dtype: str  # "auto" or a torch dtype name
    kv_cache_dtype: str  # "auto", "fp8", ...
    weight_bits: int | None  # bits of the linear weights (quantized checkpoints)
    gpu_memory_gib: float  # total memory of one GPU as CUDA reports it
    gpu_memory_utilization: float
    max_model_len: int | None
    max_num_batched_tokens: int | None
    max_num_seqs: int | None
    language_model_only: bool  # --language-model-only: no vision or audio encoder is loaded
    speculative: Speculative | None
    max_loras: int | None  # --enable-lora: adapters held at once (vLLM's default 1)
    max_lora_rank: int | None  # --max-lora-rank (vLLM's default 16)
    kv_cache_gib: float | None  # the "Available KV cache memory" per GPU, given instead of deriving it
    enable_prefix_caching: bool  # hybrid models: vLLM's "align" state cache keeps one more state page
    vllm_version: str  # the release whose token report to follow (default: VLLM_VERSION)


class ResolvedSettings(TypedDict):
    """The settings with vLLM's defaults filled in."""

    tp: int
    pp: int
    dp: int
    expert_parallel: bool
    gpus: int | None
    dtype: str
    kv_cache_dtype: str
    weight_bits: int | None
    gpu_memory_gib: float
    gpu_memory_utilization: float
    max_model_len: int
    max_num_batched_tokens: int
    max_num_seqs: int
    block_size: int
    language_model_only: bool
    speculative: Speculative | None
    max_loras: int  # 0 without LoRA
    max_lora_rank: int
    kv_cache_gib: float | None
    enable_prefix_caching: bool
    vllm_version: str


class StageEstimate(TypedDict):
    """One pipeline stage (one GPU of it)."""

    stage: int
    layers: int
    weights_gib: float
    activation_peak_gib: float
    non_torch_gib: float
    non_kv_gib: float
    available_kv_gib: float
    kv_bytes_per_token: int
    kv_blocks: int
    kv_tokens: int
    max_concurrency: float
    one_request_kv_gib: float
    cuda_graph_gib: float
    state_bytes_per_sequence: int  # state layers' pages one sequence holds (0 without state layers)
    kv_block_size: int  # tokens per block (raised for hybrid models)
    state_padding_pct: float  # how much the state page was padded to the attention page (vLLM logs it)


Verdict = Literal["fits", "tight", "wont_start"]


class MemoryEstimate(TypedDict):
    """The estimate for one GPU (the binding pipeline stage when there are several)."""

    vllm_version: str
    model_type: str
    params_total: int
    params_per_gpu: int
    weights_gib: float
    kv_bytes_per_token: int
    state_bytes_per_sequence: int  # Gated DeltaNet / Mamba state pages per sequence, per GPU (0: none)
    kv_block_size: int
    state_padding_pct: float
    available_kv_gib: float
    kv_tokens: int
    max_concurrency: float
    requested_gib: float  # gpu_memory_utilization × total
    non_kv_gib: float
    activation_peak_gib: float
    non_torch_gib: float
    cuda_graph_gib: float
    non_kv_parts: list[str]  # the keys above that make up non_kv_gib
    parts: dict[str, float]  # GiB per GPU within weights_gib beyond the language model: encoder, draft, lora
    draft_kv_bytes_per_token: int  # the draft's share of kv_bytes_per_token
    estimated: list[str]  # what the estimate counts beyond the language model
    not_estimated: list[str]  # what vLLM loads that the estimate leaves out, and why
    settings: ResolvedSettings
    stages: list[StageEstimate]
    findings: list[Finding]
    verdict: Verdict
    reason: str
