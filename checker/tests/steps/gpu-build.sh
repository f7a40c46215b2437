#!/usr/bin/env bash
# gpu-test without a GPU: the GPU runner and the last lesson's GPU judge are built (for CUDA_ARCH, 90
# unless given), to show that they still compile, and the step says it is skipped.
set -u
src=solutions
[ -d solutions ] || src=exercises
read -r last folder < <(build/workbook lessons number folder | tail -n 1)
${MAKE:-make} -s --no-print-directory SRC=$src "build/$src/$folder/check" &&
  echo "SKIPPED: no GPU here: the GPU runner and lesson $last's GPU judge were built (sm_${CUDA_ARCH:-90}), not run."
