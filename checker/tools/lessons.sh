#!/usr/bin/env bash
# The one reader of lessons/registry for the Makefile and the scripts (the C programs have
# checker/src/registry.c): the fields asked for by name, one lesson per line, in teaching order.
#   checker/tools/lessons.sh FIELD...          e.g. `number folder` -> "1 01_naive_matmul"
#   checker/tools/lessons.sh --lesson N FIELD... only lesson N
#   checker/tools/lessons.sh --sum FIELD        the sum of a numeric field over the lessons
# Fields: number folder kernel family baseline points. REGISTRY= reads another file (a handout's).
set -euo pipefail
registry=${REGISTRY:-lessons/registry}
fields="number folder kernel family baseline points"
lesson="" sum=""
case "${1:-}" in
  --lesson) lesson=$2; shift 2 ;;
  --sum) sum=1; shift ;;
esac
[ $# -gt 0 ] || { echo "usage: $0 [--lesson N | --sum] FIELD... (fields: $fields)" >&2; exit 2; }
columns=()
for name in "$@"; do
  i=0 found=""
  for f in $fields; do i=$((i + 1)); [ "$f" = "$name" ] && found=$i; done
  [ -n "$found" ] || { echo "$0: no field '$name' in lessons/registry (fields: $fields)" >&2; exit 2; }
  columns+=("$found")
done
awk -v cols="${columns[*]}" -v lesson="$lesson" -v sum="$sum" '
  /^[ \t]*(#|$)/ { next }
  lesson != "" && $1 != lesson { next }
  { n = split(cols, c, " ")
    if (sum) { total += $c[1]; next }
    line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? " " : "") $c[i]
    print line }
  END { if (sum) print total + 0 }' "$registry"
