"""What the interactive builder derives from one (recipe, vocab) pair."""

from __future__ import annotations

import marshal
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from ..families import family_id
from ..features import declared_features, default_enabled_features, effective_mode
from ..hardware import (
    allowlisted,
    declared_hardware,
    default_hardware,
    gpu_count_of,
    hardware_labels,
    hardware_profiles,
    is_scalable,
    node_vram_gb,
    pill_order,
    precision_ok,
    profile_of,
    raw_generation,
    runs_on,
    variant_of,
)
from ..resolve import resolve
from ..strategies import (
    builder_strategies,
    deploy_type_of,
    effective_compatible_strategies,
    kv_store_ids,
    node_pills,
    nodes_for_strategy,
    recommend_strategy,
    strategy_catalogue,
    strategy_supported,
)
from ..types import Selection, Vocab
from ..values import as_dict, get_key, is_omni, js_str, truthy

BUILDER_PARAMS = ("variant", "hardware", "strategy", "nodes", "features", "fmode", "advanced", "kv_offload",
                  "kv_instances", "kv_instance", "prefill_nodes", "decode_nodes", "prefill_mode",
                  "decode_mode", "prefill_rank", "decode_rank", "task", "install", "cuda", "preset", "point",
                  "perf_workload", "perf_concurrency", "perf_price")
"""URL query parameters of a recipe page, in canonical order (§7.1 + install/cuda/preset/point + the
Performance panel's workload, point and GPU-hour price)."""


ORIENTATION_LABELS = {"latency": "Latency oriented", "balanced": "Balanced",
                      "production": "Production deployment", "throughput": "Throughput oriented"}


FEATURE_ICONS = {"spec_decoding": "bolt", "tool_calling": "wrench", "reasoning": "brain"}


EXCLUSIVE_FEATURES = {"text_only": "encoder_parallel", "encoder_parallel": "text_only"}


POOL_MODE_TIPS = {"tp": "Tensor parallel across the pool's GPUs.",
                   "tep": "Tensor parallel with expert parallelism for MoE layers.",
                   "dep": "Data parallel attention with expert parallelism: one engine rank per GPU."}


MAX_INSTANCES = 16
RECALLED = 1024  # entries BuilderFacts.recall keeps: every (hardware, variant) pair of a large recipe


_Answer = TypeVar("_Answer")
_PLAIN = (str, int, float, bool)  # answers BuilderFacts.recall keeps as they are
_MISSING = object()


def title_key(key: str) -> str:
    return " ".join("KV" if w.lower() == "kv" else w[:1].upper() + w[1:] for w in key.split("_"))


def feature_label(key: str, feature: dict[str, Any]) -> str:
    return js_str(feature.get("label")) if truthy(feature.get("label")) else title_key(key)


def variant_label(key: str, variant: dict[str, Any]) -> str:
    return js_str(variant.get("label") or variant.get("precision") or key).upper()


def hardware_name(taxonomy: dict[str, Any], hw: str) -> str:
    """The profile's label, unique among the taxonomy's profiles (``hardware_labels``)."""
    return hardware_labels(taxonomy).get(hw) or js_str(hw)


_DEVICE_NOUNS = {"cpu": "NUMA node", "tpu": "chip", "npu": "NPU"}


def device_noun(profile: dict[str, Any]) -> str:
    """What one of the profile's ``gpu_count`` is: a GPU, a TPU chip, a CPU's NUMA node, an NPU."""
    return _DEVICE_NOUNS.get(js_str(raw_generation(profile)), "GPU")


def counted(n: int, noun: str) -> str:
    """``1 GPU``, ``2 GPUs``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def per_gpu_label(profile: dict[str, Any]) -> str:
    unit = "CPU" if raw_generation(profile) == "cpu" else device_noun(profile)
    return f"{round(node_vram_gb(profile) / max(1, gpu_count_of(profile)))}G/{unit}"


def is_xpu(profile: dict[str, Any]) -> bool:
    return family_id(profile) == "xpu"


def make_pill(value: Any, label: str, selected: bool = False, reason: str | None = None, tooltip: str = "",
          **extra: Any) -> dict[str, Any]:
    pill = {"value": value, "label": label, "selected": bool(selected) and reason is None,
            "disabled": reason is not None, "reason": reason, "tooltip": reason or tooltip}
    for key, item in extra.items():
        if item is not None:
            pill[key] = item
    return pill


class BuilderFacts:
    """Everything derived from one (recipe, vocab) pair, shared by the state steps."""

    def __init__(self, recipe: dict[str, Any], vocab: Vocab, shared: bool = True):
        """``shared``: these facts serve many clicks (see :meth:`recall`)."""
        self.recipe, self.vocab, self.shared = recipe, vocab, shared
        self.taxonomy = as_dict(vocab.get("taxonomy"))
        self.strategies = strategy_catalogue(vocab)
        self.profiles = hardware_profiles(self.taxonomy)
        self.variants = as_dict(recipe.get("variants")) or {"default": {}}
        self.features = declared_features(recipe)
        self.declared = declared_hardware(recipe)
        self.omni = is_omni(recipe)
        self.kv_ids = sorted(kv_store_ids(vocab),
                             key=lambda k: as_dict(self.strategies.get(k)).get("order") or 0)
        self.comp = effective_compatible_strategies(recipe)
        # Answers remembered for the life of these facts (one builder_state call, or all the build's
        # stored clicks of one recipe): pure functions of (recipe, vocab), asked per pill and per step.
        self._profile: dict[str, dict[str, Any]] = {}
        self._listed: tuple[str, ...] | None = None
        self._rows: dict[tuple[str, int], tuple[str, ...]] = {}
        self._multi: bool | None = None
        self._recalled: dict[tuple[Hashable, ...], tuple[bool, Any]] = {}
        self._kept: dict[tuple[Hashable, ...], Any] = {}
        # the recipe's stored predictions (a StoredFile) once the page loaded them; their entries by inputs
        self.predictions: Any = None
        self.perf_table: Any = None

    def use_predictions(self, predictions: Any) -> None:
        """Draw the view's ``performance`` section from ``predictions`` (unless None: kept as they are)."""
        if predictions is not None and predictions is not self.predictions:
            self.predictions, self.perf_table = predictions, None  # the table indexes the predictions

    def profile(self, hw: str) -> dict[str, Any]:
        if not isinstance(hw, str):
            return profile_of(self.taxonomy, hw)
        found = self._profile.get(hw)
        if found is None:
            found = self._profile[hw] = profile_of(self.taxonomy, hw)
        return found

    def recall(self, key: tuple[Hashable, ...], compute: Callable[[], _Answer],
               copy: Callable[[_Answer], _Answer] | None = None) -> _Answer:
        """``compute()``, a pure function of these facts and ``key`` (whose first item names the
        function), remembered for the life of these facts (at most :data:`RECALLED` answers). A text,
        number, bool or None is kept as it is, other plain data marshalled (each caller gets its own
        copy, free to change it: a copy by marshal is several times faster than one in Python), and
        anything else (which marshal refuses) is not kept; facts made for one view (``shared`` False)
        keep plain answers only (a copy is worth its cost only when another click asks again).
        ``copy``: a copy of the answer's shape, cheaper than marshal's (the answer is kept as it is and
        every caller, the first too, gets ``copy(answer)``)."""
        if copy is not None:
            return copy(self.kept(key, compute)) if self.shared else compute()
        found = self._recalled.get(key)
        if found is not None:
            return found[1] if found[0] else marshal.loads(found[1])  # type: ignore[no-any-return]
        if len(self._recalled) >= RECALLED:
            self._recalled.clear()
        answer: Any = compute()
        if answer is None or type(answer) in _PLAIN:
            self._recalled[key] = (True, answer)
        elif self.shared:
            try:
                self._recalled[key] = (False, marshal.dumps(answer))
            except ValueError:
                pass
        return answer  # type: ignore[no-any-return]

    def recall_by_names(self, key: tuple[Any, ...], compute: Callable[[], _Answer]) -> _Answer:
        """:meth:`recall` when every item of ``key`` after its name is a text, an int or None (names and
        counts from the state, which a hand-made address can make anything else: then computed, not kept)."""
        if all(k is None or type(k) is str or type(k) is int for k in key[1:]):
            return self.recall(key, compute)
        return compute()

    def kept(self, key: tuple[Hashable, ...], compute: Callable[[], _Answer]) -> _Answer:
        """``compute()`` as :meth:`recall` remembers it, but handed out as it is: the same object for every
        caller, which only reads it (no copy is made, for facts of one view too)."""
        found = self._kept.get(key, _MISSING)
        if found is _MISSING:
            if len(self._kept) >= RECALLED:
                self._kept.clear()
            found = self._kept[key] = compute()
        return found  # type: ignore[no-any-return]

    def default_hw(self, vkey: str) -> str:
        """:func:`hardware.default_hardware` of the recipe's variant ``vkey``."""
        def compute() -> str:
            return default_hardware(self.recipe, self.taxonomy, vkey)

        return self.recall_by_names(("default_hw", vkey), compute)

    def resolved(self, selection: Selection, key: Hashable) -> dict[str, Any]:
        """``resolve(recipe, vocab, selection, with_views=False)``, recalled by ``key``, the selection's
        content (``content_key(selection)``; None: not recalled): many clicks resolve the same selection."""
        def compute() -> dict[str, Any]:
            return resolve(self.recipe, self.vocab, selection, with_views=False)

        return compute() if key is None else self.recall(("resolved", key), compute)

    def listed(self) -> tuple[str, ...]:
        """Hardware pills: restricted profiles only when declared (CB-HW-02), in ``pill_order``."""
        if self._listed is not None:
            return self._listed
        out = [hw for hw, p in self.profiles.items() if not (as_dict(p).get("restricted") is True
                                                             and hw not in self.declared)]
        self._listed = tuple(sorted(out, key=pill_order(self.taxonomy).__getitem__))
        return self._listed

    def usable(self, hw: Any, vkey: str) -> bool:
        """Precision-compatible, not unsupported, allowed by the variant allowlist (§3.7)."""
        return self.recall_by_names(("usable", hw, vkey), lambda: self._usable(hw, vkey))

    def _usable(self, hw: Any, vkey: str) -> bool:
        v = variant_of(self.recipe, vkey)
        return (isinstance(hw, str) and isinstance(self.profiles.get(hw), dict)
                and self.declared.get(hw) != "unsupported" and precision_ok(v, self.profile(hw))
                and allowlisted(v, hw))

    def runs(self, hw: str, vkey: str) -> bool:
        def compute() -> bool:
            return (self.declared.get(hw) != "unsupported"
                    and runs_on(self.profile(hw), variant_of(self.recipe, vkey), hw))

        return self.recall_by_names(("runs", hw, vkey), compute)

    def any_variant_runs(self, hw: str) -> bool:
        def compute() -> bool:
            return any(self.runs(hw, k) for k in self.variants)

        return self.recall_by_names(("any_variant_runs", hw), compute)

    def runs_somewhere(self, vkey: str) -> bool:
        """The variant runs on some hardware pill (:meth:`listed`)."""
        def compute() -> bool:
            return any(self.runs(h, vkey) for h in self.listed())

        return self.recall_by_names(("runs_somewhere", vkey), compute)

    def multi_capable(self) -> bool:
        if self._multi is None:
            self._multi = any(deploy_type_of(self.strategies.get(s)) in ("multi_node", "pd_cluster")
                              for s in self.comp)
        return self._multi

    def clusterable(self, hw: str) -> bool:
        def compute() -> bool:
            p = self.profile(hw)
            return is_scalable(p) and not is_xpu(p)

        return self.recall_by_names(("clusterable", hw), compute)

    def node_pills(self, hw: str) -> tuple[int, ...]:
        """:func:`strategies.node_pills` of this recipe on ``hw``."""
        if isinstance(hw, str):
            return self.kept(("node_pills", hw), lambda: tuple(node_pills(self.recipe, self.vocab, hw)))
        return tuple(node_pills(self.recipe, self.vocab, hw))

    def vkey(self, key: Any) -> str:
        return key if isinstance(key, str) and key in self.variants else (
            "default" if "default" in self.variants else next(iter(self.variants)))

    def forced(self, vkey: str) -> set[Any]:
        return set(as_dict(variant_of(self.recipe, vkey).get("default_modes")))

    def defaults(self, hw: str, vkey: str) -> list[str]:
        """:func:`features.default_enabled_features` of this recipe (a new list)."""
        if isinstance(hw, str) and isinstance(vkey, str):
            return list(self.kept(("defaults", hw, vkey),
                                  lambda: tuple(default_enabled_features(self.recipe, hw, vkey))))
        return default_enabled_features(self.recipe, hw, vkey)

    def mode(self, key: str, vkey: str, hw: str, selected: Any = None) -> str | None:
        """:func:`features.effective_mode` of this recipe's feature ``key`` (``selected``: the user's)."""
        def compute() -> str | None:
            return effective_mode(self.recipe, key, vkey, self.profile(hw), hw, selected)

        return self.recall_by_names(("mode", key, vkey, hw, selected), compute)

    def row_strategies(self, hw: str, nodes: int) -> list[str]:
        if not isinstance(hw, str) or type(nodes) is not int:
            return builder_strategies(self.recipe, self.vocab, hw, nodes)
        found = self._rows.get((hw, nodes))
        if found is None:
            found = self._rows[(hw, nodes)] = tuple(builder_strategies(self.recipe, self.vocab, hw, nodes))
        return list(found)

    def recommended(self, hw: str, nodes: int) -> str | None:
        row = self.row_strategies(hw, nodes)
        rec = recommend_strategy(self.recipe, nodes)
        return rec if rec in row else (row[0] if row else None)

    def active_strategy(self, hw: str, nodes: int, pick: Any) -> str | None:
        """The strategy in effect: ``pick`` when supported here, else the recommended or first supported."""
        return self.recall_by_names(("active_strategy", hw, nodes, pick),
                                    lambda: self._active(hw, nodes, pick))

    def _active(self, hw: str, nodes: int, pick: Any) -> str | None:
        row = self.row_strategies(hw, nodes)
        ok = [s for s in row if self.supported(s, hw)]
        rec = self.recommended(hw, nodes)
        for choice in (pick, rec):
            if choice in ok:
                return choice
        return ok[0] if ok else rec

    def supported(self, sid: Any, hw: str) -> bool:
        """:func:`strategies.strategy_supported` of this recipe's strategy ``sid`` on ``hw``."""
        def compute() -> bool:
            return strategy_supported(self.recipe, sid, self.profile(hw), hw)

        return self.recall_by_names(("supported", sid, hw), compute)

    def floor_nodes(self, sid: str | None, hw: str) -> int:
        if not sid or sid == "pd_cluster":
            return 1

        def compute() -> int:
            return nodes_for_strategy(self.recipe, sid, self.profile(hw).get("gpu_count"), hw)

        return self.recall_by_names(("floor_nodes", sid, hw), compute)

    def kv_reason(self, key: str, hw: str, sid: str | None) -> str | None:
        """CB-KV-04: first reason a taxonomy KV option is unavailable (None = selectable): a function of
        the hardware's brand and family only (recalled per those)."""
        p = self.profile(hw)
        brand = p.get("brand")
        if isinstance(key, str) and (sid is None or isinstance(sid, str)) and (brand is None
                                                                                or type(brand) is str):
            return self.recall(("kv_reason", key, sid, brand, is_xpu(p)),
                               lambda: self._kv_reason(key, p, sid))
        return self._kv_reason(key, p, sid)

    def _kv_reason(self, key: str, p: dict[str, Any], sid: str | None) -> str | None:
        opt = as_dict(as_dict(self.taxonomy.get("kv_offload")).get(key))
        name = js_str(opt.get("label") or opt.get("display_name") or key)
        support = as_dict(self.recipe.get("kv_offload_support")).get(key)
        brands = opt.get("brands")
        allow = opt.get("strategies")
        if is_xpu(p):
            return "KV offload is not available on Intel XPU."
        if support == "unsupported":
            return f"{name} is not supported for this model."
        if opt.get("requires_opt_in") is True and support != "verified":
            return f"{name} has not been verified for this model yet."
        if isinstance(brands, list) and brands and p.get("brand") not in brands:
            return f"{name} needs {' or '.join(js_str(b) for b in brands)} hardware."
        if deploy_type_of(get_key(self.strategies, sid)) == "pd_cluster":
            return "Prefill/Decode owns the KV transfer config; use Mooncake to add a shared store under PD."
        if isinstance(allow, list) and allow and sid not in allow:
            names = ", ".join(js_str(as_dict(self.strategies.get(s)).get("display_name") or s) for s in allow)
            return f"{name} only works with: {names}."
        return None

    def mooncake_reason(self, hw: str, topo: str | None = None) -> str | None:
        """CB-KV-06 / CB-KV-08: why Mooncake (or one topology) is unavailable."""
        p = self.profile(hw)
        if is_xpu(p):
            return "KV offload is not available on Intel XPU."
        if p.get("brand") not in ("NVIDIA", "AMD"):
            return "Mooncake needs NVIDIA or AMD hardware."
        if not is_scalable(p):
            return "Mooncake needs clusterable hardware."
        opt_out = as_dict(self.recipe.get("kv_cache_strategy_hardware"))
        topos = [topo] if topo else self.kv_ids
        if all(get_key(opt_out.get(t), hw) == "unsupported" for t in topos):
            return f"Not supported on {hardware_name(self.taxonomy, hw)} for this model."
        return None
