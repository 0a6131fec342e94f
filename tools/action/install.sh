#!/usr/bin/env bash
# The Action's install step: vllm-recipes from the action's own files (GITHUB_ACTION_PATH) with the
# Python of actions/setup-python (VLLM_RECIPES_PYTHON), never anything of the checkout it starts in.
set -euo pipefail
python="${VLLM_RECIPES_PYTHON:-python3}"
source "$(dirname "${BASH_SOURCE[0]}")/safe-env.sh"
cd "$neutral"
"$python" -I -m pip install --isolated --no-input --disable-pip-version-check --quiet "$GITHUB_ACTION_PATH"
"$python" -I -m builder --version
