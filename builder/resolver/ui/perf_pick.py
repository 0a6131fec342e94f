"""The builder's "Pick for me": the reader's target (the ``pick`` event's value) answered from this recipe's
commands (:func:`..performance.candidates.candidates`, the same candidates as ``resolve --target``) by
:func:`..performance.pick.pick`, and the note the panel shows afterwards."""

from __future__ import annotations

from typing import Any

from ..performance.candidates import candidates
from ..performance.pick import Choice, Target, pick
from ..values import as_dict, js_str
from .facts import BuilderFacts, hardware_name, variant_label
from .perf_state import number
from .performance import point_title

CONSTRAINT_TEXT = {"ttft": "TTFT at most {:g} s", "tps_user": "at least {:g} tok/s per user",
                   "gpus": "at most {:g} GPUs"}


def target_of(value: Any) -> Target | str:
    """The target of a ``pick`` event's value ``{"ttft", "tps_user", "gpus"}`` (numbers or their texts; empty
    fields left out), or what is wrong with it."""
    target = Target()
    for key, raw in as_dict(value).items():
        if key not in CONSTRAINT_TEXT or raw in (None, ""):
            continue
        found = number(raw)
        if found is None:
            return f"{key}: expected a positive number"
        if key == "gpus":
            target["gpus"] = int(found)
        else:
            target[key] = found  # type: ignore[literal-required]
    if "ttft" not in target and "tps_user" not in target:
        return "Give a TTFT limit or a tok/s per user floor (or both)."
    return target


def _named(facts: BuilderFacts, choice: Choice) -> str:
    variant = variant_of_key(facts, choice["variant"])
    sid = choice["strategy"]
    strategy = js_str(as_dict(facts.strategies.get(sid)).get("display_name") or sid)
    return f"{hardware_name(facts.taxonomy, choice['hardware'])} · {strategy} · {variant}"


def variant_of_key(facts: BuilderFacts, key: str) -> str:
    return variant_label(key, as_dict(facts.variants.get(key)))


def pick_outcome(facts: BuilderFacts, workload: str, value: Any) -> tuple[Choice | None, dict[str, Any]]:
    """(the choice to apply or None, the note ``{"target", "text", "ok"}`` the panel shows)."""
    target = target_of(value)
    kept = {k: number(v) for k, v in as_dict(value).items() if k in CONSTRAINT_TEXT and number(v) is not None}
    if isinstance(target, str):
        return None, {"target": kept, "text": target, "ok": False}
    if facts.predictions is None:
        text = "The predictions are still loading: pick again in a moment."
        return None, {"target": kept, "text": text, "ok": False}
    wanted = ", ".join(CONSTRAINT_TEXT[k].format(v) for k, v in target.items())
    hf_id = js_str(facts.recipe.get("hf_id"))
    answer = pick(candidates(facts.recipe, facts.vocab, hf_id, facts.predictions), workload, target)
    if "unmet" not in answer:
        choice: Choice = answer
        text = (f"Picked {_named(facts, choice)} for {wanted} at {workload}: the most tok/s per GPU. "
                f"{point_title('Predicted', choice['point'])}.")
        return choice, {"target": kept, "text": text, "ok": True}
    miss = answer["unmet"]  # type: ignore[typeddict-item]
    if miss["constraint"] == "workload":
        text = f"No command of this recipe has a prediction for {workload}."
        return None, {"target": kept, "text": text, "ok": False}
    closest = miss["closest"]
    near = (f" Closest: {_named(facts, closest)}: {point_title('predicted', closest['point'])}."
            if closest else "")
    unmet = CONSTRAINT_TEXT[miss["constraint"]].format(miss["target"])
    text = f"No command meets {unmet} at {workload}.{near}"
    return None, {"target": kept, "text": text, "ok": False}
