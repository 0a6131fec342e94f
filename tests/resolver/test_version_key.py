"""``version_key``: the one version comparator (install block minimum, the nightly lint) orders what it
can parse as PEP 440 does and refuses the rest with an exact message; the schema refuses it first."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builder.cli.main import main
from builder.resolver import InvalidVersion, version_key
from tests.support.paths import RECIPES


@pytest.mark.parametrize(("lower", "higher"), [
    ("0.10.0", "0.11.0"),
    ("0.9.2", "0.10.0"),
    ("0.11.0rc1", "0.11.0"),
    ("0.11.0a2", "0.11.0b1"),
    ("0.11.0b1", "0.11.0rc1"),
    ("0.11.0.dev3", "0.11.0a1"),
    ("0.11.0", "0.11.0.post1"),
    ("0.11.0", "0.11.0.1"),
    ("nightly", "0.4.2"),
])
def test_orders_releases_and_pre_releases(lower: str, higher: str) -> None:
    assert version_key(lower) < version_key(higher)


def test_trailing_zeros_do_not_count() -> None:
    assert version_key("0.11") == version_key("0.11.0") == version_key("0.11.0.0") == [0, 11, 0, 0, 4, 0]


@pytest.mark.parametrize("bad", ["latest", "v0.11.0", "0.11.0-rc1", "", "0.11.0.0.0", "1..2", "0.11 ",
                                 "１.0"])
def test_refuses_what_it_cannot_order(bad: str) -> None:
    with pytest.raises(InvalidVersion) as caught:
        version_key(bad)
    assert str(caught.value) == (
        f"invalid version {bad!r}: expected a release such as 0.11.0 or 0.11.0rc1, or 'nightly'"
    )


def test_the_schema_refuses_an_unorderable_min_vllm_version(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    shutil.copytree(RECIPES, content)
    recipe = content / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    text = recipe.read_text()
    line = text[: text.index('min_vllm_version: "0.24.0"')].count("\n") + 1
    recipe.write_text(text.replace('min_vllm_version: "0.24.0"', 'min_vllm_version: "latest"', 1))
    assert main(["check", "--content", str(content)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        f"models/MiniMaxAI/MiniMax-M3.yaml:{line}: model.min_vllm_version: "
        "invalid version 'latest': expected a release such as 0.11.0 or 0.11.0rc1, or 'nightly'",
    ]
