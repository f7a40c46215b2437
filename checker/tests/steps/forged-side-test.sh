#!/usr/bin/env bash
# After build-all: the judge reads from a side's copy of the job only what that side may write,
# each lesson graded with a runner that forges every other field getting the honest grade
# (checker/tools/forged-side-test.sh, checker/tests/forge/forged_runner.c).
set -u
make=${MAKE:-make}
$make --no-print-directory build-all || exit 1
MAKE=$make exec checker/tools/forged-side-test.sh
