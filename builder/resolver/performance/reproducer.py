"""The ``vllm bench serve`` command that measures one predicted point against the command it belongs to.

A point is (workload, concurrency) of a rendering record. Its reproducer sends the workload's random
prompts (fixed input and output lengths, ``--ignore-eos`` so every request runs to its length) to the
record's own server (the served model name and port its ``vllm serve`` argv sets, ``localhost``
unless the builder's Env panel names a host) with ``--max-concurrency`` requests in flight, and saves
vLLM's result JSON under a file name naming the recipe, GPU, variant, strategy, workload and
concurrency, with ``--metadata`` for what that JSON lacks (GPU, parallel sizes, image, selection).

``--num-prompts`` is :func:`num_prompts`: ten requests per concurrency slot (so the steady state
outweighs the ramp-up and the drain), at least 32 (enough samples for the percentiles at low
concurrency), at most 16,384 (a run stays within minutes to an hour).

Flag names are vLLM 0.33.0's (``builder/data/vllm-0.33.0-bench-serve-flags.json``, checked against its
parser in ``tests/vllm_real``). Every token is shell-quoted (:func:`..shell.quote_value`); the ids in
the file name and the metadata are reduced to safe characters first (they come from content).
Standard library only.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from ..deploy.plan import port_of
from ..memory.rendering import argv_settings, record_argvs
from ..shell import quote_value
from .workloads import WORKLOADS

BENCH = ["vllm", "bench", "serve"]
BACKEND = "vllm"  # vLLM's own completions client (/v1/completions)
PERCENTILE_METRICS = "ttft,tpot,itl,e2el"
DEFAULT_HOST, DEFAULT_PORT = "localhost", 8000
PROMPTS_PER_SLOT, MIN_PROMPTS, MAX_PROMPTS = 10, 32, 16384
NAME_PART_CHARS = 64  # each part of a result file name (a name stays far below 255 bytes)
_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")
_UNSAFE_VALUE = re.compile(r"[^A-Za-z0-9._/:@+,%=-]+")


def num_prompts(concurrency: int) -> int:
    """Requests a point's run sends: ``min(max(10 * concurrency, 32), 16384)``."""
    return min(max(PROMPTS_PER_SLOT * concurrency, MIN_PROMPTS), MAX_PROMPTS)


def safe_name_part(text: str) -> str:
    """``text`` as a file name part: runs of other characters than letters, digits, ``.``, ``_`` and
    ``-`` become one ``-``; no leading dot or dash; at most 64 characters; ``x`` when nothing is left."""
    part = _UNSAFE_NAME.sub("-", text)[:NAME_PART_CHARS].lstrip(".-")
    return part or "x"


def safe_value(text: str) -> str:
    """A ``--metadata`` value reduced to characters a shell and vLLM's ``key=value`` split read as given."""
    return _UNSAFE_VALUE.sub("-", text)[:200] or "-"


class BenchTarget(NamedTuple):
    """What every point of one record shares: the model, the server and the run's identity."""

    model: str | None  # the checkpoint ``vllm serve`` loads (bench serve reads its tokenizer)
    served_name: str | None  # ``--served-model-name`` of the serve command (what the API calls the model)
    port: int
    name: str  # the result file name without the workload and concurrency
    metadata: list[str]  # ``key=value`` items besides the workload


def _flag_value(argv: list[str], flag: str) -> str | None:
    """The first value of the last ``flag`` (``--flag value...`` or ``--flag=value``) in ``argv``."""
    found = None
    for index, token in enumerate(argv):
        if token.startswith(flag + "="):
            found = token[len(flag) + 1:]
        elif token == flag and index + 1 < len(argv) and not argv[index + 1].startswith("-"):
            found = argv[index + 1]
    return found


def _serve_model(argv: list[str]) -> str | None:
    """The model positional of ``vllm serve MODEL ...`` (else its ``--model``)."""
    if argv[:2] == ["vllm", "serve"] and len(argv) > 2 and not argv[2].startswith("-"):
        return argv[2]
    return _flag_value(argv, "--model")


def _size(settings: Mapping[str, Any], key: str) -> int:
    value = settings.get(key, 1)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def bench_target(hf_id: str, record: Mapping[str, Any]) -> BenchTarget:
    """The shared part of a record's reproducers (its first ``vllm serve`` argv: the head, one instance)."""
    commands = record_argvs(record)
    argv = [t for t in commands[0][1] if isinstance(t, str)] if commands else []
    settings = argv_settings(argv)
    tp, pp, dp = _size(settings, "tp"), _size(settings, "pp"), _size(settings, "dp")
    ep = tp * dp if settings.get("expert_parallel") else 1
    ids = {key: str(record.get(key) or "") for key in ("hardware", "variant", "strategy")}
    name = "__".join(safe_name_part(part) for part in (hf_id.replace("/", "_"), *ids.values()))
    image = record.get("docker_image")
    metadata = [f"recipe={safe_value(hf_id)}", f"gpu={safe_value(ids['hardware'])}",
                f"variant={safe_value(ids['variant'])}", f"strategy={safe_value(ids['strategy'])}",
                f"tp={tp}", f"pp={pp}", f"dp={dp}", f"ep={ep}"]
    if isinstance(image, str) and image:
        metadata.append(f"image={safe_value(image)}")
    return BenchTarget(_serve_model(argv), _flag_value(argv, "--served-model-name"),
                       port_of(argv, DEFAULT_PORT), name, metadata)


def bench_groups(target: BenchTarget, workload: str, concurrency: int, host: str = DEFAULT_HOST,
                 port: int | str | None = None) -> list[list[str]]:
    """The reproducer's argv in display lines (``KeyError`` for a workload not in ``WORKLOADS``)."""
    isl, osl = WORKLOADS[workload]
    model = [["--model", target.model]] if target.model else []
    served = [["--served-model-name", target.served_name]] if target.served_name else []
    filename = f"{target.name}__{safe_name_part(workload.replace('/', '-'))}__c{concurrency}.json"
    return [BENCH, ["--backend", BACKEND], *model, *served,
            ["--host", host, "--port", str(target.port if port is None else port)],
            ["--dataset-name", "random", "--random-input-len", str(isl), "--random-output-len", str(osl)],
            ["--max-concurrency", str(concurrency), "--num-prompts", str(num_prompts(concurrency))],
            ["--ignore-eos"], ["--percentile-metrics", PERCENTILE_METRICS],
            ["--save-result", "--result-dir", ".", "--result-filename", filename],
            ["--metadata", *target.metadata, f"workload={workload}", f"isl={isl}", f"osl={osl}"]]


def command_text(groups: list[list[str]]) -> str:
    """The command as the pages print commands: one continuation line per group, every token quoted."""
    return " \\\n  ".join(_line(tuple(group)) for group in groups)


@functools.lru_cache(maxsize=4096)
def _line(group: tuple[str, ...]) -> str:
    """One group's line (most lines recur in every point of a record, and across records)."""
    return " ".join(quote_value(token) for token in group)


def reproducer_argv(hf_id: str, record: Mapping[str, Any], workload: str, concurrency: int) -> list[str]:
    """The argv of :func:`reproducer` (what ``tests/vllm_real`` hands vLLM's ``bench serve`` parser)."""
    groups = bench_groups(bench_target(hf_id, record), workload, concurrency)
    return [token for group in groups for token in group]


def reproducer(hf_id: str, record: Mapping[str, Any], workload: str, concurrency: int,
               host: str = DEFAULT_HOST, port: int | str | None = None) -> str:
    """The ``vllm bench serve`` command measuring ``record``'s point (``workload``, ``concurrency``)."""
    return command_text(bench_groups(bench_target(hf_id, record), workload, concurrency, host, port))
