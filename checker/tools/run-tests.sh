#!/usr/bin/env bash
# make test's driver. The steps, when each runs and what runs it are one table,
# checker/tests/steps/table (its header says how to read it); this script is its one reader.
#   checker/tools/run-tests.sh              every step for this machine (make test), ending with one
#                                           line that counts them, `test: N passed, N failed, N skipped`
#   checker/tools/run-tests.sh --only STEP  that step alone, its output as it comes (make STEP)
#   checker/tools/run-tests.sh --list       the steps for this machine, by phase (make help)
# make starts it and says whether there is a GPU: WB_GPU_CC, its compute capability, empty for none.
# LEAVE_OUT="STEP..." leaves steps out of make test (a machine without pandoc or chromium, say).
# The phases, in the order they start:
# beside:   started first, each on its own, beside the first steps (steps that need nothing the
#           first steps build, and that wait on the clock or the GPU in places: they do not count
#           among the JOBS below): arrows-test, and explore (which builds its own programs and
#           measures with the GPU alone), are here so that the gpu step starts once build-all ends;
# first:    one at a time, in order, their output as it comes (quick checks, and the build the
#           others need);
# gpu:      after the first, beside everything else, not counted among the JOBS below: the GPU's
#           step, whose judges mostly wait on the GPU; the together steps then run niced, so
#           that the GPU judges' runners, whose timings are on the GPU's clock, never wait for
#           a core;
# together: after the first, up to JOBS at once (this machine's cores, 2 at least), in the table's
#           order (the longest first, so that none is left running alone at the end); each one's
#           report is shown whole when it ends;
# last:     one at a time after all the others, with the machine to itself: the load test keeps
#           every core busy on purpose.
# Each step's output goes to build/test-STEP.log. A step that cannot run on this machine says
# "SKIPPED: why" and is counted as skipped. At the first failure the steps still running are
# stopped and the failed one's report is shown.
set -u
make=${MAKE:-make}
table=checker/tests/steps/table
refuse() { echo "run-tests: $*" >&2; exit 2; }
mode=all only=""
case ${1:-} in
  "") ;;
  --only) [ $# -eq 2 ] || refuse "--only takes one step's name."; mode=only only=$2 ;;
  --list) mode=list ;;
  *) refuse "unknown option $1 (--only STEP, --list, or none: every step)." ;;
esac
[ -n "${WB_GPU_CC+set}" ] || refuse "make runs this (make test, make STEP): it says whether there is a GPU (WB_GPU_CC)."
[ -f "$table" ] || refuse "there is no $table: this copy has no tests of its own (a handout leaves them out)."
# The lists that made make test's steps before this table did: a command that still names them
# would otherwise run every step.
for v in TEST_FIRST TEST_BESIDE TEST_GPU TEST_TOGETHER TEST_LAST; do
  [ -z "${!v+set}" ] || refuse "$v no longer picks steps: $table lists them; LEAVE_OUT=\"STEP...\" leaves some out."
done

# The table, read once: each phase's steps for this machine, in order, and what runs each.
declare -A run_of=() listed=() unmet=()
phases=(beside first gpu together last)
declare -a steps_beside=() steps_first=() steps_gpu=() steps_together=() steps_last=()
line=0
while read -r name phase when run what; do
  line=$((line + 1))
  [[ -z $name || $name == \#* ]] && continue
  [ -n "$what" ] || refuse "$table, line $line: a step is NAME PHASE WHEN RUN and a sentence of what it proves."
  [[ " ${phases[*]} " == *" $phase "* ]] || refuse "$table, line $line: phase '$phase' is none of ${phases[*]}."
  met=""
  case $when in
    always) met=1 ;;
    solutions) [ -d solutions ] && met=1; why="where there is solutions/ (a handout has none)" ;;
    gpu) [ -n "$WB_GPU_CC" ] && met=1; why="on a GPU" ;;
    no-gpu) [ -z "$WB_GPU_CC" ] && met=1; why="without a GPU" ;;
    *) refuse "$table, line $line: WHEN '$when' is none of always, solutions, gpu, no-gpu." ;;
  esac
  # make runs a step's script through its %-test rule, which would call this again for ever.
  [[ $run != make || $name != *-test ]] || refuse "$table, line $line: $name is run by make test itself, not make."
  listed[$name]=1
  if [ -z "$met" ]; then unmet[$name]="${unmet[$name]:+${unmet[$name]}, or }$why"; continue; fi
  [ -z "${run_of[$name]:-}" ] || refuse "$table, line $line: $name has a line already for this machine."
  run_of[$name]=$run
  declare -n into=steps_$phase
  into+=("$name")
  unset -n into
done < "$table"

# The command that runs a step, into cmd: make's target of its name, a script beside the table
# (a file name), or one from the workbook's root (a path).
step_command() {
  case ${run_of[$1]} in
    make) cmd=("$make" --no-print-directory "$1") ;;
    */*) cmd=("${run_of[$1]}") ;;
    *) cmd=("${table%/*}/${run_of[$1]}") ;;
  esac
}

if [ $mode = only ]; then
  [ -n "${listed[$only]:-}" ] || refuse "make test has no step called '$only' ($table lists them; so does make help)."
  [ -n "${run_of[$only]:-}" ] || { echo "SKIPPED: $only runs only ${unmet[$only]}."; exit 0; }
  step_command "$only"
  exec "${cmd[@]}"
fi
if [ $mode = list ]; then
  for phase in "${phases[@]}"; do
    declare -n these=steps_$phase
    # A phase's names after "PHASE:", on lines of about 90 characters.
    out="$phase:"
    for step in "${these[@]}"; do
      [ $(( ${#out} + ${#step} )) -lt 90 ] || { echo "$out"; out="  "; }
      out="$out $step"
    done
    [ ${#these[@]} -eq 0 ] || echo "$out"
    unset -n these
  done
  exit 0
fi

# LEAVE_OUT: steps this run leaves out, each a step of the table.
left_out=""
for step in ${LEAVE_OUT:-}; do
  [ -n "${listed[$step]:-}" ] || refuse "LEAVE_OUT names '$step', which is no step of make test ($table lists them)."
  [ -z "${run_of[$step]:-}" ] || left_out="$left_out $step"
  unset "run_of[$step]"
done
for phase in "${phases[@]}"; do
  declare -n these=steps_$phase
  for i in "${!these[@]}"; do [ -n "${run_of[${these[$i]}]:-}" ] || unset "these[$i]"; done
  unset -n these
done

jobs=${JOBS:-$(nproc)}
[ "$jobs" -ge 2 ] 2>/dev/null || jobs=2
mkdir -p build
# python3 found once: a version manager's shim (pyenv's starts about ten shells per call, ~0.5 s
# on the 2-core machine, and the steps call python3 some 80 times) is put behind a link to the
# interpreter it resolves to, the same python3, in a folder of its own at the front of PATH.
if py=$(python3 -c 'import sys; print(sys.executable)' 2> /dev/null) && [ -x "$py" ] &&
  [ "$(command -v python3)" != "$py" ] && mkdir -p build/python3 && ln -sfn "$py" build/python3/python3; then
  PATH=$PWD/build/python3:$PATH
  export PATH
fi
# One seed for every grading that does not choose its own: a failure is replayed with the same
# inputs (make test SEED=N), and the reference side, which runs the workbook's own kernels on
# those inputs for every mutant and hand-in, is computed once per job (on a GPU, per untimed job)
# and kept in a folder of this run's (WB_REF_CACHE, checker/judge/ref_cache.c).
export SEED=${SEED:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
export WB_REF_CACHE=$PWD/build/ref-cache
rm -rf "$WB_REF_CACHE"
echo "== make test: inputs from seed $SEED (the same again: make test SEED=$SEED)"
[ -z "$left_out" ] || echo "== make test: left out (LEAVE_OUT):$left_out"
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
  step_command "$step"
  "${lower[@]}" "${cmd[@]}" > "build/test-$step.log" 2>&1 &
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
  step_command "$step"
  "${cmd[@]}" 2>&1 | tee "build/test-$step.log"
  ended "$step" "${PIPESTATUS[0]}" $((SECONDS - t))
}

for step in "${steps_beside[@]}"; do launch "$step"; is_beside[$!]=1; done
for step in "${steps_first[@]}"; do in_turn "$step" ""; done
for step in "${steps_gpu[@]}"; do launch "$step"; is_beside[$!]=1; lower=(nice -n 10); done
for step in "${steps_together[@]}"; do
  while [ $((${#pid_step[@]} - ${#is_beside[@]})) -ge "$jobs" ]; do reap; done
  launch "$step"
done
while [ ${#pid_step[@]} -gt 0 ]; do reap; done
for step in "${steps_last[@]}"; do in_turn "$step" ", alone"; done
# Steps of the table this machine does not meet (a copy without solutions/), named.
not_here=""
for step in "${!unmet[@]}"; do
  [ -n "${run_of[$step]:-}" ] || [[ " $left_out " == *" $step "* ]] || not_here="$not_here $step (${unmet[$step]})"
done
echo "== make test: every step ran${left_out:+ but those left out}, in $(now) s$(
  )${skipped:+; skipped, since this machine cannot run them:$skipped}${not_here:+; not for this copy:$not_here}"
echo "== each step:${took%,}"
echo "test: $passed passed, 0 failed, $(wc -w <<<"$skipped") skipped$(
  )${left_out:+, $(wc -w <<<"$left_out") left out (LEAVE_OUT):$left_out}"
