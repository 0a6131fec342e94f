"""``python -m builder resolve``: the commands for a selection, without a browser, from the same resolver."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from builder import resolver
from builder.api.performance import RecipePerformance
from builder.cli.reporting import Refused
from builder.content.model import Content, RecipeFile
from builder.resolver.deploy import deployment_output, pd_ranks
from builder.resolver.performance.candidates import candidates as matrix_candidates
from builder.resolver.performance.pick import Candidate, Unmet, parse_target, pick
from builder.resolver.performance.pick import Choice as Pick
from builder.resolver.performance.store import WORKLOADS, Performance


@dataclass
class Choice:
    """A ``resolve`` request as given on the command line."""

    recipe: str
    hardware: str | None = None
    variant: str | None = None
    strategy: str | None = None
    features: list[str] = field(default_factory=list)  # "F" or "F=MODE"
    no_features: list[str] = field(default_factory=list)
    nodes: int | None = None
    kv_offload: str | None = None
    preset: str | None = None  # "P" or "P:POINT"
    docker: bool = False
    as_json: bool = False
    output: str = "text"  # text or a deployment format id (builder.resolver.deploy.FORMATS)
    target: str | None = None  # "ttft=2,tps_user=50[,gpus=8]": the command for this target
    workload: str = "1k/1k"


def _check(kind: str, value: str, valid: list[str], where: str) -> None:
    """Refuse ``value`` unless it is one of ``valid``."""
    if value not in valid:
        listed = ", ".join(valid) if valid else "(none)"
        raise Refused(f"unknown {kind} {value!r} for {where}; valid: {listed}")


def find_recipe(content: Content, wanted: str) -> tuple[RecipeFile, str | None]:
    """A recipe by hf id, or a promoted variant id -> (parent recipe, variant key)."""
    for recipe in content.recipes:
        if recipe.hf_id == wanted:
            return recipe, None
    for recipe in content.recipes:
        for vkey, variant in (recipe.data.get("variants") or {}).items():
            if (variant or {}).get("model_id") == wanted:
                return recipe, vkey
    _check("recipe", wanted, sorted(r.hf_id for r in content.recipes), "this content root")
    raise AssertionError("unreachable")


def selection_for(content: Content, choice: Choice) -> tuple[RecipeFile, dict[str, Any]]:
    """Validate a choice against the recipe and build the resolver selection."""
    recipe, promoted_variant = find_recipe(content, choice.recipe)
    data, vocab = recipe.data, content.vocab.resolver_vocab()
    where = recipe.hf_id
    variant = choice.variant or promoted_variant or "default"
    _check("variant", variant, list(data.get("variants") or {}), where)
    selection: dict[str, Any] = {"variant": variant}
    if resolver.is_omni(data):
        if choice.hardware:
            _check("hardware", choice.hardware, resolver.offered_hardware(data, vocab["taxonomy"], variant),
                   where)
            selection["hardware"] = choice.hardware
        return recipe, selection
    hardware = choice.hardware or resolver.default_hardware(data, vocab["taxonomy"], variant)
    _check("hardware", hardware, resolver.offered_hardware(data, vocab["taxonomy"], variant),
           f"{where} ({variant})")
    selection["hardware"] = hardware
    profile = (vocab["taxonomy"].get("hardware_profiles") or {}).get(hardware, {})
    if not resolver.runs_on(profile, data["variants"][variant], hardware):
        variant = resolver.pick_fitting_variant(data, profile, hardware) or variant
        selection["variant"] = variant
    if choice.strategy:
        offered = resolver.offered_strategies(data, vocab, variant, hardware)
        _check("strategy", choice.strategy, offered, f"{where} on {hardware}")
        selection["strategy"] = choice.strategy
    features = dict.fromkeys(resolver.default_enabled_features(data, hardware, variant))
    modes: dict[str, str] = {}
    declared = data.get("features") or {}
    for item in choice.features:
        name, _, mode = item.partition("=")
        _check("feature", name, list(declared), where)
        features[name] = None
        if mode:
            available = resolver.available_modes(declared[name], variant, profile, hardware)
            _check(f"mode of {name}", mode, available, f"{where} on {hardware}")
            modes[name] = mode
    for name in choice.no_features:
        _check("feature", name, list(declared), where)
        features.pop(name, None)
    selection["features"] = [name for name in declared if name in features]
    selection["modes"] = modes
    if choice.nodes is not None:
        if not 1 <= choice.nodes <= resolver.MAX_NODES:
            raise Refused(f"--nodes must be between 1 and {resolver.MAX_NODES}")
        selection["nodes"] = choice.nodes
    if choice.kv_offload:
        options = ["off", *(vocab["taxonomy"].get("kv_offload") or {}), *resolver.kv_store_ids(vocab)]
        _check("KV offload option", choice.kv_offload, options, where)
        selection["kv_offload"] = choice.kv_offload
    return recipe, selection


def preset_records(content: Content, choice: Choice) -> list[tuple[str, dict[str, Any]]]:
    """(title, rendering record) for each requested preset point."""
    recipe, _ = find_recipe(content, choice.recipe)
    presets = recipe.data.get("presets") or {}
    key, _, point = (choice.preset or "").partition(":")
    _check("preset", key, list(presets), recipe.hf_id)
    points = resolver.resolve_preset(recipe.data, content.vocab.resolver_vocab(), key)["points"]
    if point:
        _check("point", point, list(presets[key].get("points") or {}), f"preset {key}")
        points = {point: points[point]}
    return [(f"{key}:{name} ({record['label']})", record) for name, record in points.items()]


def command_text(record: dict[str, Any], vocab: dict[str, Any], docker: bool) -> str:
    """Every command of a record (one block per node or role), as a user would paste them."""
    if record.get("deploy_type") == "omni":
        example = record.get("example")
        return f"{record['command']}\n\n# Request\n{example}" if example else record["command"]
    tabs = resolver.builder_tabs(record, vocab)
    blocks = []
    for tab in tabs:
        text = tab["docker"] if docker and "docker" in tab else tab["pip"]
        blocks.append(f"# {tab['label']}\n{text}" if len(tabs) > 1 else text)
    return "\n\n".join(blocks)


def deploy_text(record: dict[str, Any], vocab: dict[str, Any], output: str, ranks: Any = None) -> str:
    """A record's deployment files as ``resolve --format <form>`` prints them."""
    result = deployment_output(record, vocab, output, ranks)
    if result["reason"] is not None:
        raise Refused(f"--format {output}: {result['reason']}")
    return result["text"]


def resolve_command(content: Content, choice: Choice) -> str:
    """The output of ``python -m builder resolve``."""
    vocab = content.vocab.resolver_vocab()
    if choice.preset:
        records = preset_records(content, choice)
        recipe, _ = find_recipe(content, choice.recipe)
        for _, point in records:
            with_performance(content, recipe, point, preset=True)
        if choice.output != "text":
            return "\n\n".join(f"# {title}\n{deploy_text(record, vocab, choice.output)}"
                               for title, record in records)
        if choice.as_json:
            return json.dumps({title: record for title, record in records}, indent=2, ensure_ascii=False)
        return "\n\n".join(f"# {title}\n{command_text(record, vocab, choice.docker)}"
                           for title, record in records)
    if choice.target is not None:
        return target_text(content, choice)
    recipe, selection = selection_for(content, choice)
    record = with_performance(content, recipe, resolver.resolve(recipe.data, vocab, selection))
    if choice.output != "text":
        return deploy_text(record, vocab, choice.output, pd_ranks(recipe.data, vocab, selection, record))  # type: ignore[arg-type]
    if choice.as_json:
        return json.dumps(record, indent=2, ensure_ascii=False)
    text = command_text(record, vocab, choice.docker)
    memory = record.get("memory")
    return f"{text}\n\n# {memory['summary']}" if memory else text


def with_performance(content: Content, recipe: RecipeFile, record: dict[str, Any], preset: bool = False
                     ) -> dict[str, Any]:
    """``record`` with its ``performance`` block added where the recipe has stored predictions or results."""
    performance = record_performance(content, recipe, record, preset)
    if performance is not None:
        record["performance"] = performance
    return record


def record_performance(content: Content, recipe: RecipeFile, record: dict[str, Any], preset: bool = False
                       ) -> Performance | None:
    """A record's ``performance`` block from the recipe's stored predictions and results (None without)."""
    variant = (recipe.data.get("variants") or {}).get(record.get("variant")) or {}
    profile = (content.vocab.taxonomy.get("hardware_profiles") or {}).get(record.get("hardware")) or {}
    return RecipePerformance(recipe).block(record, recipe.data, variant, profile, preset)


def candidates(content: Content, recipe: RecipeFile) -> list[Candidate]:
    """Every command of a recipe's builder matrix with its predictions and GPU count."""
    return matrix_candidates(recipe.data, content.vocab.resolver_vocab(), recipe.hf_id, recipe.performance)


def pick_answer(content: Content, choice: Choice) -> tuple[RecipeFile, Pick | Unmet]:
    """The recipe and the pick for ``--target`` on ``--workload``."""
    if choice.workload not in WORKLOADS:
        raise Refused(f"unknown workload {choice.workload!r}; valid: {', '.join(WORKLOADS)}")
    target = parse_target(choice.target or "")
    if isinstance(target, str):
        raise Refused(f"--target: {target}")
    recipe, _ = find_recipe(content, choice.recipe)
    if recipe.performance is None:
        raise Refused(f"{recipe.hf_id} has no stored predictions: run vllm-recipes predict {recipe.hf_id}")
    return recipe, pick(candidates(content, recipe), choice.workload, target)


def target_text(content: Content, choice: Choice) -> str:
    """``resolve --target``: the command that meets the target with the most tok/s per GPU, or what is
    unmet."""
    recipe, answer = pick_answer(content, choice)
    if choice.as_json:
        return json.dumps({"pick": answer}, indent=2, ensure_ascii=False)
    if "unmet" in answer:
        miss = answer["unmet"]  # type: ignore[typeddict-item]
        if miss["constraint"] == "workload":
            return f"no command of {recipe.hf_id} has a prediction for {choice.workload}"
        closest = miss["closest"]
        near = (f"; closest: {closest['hardware']} {closest['variant']} {closest['strategy']} at concurrency "
                f"{closest['concurrency']}: {point_text(closest['point'])}") if closest else ""
        return f"no command meets {miss['constraint']} (target {miss['target']:g}){near}"
    found: Pick = answer  # type: ignore[assignment]
    selected = Choice(recipe=choice.recipe, hardware=found["hardware"], variant=found["variant"],
                      strategy=found["strategy"], docker=choice.docker)
    _, selection = selection_for(content, selected)
    record = resolver.resolve(recipe.data, content.vocab.resolver_vocab(), selection)
    text = command_text(record, content.vocab.resolver_vocab(), choice.docker)
    return (f"{text}\n\n# pick: {found['hardware']}, variant {found['variant']}, strategy "
            f"{found['strategy']}; predicted at concurrency {found['concurrency']} ({choice.workload}): "
            f"{point_text(found['point'])}")


def point_text(point: Any) -> str:
    """A predicted point in one line."""
    return (f"TTFT {point['ttft_ms']:,.0f} ms, TPOT {point['tpot_ms']:.1f} ms, "
            f"{point['tokens_per_s_per_user']:,.1f} tok/s per user, "
            f"{point['tokens_per_s_per_gpu']:,.0f} tok/s per GPU")
