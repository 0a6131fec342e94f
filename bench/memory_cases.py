"""The memory model against every start-up it is tested on, and how many recipes have facts.

Prints, for each shared vLLM 0.19 start-up (../shared/memory/cases.json) and the added multimodal
(Gemma 3, published logs) and speculative (EAGLE-3 head, counted from its config) cases: weights,
the vision encoder and the draft within them, KV cache and tokens, estimate against the log. Then the
coverage line of recipes/ (as committed, and a copy without its blocks) and of a temporary copy of
../shared/upstream before and after
``import-config --from-hub --all`` against the local Hub stand-in serving ../shared/memory/configs (and, for
../shared/upstream, ../shared/hub/configs with their hf_quant_config.json).

Then the hybrid, sliding-window and sparse start-ups of ../shared/hybrid-logs: given each log's "Available KV
cache memory" and settings, the KV cache tokens, the maximum concurrency and the weights against the log, and
the cases that cannot be checked, with the reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from builder.content.loader import load_content  # noqa: E402
from builder.resolver import memory_coverage  # noqa: E402
from builder.resolver.memory import estimate_memory  # noqa: E402
from tests.support.hub_server import FakeHub, HubServer, corpus_hub, shared_hub, strip_blocks  # noqa: E402
from tests.support.memory_cases import (  # noqa: E402
    CASES,
    EAGLE3,
    EAGLE3_REPO,
    GEMMA3,
    HYBRID_UNCHECKED,
    HYBRID_WEIGHTS_UNCHECKED,
    MULTIMODAL_SETTINGS,
    config,
    hybrid_checks,
)
from tests.support.paths import RECIPES, SHARED  # noqa: E402

UPSTREAM = SHARED / "upstream"
HEADER = (f"{'case':<58} {'weights est/log GiB':>20} {'vision':>7} {'draft':>6} {'KV est/log GiB':>16} "
          f"{'tokens est/log':>22}")


def _row(name: str, e: dict[str, Any], log: dict[str, Any] | None) -> str:
    parts = e["parts"]
    vision = f"{parts['encoder_gib']:.2f}" if "encoder_gib" in parts else "-"
    draft = f"{parts['draft_gib']:.2f}" if "draft_gib" in parts else "-"
    if log is None:
        return (f"{name[:58]:<58} {e['weights_gib']:>9.2f} / {'config':<8} {vision:>7} {draft:>6} "
                f"{e['available_kv_gib']:>7.2f} / {'-':<6} {e['kv_tokens']:>10,} / {'-':<9}")
    return (f"{name[:58]:<58} {e['weights_gib']:>9.2f} / {log['model_loading_gib']:<8.2f} "
            f"{vision:>7} {draft:>6} {e['available_kv_gib']:>7.2f} / {log['available_kv_cache_gib']:<6.2f} "
            f"{e['kv_tokens']:>10,} / {log['kv_cache_tokens']:<9,}")


def cases_table() -> None:
    print(HEADER)
    for case in CASES:
        settings = {"tp": case["tensor_parallel_size"], "pp": case["pipeline_parallel_size"],
                    "dtype": case["dtype"],
                    "kv_cache_dtype": case["kv_cache_dtype"], "weight_bits": case["weight_bits"],
                    "gpu_memory_gib": case["gpu_memory_gib"],
                    "gpu_memory_utilization": case["gpu_memory_utilization"],
                    "max_model_len": case["max_model_len"],
                    "max_num_batched_tokens": case["max_num_batched_tokens"]}
        print(_row(case["id"], dict(estimate_memory(config(case["architecture_config"]), settings)),
                   case["measured"]))
    for model, (facts, log) in GEMMA3.items():
        print(
            _row(f"{model} (published log, vision)", dict(estimate_memory(facts, MULTIMODAL_SETTINGS)), log))
    llama = {**config("meta-llama__Llama-3.1-8B-Instruct.json"), "drafts": {EAGLE3_REPO: EAGLE3}}
    spec = {"gpu_memory_gib": 79.19, "max_model_len": 8192,
            "speculative": {"method": "eagle3", "model": EAGLE3_REPO}}
    print(_row("Llama-3.1-8B-Instruct + EAGLE-3 head (no log)", dict(estimate_memory(llama, spec)), None))


def coverage(root: Path) -> str:
    content, _ = load_content(root)
    return str(memory_coverage(recipe.data for recipe in content.recipes))


def _versus(estimate: float, log: float | None, digits: int = 2) -> str:
    if log is None:
        return f"{estimate:,.{digits}f} / -"
    return (f"{estimate:,.{digits}f} / {log:,.{digits}f} ({100 * (estimate / log - 1):+.1f}%)" if log
            else f"{estimate} / {log}")


def hybrid_table() -> None:
    """Each hybrid-logs case with a config and a logged budget: tokens, concurrency and weights, estimate /
    log."""
    print(f"{'hybrid-logs case':<46} {'KV tokens est / log':>30} {'concurrency est / log':>26} "
          f"{'weights GiB est / log':>26}")
    for check in hybrid_checks():
        e, log = check["estimate"], check["log"]
        concurrency = log["max_concurrency"]["x"]
        weights = None if check["id"] in HYBRID_WEIGHTS_UNCHECKED else log["model_loading_gib"]
        row = (f"{check['id'][:46]:<46} {_versus(e['kv_tokens'], log['kv_cache_tokens'], 0):>30} "
               f"{_versus(e['max_concurrency'], concurrency):>26} {_versus(e['weights_gib'], weights):>26}")
        if check["failed"]:
            row += f"  failed start-up, estimate: {e['verdict']}: {e['reason'][:90]}"
        print(row)
    for case, reason in {**HYBRID_UNCHECKED, **HYBRID_WEIGHTS_UNCHECKED}.items():
        print(f"  not checked: {case}: {reason}")


def before_and_after(name: str, source: Path, strip: bool, hub: FakeHub) -> None:
    """Coverage of a copy of ``source`` (without its blocks when ``strip``), then after
    ``--from-hub --all``."""
    with tempfile.TemporaryDirectory() as tmp, HubServer(hub, Path(tmp) / "hf-home") as server:
        copy = Path(tmp) / "content"
        subprocess.run(["cp", "-r", str(source), str(copy)], check=True)
        subprocess.run(["chmod", "-R", "u+w", str(copy)], check=True)
        if strip:
            for path in (copy / "models").glob("*/*.yaml"):
                path.write_text(strip_blocks(path.read_text()))
        print(f"{name} before: {coverage(copy)}")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "HUGGING"))}
        done = subprocess.run([sys.executable, "-m", "builder", "import-config", "--from-hub", "--all",
                               "--content", str(copy)], cwd=ROOT, env={**env, **server.env()},
                              capture_output=True, text=True, timeout=900)
        wrote = [line for line in done.stdout.splitlines() if ": wrote " in line]
        refused = done.stderr.count("an architecture the memory model does not know")
        print(f"  import-config --from-hub --all (local Hub with {len(server.hub.repos)} repositories): exit "
              f"{done.returncode}; {done.stdout.splitlines()[-1]}; {refused} refused as an "
              "unknown architecture")
        for line in wrote:
            print(f"    {line}")
        print(f"{name} after:  {coverage(copy)}")


def main() -> None:
    cases_table()
    print()
    hybrid_table()
    print()
    print(f"recipes/ as committed: {coverage(RECIPES)}")
    before_and_after("recipes/ without its architecture_config blocks", RECIPES, strip=True, hub=shared_hub())
    if UPSTREAM.is_dir():
        before_and_after("../shared/upstream", UPSTREAM, strip=False, hub=corpus_hub())


if __name__ == "__main__":
    main()
