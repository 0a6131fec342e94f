"""``vllm-recipes add-benchmark <org>/<repo> RESULT.json... [--hardware H --variant V --strategy S]
[--source URL]``.

Every file is read and checked before anything is written: the model must be the recipe's or one of its
variants', the selection (from the file's ``--metadata`` or the flags; a flag may fill in what a file lacks,
never contradict it) must name a command the recipe publishes, the parallel sizes a file declares must be
that command's, and every figure must be finite and plausible. Then the results file is replaced in one
step; a result at a point (selection, workload, concurrency) already stored replaces the stored one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from builder.cli.import_config import write_atomically
from builder.cli.reporting import Refused, recipe_file
from builder.cli.results.formats import Reading, read_format
from builder.cli.results.source import SourceError, read_source
from builder.content.loader import load_content
from builder.content.log_text import log_text
from builder.content.model import Content, RecipeFile
from builder.content.problems import ContentError, Problem
from builder.content.schemas.performance import MEASURED_BOUNDS, StoredMeasured
from builder.content.urls import MAX_URL_LENGTH, is_absolute_http
from builder.resolver.memory.rendering import argv_settings, record_argvs
from builder.resolver.performance.candidates import matrix_records
from builder.resolver.performance.measured import Provenance, StoredResult, dump_results, results_path
from builder.resolver.performance.results import point_key, result_order, workload_name

Selection = tuple[str, str, str]
LABELS = {"ttft_ms": "TTFT (ms)", "tpot_ms": "TPOT (ms)", "tokens_per_s_per_user": "tokens/s per user",
          "tokens_per_s_per_gpu": "tokens/s per GPU"}


@dataclass
class Options:
    """``add-benchmark`` as given on the command line."""

    recipe: str
    files: list[Path]
    content: Path
    hardware: str | None = None
    variant: str | None = None
    strategy: str | None = None
    source: str | None = None


def source_fields(reading: Reading) -> dict[str, str]:
    """The file's key behind each stored field (problems name what the reader can find in the file)."""
    vllm = reading["format"] == "vllm-bench-serve"
    tpot = "median_tpot_ms" if vllm else "median_tpot" if reading["tpot_ms"] else "median_intvty"
    return {"ttft_ms": "median_ttft_ms" if vllm else "median_ttft", "tpot_ms": tpot,
            "tokens_per_s_per_user": "median_tpot_ms" if vllm else "median_intvty",
            "tokens_per_s_per_gpu": reading["throughput_field"],
            "concurrency": "max_concurrency" if vllm else "conc",
            "input_tokens": "total_input_tokens" if vllm else "isl",
            "output_tokens": "total_output_tokens" if vllm else "osl",
            "provenance.gpu": reading["gpu_field"], "provenance.image": "image",
            "provenance.vllm_version": "vllm_version", "provenance.date": "date",
            "provenance.file": "file name"}


class Checker:
    """Checks the readings of one recipe's files and turns them into stored results."""

    def __init__(self, recipe: RecipeFile, records: dict[Selection, dict[str, Any]],
                 profiles: Mapping[str, Any], options: Options) -> None:
        self.recipe, self.records, self.profiles, self.options = recipe, records, profiles, options
        model = recipe.data.get("model") or {}
        variants = recipe.data.get("variants") or {}
        ids = [recipe.hf_id, model.get("model_id"), *((v or {}).get("model_id") for v in variants.values())]
        self.models = sorted({i for i in ids if isinstance(i, str)})
        self.problems: list[Problem] = []
        self.shown, self.first = "", 0  # the file being checked, and its first problem's index

    def problem(self, field: str, message: str) -> None:
        self.problems.append(Problem(self.shown, 0, field, message))

    def chosen(self, field: str, flag: str, given: str | None, found: str | None, hint: str) -> str | None:
        """One part of the selection: the flag's or the file's value (they must agree)."""
        if given is not None and found is not None and given != found:
            self.problem(field, f"the file says {found[:64]!r}, --{flag} says {given[:64]!r}")
            return None
        value = given if given is not None else found
        if value is None:
            self.problem(field, f"missing: pass --{flag}{hint}")
        return value

    def selection(self, reading: Reading) -> tuple[Selection, dict[str, Any]] | None:
        """The command the file measured, among those the recipe publishes."""
        gpu = reading["gpu"]
        named = gpu if gpu in self.profiles else None
        if gpu is not None and named is None and self.options.hardware is None:
            self.problem(reading["gpu_field"], f"{gpu[:64]!r} is not a hardware profile id: pass --hardware")
            return None
        metadata = reading["format"] == "vllm-bench-serve"
        hardware = self.chosen(reading["gpu_field"], "hardware", self.options.hardware, named,
                               " or --metadata gpu=<hardware id>" if metadata else "")
        variant = self.chosen("variant", "variant", self.options.variant, reading["variant"],
                              " or --metadata variant=<key>" if metadata else "")
        strategy = self.chosen("strategy", "strategy", self.options.strategy, reading["strategy"],
                               " or --metadata strategy=<id>" if metadata else "")
        if hardware is None or variant is None or strategy is None:
            return None
        selection = (hardware, variant, strategy)
        record = self.records.get(selection)
        if record is None:
            self.problem("selection", f"{' '.join(s[:64] for s in selection)} is not a command "
                                      f"{self.recipe.hf_id} publishes ({self.offered(selection)})")
            return None
        return selection, record

    def offered(self, selection: Selection) -> str:
        """What the recipe publishes nearest to a selection it does not: its hardware, the variants on that
        hardware, or the strategies of that hardware and variant."""
        hardware, variant, _ = selection
        for depth, noun in ((2, "strategies"), (1, "variants"), (0, "hardware")):
            found = list(dict.fromkeys(s[depth] for s in self.records if s[:depth] == selection[:depth]))
            if found:
                where = {2: f" of {hardware} {variant}", 1: f" on {hardware}", 0: ""}[depth]
                return f"its {noun}{where}: {', '.join(found)}"
        return "it publishes none"

    def gpus(self, reading: Reading, selection: Selection, record: Mapping[str, Any]) -> int:
        """The command's GPU count (TP x PP x DP); the sizes the file declares must be the command's (EP:
        TP x DP with ``--enable-expert-parallel``, else 1, as the reproducer's ``--metadata ep=`` says)."""
        commands = record_argvs(record)
        settings = argv_settings(commands[0][1]) if commands else {}
        sizes = {key: settings.get(key) for key in ("tp", "pp", "dp")}
        sizes = {key: value if isinstance(value, int) else 1 for key, value in sizes.items()}
        sizes["ep"] = sizes["tp"] * sizes["dp"] if settings.get("expert_parallel") else 1
        count = sizes["tp"] * sizes["pp"] * sizes["dp"]
        command = " ".join(selection)
        for key, declared in reading["gpus"].items():
            if reading["format"] == "inferencex-row" and key == "tp":
                if declared and declared != count:
                    self.problem(key, f"the row ran on {declared} GPU(s), the command {command} on {count}")
            elif declared != sizes[key]:
                self.problem(key, f"the file says {key} {declared}, the command {command} runs {key} "
                                  f"{sizes[key]}")
        return count

    def result(self, source_name: str, sha256: str, reading: Reading) -> StoredResult | None:
        """The stored result of one file, or None after recording its problems."""
        if reading["model"] and reading["model"] not in self.models:
            self.problem(reading["model_field"], f"{reading['model'][:100]!r} is not the model of "
                         f"{self.recipe.hf_id} or its variants ({', '.join(self.models)})")
        vllm = reading["format"] == "vllm-bench-serve"
        if reading["recipe"] is not None and reading["recipe"] not in self.models:
            self.problem("recipe", f"the file measured {reading['recipe'][:100]!r}, not {self.recipe.hf_id}")
        if reading["vllm_version"] is None and reading["image"] is None:
            hint = " (--metadata image=<image> or vllm_version=<version>)" if vllm else ""
            self.problem("image", f"missing: say which vLLM ran the benchmark{hint}")
        chosen = self.selection(reading)
        if chosen is None:
            return None
        selection, record = chosen
        gpus = self.gpus(reading, selection, record)
        per_gpu = reading["throughput"] / gpus if vllm else reading["throughput"]
        provenance = Provenance(format=reading["format"], file=source_name, sha256=sha256,
                                vllm_version=reading["vllm_version"], image=reading["image"],
                                gpu=reading["gpu"] or selection[0], date=reading["date"],
                                source=self.options.source)
        result = StoredResult(
            hardware=selection[0], variant=selection[1], strategy=selection[2],
            workload=workload_name(reading["input_tokens"], reading["output_tokens"]),
            input_tokens=reading["input_tokens"], output_tokens=reading["output_tokens"],
            concurrency=reading["concurrency"], ttft_ms=round(reading["ttft_ms"], 3),
            tpot_ms=round(reading["tpot_ms"], 3),
            tokens_per_s_per_user=round(reading["tokens_per_s_per_user"], 3),
            tokens_per_s_per_gpu=round(per_gpu, 3), provenance=provenance)
        return result if self.valid(result, reading) else None

    def valid(self, result: StoredResult, reading: Reading) -> bool:
        """The result against the stored file's schema, problems named by the file's keys."""
        fields = source_fields(reading)
        for key, bound in MEASURED_BOUNDS.items():
            value = result[key]  # type: ignore[literal-required]
            if value > bound:
                self.problem(fields[key], f"{LABELS[key]} {value:,.6g} is above {bound:,.0f}: not a "
                                          "plausible measurement")
        if len(self.problems) > self.first:
            return False
        try:
            StoredMeasured.model_validate(result)
        except ValidationError as exc:
            for error in exc.errors():
                path = ".".join(str(part) for part in error["loc"])
                plain = error["type"] == "string_pattern_mismatch"
                shown = ("must be a plain name (letters, digits, . _ - and the like), got "
                         f"{error['input']!r:.80}")
                message = shown if plain else error["msg"]
                self.problem(fields.get(path, path), message)
            return False
        return True

    def check(self, path: Path) -> StoredResult | None:
        """One file read and checked."""
        self.shown, self.first = str(path), len(self.problems)
        try:
            source = read_source(path)
        except SourceError as exc:
            self.problems.append(exc.problem)
            return None
        reading, problems = read_format(source)
        self.problems.extend(problems)
        if reading is None or problems:
            return None
        return self.result(source.name, source.sha256, reading)


def selections(recipe: RecipeFile, content: Content) -> dict[Selection, dict[str, Any]]:
    """The record of every selection the recipe publishes (the resolver's matrix records)."""
    vocab = content.vocab.resolver_vocab()
    records = matrix_records(recipe.data, vocab, recipe.hf_id)
    return {(r["hardware"], r["variant"], r["strategy"]): r for r in records}


def described(result: StoredResult) -> str:
    """A stored result in one line."""
    return (f"{result['hardware']} {result['variant']} {result['strategy']}, {result['workload']} at "
            f"concurrency {result['concurrency']}: {result['tokens_per_s_per_gpu']:,.1f} tok/s/GPU, "
            f"{result['tokens_per_s_per_user']:,.1f} tok/s/user, TTFT {result['ttft_ms']:,.1f} ms "
            f"({result['provenance']['format']} {result['provenance']['file']})")


def add_benchmark(options: Options) -> int:
    """Run ``add-benchmark``; returns the exit status (problems raise :class:`ContentError`)."""
    source = options.source
    if source is not None and (len(source) > MAX_URL_LENGTH or not is_absolute_http(source)):
        raise Refused("--source: must be an absolute http(s) URL")
    recipe_file(options.recipe)
    content, _ = load_content(options.content)
    recipe = next((r for r in content.recipes if r.hf_id == options.recipe), None)
    if recipe is None:
        raise Refused(f"no recipe {options.recipe} in this content root")
    records = selections(recipe, content)
    if not records:
        raise Refused(f"{recipe.hf_id} publishes no serving command to benchmark")
    checker = Checker(recipe, records, content.vocab.taxonomy.get("hardware_profiles") or {}, options)
    new: dict[tuple[str, str, str, str, int], tuple[Path, StoredResult]] = {}
    for path in options.files:
        result = checker.check(path)
        if result is None:
            continue
        earlier = new.get(point_key(result))
        if earlier is not None:
            vllm = result["provenance"]["format"] == "vllm-bench-serve"
            checker.problem("max_concurrency" if vllm else "conc",
                            f"measures the same point as {earlier[0]} ({described(result).split(':')[0]})")
        new[point_key(result)] = (path, result)
    if checker.problems:
        raise ContentError(checker.problems)
    stored = {point_key(r): r for r in recipe.measured}
    for key, (_, result) in new.items():
        old = stored.get(key)
        verb = "unchanged" if old == result else "replaced" if old is not None else "stored"
        print(log_text(f"{recipe.hf_id}: {verb} {described(result)}"))
        stored[key] = result
    results = sorted(stored.values(), key=result_order)
    rel = results_path(recipe.hf_id)
    write_atomically(options.content / rel, dump_results(results))
    print(log_text(f"wrote {rel}: {len(results)} result(s)"))
    return 0
