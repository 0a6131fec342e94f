"""What a content root holds once read and validated: recipes, the vocabulary, site settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from builder.content.fieldpaths import locate
from builder.resolver import Vocab
from builder.resolver.performance.measured import ResultsFile, StoredResult
from builder.resolver.performance.store import StoredFile
from builder.resolver.presets import ResolvedPreset


@dataclass
class RecipeFile:
    """One loaded recipe: its identity, the raw YAML data and where each key came from."""

    hf_id: str  # "<org>/<repo>" from the file path
    rel_path: str  # path relative to the content root, e.g. "models/MiniMaxAI/MiniMax-M3.yaml"
    data: dict[str, Any]  # loaded YAML (YAML 1.2 scalars, dates as "YYYY-MM-DD"), overlays merged
    locations: dict[str, tuple[str, int]] = field(default_factory=dict)  # field path -> (file, line)
    overlays: list[str] = field(default_factory=list)  # overlay files merged onto data, in order
    # json-api §11.7 presets rendered by the validation, handed to the API so each point renders once
    resolved_presets: dict[str, ResolvedPreset] = field(default_factory=dict)
    # the predictions stored beside the recipe (``<repo>.performance.json``, validated); None without one
    performance: StoredFile | None = None
    # the measured results stored beside it (``<repo>.benchmarks.json``, validated); None without one
    benchmarks: ResultsFile | None = None

    @property
    def performance_data(self) -> dict[str, Any] | None:
        """What the builder's Performance section draws from: the stored predictions, with the measured
        results under ``results`` (None without either)."""
        if not self.measured:
            return None if self.performance is None else dict(self.performance)
        return {**(self.performance or {}), "results": self.measured}

    @property
    def measured(self) -> list[StoredResult]:
        """The recipe's measured results (empty without a results file)."""
        return [] if self.benchmarks is None else self.benchmarks["results"]

    def where(self, field_path: str) -> tuple[str, int]:
        """The file and line of ``field_path`` (or of its nearest located ancestor)."""
        return locate(self.locations, field_path, self.rel_path)


@dataclass
class Vocabulary:
    """The shared vocabulary of a content root."""

    taxonomy: dict[str, Any]
    strategies: dict[str, Any]  # serving strategies keyed by name, file order
    kv_store: dict[str, Any]  # Mooncake deployments keyed by name, file order
    platforms: dict[str, Any] | None = None

    @property
    def strategy_map(self) -> dict[str, Any]:
        """Serving strategies then kv-store deployments: the resolver's lookup map."""
        return {**self.strategies, **self.kv_store}

    def resolver_vocab(self) -> Vocab:
        """The vocabulary as the resolver takes it: the taxonomy and the strategy lookup map."""
        return {"taxonomy": self.taxonomy, "strategies": self.strategy_map}


@dataclass
class Content:
    """Everything read from a content root, validated."""

    root: str
    vocab: Vocabulary
    recipes: list[RecipeFile]  # walk order (byte-wise sorted paths)
    site: dict[str, Any] = field(default_factory=dict)  # optional site.yaml settings
    quickstarts: list[dict[str, Any]] = field(default_factory=list)  # optional quickstart/*.yaml, file order
