"""Plain data containers passed between the loader, the API writer and the page renderer."""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

from builder.fieldpaths import locate
from builder.problems import Problem
from builder.resolver import Vocab
from builder.resolver.presets import ResolvedPreset
from builder.vllm_lint import Finding


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


@dataclass
class BuildOutput:
    """The in-memory site: every file to write, keyed by its path relative to the output root."""

    files: MutableMapping[str, bytes] = field(default_factory=dict)  # a dict, or streamed to disk by the build
    # path -> the value ``files[path]`` serialises (a streamed build keeps none of the alternative records)
    objects: dict[str, Any] = field(default_factory=dict)
    findings: dict[str, list[Finding]] = field(default_factory=dict)  # record path -> vLLM CLI lint findings
    documents: dict[str, dict[str, Any]] = field(default_factory=dict)  # hf_id -> /<hf_id>.json object
    warnings: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)  # located warnings (vLLM CLI lint)
