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
#   Usage: RUNS=1 JOBS=16 checker/tools/speed-set.sh [NAME...]   (none: all; JOBS: builds at once;
#   with WB_GPU_LOCK, GPU_JOBS judges at once)
# EMU=1: no GPU needed; each kernel's emulator counting case instead (ONLY='memory*', the
# counts of its and the baseline's launch at the counting size), its record kept as
# build/speed-set/emu/KIND-NAME.result for checker/model/fit-timed.py --emu; a row per kernel:
#   kind name lesson verdict
# NCU=1: after its timings, each kernel whose output was right is profiled once more by Nsight
# Compute at the timed size (the speed case's first launch of the student's kernel and of the
# baseline's, the yardstick the speed-up divides), with
# the counters a time model is made of (TIMED_METRICS below, those this ncu knows), into
# build/speed-set/ncu/KIND-NAME.csv; one ncu at a time (its counters are the GPU's).
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
  build/workbook cases lessons | awk -F'\t' '$1 == "solution" { print "solution\t" $2 "\t" $3 "\tsolutions" }'
  while IFS=: read -r n folder kernel baseline family baseline_family; do
    [ "$family" = "$baseline_family" ] || continue
    src=$set_dir/baseline-$n
    mkdir -p "$src/$folder"
    # The baseline under the lesson's kernel name, so it can stand in for the student's file.
    sed "s/\b$(basename "$baseline" .cu)\b/$kernel/g" "$baseline" > "$src/$folder/$kernel.cu"
    printf 'baseline\t%s\t%s\t%s\n' "$(basename "$baseline" .cu)" "$n" "$src"
  done <<<"$rows"
  build/workbook cases features | while IFS=$'\t' read -r _ name lesson src _ _ _ _ _ _ _ _ _ _ file; do
    edit=$src/${file%.cu}.mutant
    if [ -f "$edit" ]; then build/workbook mutate "$edit" "$set_dir/$name" > /dev/null 2>&1 || continue; src=$set_dir/$name; fi
    printf 'feature\t%s\t%s\t%s\n' "$name" "$lesson" "$src"
  done
  build/workbook cases mutants | while IFS=$'\t' read -r _ name lesson file _; do
    build/workbook mutate "$file" "$set_dir/$name" > /dev/null 2>&1 && printf 'mutant\t%s\t%s\t%s\n' "$name" "$lesson" "$set_dir/$name"
  done
)
[ $# -gt 0 ] && kernels=$(awk -F'\t' -v names=" $* " 'index(names, " " $2 " ")' <<<"$kernels")

# Built in parallel (the GPU idle meanwhile), then timed one at a time.
judge=$([ -n "${EMU:-}" ] && echo check-emu || echo check)
awk -F'\t' '{ print $4 "\t" $3 }' <<<"$kernels" | sort -u | while IFS=$'\t' read -r src n; do
  printf '%s\tbuild/%s/%s/%s\n' "$src" "$(tr / _ <<<"$src")" "$(folder_of "$n")" "$judge"
done | xargs -P "$jobs" -L 1 sh -c '$0 -s --no-print-directory SRC="$1" "$2" > /dev/null 2>&1 || true' "$make"

# count_kernel KIND NAME LESSON SRC (EMU=1): the emulator's counting case, its record kept.
count_kernel() {
  local kind=$1 name=$2 lesson=$3 src=$4 dir record verdict
  dir=build/$(tr / _ <<<"$src")/$(folder_of "$lesson")
  record=$set_dir/emu/$kind-$name.result
  [ -x "$dir/check-emu" ] || { printf '%s\t%s\t%s\tdid-not-build\n' "$kind" "$name" "$lesson"; return; }
  rm -f "$record"
  ONLY='memory*' WB_RESULT_FILE="$record" "$dir/check-emu" > /dev/null 2>&1
  verdict=$(awk '$1 == "case" && $3 == "speed" { print $2 }' "$record" 2> /dev/null)
  printf '%s\t%s\t%s\t%s\n' "$kind" "$name" "$lesson" "${verdict:-no-record}"
}
if [ -n "${EMU:-}" ]; then
  mkdir -p "$set_dir/emu"
  export -f count_kernel folder_of
  export rows set_dir
  tr '\t' ' ' <<<"$kernels" | xargs -P "$jobs" -L 1 bash -c 'count_kernel "$@"' _ | tee "$set_dir/emu/rows.tsv"
  exit 0
fi

# What the time model counts, per launch: time and clocks; instructions by pipe; shared-memory
# wavefronts; L1, L2 and DRAM traffic; the occupancy the launch reached and its limits.
TIMED_METRICS="gpu__time_duration.sum sm__cycles_elapsed.max sm__cycles_active.avg smsp__inst_executed.sum
smsp__inst_executed_pipe_fma.sum smsp__inst_executed_pipe_alu.sum smsp__inst_executed_pipe_lsu.sum
smsp__inst_executed_pipe_xu.sum smsp__inst_executed_pipe_fp16.sum smsp__inst_executed_pipe_tensor_op_hmma.sum
smsp__inst_executed_pipe_uniform.sum smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
smsp__inst_executed_op_ldgsts.sum smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum
smsp__inst_executed_op_ldsm.sum smsp__inst_executed_op_branch.sum smsp__inst_executed_op_shfl.sum
l1tex__data_pipe_lsu_wavefronts_mem_shared.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum lts__t_sectors.sum lts__t_sectors_srcunit_tex_op_read.sum
dram__bytes_read.sum dram__bytes_write.sum sm__warps_active.avg.per_cycle_active
sm__maximum_warps_per_active_cycle_pct launch__registers_per_thread launch__shared_mem_per_block_static
launch__shared_mem_per_block_dynamic launch__occupancy_limit_registers launch__occupancy_limit_shared_mem
launch__occupancy_limit_warps launch__waves_per_multiprocessor launch__grid_size launch__block_size
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio"
# The metrics this ncu has (an unknown name fails the whole profile), comma-separated.
known_metrics() {
  local have
  have=$(ncu --query-metrics --chip "${NCU_CHIP:-gh100}" 2> /dev/null | awk '{ print $1 }')
  for m in $TIMED_METRICS; do
    case $m in launch__*) echo "$m"; continue ;; esac
    grep -qxF "${m%.*}" <<<"$have" && echo "$m"
  done | paste -sd,
}
# profile_kernel KIND NAME LESSON SRC: the speed case's first launch of the student's kernel.
profile_kernel() {
  local kind=$1 name=$2 lesson=$3 src=$4 dir
  dir=build/$(tr / _ <<<"$src")/$(folder_of "$lesson")
  [ -x "$dir/check" ] || return
  local csv=$set_dir/ncu/$kind-$name.csv
  # the first launch of each name; where this ncu cannot parse that filter, the student's alone
  ONLY='speed*' REPS=10 TIMEOUT=100 timeout -k 5 120 ncu --csv --page raw --metrics "$metrics" --kernel-name-base demangled \
    --kernel-id '::regex:^(student|baseline):1' --log-file "$csv" "$dir/check" > "$csv.log" 2>&1
  grep -q '^"[0-9]' "$csv" 2> /dev/null ||
    ONLY='speed*' REPS=10 TIMEOUT=100 timeout -k 5 120 ncu --csv --page raw --metrics "$metrics" --kernel-name-base demangled \
      --kernel-name regex:^student -c 1 --log-file "$csv" "$dir/check" >> "$csv.log" 2>&1
  printf 'profiled\t%s\t%s\t%s rows\n' "$kind" "$name" "$(grep -c '^"[0-9]' "$csv" 2> /dev/null)" >&2
}

# time_kernel KIND NAME LESSON SRC: its rows. Judges side by side share the GPU by WB_GPU_LOCK
# (checker/tools/gpu-test.sh): each timing holds it alone.
time_kernel() {
  local kind=$1 name=$2 lesson=$3 src=$4 dir i verdict
  dir=build/$(tr / _ <<<"$src")/$(folder_of "$lesson")
  [ -x "$dir/check" ] || { printf '%s\t%s\t%s\t-\tdid-not-build\n' "$kind" "$name" "$lesson"; return; }
  get() { awk -v key="$1" '$1 == key { print $2 }' "$dir/result" 2> /dev/null; }
  for ((i = 1; i <= runs; i++)); do
    rm -f "$dir/result"
    # A hang guard only: the judge's own limits end a hung kernel long before.
    ONLY='speed*' WB_RESULT_FILE="$dir/result" timeout -k 5 300 "$dir/check" > "$dir/speed-set-$i.log" 2>&1
    verdict=$(awk '$1 == "case" && $3 == "speed" { print $2 }' "$dir/result" 2> /dev/null)
    printf '%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$name" "$lesson" "$i" "${verdict:-no-record}" \
      "$(get speedup)" "$(get speed_ms)" "$(get solution_ms)" "$(get baseline_ms)" "$(get limit_share)"
  done
}
export -f time_kernel folder_of
export rows runs
at_once=$([ -n "${WB_GPU_LOCK:-}" ] && echo "${GPU_JOBS:-1}" || echo 1)
tr '\t' ' ' <<<"$kernels" | xargs -P "$at_once" -L 1 bash -c 'time_kernel "$@"' _ | tee "$set_dir/rows.tsv"
echo "# $(awk -F'\t' '$6 > 0' "$set_dir/rows.tsv" | cut -f2 | sort -u | wc -l) of $(wc -l <<<"$kernels") kernels timed" \
  "(the rest wrong at the timed size, or not built)" >&2
if [ -n "${NCU:-}" ]; then
  metrics=$(known_metrics)
  mkdir -p "$set_dir/ncu"
  # solutions and baselines first: a run stopped at its limit keeps the yardsticks
  awk -F'\t' '$6 > 0 { print index("solution baseline feature mutant", $1) "\t" $1 "\t" $2 }' "$set_dir/rows.tsv" |
    sort -u -k1,1n -k3,3 | cut -f2- |
    while IFS=$'\t' read -r kind name; do
      line=$(awk -F'\t' -v k="$kind" -v n="$name" '$1 == k && $2 == n' <<<"$kernels")
      [ -n "$line" ] && profile_kernel $line
    done
fi
