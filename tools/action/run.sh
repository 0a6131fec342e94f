#!/usr/bin/env bash
# The GitHub Action's work, run in the recipes repository's checkout:
#   vllm-recipes check [--strict]               (fails the job on errors)
#   vllm-recipes diff --git . -- BASE HEAD      (what the change publishes; fails the job on bad input)
# The Markdown report goes to $GITHUB_STEP_SUMMARY and to a file named by the `summary-path` output,
# beside `changed` ("true"/"false"). Inputs come as INPUT_CONTENT, INPUT_BASE, INPUT_HEAD, INPUT_STRICT.
# The tool runs as `$VLLM_RECIPES_PYTHON -I -m builder` (isolated: nothing of the checkout on its import
# path); VLLM_RECIPES names another command (the tests' copy). safe-env.sh drops what the checkout
# could use to run or configure a tool. What the tool prints of the recipes is inert in the job log
# (builder.content.log_text); in the summary it is fenced so that no line of it can close the fence.
set -uo pipefail
content="${INPUT_CONTENT:-.}"
base="${INPUT_BASE:-}"
head="${INPUT_HEAD:-HEAD}"
strict="${INPUT_STRICT:-true}"
if [ -n "${VLLM_RECIPES:-}" ]; then tool=("$VLLM_RECIPES"); else tool=("${VLLM_RECIPES_PYTHON:-python3}" -I -m builder); fi
source "$(dirname "${BASH_SOURCE[0]}")/safe-env.sh"
summary="$neutral/vllm-recipes-summary.md"
report="$neutral/vllm-recipes-diff.md"
errors="$neutral/vllm-recipes-diff.err"
MAX_LOG_LINES=40   # of a failed check's or diff's output in the summary (the job log has all of it)
MAX_LOG_BYTES=200  # of each such line
failed=0
check_failed=0
changed=false

# A revision name git could take for an option, a path or a range (builder/cli/diff/revision.py REVISION):
# never given to git here; the diff refuses it (exit 2).
plain_revision() { [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9._/~^-]{0,254}$ && $1 != *..* ]]; }

# A file's text fenced for the summary: the fence is longer than any backtick run in it, so no line
# can close it (CommonMark); at most MAX_LOG_LINES lines of at most MAX_LOG_BYTES bytes.
fenced() {
  local run fence lines
  lines=$(wc -l < "$1")
  run=$(LC_ALL=C grep -o '`\+' "$1" | LC_ALL=C awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }')
  fence='```'
  while [ "${#fence}" -le "$run" ]; do fence+='`'; done
  printf '%stext\n' "$fence"
  head -n "$MAX_LOG_LINES" "$1" | LC_ALL=C cut -b "1-$MAX_LOG_BYTES"
  if [ "$lines" -gt "$MAX_LOG_LINES" ]; then
    printf '… %s more lines in the job log\n' "$((lines - MAX_LOG_LINES))"
  fi
  printf '%s\n\n' "$fence"
}

check=(check "--content=$content")
if [ "$strict" = "true" ]; then check+=(--strict); fi
"${tool[@]}" "${check[@]}" > "$neutral/vllm-recipes-check.log" 2>&1 || { failed=1; check_failed=1; }
cat "$neutral/vllm-recipes-check.log"

if [ -z "$base" ]; then
  printf 'No base revision to compare with (not a pull request): checked only.\n' > "$report"
else
  if plain_revision "$base" && ! git cat-file -e --end-of-options "$base^{commit}" 2>/dev/null; then
    # a shallow checkout: fetch the base
    git fetch --no-tags --quiet --depth=1 --no-recurse-submodules origin --end-of-options "$base" || true
  fi
  "${tool[@]}" diff --git . "--content=$content" -- "$base" "$head" > "$report" 2> "$errors"
  status=$?
  cat "$errors" >&2
  case $status in
    0) changed=false ;;
    1) changed=true ;;
    *) failed=1
       { printf '### `vllm-recipes diff` failed (exit %s)\n\n' "$status"; fenced "$errors"; } > "$report" ;;
  esac
fi

{
  if [ "$check_failed" = 1 ]; then
    if [ "$strict" = "true" ]; then printf '### `vllm-recipes check --strict` failed\n\n'
    else printf '### `vllm-recipes check` failed\n\n'; fi
    fenced "$neutral/vllm-recipes-check.log"
  fi
  cat "$report"
} > "$summary"
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$summary" >> "$GITHUB_STEP_SUMMARY"; fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  printf 'changed=%s\nsummary-path=%s\n' "$changed" "$summary" >> "$GITHUB_OUTPUT"
fi
exit "$failed"
