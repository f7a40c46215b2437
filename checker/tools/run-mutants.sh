#!/usr/bin/env bash
# Grades every wrong kernel described in checker/mutants/*.mutant (an edit of a lesson's
# solution) and asserts that the check rejects it with the diagnosis the file expects: a
# checker that merely fails is not enough. Without a GPU only the mutants that fail before any
# kernel runs can be judged; the rest are reported as skipped, never as passed.
# Each report is kept in build/mutants/NAME.log (the GPU judge's in build/mutants-gpu/: make test
# runs both judges at once on a GPU machine). The check programs are built first, in
# parallel, then run: on a GPU one at a time (timings must not share the machine) unless the
# judges share it by WB_GPU_LOCK, on every core at once in the emulator (it counts, it does not
# time, and its limits are CPU time).
set -u
make=${MAKE:-make}
pass=0 fail=0 skip=0
reports=build/mutants$([ -n "${EMU:-}" ] || echo -gpu)
names=()
# Names given on the command line: only those.
files=(checker/mutants/*.mutant)
[ $# -gt 0 ] && files=("${@/#/checker/mutants/}") && files=("${files[@]/%/.mutant}")
for file in "${files[@]}"; do
  name=$(basename "$file" .mutant)
  # On a GPU, a mistake only the emulator's thread order exposes is still run when the gate
  # that can see it (gpu-needs: SANITIZE or PROFILE) is on.
  needs=$(sed -n 's/^gpu-needs: //p' "$file")
  if [ "$(sed -n 's/^only: //p' "$file")" = emulator ] && [ -z "${EMU:-}" ] && { [ -z "$needs" ] || [ "${!needs:-0}" != 1 ]; }; then
    skip=$((skip + 1)); printf '  skipped (emulator only%s): %s\n' "${needs:+; on a GPU with $needs=1}" "$name"; continue
  fi
  # A mistake that only timing shows, which the emulator's counts cannot see (docs/emulator.md).
  if [ "$(sed -n 's/^only: //p' "$file")" = gpu ] && [ -n "${EMU:-}" ]; then
    skip=$((skip + 1)); printf '  skipped (GPU only: only timing shows it): %s\n' "$name"; continue
  fi
  if ! out=$(build/workbook mutate "$file" "$reports/$name" 2>&1); then
    fail=$((fail + 1)); printf '  CANNOT BUILD MUTANT %s: %s\n' "$name" "$out"; continue
  fi
  names+=("$name")
done
echo "  building the check programs of ${#names[@]} mutants..."
# What every program shares (the solutions' and baselines' objects) first, then the mutants'.
$make -s --no-print-directory programs SRC=solutions > /dev/null 2>&1
for name in "${names[@]}"; do
  echo "programs SRC=$reports/$name LESSON=$(sed -n 's/^lesson: //p' "checker/mutants/$name.mutant")"
done | xargs -P "$(nproc)" -L 1 "$make" -s --no-print-directory > /dev/null 2>&1

# Grades one mutant and says at once what became of it; its verdict (pass, fail or skip) goes to
# $reports/NAME.verdict for the count below.
grade() {
  local name=$1 file=checker/mutants/$1.mutant dir=$reports/$1
  local expect out rc said verdict
  expect=$(sed -n 's/^expect: //p' "$file")
  # The first failed case's report, the cases after it (the largest sizes, the timings, the
  # gates) skipped: most mutants say what they must there. Where it does not say it (a gate's
  # finding, or a file with `every-case: yes`, or `gpu` on a GPU), every case runs.
  run() {
    out=$(env WB_STOP_AT_FAILURE="$1" ${timeout:+TIMEOUT=$timeout} $make -s --no-print-directory check SRC="$dir" \
      LESSON="$(sed -n 's/^lesson: //p' "$file")" 2>&1)
    rc=$?
    said=0 # "a | b": either phrase will do (the judges may word one mistake differently)
    while IFS= read -r phrase; do grep -qF -- "$phrase" <<<"$out" && said=1; done < <(sed 's/ | /\n/g' <<<"$expect")
  }
  # A kernel that never ends is found at TIMEOUT (10 s of CPU time in the emulator): `timeout: N`
  # finds it sooner, the same way.
  local timeout
  timeout=$(sed -n 's/^timeout: \([1-9][0-9]*\)$/\1/p' "$file")
  local stop=1 t0=$EPOCHREALTIME took runs=1
  case $(sed -n 's/^every-case: //p' "$file") in
    yes) stop= ;;
    gpu) [ -n "${EMU:-}" ] || stop= ;; # the GPU's first failure says it in other words
  esac
  run "$stop"
  [ -n "$stop" ] && [ $said = 0 ] && runs=2 && run ""
  took=$(awk -v a="$t0" -v b="$EPOCHREALTIME" -v n=$runs 'BEGIN { printf "%.1f s%s", b - a, (n > 1 ? ", two runs" : "") }')
  printf '%s\n' "$out" > "$dir.log"
  # The report is the student's: no line of the checker's own source may show in it.
  if grep -q 'checker/judge/' <<<"$out"; then
    said=0; expect="$expect; and no checker/judge/ source line (one was shown)"
  fi
  if [ $rc -ne 0 ] && [ $said = 1 ]; then
    verdict=pass; printf '  rejected, as it must: %-24s ("%s") [%s]\n' "$name" "$expect" "$took"
  elif grep -q 'cannot be graded on a GPU' <<<"$out"; then
    verdict=skip; printf '  skipped (no GPU):      %s\n' "$name"
  else
    verdict=fail
    printf '  NOT REJECTED AS IT MUST: %s (exit %d, expected "%s"); its report:\n%s\n' "$name" $rc "$expect" \
      "$(sed 's/^/    | /' <<<"$out")"
  fi
  echo $verdict > "$dir.verdict"
}
export -f grade
export make reports
rm -f "$reports"/*.verdict
# On every core in the emulator; on a GPU one at a time, or GPU_JOBS at once where the judges
# share it (WB_GPU_LOCK: checker/tools/gpu-test.sh).
printf '%s\n' "${names[@]}" |
  xargs -r -P "$([ -n "${EMU:-}" ] && nproc || { [ -n "${WB_GPU_LOCK:-}" ] && echo "${GPU_JOBS:-1}" || echo 1; })" -I{} bash -c 'grade {}'
for name in "${names[@]}"; do
  case $(cat "$reports/$name.verdict" 2>/dev/null) in
    pass) pass=$((pass + 1)) ;;
    skip) skip=$((skip + 1)) ;;
    *) fail=$((fail + 1)) ;;
  esac
done
echo "mutants: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
