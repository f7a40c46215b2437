#!/usr/bin/env bash
# The house's figures (issue 48, docs/architecture.md), from the files git tracks: lines of shell,
# the files over 1,000 lines, and the functions over 100 lines (C and CUDA, by Universal Ctags'
# start and end of each function; a table is a variable, never counted). Circles between rooms are
# make arrows-test's to find. Prints a line per figure, then the files and functions named.
#   Usage: checker/tools/house-figures.sh [LIMIT_FILE [LIMIT_FUNCTION]]   (default 1000 100)
set -euo pipefail
cd "$(dirname "$0")/../.."
file_limit=${1:-1000} function_limit=${2:-100}
command -v ctags > /dev/null && ctags --version 2> /dev/null | grep -q 'Universal Ctags' ||
  { echo "house-figures: needs Universal Ctags (apt-get install universal-ctags)" >&2; exit 2; }

sources=$(git ls-files -- '*.c' '*.h' '*.cu' '*.cuh' '*.sh' '*.py' 'Makefile')
shell=$(git ls-files -- '*.sh' | xargs cat | wc -l)
echo "shell: $shell lines in $(git ls-files -- '*.sh' | wc -l) files"

big=$(xargs wc -l <<<"$sources" | awk -v n="$file_limit" '$2 != "total" && $1 > n { print $1, $2 }' | sort -rn)
echo "files over $file_limit lines: $(grep -c . <<<"$big" || true)"
[ -z "$big" ] || sed 's/^/  /' <<<"$big"

# Each function's length from its first line to its closing brace.
long=$(git ls-files -- '*.c' '*.cu' '*.cuh' '*.h' |
  xargs ctags --fields=+ne -o - --kinds-C=f --kinds-CUDA=f --langmap=CUDA:+.cuh 2> /dev/null |
  awk -F'\t' -v n="$function_limit" '{
    line = end = 0
    for (i = 4; i <= NF; i++) { if ($i ~ /^line:/) line = substr($i, 6); if ($i ~ /^end:/) end = substr($i, 5) }
    if (end && end - line + 1 > n) print end - line + 1, $2 ":" line, $1
  }' | sort -rn)
echo "functions over $function_limit lines: $(grep -c . <<<"$long" || true)"
[ -z "$long" ] || sed 's/^/  /' <<<"$long"
