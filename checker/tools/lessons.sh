#!/usr/bin/env bash
# The one reader of lessons/registry for the Makefile and the scripts (the C programs have
# checker/src/formats/registry.c): the fields asked for by name, one lesson per line, in teaching order.
#   checker/tools/lessons.sh FIELD...          e.g. `number folder` -> "1 01_naive_matmul"
#   checker/tools/lessons.sh --lesson N FIELD... only lesson N
#   checker/tools/lessons.sh --sum FIELD        the sum of a numeric field over the lessons
# Fields: number folder kernel family baseline points, the registry's columns, and two read
# from the baseline column ([FAMILY:]PATH): baseline is its PATH, baseline_family its FAMILY
# (the lesson's family when none is given). REGISTRY= reads another file (a handout's).
set -euo pipefail
registry=${REGISTRY:-lessons/registry}
fields="number folder kernel family baseline points baseline_family"
lesson="" sum=""
case "${1:-}" in
  --lesson) lesson=$2; shift 2 ;;
  --sum) sum=1; shift ;;
esac
[ $# -gt 0 ] || { echo "usage: $0 [--lesson N | --sum] FIELD... (fields: $fields)" >&2; exit 2; }
for name in "$@"; do
  [[ " $fields " == *" $name "* ]] || { echo "$0: no field '$name' in lessons/registry (fields: $fields)" >&2; exit 2; }
done
awk -v names="$*" -v lesson="$lesson" -v sum="$sum" '
  /^[ \t]*(#|$)/ { next }
  lesson != "" && $1 != lesson { next }
  { v["number"] = $1; v["folder"] = $2; v["kernel"] = $3; v["family"] = $4; v["points"] = $6
    v["baseline"] = $5; v["baseline_family"] = $4
    if ((i = index($5, ":")) > 0) { v["baseline_family"] = substr($5, 1, i - 1); v["baseline"] = substr($5, i + 1) }
    n = split(names, want, " ")
    if (sum) { total += v[want[1]]; next }
    line = ""; for (i = 1; i <= n; i++) line = line (i > 1 ? " " : "") v[want[i]]
    print line }
  END { if (sum) print total + 0 }' "$registry"
