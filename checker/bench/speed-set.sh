#!/usr/bin/env bash
# On a GPU machine: the time model's calibration set (issue 46). Every kernel the workbook holds
# whose output can be right at the timed size, timed by the GPU judge's own speed case
# (ONLY='speed*'): each lesson's solution, its baseline as the student's file (where the baseline
# has the lesson's launch), every right kernel of checker/tests/features/ and every mutant of
# checker/mutants/. A wrong kernel's row says so (its speed is never measured: the speed case
# judges the output first); a mutant that does not build says that.
# Prints one tab-separated row per kernel and run as it goes (to stdout, for a table kept under
# docs/ or checker/tests/), then how many were timed:
#   kind name lesson run speed_passed speedup speed_ms solution_ms baseline_ms limit_share
#   Usage: RUNS=1 JOBS=16 checker/bench/speed-set.sh [NAME...]   (none: all; JOBS: builds at once;
#   with WB_GPU_LOCK, GPU_JOBS judges at once)
# EMU=1: no GPU needed; each kernel's emulator counting case instead (ONLY='memory*', the
# counts of its and the baseline's launch at the counting size), its record kept as
# build/speed-set/emu/KIND-NAME.result for checker/model/fit-timed.py --emu; a row per kernel:
#   kind name lesson verdict   (passed, failed; wrong: the counting run found the kernel wrong)
# EMU=1 SAMPLE=N: at the timed size instead, N blocks of each launch (COUNT_AT_SPEED_SIZE=1
# WB_SAMPLE_BLOCKS=N, its output judged only where they wrote), the records in build/speed-set/emu-timed/ for
# fit-timed.py --compare (the emulator's counts against Nsight Compute's at the same size).
# SAMPLE_TIMEOUT=S: each such count's limit in CPU seconds (600 by default; a kernel that never ends
# costs that much: 300 holds every right kernel's count with room, lesson 10's slowest mutant included).
# NCU=1 (a GPU): each kernel's Nsight Compute gate at the timed size instead (COUNT_AT_SPEED_SIZE=1
# PROFILE=1 ONLY='Nsight*'), the raw CSV of its and the baseline's launch kept as
# build/speed-set/ncu/KIND-NAME.csv for checker/model/fit-timed.py (WB_NCU_EXTRA adds metrics to the
# gate's: the model's instructions, L2 and DRAM traffic); a row per kernel as EMU=1's.
# GATE=1 (a GPU): the Nsight Compute gate as make grade runs it (PROFILE=1 ONLY='Nsight*', at the
# counting sizes), whose failure leaves the speed case's points unearned (docs/gates.md): a row per
# kernel as EMU=1's, in build/speed-set/gate/rows.tsv, for fit-timed.py --rules ... --gates.
set -u
runs=${RUNS:-1}
make=${MAKE:-make}
jobs=${JOBS:-$(nproc)}
set_dir=build/speed-set
$make -s --no-print-directory build/workbook >&2 || exit 1
mkdir -p "$set_dir"
rows=$(build/workbook lessons number folder kernel baseline family baseline_family | tr ' ' ':')
folder_of() { grep "^$1:" <<<"$rows" | cut -d: -f2; }

# The kernels: kind, name, lesson, source folder (SRC).
kernels=$(
  build/workbook cases --fields kind,name,lesson lessons | awk -F'\t' '$1 == "solution" { print "solution\t" $2 "\t" $3 "\tsolutions" }'
  while IFS=: read -r n folder kernel baseline family baseline_family; do
    [ "$family" = "$baseline_family" ] || continue
    src=$set_dir/baseline-$n
    mkdir -p "$src/$folder"
    # The baseline under the lesson's kernel name, so it can stand in for the student's file.
    sed "s/\b$(basename "$baseline" .cu)\b/$kernel/g" "$baseline" > "$src/$folder/$kernel.cu"
    printf 'baseline\t%s\t%s\t%s\n' "$(basename "$baseline" .cu)" "$n" "$src"
  done <<<"$rows"
  build/workbook cases --fields name,lesson,source,file features | while IFS=$'\t' read -r name lesson src file; do
    edit=$src/${file%.cu}.mutant
    if [ -f "$edit" ]; then build/workbook mutate "$edit" "$set_dir/$name" > /dev/null 2>&1 || continue; src=$set_dir/$name; fi
    printf 'feature\t%s\t%s\t%s\n' "$name" "$lesson" "$src"
  done
  build/workbook cases --fields name,lesson,source mutants | while IFS=$'\t' read -r name lesson file; do
    build/workbook mutate "$file" "$set_dir/$name" > /dev/null 2>&1 && printf 'mutant\t%s\t%s\t%s\n' "$name" "$lesson" "$set_dir/$name"
  done
)
[ $# -gt 0 ] && kernels=$(awk -F'\t' -v names=" $* " 'index(names, " " $2 " ")' <<<"$kernels")

# Where SRC's check programs of lesson N lie, and the speed case's verdict in a check's record.
kernel_dir() { echo "build/$(tr / _ <<<"$1")/$(folder_of "$2")"; }
speed_verdict() { awk '$1 == "case" && $3 == "speed" { print $2 }' "$1" 2> /dev/null; }
export -f kernel_dir speed_verdict folder_of

# Built in parallel (the GPU idle meanwhile), then timed (or counted) one kernel at a time. The
# solutions' programs first, one make: what every lesson's programs share is built once, not by
# many makes at once on a fresh tree (on an H100 on 2026-12-07, five lesson-11 entries did not
# build that way). A build's log is kept in build/speed-set/build-logs/, for a did-not-build row.
judge=$([ -n "${EMU:-}" ] && echo check-emu || echo check)
mkdir -p "$set_dir/build-logs"
$make -s --no-print-directory -j"$jobs" SRC=solutions programs > "$set_dir/build-logs/solutions.log" 2>&1
awk -F'\t' '{ print $4 "\t" $3 }' <<<"$kernels" | sort -u | while IFS=$'\t' read -r src n; do
  printf '%s\t%s/%s\t%s\n' "$src" "$(kernel_dir "$src" "$n")" "$judge" "$set_dir/build-logs/$(tr / _ <<<"$src")-$n.log"
done | xargs -P "$jobs" -L 1 sh -c '$0 -s --no-print-directory SRC="$1" "$2" > "$3" 2>&1 || true' "$make"

# count_kernel KIND NAME LESSON SRC (EMU=1): the emulator's counting case, its record kept.
count_kernel() {
  local kind=$1 name=$2 lesson=$3 src=$4 dir record verdict
  dir=$(kernel_dir "$src" "$lesson")
  record=$set_dir/$emu_dir/$kind-$name.result
  [ -x "$dir/check-emu" ] || { printf '%s\t%s\t%s\tdid-not-build\n' "$kind" "$name" "$lesson"; return; }
  rm -f "$record"
  # (env always: after an empty first word, NAME=value words would be the command, not assignments)
  env ${sample:+COUNT_AT_SPEED_SIZE=1 WB_SAMPLE_BLOCKS=$sample TIMEOUT=${SAMPLE_TIMEOUT:-600}} \
    ONLY='memory*' WB_RESULT_FILE="$record" "$dir/check-emu" > /dev/null 2>&1
  verdict=$(speed_verdict "$record")
  # A kernel that failed in the counting run (a race, a read of what nobody wrote: the judge's
  # "the kernel failed at SIZE") was refused as wrong there, before any rule on its counts.
  [ "$verdict" = failed ] && grep -q '^output .*the kernel failed at ' "$record" && verdict=wrong
  printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$lesson" "${verdict:-no-record}"
}
if [ -n "${EMU:-}" ]; then
  sample=${SAMPLE:-} emu_dir=$([ -n "${SAMPLE:-}" ] && echo emu-timed || echo emu)
  [[ -z $sample || $sample =~ ^[1-9][0-9]{0,5}$ ]] || { echo "SAMPLE must be a number of blocks, not '$sample'" >&2; exit 2; }
  mkdir -p "$set_dir/$emu_dir"
  export -f count_kernel
  export rows set_dir sample emu_dir
  tr '\t' ' ' <<<"$kernels" | xargs -P "$jobs" -L 1 bash -c 'count_kernel "$@"' _ | tee "$set_dir/$emu_dir/rows.tsv"
  exit 0
fi

# profile_kernel KIND NAME LESSON SRC (NCU=1): Nsight Compute's counters at the timed size, kept
# (GATE=1: at the gate's own sizes, the verdict alone).
profile_kernel() {
  local kind=$1 name=$2 lesson=$3 src=$4 dir logs verdict
  dir=$(kernel_dir "$src" "$lesson")
  logs=$set_dir/$ncu_dir/$kind-$name
  [ -n "${NCU_RESUME:-}" ] && [ -f "$logs.csv" ] && return # kept by an earlier run cut short
  [ -x "$dir/check" ] || { printf '%s\t%s\t%s\tdid-not-build\n' "$kind" "$name" "$lesson"; return; }
  rm -rf "$logs" && mkdir -p "$logs"
  env ${at_speed:+COUNT_AT_SPEED_SIZE=1} PROFILE=1 SANITIZE=0 ONLY='Nsight*' WB_KEEP_TOOL_LOGS="$PWD/$logs" \
    WB_RESULT_FILE="$logs/result" timeout -k 5 300 "$dir/check" > "$logs/check.log" 2>&1
  [ -f "$logs/ncu-both.log" ] && cp "$logs/ncu-both.log" "$logs.csv"
  verdict=$(awk '$1 == "case" && $3 == "profile" { print $2 }' "$logs/result" 2> /dev/null)
  printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$lesson" "${verdict:-no-record}"
}
if [ -n "${NCU:-}${GATE:-}" ]; then
  ncu_dir=$([ -n "${GATE:-}" ] && echo gate || echo ncu) at_speed=$([ -n "${GATE:-}" ] || echo 1)
  mkdir -p "$set_dir/$ncu_dir"
  export -f profile_kernel
  export rows set_dir ncu_dir at_speed
  at_once=$([ -n "${WB_GPU_LOCK:-}" ] && echo "${GPU_JOBS:-1}" || echo 1)
  tr '\t' ' ' <<<"$kernels" | xargs -P "$at_once" -L 1 bash -c 'profile_kernel "$@"' _ | tee "$set_dir/$ncu_dir/rows.tsv"
  exit 0
fi

# time_kernel KIND NAME LESSON SRC: its rows. Judges side by side share the GPU by WB_GPU_LOCK
# (checker/tests/steps/gpu-test.sh): each timing holds it alone.
time_kernel() {
  local kind=$1 name=$2 lesson=$3 src=$4 dir i verdict
  dir=$(kernel_dir "$src" "$lesson")
  [ -x "$dir/check" ] || { printf '%s\t%s\t%s\t-\tdid-not-build\n' "$kind" "$name" "$lesson"; return; }
  get() { awk -v key="$1" '$1 == key { print $2 }' "$dir/result" 2> /dev/null; }
  for ((i = 1; i <= runs; i++)); do
    rm -f "$dir/result"
    # A hang guard only: the judge's own limits end a hung kernel long before.
    ONLY='speed*' WB_RESULT_FILE="$dir/result" timeout -k 5 300 "$dir/check" > "$dir/speed-set-$i.log" 2>&1
    verdict=$(speed_verdict "$dir/result")
    printf '%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$name" "$lesson" "$i" "${verdict:-no-record}" \
      "$(get speedup)" "$(get speed_ms)" "$(get solution_ms)" "$(get baseline_ms)" "$(get limit_share)"
  done
}
export -f time_kernel
export rows runs
at_once=$([ -n "${WB_GPU_LOCK:-}" ] && echo "${GPU_JOBS:-1}" || echo 1)
tr '\t' ' ' <<<"$kernels" | xargs -P "$at_once" -L 1 bash -c 'time_kernel "$@"' _ | tee "$set_dir/rows.tsv"
echo "# $(awk -F'\t' '$6 > 0' "$set_dir/rows.tsv" | cut -f2 | sort -u | wc -l) of $(wc -l <<<"$kernels") kernels timed" \
  "(the rest wrong at the timed size, or not built)" >&2
