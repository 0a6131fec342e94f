"""``vllm-recipes new``: a commented recipe skeleton that passes ``check``."""

from __future__ import annotations

from pathlib import Path

from builder.cli.reporting import Refused, recipe_file

SKELETON = """\
# yaml-language-server: $schema=/schema/recipe.json
# A vLLM serving recipe. Every key is documented by the JSON Schema above;
# `vllm-recipes check` validates this file, `vllm-recipes build` publishes it.
meta:
  title: "{repo}"
  provider: "{org}"
  description: "One sentence on what the model is and what it is good at."
  tasks: [text]
  # Hardware you have verified the commands on (any taxonomy profile id).
  hardware:
    h200: verified
  date_added: {today}

model:
  model_id: "{hf_id}"
  parameter_count: "8B"
  context_length: 131072
  min_vllm_version: "0.11.0"
  # Arguments every command gets.
  base_args: []

# Features a user can toggle; list opt-in ones in opt_in_features.
features:
  tool_calling:
    description: "Tool calling with the model's parser"
    args: ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]
opt_in_features: []

# Checkpoints of the model: precision and the VRAM the weights need (GB).
variants:
  default:
    precision: bf16
    vram_minimum_gb: 16
    description: "Full-precision checkpoint"

compatible_strategies: [single_node_tp]

guide: |
  ## Overview

  How to serve {repo} with vLLM, and what to tune.
"""


def new_recipe(root: Path, hf_id: str, today: str) -> Path:
    """Write a commented recipe skeleton for ``<org>/<repo>`` that passes ``check``."""
    path = root / recipe_file(hf_id)
    org, repo = hf_id.split("/")
    if path.exists():
        raise Refused(f"{path} already exists")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(SKELETON.format(org=org, repo=repo, hf_id=hf_id, today=today), encoding="utf-8")
    return path
