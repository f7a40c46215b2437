#!/usr/bin/env bash
# On a GPU machine: the GPU judge with compute-sanitizer and Nsight Compute switched on, end to
# end, as docs/gates.md reports it. Steps (all by default; name some to split the work):
#   solutions  every solution passes and every stub fails, SANITIZE=1 PROFILE=1
#   mutants    every wrong kernel of checker/mutants/ rejected with its diagnosis, gates on
#   handout    make handout-test: the tarball graded from a fresh folder by the GPU judge
#   logs       the tools' raw logs on a racy, a crashing and a clean kernel (for the parsers' tests)
# Reports go to DIR (default build/gpu-gates).   Usage: checker/bench/gpu-gates.sh [DIR] [STEP...]
set -u
# shellcheck source=checker/bench/gpu-steps-lib.sh
. checker/bench/gpu-steps-lib.sh
gpu_steps build/gpu-gates "solutions mutants handout logs" "$@"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
build_all
lessons=$(build/workbook lessons number | paste -sd' ')

export SANITIZE=1 PROFILE=1
if step solutions; then
  MAKE=$make build/workbook check solutions pass $lessons > "$out/solutions.log" 2>&1; echo "solutions: exit $?"
  MAKE=$make build/workbook check exercises fail $lessons > "$out/exercises.log" 2>&1; echo "stubs: exit $?"
  grep -E '^\[  (PASSED|FAILED|SKIPPED) |as they must|Score' "$out/solutions.log" "$out/exercises.log" | sort | uniq -c
  took solutions
fi
if step mutants; then
  $make -s --no-print-directory mutants EMU= > "$out/mutants.log" 2>&1; echo "mutants: exit $?"
  tail -n 1 "$out/mutants.log"
  mkdir -p "$out/mutants" && cp build/mutants-gpu/*.log "$out/mutants/" 2>/dev/null
  took mutants
fi
if step handout; then
  $make -s --no-print-directory handout-test > "$out/handout.log" 2>&1; echo "handout: exit $?"
  tail -n 4 "$out/handout.log"
  took handout
fi
if step logs; then
  # The tools' own logs, kept by the judge as it runs them (WB_KEEP_TOOL_LOGS): the parsers' test data.
  for m in no_barrier_1:2 early_return:2 store_far_away:3; do
    IFS=: read -r name lesson <<<"$m"
    build/workbook mutate "checker/mutants/$name.mutant" "build/mutants/$name" > /dev/null &&
      mkdir -p "$out/$name" && WB_KEEP_TOOL_LOGS="$out/$name" SANITIZE=1 \
      $make -s check SRC="build/mutants/$name" LESSON="$lesson" ONLY='compute-sanitizer*' > "$out/$name.log" 2>&1
    echo "$name: $(ls "$out/$name")"
  done
  mkdir -p "$out/ncu-04" && WB_KEEP_TOOL_LOGS="$out/ncu-04" PROFILE=1 \
    $make -s check SRC=solutions LESSON=4 ONLY='Nsight*' > "$out/ncu-04.log" 2>&1
  echo "ncu: $(ls "$out/ncu-04")"
fi
