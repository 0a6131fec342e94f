#!/usr/bin/env bash
# The GitHub Action's work, run in the recipes repository's checkout:
#   vllm-recipes check [--strict]            (fails the job on errors)
#   vllm-recipes diff --git . BASE HEAD     (what the change publishes; fails the job on bad input)
# The Markdown report goes to $GITHUB_STEP_SUMMARY and to a file named by the `summary-path` output,
# beside `changed` ("true"/"false"). Inputs come as INPUT_CONTENT, INPUT_BASE, INPUT_HEAD, INPUT_STRICT;
# VLLM_RECIPES names the command (default: vllm-recipes on PATH).
set -uo pipefail
content="${INPUT_CONTENT:-.}"
base="${INPUT_BASE:-}"
head="${INPUT_HEAD:-HEAD}"
strict="${INPUT_STRICT:-true}"
tool="${VLLM_RECIPES:-vllm-recipes}"
folder="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
summary="$folder/vllm-recipes-summary.md"
report="$folder/vllm-recipes-diff.md"
failed=0
check_failed=0
changed=false

check=(check --content "$content")
if [ "$strict" = "true" ]; then check+=(--strict); fi
if ! check_log=$("$tool" "${check[@]}" 2>&1); then failed=1; check_failed=1; fi
printf '%s\n' "$check_log"

if [ -z "$base" ]; then
  printf 'No base revision to compare with (not a pull request): checked only.\n' > "$report"
else
  if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    git fetch --no-tags --quiet --depth=1 origin "$base" || true  # a shallow checkout: fetch the base
  fi
  "$tool" diff --git . --content "$content" "$base" "$head" > "$report" 2> "$folder/vllm-recipes-diff.err"
  status=$?
  cat "$folder/vllm-recipes-diff.err" >&2
  case $status in
    0) changed=false ;;
    1) changed=true ;;
    *) failed=1
       printf '### `vllm-recipes diff` failed (exit %s)\n\n```text\n%s\n```\n' "$status" \
         "$(cat "$folder/vllm-recipes-diff.err")" > "$report" ;;
  esac
fi

{
  if [ "$check_failed" = 1 ]; then
    printf '### `vllm-recipes %s` failed\n\n```text\n%s\n```\n\n' "${check[*]}" "$check_log"
  fi
  cat "$report"
} > "$summary"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'changed=%s\nsummary-path=%s\n' "$changed" "$summary" >> "$GITHUB_OUTPUT"
fi
exit "$failed"
