#!/usr/bin/env bash
# On a GPU machine with Nsight Compute: the memory-traffic counters of every lesson's solution
# and baseline kernel, at the sizes the emulator counts at (matmul N=128, transposes 256x256),
# as Nsight Compute's CSV, one file per lesson in DIR (default build/ncu). docs/emulator.md
# compares them with the emulator's counts.  Usage: checker/bench/ncu-counts.sh [DIR]   (after make test)
set -u
# The counters the checker's Nsight Compute gate reads (NCU_METRICS in checker/src/judging/gates.c).
metrics=$(sed -n '/^const char NCU_METRICS/,/;/p' checker/src/judging/gates.c | grep -o '[a-z0-9_.]*\.sum' | paste -sd,)
out=${1:-build/ncu}
mkdir -p "$out"
build/workbook lessons number folder family | while read -r n folder family; do
  read -r size _ <<<"$(build/workbook counting-size "$family")" # square at every family's size so far
  # The speed case's reference runner (ncu follows the judge's child processes) launches the
  # solution twice, then the baseline: the first three kernels.
  ONLY='speed*' SPEED_SIZE=$size REPS=10 TIMEOUT=300 \
    ncu --clock-control none --csv --page raw --metrics "$metrics" --kernel-name-base demangled -c 3 \
    --log-file "$out/$folder.csv" "build/solutions/$folder/check" > "${NCU_LOG:-/dev/null}" 2>&1
  echo "lesson $n: $(( $(grep -c '^"' "$out/$folder.csv") - 2 )) kernels profiled into $out/$folder.csv"
done
