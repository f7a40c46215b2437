#!/usr/bin/env bash
# Grades every right kernel in checker/tests/features/NAME/NN_topic/ (each folder a hand-in
# of one lesson, written with CUDA features beyond the lessons' own: shuffles, votes, atomics,
# vector types, __constant__...) with the judge WB_JUDGE names (check: the GPU, check-emu: the
# emulator): each must pass. Their wrong twins are mutants (checker/mutants/, base: lines).
# Each report is kept in build/features/NAME.log (with PROFILE=1 on a GPU: Nsight Compute's
# counts, which docs/emulator.md holds against the emulator's).
#   Usage: checker/tools/run-features.sh [NAME...]
set -u
make=${MAKE:-make}
features=checker/tests/features
names=("$@")
[ $# -eq 0 ] && names=($(cd "$features" && ls -d */ | tr -d /))
pass=0 fail=0
mkdir -p build/features
for name in "${names[@]}"; do
  dir=$features/$name
  lesson=$(ls "$dir" | sed -n 's/^0*\([0-9][0-9]*\)_.*/\1/p' | head -1)
  if [ -z "$lesson" ]; then echo "  $dir holds no lesson folder (NN_topic)"; fail=$((fail + 1)); continue; fi
  out=$(MAKE=$make build/workbook check "$dir" pass "$lesson" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "build/features/$name.log"
  if [ $rc -eq 0 ]; then
    pass=$((pass + 1)); printf '  passed, as it must: %s (lesson %s)\n' "$name" "$lesson"
  else
    fail=$((fail + 1)); printf '  FAILED, A RIGHT KERNEL: %s (lesson %s); its report:\n' "$name" "$lesson"
    sed 's/^/    | /' <<<"$out"
  fi
done
echo "features: $pass passed, $fail failed"
[ $fail -eq 0 ]
