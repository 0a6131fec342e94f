"""Author and agent tooling: check, resolve, new, the JSON Schema and the authoring lints."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from builder.cli.main import main
from builder.content.loader import load_content
from builder.content.schemas.json_schema import recipe_schema
from tests.support.paths import RECIPES, ROOT, UPSTREAM, need_shared


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# ── check ──


def test_check_our_recipes_strict(capsys) -> None:
    assert run(capsys, "check", "--strict") == (0, "recipes: ok (0 warning(s))\n", "")


def test_check_reports_like_the_build(tmp_path: Path, capsys) -> None:
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    path = root / "models" / "Qwen" / "Qwen3-14B.yaml"
    text = path.read_text()
    path.write_text(
        text.replace("compatible_strategies:\n", "compatible_strategies:\n  - single_node_xx\n", 1))
    line = text[: text.index("compatible_strategies:\n")].count("\n") + 2
    status, out, err = run(capsys, "check", "--content", str(root))
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"models/Qwen/Qwen3-14B.yaml:{line}: compatible_strategies[0]: unknown strategy 'single_node_xx'"
    ]


def test_check_strict_turns_warnings_into_errors(capsys) -> None:
    need_shared()
    status, _, err = run(capsys, "check", "--content", str(UPSTREAM), "--strict")
    assert status == 1
    assert ("models/nvidia/Cosmos3-Nano.yaml:19: meta.hardware.a100: warning: unknown hardware 'a100'"
            in err.splitlines())


# ── resolve ──


def test_resolve_default_command(capsys) -> None:
    status, out, _ = run(capsys, "resolve", "MiniMaxAI/MiniMax-M3")
    assert status == 0
    command, memory = out.split("\n\n# ")
    assert command == (
        "vllm serve MiniMaxAI/MiniMax-M3 \\\n"
        "  --block-size 128 \\\n"
        "  --max-model-len 65536 \\\n"
        "  --tensor-parallel-size 8 \\\n"
        "  --tool-call-parser minimax_m3 \\\n"
        "  --enable-auto-tool-choice \\\n"
        "  --reasoning-parser minimax_m3"
    )
    # its architecture facts (from the NVFP4 checkpoint's config) give the memory line
    assert memory.startswith("Per GPU (139.59 GiB): weights 100.04 GiB, KV cache ")


def test_resolve_json_is_the_recommended_record(capsys, tmp_path: Path) -> None:
    assert main(["build", "--out", str(tmp_path / "site"), "--json-only"]) == 0
    capsys.readouterr()
    published = json.loads((tmp_path / "site" / "MiniMaxAI" / "MiniMax-M3" / "hw" / "b200.json").read_text())
    status, out, _ = run(capsys, "resolve", "MiniMaxAI/MiniMax-M3", "--hardware", "b200", "--json")
    record = json.loads(out)
    assert status == 0
    for key in ("hardware", "strategy", "variant", "node_count", "env", "docker_image", "command", "argv"):
        assert record[key] == published[key], key


def test_resolve_every_node_of_a_multi_node_command(capsys) -> None:
    status, out, _ = run(capsys, "resolve", "MiniMaxAI/MiniMax-M3", "--hardware", "h100", "--strategy",
                         "multi_node_tp")
    assert status == 0
    *blocks, memory = out.split("\n\n# ")
    assert [b.splitlines()[0].lstrip("# ") for b in blocks] == ["Head", "Node 1"]
    assert (memory.startswith("Per GPU (79.20 GiB): weights 50.42 GiB")
            and "won't start: max_model_len 1048576" in memory)
    assert "--node-rank 0" in blocks[0] and "--node-rank 1" in blocks[1] and "--headless" in blocks[1]


def test_resolve_features_modes_and_docker(capsys) -> None:
    status, out, _ = run(
        capsys, "resolve", "MiniMaxAI/MiniMax-M3", "--feature", "spec_decoding=eagle3",
        "--no-feature", "reasoning", "--docker",
    )  # fmt: skip
    assert status == 0
    assert out.startswith("docker run --gpus all \\\n")
    assert "--speculative-config" in out and "--reasoning-parser" not in out


def test_resolve_preset_point(capsys) -> None:
    status, out, _ = run(capsys, "resolve", "MiniMaxAI/MiniMax-M3", "--preset", "h200_agentx:c1")
    assert status == 0
    assert out.startswith("# h200_agentx:c1 (1)\n")
    assert "vllm serve MiniMaxAI/MiniMax-M3-MXFP8 \\\n" in out


def test_resolve_preset_json_carries_the_published_performance_blocks(capsys, tmp_path: Path) -> None:
    """``resolve --preset P --json`` gives each point the ``performance`` block the JSON API publishes for
    it."""
    assert run(capsys, "build", "--out", str(tmp_path / "site"), "--json-only")[0] == 0
    published = json.loads(
        (tmp_path / "site" / "MiniMaxAI" / "MiniMax-M3" / "presets" / "b200_agentx.json").read_text())
    status, out, _ = run(capsys, "resolve", "MiniMaxAI/MiniMax-M3", "--preset", "b200_agentx", "--json")
    assert status == 0
    points = json.loads(out)
    assert [title.split(" ")[0] for title in points] == [f"b200_agentx:{key}" for key in published["points"]]
    blocks = [point["performance"] for point in points.values()]
    assert blocks == [point["performance"] for point in published["points"].values()]
    assert blocks and all("workloads" in block for block in blocks)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["Nope/Nothing"], "error: unknown recipe 'Nope/Nothing' for this content root; valid: "),
        (
            ["MiniMaxAI/MiniMax-M3", "--hardware", "a100"],
            "error: unknown hardware 'a100' for MiniMaxAI/MiniMax-M3 (default); valid: "
            "h200, h100, b200, gb200, b300, gb300, mi300x, mi325x, mi350x, mi355x",
        ),
        (
            ["MiniMaxAI/MiniMax-M3", "--variant", "fp3"],
            "error: unknown variant 'fp3' for MiniMaxAI/MiniMax-M3; valid: default, mxfp8, nvfp4, mxfp4",
        ),
        (
            ["MiniMaxAI/MiniMax-M3", "--feature", "spec_decoding=medusa"],
            "error: unknown mode of spec_decoding 'medusa' for MiniMaxAI/MiniMax-M3 on h200; valid: eagle3, "
            "eagle3_gqa",
        ),
        (["MiniMaxAI/MiniMax-M3", "--nodes", "17"], "error: --nodes must be between 1 and 16"),
        (
            ["MiniMaxAI/MiniMax-M3", "--preset", "h200_agentx:c99"],
            "error: unknown point 'c99' for preset h200_agentx; valid: ",
        ),
    ],
)
def test_resolve_refuses_invalid_choices(capsys, argv: list[str], message: str) -> None:
    status, out, err = run(capsys, "resolve", *argv)
    assert (status, out) == (2, "")
    assert err.startswith(message)


# ── new ──


def test_new_writes_a_skeleton_that_passes_check(tmp_path: Path, capsys) -> None:
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    status, out, _ = run(capsys, "new", "Acme/Widget-8B", "--content", str(root))
    assert status == 0
    path = root / "models" / "Acme" / "Widget-8B.yaml"
    assert out == f"wrote {path}; check it with: vllm-recipes check --content {root}\n"
    assert path.read_text().startswith("# yaml-language-server: $schema=/schema/recipe.json\n")
    assert run(capsys, "check", "--content", str(root), "--strict")[0] == 0
    assert (run(capsys, "new", "Acme/Widget-8B", "--content", str(root))[2]
            == f"error: {path} already exists\n")
    assert (run(capsys, "new", "Widget", "--content", str(root))[2]
            == "error: expected <org>/<repo>, got 'Widget'\n")


def test_new_refuses_a_name_that_would_leave_models(tmp_path: Path, capsys) -> None:
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    status, out, err = run(capsys, "new", "../x", "--content", str(root))
    assert (status, out) == (2, "")
    assert err == (
        "error: '..' cannot be used in a path: use letters, digits, '.', '_' and '-', "
        "starting with a letter or a digit\n"
    )
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


# ── schema ──


def test_schema_validates_every_recipe() -> None:
    need_shared()
    validator = jsonschema.Draft202012Validator(recipe_schema())
    for root in (UPSTREAM, RECIPES):
        content, _ = load_content(root)
        for recipe in content.recipes:
            assert list(validator.iter_errors(recipe.data)) == [], recipe.hf_id


def test_schema_rejects_a_string_where_a_number_belongs() -> None:
    validator = jsonschema.Draft202012Validator(recipe_schema())
    recipe = {"meta": {"title": "X", "provider": "Y"}, "variants": {"default": {"vram_minimum_gb": "lots"}}}
    assert [e.json_path for e in validator.iter_errors(recipe)] == ["$.variants.default.vram_minimum_gb"]


def test_build_publishes_the_schema(tmp_path: Path) -> None:
    assert main(["build", "--out", str(tmp_path / "site"), "--json-only"]) == 0
    assert json.loads((tmp_path / "site" / "schema" / "recipe.json").read_text()) == json.loads(
        json.dumps(recipe_schema())
    )


# ── vLLM CLI lint in the build ──


def test_check_reports_commands_vllm_would_reject(capsys) -> None:
    need_shared()
    status, out, err = run(capsys, "check", "--content", str(UPSTREAM))
    assert status == 0
    vllm = [line for line in err.splitlines() if "[vLLM 0.33.0;" in line]
    assert vllm == [
        "models/Qwen/Qwen3.8-27B.yaml:167: variants.ascend_w8a8.extra_args[0]: warning: --quantization: "
        "unknown quantization method 'ascend' [vLLM 0.33.0; hardware ascend_950pr, variant ascend_w8a8, "
        "strategy single_node_tp]",
        "models/XiaomiMiMo/MiMo-V2.5-Pro.yaml:25: model.base_args[1]: warning: --max-model-len auto: flag "
        "and value in one argv item; split it into '--max-model-len' and 'auto' [vLLM 0.33.0; hardware h200, "
        "variant default, strategy single_node_tep (+53 more renderings)]",
        "models/deepseek-ai/DeepSeek-V4-Flash.yaml:400: hardware_overrides.blackwell.extra_args[0]: warning: "
        "--attention_config.use_fp4_indexer_cache: unknown key 'use_fp4_indexer_cache' (AttentionConfig has "
        "no field 'use_fp4_indexer_cache') [vLLM 0.33.0; hardware b200, variant default, strategy "
        "single_node_tp (+215 more renderings)]",
        "models/deepseek-ai/DeepSeek-V4-Flash.yaml:138: variants.default.hardware_overrides.dgx_spark_gb10."
        "extra_args[15]: warning: --attention-backend: unknown attention backend 'B12X_MLA_SPARSE' [vLLM "
        "0.33.0; hardware dgx_spark_gb10, variant default, strategy single_node_tp (+67 more renderings)]",
        "models/deepseek-ai/DeepSeek-V4-Flash.yaml:98: "
        "features.spec_decoding.modes.dspark.hardware_overrides.dgx_spark_gb10.args[0]: warning: "
        "--speculative-config: unknown attention backend 'B12X_MLA_SPARSE' at key 'attention_backend' [vLLM "
        "0.33.0; hardware dgx_spark_gb10, variant default, strategy single_node_tp (+50 more renderings)]",
        "models/deepseek-ai/DeepSeek-V4-Pro.yaml:181: hardware_overrides.blackwell.extra_args[0]: warning: "
        "--attention_config.use_fp4_indexer_cache: unknown key 'use_fp4_indexer_cache' (AttentionConfig has "
        "no field 'use_fp4_indexer_cache') [vLLM 0.33.0; hardware b200, variant default, strategy "
        "single_node_tp (+223 more renderings)]",
        "models/inclusionAI/Ring-1T-FP8.yaml:49: variants.default.extra_args[2]: warning: "
        "--compilation-config: unknown key 'use_inductor' (CompilationConfig has no field 'use_inductor') "
        "[vLLM 0.33.0; hardware h200, variant default, strategy single_node_tp (+159 more renderings)]",
    ]
    assert out == "../shared/upstream: ok (22 warning(s))\n".replace("../shared/upstream", str(UPSTREAM))


def test_vllm_lint_covers_preset_points(tmp_path: Path, capsys) -> None:
    root = tmp_path / "content"
    shutil.copytree(RECIPES, root)
    path = root / "models" / "MiniMaxAI" / "MiniMax-M3.yaml"
    text = path.read_text()
    anchor = ('      c1:\n        label: "1"\n        concurrency: 1\n        args:\n          - '
              '"--max-num-seqs"\n')
    assert anchor in text
    path.write_text(text.replace(anchor, anchor.replace("--max-num-seqs", "--max-num-seqz"), 1))
    line = text[: text.index(anchor)].count("\n") + 5
    status, _, err = run(capsys, "check", "--content", str(root), "--strict")
    assert status == 1
    assert err.splitlines()[0] == (
        f"models/MiniMaxAI/MiniMax-M3.yaml:{line}: presets.h200_agentx.points.c1.args[0]: warning: "
        "--max-num-seqz: unknown flag (did you mean --max-num-seqs?) [vLLM 0.33.0; hardware h200, variant "
        "mxfp8, strategy single_node_tp, preset h200_agentx:c1]"
    )


def test_check_loads_no_page_machinery() -> None:
    """``check`` validates and publishes in memory but builds no page: no Jinja, Markdown or Pygments,
    and no huggingface_hub (only ``import-config --from-hub``/``--check`` reach the Hub)."""
    script = (
        "import sys\n"
        "from builder.cli.main import main\n"
        "status = main(['check', '--content', 'recipes'])\n"
        "print(status, sorted({m.split('.')[0] for m in sys.modules} & {'jinja2', 'pygments', 'markdown_it', "
        "'huggingface_hub'}), sorted(m for m in sys.modules if m.startswith('builder.site')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 [] []"
