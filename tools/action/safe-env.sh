# Sourced by the Action's steps (install.sh, run.sh): nothing the pull request's checkout holds may run
# or configure the tools they start. The working directory is that checkout: Python (`python -m` puts
# it first on the import path, so a planted pip/ or sitecustomize.py would run) and pip run isolated
# from a neutral folder; variables that make Python, pip, npm, Node.js or git read files or run
# commands are dropped; PATH keeps only absolute folders outside the checkout.
checkout=$(pwd -P)
workspace=$( (cd "${GITHUB_WORKSPACE:-$checkout}" 2>/dev/null && pwd -P) || printf '%s' "$checkout")
neutral="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"

while IFS= read -r name; do
  case $name in
    PYTHON*|PIP_*|GIT_*|NPM_CONFIG_*|npm_config_*|NODE_OPTIONS|NODE_PATH|BASH_ENV|ENV)
      unset "$name" ;;
  esac
done < <(compgen -e)

kept=()
IFS=: read -ra entries <<< "${PATH:-}"
for entry in "${entries[@]}"; do
  case $entry in /*) ;; *) continue ;; esac  # empty or relative: the working directory
  real=$(cd "$entry" 2>/dev/null && pwd -P) || continue
  case "$real/" in "$checkout"/*|"$workspace"/*) continue ;; esac
  kept+=("$entry")
done
PATH=$(IFS=:; printf '%s' "${kept[*]}")
export PATH
unset checkout workspace kept entries entry real name
