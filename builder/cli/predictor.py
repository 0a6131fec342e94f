"""AIConfigurator, the predictor behind ``vllm-recipes predict``: the only module that imports it.

The library is ``aiconfigurator-core`` (the optional ``perf`` extra): the standalone core that owns
the perf databases and the estimator the ``aiconfigurator``/``aisimulate`` front ends wrap. One
aggregated vLLM worker is predicted at one (batch, context tokens) point by ``backend.run_agg``,
exactly what ``aiconfigurator.sdk.predict.predict_agg_worker`` calls with its default analytic
predictor (speculative progress passed as ``decode_tokens_per_iteration``, as it does). Databases
are loaded once per system, a model and a backend once per inputs (the backend caches points
without the model in the key), so a sweep costs milliseconds per point.

Each point uses ``ctx_tokens`` = the input length capped by ``--max-num-batched-tokens``: one prompt
prefilled per step, the default of AIConfigurator's own single-point estimate. A point whose
weights or KV cache the predictor finds out of memory ends the sweep.
"""

from __future__ import annotations

import importlib.metadata
import json
import logging
import re
import tempfile
import warnings
from pathlib import Path
from typing import Any

from builder.cli.hub import HubFailure, fetch_config
from builder.resolver.performance.mapping import PredictorInputs
from builder.resolver.performance.store import WORKLOADS, Database, Entry, Point, Tool, concurrencies

DISTRIBUTION = "aiconfigurator-core"
INSTALL = "pip install 'vllm-recipes-builder[perf]'"


def missing_predictor() -> str | None:
    """What to install when the predictor is absent; None when it is importable."""
    try:
        importlib.metadata.version(DISTRIBUTION)
        import aiconfigurator_core  # noqa: F401
    except (importlib.metadata.PackageNotFoundError, ImportError):
        return f"the predictor ({DISTRIBUTION}) is not installed: {INSTALL}"
    return None


def tool() -> Tool:
    """The installed predictor's name and version."""
    return Tool(name=DISTRIBUTION, version=importlib.metadata.version(DISTRIBUTION))


def _quiet() -> None:
    """The library logs every table it loads; a predict run prints only its own lines."""
    logging.getLogger("aiconfigurator_core").setLevel(logging.ERROR)
    logging.getLogger("aiconfigurator").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", module="aiconfigurator_core")


INSTALLED_PATH = re.compile(r"/[^\s'\"]*/aiconfigurator_core/")


def _first_line(error: BaseException) -> str:
    """The error's type and first line, without this machine's paths (the text is stored and published)."""
    lines = INSTALLED_PATH.sub("aiconfigurator_core/", str(error)).strip().splitlines()
    return f"{type(error).__name__}: {lines[0][:240] if lines else ''}".rstrip(": ")


class Predictor:
    """One predict run: databases, backend and configs loaded once."""

    def __init__(self) -> None:
        _quiet()
        self.databases: dict[str, Any] = {}
        self.configs: dict[tuple[str, str | None], Path | str] = {}
        self.folder = tempfile.TemporaryDirectory(prefix="vllm-recipes-predict-")

    def close(self) -> None:
        self.folder.cleanup()

    def database(self, system: str) -> Any:
        """The current vLLM database of a system (loaded once)."""
        if system not in self.databases:
            from aiconfigurator_core.sdk.perf_database import get_database, resolve_query_version

            version = resolve_query_version(system, "vllm", "current")
            self.databases[system] = get_database(system, "vllm", version)
        return self.databases[system]

    def config_dir(self, repo: str, revision: str | None) -> Path | str:
        """A folder holding the repository's config.json at the facts' revision, or why there is none."""
        key = (repo, revision)
        if key not in self.configs:
            try:
                config, sha = fetch_config(repo, revision)
            except HubFailure as failure:
                self.configs[key] = f"no config.json of {repo}: {failure}"
            else:
                if not isinstance(config.get("architectures"), list):
                    self.configs[key] = f"the config.json of {repo} names no architectures"
                    return self.configs[key]
                folder = Path(self.folder.name) / f"{len(self.configs)}-{sha}"
                folder.mkdir()
                (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
                self.configs[key] = folder
        return self.configs[key]

    def model(self, inputs: PredictorInputs, folder: Path) -> Any:
        from aiconfigurator_core.sdk import common, config
        from aiconfigurator_core.sdk.models import get_model

        model_config = config.ModelConfig(
            tp_size=inputs["tp"],
            pp_size=inputs["pp"],
            attention_dp_size=inputs["attention_dp"],
            moe_tp_size=inputs["moe_tp"],
            moe_ep_size=inputs["moe_ep"],
            gemm_quant_mode=common.GEMMQuantMode[inputs["gemm_quant"]],
            moe_quant_mode=common.MoEQuantMode[inputs["moe_quant"]],
            kvcache_quant_mode=common.KVCacheQuantMode[inputs["kv_cache_quant"]],
            nextn=inputs["nextn"],
        )
        return get_model(str(folder), model_config, "vllm")

    @staticmethod
    def point(backend: Any, model: Any, database: Any, inputs: PredictorInputs, batch: int, isl: int,
              osl: int) -> Point | None:
        """One operating point; None when the predictor finds it out of memory."""
        from aiconfigurator_core.sdk import config

        runtime = config.RuntimeConfig(batch_size=batch, isl=isl, osl=osl)
        extra: dict[str, Any] = {}
        if inputs["nextn"] > 0:
            extra["decode_tokens_per_iteration"] = 1.0 + inputs["nextn_accepted"]
        summary = backend.run_agg(model, database, runtime,
                                  ctx_tokens=min(isl, inputs["max_num_batched_tokens"]), **extra)
        if summary.check_oom() or summary.check_kv_cache_oom():
            return None
        row = summary.get_result_dict()
        return Point(
            concurrency=int(row["concurrency"]),  # batch x attention DP
            ttft_ms=round(float(row["ttft"]), 3),
            tpot_ms=round(float(row["tpot"]), 3),
            tokens_per_s_per_user=round(float(row["tokens/s/user"]), 2),
            tokens_per_s_per_gpu=round(float(row["tokens/s/gpu"]), 2),
        )

    def predict(self, inputs: PredictorInputs) -> Entry:
        """Every workload's sweep for one command's inputs, or why the predictor cannot answer."""
        folder = self.config_dir(inputs["model"], inputs["revision"])
        if isinstance(folder, str):
            return Entry(inputs=inputs, unavailable=folder)
        try:
            from aiconfigurator_core.sdk.backends.factory import get_backend

            database = self.database(inputs["system"])
            model = self.model(inputs, folder)
            backend = get_backend("vllm")  # its point cache is keyed without the model: one per model
            workloads: dict[str, list[Point]] = {}
            for name, (isl, osl) in WORKLOADS.items():
                points: list[Point] = []
                for batch in concurrencies(inputs, name):
                    point = self.point(backend, model, database, inputs, batch, isl, osl)
                    if point is None:
                        break
                    points.append(point)
                workloads[name] = points
        except Exception as error:  # the library raises many kinds; each becomes the command's reason
            return Entry(inputs=inputs, unavailable=f"the predictor failed: {_first_line(error)}")
        used = Database(system=str(database.system), backend=str(database.backend),
                        version=str(database.version))
        return Entry(inputs=inputs, database=used, workloads=workloads)
