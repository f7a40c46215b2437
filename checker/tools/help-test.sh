#!/usr/bin/env bash
# make help must work (it is what a newcomer types first), list every target a README names
# (as `make X`), and name only targets that exist.
#
# Usage: checker/tools/help-test.sh [README...]   (run from the workbook's root; default README.md)
set -uo pipefail
readmes=("${@:-README.md}")
make=${MAKE:-make}

if ! help=$($make -s --no-print-directory help 2>&1); then
  echo "make help fails:"; echo "$help"; exit 1
fi
if ! plain=$($make -s --no-print-directory 2>&1) || [ "$plain" != "$help" ]; then
  echo "make with no target does not print make help:"; echo "$plain"; exit 1
fi

# make's own list of the targets it has rules for.
targets=$($make -pRrq -f Makefile : 2>/dev/null | grep -oE '^[a-z][a-z0-9-]*:' | tr -d : | sort -u)
listed=$(grep -oE '^  make [a-z][A-Za-z0-9-]*' <<<"$help" | awk '{print $2}' | sort -u)
fail=0
for t in $listed; do
  [ "$t" = lessonN ] && t=lesson1
  grep -qx "$t" <<<"$targets" || { echo "make help lists 'make $t', which has no rule in the Makefile"; fail=1; }
done
for readme in "${readmes[@]}"; do
  # `make X` in code (a line of a code block, or between backticks); lessonN stands for lesson1..8.
  named=$(grep -ohE '(^|`)make [a-z][A-Za-z0-9-]*' "$readme" | sed -E 's/^`//; s/^make //; s/^lesson[0-9N]+$/lessonN/' | sort -u)
  for t in $named; do
    grep -qx "$t" <<<"$listed" || { echo "$readme names 'make $t', which make help does not list"; fail=1; }
  done
done
[ $fail -eq 0 ] && echo "help: make help works and lists the $(wc -w <<<"$named") targets $(printf '%s ' "${readmes[@]}")names"
exit $fail
