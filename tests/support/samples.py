"""Random valid builder selections, for property tests, parity tests and benchmarks.

Every input is drawn from what the recipe offers (variants, offered hardware and
strategies, features and modes, KV options, nodes 1..16, PD pool sizes, Mooncake
instances, advanced bundles), so a selection is one a user could click.
"""

from __future__ import annotations

import random
from typing import Any

from builder import resolver


def random_selection(recipe: dict[str, Any], vocab: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """One random selection for ``recipe`` (a non-omni recipe)."""
    taxonomy = vocab["taxonomy"]
    variant = rng.choice(list(recipe["variants"]))
    hardware = rng.choice(resolver.offered_hardware(recipe, taxonomy, variant))
    strategies = resolver.offered_strategies(recipe, vocab, variant, hardware) or ["single_node_tp"]
    # pd_cluster is offered on few recipes: weight it up so the roles get exercised
    strategy = rng.choice([*strategies, *[s for s in strategies if s == "pd_cluster"] * 4, None])
    features = recipe.get("features") or {}
    enabled = rng.sample(list(features), rng.randint(0, len(features)))
    modes = {
        key: rng.choice(list(feature["modes"]))
        for key, feature in features.items()
        if isinstance(feature.get("modes"), dict) and rng.random() < 0.5
    }
    kv_options = ["off", *(taxonomy.get("kv_offload") or {}), *resolver.kv_store_ids(vocab)]

    def pool() -> Any:
        return (rng.randint(0, 4) if rng.random() < 0.5
                else {"nodes": rng.randint(0, 4), "rank": rng.randint(0, 4)})

    bundles = resolver.advanced_presets(recipe, strategy or "single_node_tp")
    return {
        "hardware": hardware,
        "variant": variant,
        "strategy": strategy,
        "features": enabled,
        "modes": modes,
        "kv_offload": rng.choice(kv_options) if rng.random() < 0.25 else None,
        "nodes": rng.randint(1, 16),
        "pd_nodes": {"prefill": pool(), "decode": pool()} if rng.random() < 0.5 else None,
        "kv_instances": rng.randint(1, 4) if rng.random() < 0.5 else None,
        "advanced_args": [a for bundle in rng.sample(bundles, rng.randint(0, len(bundles))) for a in bundle],
    }


def random_cases(
    recipes: list[dict[str, Any]], vocab: dict[str, Any], count: int, seed: int = 0
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``count`` fixed (recipe, selection) pairs drawn with ``seed`` from non-omni ``recipes``."""
    rng = random.Random(seed)
    pool = [r for r in recipes if not resolver.is_omni(r)]
    cases = []
    for _ in range(count):
        recipe = rng.choice(pool)
        cases.append((recipe, random_selection(recipe, vocab, rng)))
    return cases
