"""``import-config``: the facts of every shared config pass the schema, and are written into a recipe
without changing anything else."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from builder.content import schemas
from builder.content.yaml12 import load
from builder.resolver.memory import (
    architecture_facts,
)
from tests.support.hub_server import strip_blocks
from tests.support.memory_cases import CONFIG_NAMES, LLAMA, MEMORY, config, run
from tests.support.paths import RECIPES

GIB = 1 << 30


# ── the schema and import-config ──


@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_facts_of_every_config_pass_the_schema(name: str) -> None:
    facts = architecture_facts(config(name))
    assert schemas.Architecture.model_validate(facts).model_extra == {}


def test_schema_bounds_the_facts() -> None:
    facts = architecture_facts(config("meta-llama__Llama-3.1-8B-Instruct.json"))
    with pytest.raises(ValueError, match="greater than or equal to 1"):
        schemas.Architecture.model_validate({**facts, "num_hidden_layers": 0})


@pytest.fixture
def content(tmp_path: Path) -> Path:
    """recipes/ with MiniMax-M3's architecture_config blocks taken out: a recipe without facts."""
    root = tmp_path / "recipes"
    shutil.copytree(RECIPES, root)
    minimax = root / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    minimax.write_text(strip_blocks(minimax.read_text()))
    return root


# MiniMax-M3 (stripped) is the recipe without an architecture_config block.
def test_import_config_writes_the_model_block(content: Path, capsys) -> None:
    recipe = content / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    before = recipe.read_text()
    qwen_config = MEMORY / "configs" / "Qwen__Qwen3-8B.json"
    status, out, err = run(capsys, "import-config", "MiniMaxAI/MiniMax-M3", str(qwen_config), "--content",
                           str(content))
    assert (status, err) == (0, "")
    assert out == f"wrote model.architecture_config (12 facts) to {recipe}\n"
    after = recipe.read_text()
    assert after.startswith(before.split("features:")[0].rstrip("\n"))  # comments and keys before it kept
    assert ("  # config.json facts for the memory model (python -m builder import-config)\n  "
            "architecture_config:\n") in after
    data, _ = load(after)
    # a file says which repository the recipe serves, not which commit: the source has no revision
    assert data["model"]["architecture_config"] == {"source": {"repo": "MiniMaxAI/MiniMax-M3"},
                                                    **architecture_facts(config("Qwen__Qwen3-8B.json"))}
    assert {k: v for k, v in data["model"].items() if k != "architecture_config"} == load(before)[0]["model"]
    # a second import replaces the block instead of adding one
    assert run(capsys, "import-config", "MiniMaxAI/MiniMax-M3", str(qwen_config), "--content",
               str(content))[0] == 0
    assert recipe.read_text() == after
    assert run(capsys, "check", "--content", str(content), "--strict")[0] == 0


def test_import_config_into_a_variant(content: Path, capsys) -> None:
    recipe = content / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    variants = load(recipe.read_text())[0]["variants"]
    name = next(iter(variants))
    llama = str(LLAMA)
    assert run(capsys, "import-config", "MiniMaxAI/MiniMax-M3", llama, "--variant", name, "--content",
               str(content))[0] == 0
    data, _ = load(recipe.read_text())
    assert data["variants"][name]["architecture_config"]["num_hidden_layers"] == 32
    assert "architecture_config" not in data["model"]
    assert run(capsys, "check", "--content", str(content), "--strict")[0] == 0


def test_import_config_refusals_leave_the_file_alone(content: Path, tmp_path: Path, capsys) -> None:
    recipe = content / "models" / "Qwen" / "Qwen3-14B.yaml"
    before = recipe.read_text()
    argv = ["import-config", "Qwen/Qwen3-14B", str(LLAMA), "--content", str(content)]
    assert (run(capsys, *argv, "--variant", "nope")
            == (2, "", "error: variant 'nope' not found under variants:\n"))
    bad = tmp_path / "bad.json"
    bad.write_text('{"num_hidden_layers": 32, "hidden_size": 4096, "num_attention_heads": 32}')
    assert run(capsys, "import-config", "Qwen/Qwen3-14B", str(bad), "--content", str(content)) == (
        1,
        "",
        f"{bad}: vocab_size: missing: the memory model needs it\n",
    )
    assert run(capsys, "import-config", "Qwen/../x", str(LLAMA), "--content", str(content)) == (
        2,
        "",
        "error: expected <org>/<repo>, got 'Qwen/../x'\n",
    )
    status, _, err = run(capsys, "import-config", "Qwen/Nope", str(LLAMA), "--content", str(content))
    assert (status, err.startswith("error: no recipe at ")) == (2, True)
    assert recipe.read_text() == before
    # no temporary left
    assert sorted(p.name for p in recipe.parent.iterdir() if p.name.startswith(".")) == []


def test_place_block_keeps_the_rest_and_refuses_flow_style() -> None:
    from builder.cli.import_config import Refused, place_block

    facts = {"num_hidden_layers": 2,
             "quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}
    text = ("meta:\r\n  title: x  # kept\r\nmodel:\r\n    model_id: a/b\r\n\r\n# trailing comment\r\nguide: "
            "g\r\n")
    assert place_block(text, facts, None) == (
        "meta:\r\n  title: x  # kept\r\nmodel:\r\n    model_id: a/b\r\n"
        "    # config.json facts for the memory model (python -m builder import-config)\r\n"
        "    architecture_config:\r\n"
        "        num_hidden_layers: 2\r\n"
        "        quantization_config:\r\n"
        '            quant_method: "fp8"\r\n'
        "            weight_block_size: [128, 128]\r\n"
        "\r\n# trailing comment\r\nguide: g\r\n"
    )
    with pytest.raises(Refused, match=r"^model is not written as a block mapping \(one key per line\); add "
                                      r"the block by hand$"):
        place_block('model: {model_id: "a/b"}\n', facts, None)
    with pytest.raises(Refused, match=r"^the recipe has no model: block; add model.model_id first$"):
        place_block("meta:\n  title: x\n", facts, None)
