"""The predictions committed in recipes/ agree with AIConfigurator's own run, within 1 %, for 5 commands.

The run here calls ``aiconfigurator_core`` directly (database, model, ``run_agg`` per point), from the
stored inputs and the config.json the stand-in Hub served (``../shared/memory/configs``).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.support.paths import ROOT, SHARED

WORKLOADS = {"1k/1k": (1024, 1024), "8k/1k": (8192, 1024), "1k/8k": (1024, 8192)}
# (recipe, system, GEMM quant mode)
COMMANDS = [
    ("Qwen/Qwen3-8B", "h100_sxm", "bfloat16"),
    ("Qwen/Qwen3-8B", "b200_sxm", "fp8"),
    ("Qwen/Qwen3-30B-A3B", "h200_sxm", "bfloat16"),
    ("meta-llama/Llama-3.1-8B-Instruct", "rtx_pro_6000_server", "bfloat16"),
    ("Qwen/Qwen2.5-7B-Instruct", "gb200", "bfloat16"),
]
FIGURES = {"ttft_ms": "ttft", "tpot_ms": "tpot", "tokens_per_s_per_user": "tokens/s/user",
           "tokens_per_s_per_gpu": "tokens/s/gpu"}


def stored_entry(hf_id: str, system: str, gemm: str) -> dict[str, Any]:
    stored = json.loads((ROOT / "recipes" / "models" / f"{hf_id}.performance.json").read_text())
    [entry] = [e for e in stored["predictions"] if e["inputs"]["system"] == system
               and e["inputs"]["gemm_quant"] == gemm]
    return entry


def own_run(entry: dict[str, Any], folder: Path) -> dict[tuple[str, int], dict[str, float]]:
    """AIConfigurator's figures at every stored point."""
    from aiconfigurator_core.sdk import common, config
    from aiconfigurator_core.sdk.backends.factory import get_backend
    from aiconfigurator_core.sdk.models import get_model
    from aiconfigurator_core.sdk.perf_database import get_database

    inputs, database = entry["inputs"], entry["database"]
    db = get_database(database["system"], database["backend"], database["version"])
    model = get_model(str(folder), config.ModelConfig(
        tp_size=inputs["tp"], pp_size=inputs["pp"], attention_dp_size=inputs["attention_dp"],
        moe_tp_size=inputs["moe_tp"], moe_ep_size=inputs["moe_ep"],
        gemm_quant_mode=common.GEMMQuantMode[inputs["gemm_quant"]],
        moe_quant_mode=common.MoEQuantMode[inputs["moe_quant"]],
        kvcache_quant_mode=common.KVCacheQuantMode[inputs["kv_cache_quant"]]), "vllm")
    backend = get_backend("vllm")
    figures = {}
    for name, points in entry["workloads"].items():
        isl, osl = WORKLOADS[name]
        for point in points:
            runtime = config.RuntimeConfig(batch_size=point["concurrency"] // inputs["attention_dp"], isl=isl,
                                           osl=osl)
            row = backend.run_agg(model, db, runtime,
                                  ctx_tokens=min(isl, inputs["max_num_batched_tokens"])).get_result_dict()
            figures[name, point["concurrency"]] = {key: float(row[column]) for key, column in FIGURES.items()}
    return figures


@pytest.mark.parametrize(("hf_id", "system", "gemm"), COMMANDS,
                         ids=[f"{c[0]}@{c[1]}-{c[2]}" for c in COMMANDS])
def test_stored_figures_match_the_predictors_own_run(hf_id: str, system: str, gemm: str,
                                                     tmp_path: Path) -> None:
    entry = stored_entry(hf_id, system, gemm)
    assert entry["inputs"]["model"] == hf_id and entry["inputs"]["revision"] is None
    folder = tmp_path / hf_id.replace("/", "__")
    folder.mkdir()
    shutil.copy(SHARED / "memory" / "configs" / f"{hf_id.replace('/', '__')}.json", folder / "config.json")
    figures = own_run(entry, folder)
    points = [(name, point) for name, rows in entry["workloads"].items() for point in rows]
    assert len(points) >= 15
    for name, point in points:
        own = figures[name, point["concurrency"]]
        for key in FIGURES:
            assert point[key] == pytest.approx(own[key], rel=0.01), (name, point["concurrency"], key)
