"""The support matrix, the static command and the resolver agree on where a variant runs.

A small recipe is built with our recipes/ vocabulary: variants restricted by brand
(``precision_hardware.brand``), by generation (nvfp4 → NVIDIA Blackwell) and by an allowlist
(``supported_hardware``), each once with its own checkpoint (a published document whose static
commands fill the matrix) and once without (cells estimated from the resolver's rules).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from builder import resolver
from builder.cli.build import BuildOptions, Pipeline
from builder.site.index import SiteIndex
from builder.site.matrix import support_matrix

PROJECT = Path(__file__).resolve().parents[2]
HF_ID = "Acme/Gizmo-70B"

RECIPE = """\
meta:
  title: Gizmo-70B
  provider: Acme
  description: A test model.
  date_added: 2026-01-01
  date_updated: 2026-01-01
  tasks: [text]
  hardware: {h200: verified}
model:
  model_id: Acme/Gizmo-70B
  min_vllm_version: "0.10.0"
  architecture: dense
  parameter_count: 70B
  context_length: 32768
variants:
  default:
    precision: bf16
    vram_minimum_gb: 140
  amd_own:
    model_id: Acme/Gizmo-70B-AMD
    precision: fp8
    vram_minimum_gb: 70
    precision_hardware: {brand: AMD}
  amd_est:
    precision: fp8
    vram_minimum_gb: 70
    precision_hardware: {brand: AMD}
  fp4_own:
    model_id: Acme/Gizmo-70B-NVFP4
    precision: nvfp4
    vram_minimum_gb: 40
  fp4_est:
    precision: nvfp4
    vram_minimum_gb: 40
  relaxed_est:
    precision: nvfp4
    vram_minimum_gb: 40
    precision_hardware: {brand: NVIDIA}
  listed_own:
    model_id: Acme/Gizmo-70B-Listed
    precision: fp8
    vram_minimum_gb: 70
    supported_hardware: [h200, mi355x]
  listed_est:
    precision: fp8
    vram_minimum_gb: 70
    supported_hardware: [h200, mi355x]
"""

RESTRICTED = {"amd_own": "AMD", "amd_est": "AMD", "fp4_own": "blackwell", "fp4_est": "blackwell",
              "relaxed_est": "NVIDIA", "listed_own": "list", "listed_est": "list"}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Our vocabulary plus the one recipe, through the real pipeline (not written to disk)."""
    root = tmp_path_factory.mktemp("matrix-content")
    for name in ("taxonomy.yaml", "platforms.yaml"):
        shutil.copy(PROJECT / "recipes" / name, root / name)
    for folder in ("strategies", "kv_store"):
        shutil.copytree(PROJECT / "recipes" / folder, root / folder)
    (root / "models" / "Acme").mkdir(parents=True)
    (root / "models" / "Acme" / "Gizmo-70B.yaml").write_text(RECIPE)
    result = Pipeline(BuildOptions(content=root, out=root.parent / "unused-out", source={})).run()
    index = SiteIndex(result.content, result.output)
    recipe = index.by_id[HF_ID]
    variants = index.variant_docs(recipe)
    return {"index": index, "recipe": recipe, "variants": variants,
            "matrix": support_matrix(index, recipe, variants), "pages": result.files}


def _allowed(key: str, hw: str, profile: dict[str, Any]) -> bool:
    """What the test's recipe means, written out by hand."""
    rule = RESTRICTED.get(key)
    if rule in ("AMD", "NVIDIA"):
        return profile.get("brand") == rule
    if rule == "blackwell":
        return profile.get("brand") == "NVIDIA" and profile.get("generation") == "blackwell"
    if rule == "list":
        return hw in ("h200", "mi355x")
    return True


def test_every_variant_is_published_or_estimated_as_intended(built: dict[str, Any]) -> None:
    published = {v["key"]: bool(v["doc"]) for v in built["variants"]}
    assert published == {"default": True, "amd_own": True, "amd_est": False, "fp4_own": True,
                         "fp4_est": False, "relaxed_est": False, "listed_own": True, "listed_est": False}


def test_matrix_static_command_and_resolver_agree(built: dict[str, Any]) -> None:
    index: SiteIndex = built["index"]
    raw = built["recipe"].raw
    rows = {row["id"]: row for row in built["matrix"]["rows"]}
    keys = [v["key"] for v in built["matrix"]["variants"]]
    checked = 0
    assert keys == [v["key"] for v in built["variants"]]
    for v in built["variants"]:
        key = v["key"]
        offered = set(resolver.offered_hardware(raw, index.taxonomy, key))
        variant = resolver.variant_of(raw, key)
        static = set(v["doc"]["recommended_command"]["by_hardware"]) if v["doc"] else None
        if static is not None:  # the published commands are exactly the resolver's offered hardware
            assert static == offered, key
        for hw, row in rows.items():
            profile = index.profiles[hw]
            cell = row["cells"][keys.index(key)]
            expected = _allowed(key, hw, profile) and profile.get("restricted") is not True
            assert (hw in offered) is expected, (key, hw)
            assert resolver.runs_on(profile, variant, hw) is _allowed(key, hw, profile), (key, hw)
            assert (cell["state"] != "none") is expected, (key, hw, cell)
            if static is not None and expected:
                assert cell["url"] == v["doc"]["recommended_command"]["by_hardware"][hw], (key, hw)
            checked += 1
    assert checked == len(rows) * 8 and len(rows) >= 10


def test_estimated_cells_say_why(built: dict[str, Any]) -> None:
    rows = {row["id"]: row for row in built["matrix"]["rows"]}
    keys = [v["key"] for v in built["matrix"]["variants"]]

    def cell(key: str, hw: str) -> dict[str, Any]:
        return dict(rows[hw]["cells"][keys.index(key)])

    assert cell("fp4_est", "h200") == {"state": "none", "text": "—",
                                       "title": "Not offered for this variant on this hardware"}
    assert cell("fp4_est", "b200") == {"state": "fits", "text": "1 node",
                                       "title": "40 GB fits one B200 node (1440 GB)"}
    assert cell("amd_est", "mi355x") == {"state": "fits", "text": "1 node",
                                         "title": "70 GB fits one MI355X node (2304 GB)"}
    # precision_hardware relaxes the nvfp4 default (single-node §3.1): Hopper is fine
    assert cell("relaxed_est", "h200") == {"state": "verified", "text": "1 node",
                                           "title": "40 GB fits one H200 node (1128 GB)"}
    assert cell("listed_est", "h200")["state"] == "verified"
    assert cell("listed_est", "b200")["state"] == "none"


def test_precision_rule_names_what_the_variant_needs() -> None:
    assert resolver.precision_hardware_name({"precision": "nvfp4"}) == "NVIDIA Blackwell"
    assert (resolver.precision_hardware_name({"precision": "fp8", "precision_hardware": {"brand": "AMD"}})
            == "AMD")
    assert resolver.precision_hardware_name({"precision": "fp8"}) == ""
