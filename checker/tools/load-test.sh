#!/usr/bin/env bash
# A correct kernel must never fail because the machine is busy: every solution graded RUNS times
# (default 2) in the emulator while stress-ng keeps every core busy; each run must score full
# marks. The emulator's hang limit is CPU time, at least TIMEOUT and 20 times what the reference
# needed (checker/judge/jobs.c), so the load may slow a run but not fail it.
set -u
make=${MAKE:-make}
runs=${RUNS:-2}
# In make test the reference side's results are kept (WB_REF_CACHE), most of them measured
# before the load: the student's side then runs loaded against budgets taken from an unloaded
# reference, the harder case for the rule above.
if ! command -v stress-ng > /dev/null; then
  echo "load test: no stress-ng here (apt-get install stress-ng; make test's first step installs it as root)"; exit 1
fi
$make -s --no-print-directory programs SRC=solutions EMU=1 > /dev/null 2>&1
stress-ng --cpu "$(nproc)" --timeout 1800s --quiet & burner=$!
trap 'kill $burner 2>/dev/null; wait $burner 2>/dev/null' EXIT
sleep 1
pass=0 fail=0
for i in $(seq "$runs"); do
  t0=$(date +%s)
  out=$($make -s --no-print-directory check SRC=solutions LESSON=all EMU=1 2>&1)
  if grep -q '^Score: \([0-9]*\)/\1$' <<<"$out"; then
    pass=$((pass + 1)); echo "  run $i: $(grep '^Score' <<<"$out") in $(( $(date +%s) - t0 )) s, with every core busy"
  else
    fail=$((fail + 1)); echo "  run $i FAILED under load:"; grep -E 'FAILED|Score|answer' <<<"$out" | sed 's/^/    | /'
  fi
done
echo "load test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
