"""The named authoring lints (builder.content.recipe_lints.LINTS): one test per lint, each on a recipe
that trips only that lint, plus the table's own promises (unique ids, each documented for authors)."""

from __future__ import annotations

import re
from typing import Any

from builder.content.loader import load_content
from builder.content.recipe_lints import LINTS, recipe_lints
from tests.support.paths import ROOT, UPSTREAM, need_shared


def recipe(**model: Any) -> dict[str, Any]:
    """A minimal recipe whose ``model`` block carries ``model``."""
    return {"meta": {"title": "X", "provider": "Y"}, "model": {"model_id": "a/b", **model}}


def test_docker_image_command() -> None:
    data = recipe(docker_image={"nvidia": "vllm/vllm-openai:v0.21.1", "amd": "docker pull rocm/vllm:latest"})
    assert recipe_lints(data) == [
        ("model.docker_image.amd",
         "[docker-image-command] docker image 'docker pull rocm/vllm:latest' is a command, not an image "
         "reference"),
    ]


def test_docker_image_with_a_space_is_a_command_too() -> None:
    data = recipe()
    data["variants"] = {"fp8": {"docker_image": "vllm/vllm-openai:v0.21.1 --gpus all"}}
    assert recipe_lints(data) == [
        ("variants.fp8.docker_image",
         "[docker-image-command] docker image 'vllm/vllm-openai:v0.21.1 --gpus all' is a command, not an "
         "image reference"),
    ]


def test_tp_overridden() -> None:
    data = recipe(base_args=["--max-model-len", "4096", "--tensor-parallel-size", "8"])
    assert recipe_lints(data) == [
        ("model.base_args[2]",
         "[tp-overridden] --tensor-parallel-size here is always overridden by the strategy's parallel size; "
         "set the variant's `tp` instead"),
    ]


def test_tp_in_a_feature_is_not_overridden() -> None:
    data = recipe()
    data["features"] = {"big": {"args": ["--tensor-parallel-size", "8"]}}
    assert recipe_lints(data) == []


def test_repeated_flag() -> None:
    data = recipe()
    data["variants"] = {"default": {"extra_args": ["--max-model-len", "4096", "--max-model-len", "8192"]}}
    assert recipe_lints(data) == [
        ("variants.default.extra_args[2]",
         "[repeated-flag] flag --max-model-len is given twice in this list (also at [0])"),
    ]


def test_nightly_covered() -> None:
    data = recipe(min_vllm_version="0.20.0", nightly_required=True, docker_image="vllm/vllm-openai:v0.21.1")
    assert recipe_lints(data) == [
        ("model.nightly_required",
         "[nightly-covered] nightly_required is set, but model.docker_image pins release "
         "vllm/vllm-openai:v0.21.1 which already covers min_vllm_version 0.20.0"),
    ]


def test_nightly_needed_when_the_image_is_older() -> None:
    data = recipe(min_vllm_version="0.22.0", nightly_required=True, docker_image="vllm/vllm-openai:v0.21.1")
    assert recipe_lints(data) == []


def test_every_lint_has_a_unique_id_documented_for_authors() -> None:
    ids = [lint.id for lint in LINTS]
    assert len(ids) == len(set(ids)) == 4
    guide = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for lint_id in ids:
        assert re.fullmatch(r"[a-z]+(-[a-z]+)*", lint_id)
        assert f"`[{lint_id}]`" in guide, lint_id


def test_lints_are_warnings_with_file_and_line() -> None:
    need_shared()
    _, problems = load_content(UPSTREAM)
    assert (
        "models/MiniMaxAI/MiniMax-M3.yaml:153: variants.mxfp8.hardware_overrides.mi300x.docker_image: "
        "warning: [docker-image-command] docker image 'docker pull vllm/vllm-openai-rocm:nightly' is a "
        "command, not an image reference"
    ) in [str(p) for p in problems]
