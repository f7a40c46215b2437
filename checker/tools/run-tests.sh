#!/usr/bin/env bash
# make test's driver: runs the make targets it is given as test steps and ends with one line that
# counts them, `test: N passed, N failed, N skipped`.
#   checker/tools/run-tests.sh --first "A B" --beside "C" --gpu "G" --together "D E" --last "F"
# first:    one at a time, in order, their output as it comes (quick checks, and the build the
#           others need);
# beside:   started with the first, each on its own (steps that need nothing built, and that
#           wait on the clock in places: they do not count among the JOBS below);
# gpu:      after the first, beside everything else, not counted among the JOBS below: the GPU's
#           step, whose judges mostly wait on the GPU; the together steps then run niced, so
#           that the GPU judges' runners, whose timings are on the GPU's clock, never wait for
#           a core;
# together: after the first, up to JOBS at once (this machine's cores, 2 at least), in the order
#           given (the longest first, so that none is left running alone at the end); each one's
#           report is shown whole when it ends;
# last:     one at a time after all the others, with the machine to itself: the load test keeps
#           every core busy on purpose.
# Each step's output goes to build/test-STEP.log. A step that cannot run on this machine says
# "SKIPPED: why" and is counted as skipped. At the first failure the steps still running are
# stopped and the failed one's report is shown.
set -u
make=${MAKE:-make}
first="" beside="" gpu="" together="" last=""
while [ $# -gt 1 ]; do
  case $1 in
    --first) first=$2 ;; --beside) beside=$2 ;; --gpu) gpu=$2 ;; --together) together=$2 ;; --last) last=$2 ;;
    *) echo "run-tests: unknown option $1" >&2; exit 2 ;;
  esac
  shift 2
done
jobs=${JOBS:-$(nproc)}
[ "$jobs" -ge 2 ] 2>/dev/null || jobs=2
mkdir -p build
# One seed for every grading that does not choose its own: a failure is replayed with the same
# inputs (make test SEED=N), and the reference side, which runs the workbook's own kernels on
# those inputs for every mutant and hand-in, is computed once per job (on a GPU, per untimed job)
# and kept in a folder of this run's (WB_REF_CACHE, checker/judge/ref_cache.c).
export SEED=${SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
export WB_REF_CACHE=$PWD/build/ref-cache
rm -rf "$WB_REF_CACHE"
echo "== make test: inputs from seed $SEED (the same again: make test SEED=$SEED)"
set -m # each step started in the background leads a process group of its own, to stop it whole
start=$SECONDS passed=0 skipped="" took=""
declare -A pid_step=() step_start=() is_beside=()

now() { echo $((SECONDS - start)); }
stop_all() {
  for pid in "${!pid_step[@]}"; do kill -- -"$pid" 2>/dev/null; done
  wait 2>/dev/null
}
trap stop_all EXIT
# A step that ended: counted, or the run ends here.
ended() {
  local step=$1 rc=$2 secs=$3
  took="$took $step ${secs}s,"
  if [ "$rc" -ne 0 ]; then
    echo "== make test: $step FAILED after $secs s"
    echo "test: $passed passed, 1 failed, $(wc -w <<<"$skipped") skipped"
    exit 1
  fi
  if grep -q '^SKIPPED: ' "build/test-$step.log"; then skipped="$skipped $step"; else passed=$((passed + 1)); fi
}
lower=() # the together steps' priority: nice beside a GPU step
launch() {
  local step=$1
  echo "== make test: $step started (at $(now) s)"
  "${lower[@]}" $make --no-print-directory "$step" > "build/test-$step.log" 2>&1 &
  pid_step[$!]=$step
  step_start[$step]=$SECONDS
}
# Waits for any started step; shows its report and counts it.
reap() {
  local pid rc step
  wait -n -p pid; rc=$?
  step=${pid_step[$pid]}
  unset "pid_step[$pid]" "is_beside[$pid]"
  echo "== make test: $step (at $(now) s, in $((SECONDS - step_start[$step])) s):"
  cat "build/test-$step.log"
  ended "$step" "$rc" $((SECONDS - step_start[$step]))
}

# Runs a step in the foreground, its output as it comes.
in_turn() {
  local step=$1 t=$SECONDS
  echo "== make test: $step (at $(now) s$2)"
  $make --no-print-directory "$step" 2>&1 | tee "build/test-$step.log"
  ended "$step" "${PIPESTATUS[0]}" $((SECONDS - t))
}

for step in $beside; do launch "$step"; is_beside[$!]=1; done
for step in $first; do in_turn "$step" ""; done
for step in $gpu; do launch "$step"; is_beside[$!]=1; lower=(nice -n 10); done
for step in $together; do
  while [ $((${#pid_step[@]} - ${#is_beside[@]})) -ge "$jobs" ]; do reap; done
  launch "$step"
done
while [ ${#pid_step[@]} -gt 0 ]; do reap; done
for step in $last; do in_turn "$step" ", alone"; done
echo "== make test: every step ran, in $(now) s${skipped:+; skipped, since this machine cannot run them:$skipped}"
echo "== each step:${took%,}"
echo "test: $passed passed, 0 failed, $(wc -w <<<"$skipped") skipped"
