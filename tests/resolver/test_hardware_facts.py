"""Hardware facts as data: the device-family table and the profile keys ``family``, ``display_order``,
``default_rank`` and ``interconnect`` (with the reference builder's values for a taxonomy without them)."""

from __future__ import annotations

from typing import Any

import pytest

from builder.resolver import hardware as H
from builder.resolver.families import DEVICE_FAMILIES, family_id, image_keys, implied_family
from tests.resolver.test_module import project_vocab, taxonomy


def tax(**profiles: dict[str, Any]) -> dict[str, Any]:
    return {"hardware_profiles": {hw: {"brand": "NVIDIA", "gpu_count": 8, "vram_gb": 640, **p}
                                  for hw, p in profiles.items()}}


def ordered(taxonomy: dict[str, Any]) -> list[str]:
    order = H.pill_order(taxonomy)
    return sorted(order, key=order.__getitem__)


def test_without_display_order_the_pills_keep_the_reference_order() -> None:
    upstream = taxonomy()
    assert ordered(upstream) == [
        "h100", "h200", "b200", "gb200", "b300", "gb300", "rtx_pro_5000", "rtx_pro_5000_4x", "rtx_pro_6000",
        "rtx_pro_6000_2x", "rtx_pro_6000_8x", "dgx_spark_gb10", "rtx_4090_2x", "rtx_5090", "rtx_5090_2x",
        "dgx_station_gb300", "mi300x", "mi325x", "mi355x", "trillium", "ironwood", "ascend_950pr", "xeon6",
        "xeon5", "arc_pro_b60", "arc_pro_b70"]


def test_a_profile_without_display_order_shows_after_the_one_listed_before_it() -> None:
    t = tax(new_first={}, a={"display_order": 20}, b={"display_order": 10}, after_b={},
            c={"display_order": 30})
    assert ordered(t) == ["b", "after_b", "new_first", "a", "c"]


def test_our_taxonomy_declares_the_reference_facts_it_shares() -> None:
    """recipes/taxonomy.yaml says in data what the reference builder fixes in code for the same ids."""
    ours, upstream = project_vocab()["taxonomy"], taxonomy()
    shared = [hw for hw in ordered(ours) if hw in upstream["hardware_profiles"]]
    assert shared == [hw for hw in ordered(upstream) if hw in ours["hardware_profiles"]]
    assert H.default_ranks(ours) == H.default_ranks(upstream) == {"h200": 1, "b200": 2, "gb200": 3}
    for hw, profile in ours["hardware_profiles"].items():
        gpus = H.gpu_count_of(profile)
        assert H.nvlink_spans_nodes(ours, hw, gpus) == (hw in ("gb200", "gb300")), hw
        assert H.nvlink_spans_nodes(upstream, hw, gpus) == (hw in ("gb200", "gb300")), hw
        if hw in upstream["hardware_profiles"]:
            assert family_id(profile) == implied_family(upstream["hardware_profiles"][hw]), hw


def test_default_rank_picks_among_the_offered_profiles() -> None:
    t = tax(h100={}, h200={"default_rank": 2}, b200={"default_rank": 1, "generation": "blackwell"},
            mi={"brand": "AMD"})
    recipe: dict[str, Any] = {"variants": {"default": {}}}
    assert H.default_hardware(recipe, t, "default") == "b200"
    recipe["variants"]["default"]["supported_hardware"] = ["h100", "h200", "mi"]
    assert H.default_hardware(recipe, t, "default") == "h200"
    recipe["variants"]["default"]["supported_hardware"] = ["mi", "h100"]
    assert H.default_hardware(recipe, t, "default") == "h100"  # unranked: NVIDIA first
    recipe["variants"]["default"]["supported_hardware"] = ["none_of_them"]
    assert H.default_hardware(recipe, t, "default") == "b200"  # no candidate: the best-ranked profile


def test_a_taxonomy_that_ranks_none_keeps_the_reference_ranking() -> None:
    t = tax(h100={}, gb200={"generation": "blackwell"}, b300={"generation": "blackwell"})
    assert H.default_ranks(t) == {"gb200": 3}
    assert H.default_hardware({}, t, "default") == "gb200"


@pytest.mark.parametrize(("interconnect", "gpus", "spans"),
                         [("NVL72", 4, True), ("NVL8", 8, False), (None, 4, False)])
def test_the_nvlink_environment_follows_the_declared_domain(interconnect: str | None, gpus: int,
                                                            spans: bool) -> None:
    t = tax(node={"gpu_count": gpus, "interconnect": interconnect}, other={"interconnect": "NVL8"})
    assert H.nvlink_spans_nodes(t, "node", gpus) is spans
    assert H.nvlink_spans_nodes(t, "gb200", 4) is False  # declared taxonomies get no reference values


def test_each_rows_two_forms_of_device_flags_agree() -> None:
    for family, row in DEVICE_FAMILIES.items():
        shown = row["docker_flags"].replace(" \\\n  ", " ").split()
        assert [w for item in shown
                for w in (item.split("=", 1) if item.startswith("--shm-size=") else [item])] \
            == list(row["docker_argv"]), family


def test_brand_keys_come_from_the_table() -> None:
    assert image_keys() == ("nvidia", "amd", "tpu", "intel")


@pytest.mark.parametrize(("profile", "family"), [
    ({"brand": "NVIDIA", "generation": "hopper"}, "nvidia"), ({"brand": "AMD", "generation": "amd"}, "amd"),
    ({"brand": "Google", "generation": "tpu"}, "tpu"), ({"brand": "Intel", "generation": "xpu"}, "xpu"),
    ({"brand": "Intel", "generation": "cpu"}, "cpu"), ({"brand": "Intel"}, "cpu"),
    ({"brand": "Huawei", "generation": "npu"}, "nvidia"),  # no Ascend row yet
    ({"brand": "Intel", "generation": "cpu", "family": "xpu"}, "xpu"),
    ({"brand": "AMD", "family": "not_a_row"}, "amd"),
])
def test_the_family_is_declared_or_implied(profile: dict[str, Any], family: str) -> None:
    assert family_id(profile) == family


def test_records_publish_profiles_in_the_reference_layout() -> None:
    ours, upstream = project_vocab()["taxonomy"], taxonomy()
    h200 = ours["hardware_profiles"]["h200"]
    assert ({"family": "nvidia", "display_order": 20, "default_rank": 1, "interconnect": "NVL8"}.items()
            <= h200.items())
    assert H.published_profiles(ours)["h200"] == {k: v for k, v in h200.items() if k not in H.FACT_KEYS}
    assert H.published_profiles(upstream) == upstream["hardware_profiles"]
