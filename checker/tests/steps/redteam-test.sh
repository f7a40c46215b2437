#!/usr/bin/env bash
# The red team's attacks on the grader (checker/redteam/), in the emulator, after build-all: each
# refused and harmless (make mutants runs them too).
set -u
make=${MAKE:-make}
$make --no-print-directory build-all || exit 1
MAKE=$make EMU=1 exec checker/tools/run-cases.py redteam
