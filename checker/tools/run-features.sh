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
reports=build/features$([ "${WB_JUDGE:-check}" = check-emu ] || echo -gpu) # each judge its own: make test runs both at once
mkdir -p "$reports"
# One feature kernel graded, its verdict into build/features/NAME.verdict and said at once.
grade() {
  local name=$1 dir=$features/$1 lesson out rc
  lesson=$(ls "$dir" | sed -n 's/^0*\([0-9][0-9]*\)_.*/\1/p' | head -1)
  if [ -z "$lesson" ]; then echo "  $dir holds no lesson folder (NN_topic)"; echo fail > "$reports/$name.verdict"; return; fi
  out=$(MAKE=$make build/workbook check "$dir" pass "$lesson" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$reports/$name.log"
  if [ $rc -eq 0 ]; then
    echo pass > "$reports/$name.verdict"; printf '  passed, as it must: %s (lesson %s)\n' "$name" "$lesson"
  else
    echo fail > "$reports/$name.verdict"
    printf '  FAILED, A RIGHT KERNEL: %s (lesson %s); its report:\n%s\n' "$name" "$lesson" "$(sed 's/^/    | /' <<<"$out")"
  fi
}
export -f grade
export make features reports
rm -f "$reports"/*.verdict
# In the emulator on every core (it counts, it does not time); on a GPU one at a time, or
# GPU_JOBS at once where the judges share it (WB_GPU_LOCK: checker/tools/gpu-test.sh).
printf '%s\n' "${names[@]}" |
  xargs -r -P "$([ "${WB_JUDGE:-check}" = check-emu ] && nproc || { [ -n "${WB_GPU_LOCK:-}" ] && echo "${GPU_JOBS:-1}" || echo 1; })" -I{} \
    bash -c 'grade {}'
pass=0 fail=0
for name in "${names[@]}"; do
  if [ "$(cat "$reports/$name.verdict" 2>/dev/null)" = pass ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "features: $pass passed, $fail failed"
[ $fail -eq 0 ]
