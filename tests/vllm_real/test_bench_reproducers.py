"""Every published reproducer against vLLM 0.33.0's real ``vllm bench serve`` parser (``make test-vllm``).

One run of ``bench_argv.py`` (a child of the vLLM venv's zygote, :mod:`tests.vllm_real.scripts`) parses
the argv of every predicted point of every record (preset points too) of a JSON API build of ``recipes/``,
as the shell splits the published text; each must be accepted and parse to the values the point stands
for. The committed ``bench serve`` catalogue is checked in
``test_real_parser.test_committed_catalogue_matches_venv``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from builder.resolver.memory.rendering import record_argvs
from builder.resolver.performance.store import WORKLOADS
from tests.support.paths import RECIPES
from tests.support.reproducers import Published, argv_of, published_points
from tests.vllm_real.test_real_parser import pytestmark as real_parser_mark
from tests.vllm_real.test_real_parser import real_verdicts

pytestmark = real_parser_mark  # skipped without VLLM_VENV, as the serve parser's suite
BENCH_SCRIPT = Path(__file__).resolve().parent / "bench_argv.py"


def _value(argv: list[str], flag: str, default: str) -> str:
    """The value after the last ``flag`` in ``argv``, else ``default``."""
    found = default
    for current, following in zip(argv, argv[1:], strict=False):
        if current == flag:
            found = following
    return found


def intended(published: Published) -> dict[str, Any]:
    """What vLLM's namespace must hold for this point, read from the record's own serve argv."""
    serve = [str(t) for t in record_argvs(published.record)[0][1]]
    isl, osl = WORKLOADS[published.workload]
    concurrency = published.point["concurrency"]
    served = _value(serve, "--served-model-name", "")
    return {"subparser": "bench", "bench_type": "serve", "backend": "vllm", "model": serve[2],
            "served_model_name": served or None, "host": "localhost",
            "port": int(_value(serve, "--port", "8000")), "dataset_name": "random", "random_input_len": isl,
            "random_output_len": osl, "random_range_ratio": "0.0", "max_concurrency": concurrency,
            "num_prompts": min(max(10 * concurrency, 32), 16384), "ignore_eos": True,
            "percentile_metrics": "ttft,tpot,itl,e2el", "save_result": True, "result_dir": "."}


def metadata_problems(published: Published, namespace: dict[str, Any]) -> list[str]:
    """The result file name and the ``--metadata`` items against the record's selection."""
    record, workload = published.record, published.workload
    serve = [str(t) for t in record_argvs(record)[0][1]]
    items = dict(item.split("=", 1) for item in namespace["metadata"])
    tp = int(_value(serve, "--tensor-parallel-size", "1"))
    dp = int(_value(serve, "--data-parallel-size", "1"))
    expected = {"gpu": record["hardware"], "variant": record["variant"], "strategy": record["strategy"],
                "workload": workload, "isl": str(WORKLOADS[workload][0]), "osl": str(WORKLOADS[workload][1]),
                "tp": str(tp), "pp": _value(serve, "--pipeline-parallel-size", "1"), "dp": str(dp),
                "ep": str(tp * dp if "--enable-expert-parallel" in serve else 1)}
    if record.get("docker_image"):
        expected["image"] = record["docker_image"]
    problems = [f"metadata {k}={items.get(k)!r}, expected {v!r}"
                for k, v in expected.items() if items.get(k) != v]
    name = (rf"[A-Za-z0-9][A-Za-z0-9._-]*__{record['hardware']}__{record['variant']}__{record['strategy']}__"
            rf"{workload.replace('/', '-')}__c{published.point['concurrency']}\.json")
    if not re.fullmatch(name, namespace["result_filename"]):
        problems.append(f"result file name {namespace['result_filename']!r}")
    return problems


def test_every_reproducer_parses_to_its_point() -> None:
    points = published_points(RECIPES)
    verdicts = real_verdicts([argv_of(p.point["reproducer"]) for p in points], BENCH_SCRIPT)
    wrong = []
    for published, verdict in zip(points, verdicts, strict=True):
        if not verdict["ok"]:
            wrong.append(f"{published.label}: refused: {verdict['error']}")
            continue
        namespace = verdict["namespace"]
        want = intended(published)
        differ = [f"{k}={namespace[k]!r}, expected {v!r}" for k, v in want.items() if namespace[k] != v]
        differ += metadata_problems(published, namespace)
        wrong += [f"{published.label}: {'; '.join(differ)}"] if differ else []
    assert not wrong, "\n".join(wrong[:30])
    assert len(points) == 4113  # every predicted point of recipes/ (preset points included)
