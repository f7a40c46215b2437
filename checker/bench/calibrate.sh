#!/usr/bin/env bash
# Measures the speed checks on this machine's GPU: for each lesson, RUNS times, the speed case
# of the reference solution and of the baseline kernel dropped in as the student's file (where
# the baseline is written for another launch, lesson 6's, the lesson's mutant marked
# `calibrates: yes` instead). The thresholds in lessons/NN/thresholds must let every solution run
# pass and every slow run fail.
# Prints a Markdown table (for docs/measurements.md) and exits non-zero if any run went the
# wrong way.  Usage: RUNS=10 LESSONS="2 4 5" checker/bench/calibrate.sh   (make variables pass through)
set -u
runs=${RUNS:-10}
make=${MAKE:-make}
$make -s --no-print-directory build/workbook >&2 || exit 1
rows=$(build/workbook lessons number folder kernel baseline family baseline_family | tr ' ' ':')
lessons=${LESSONS:-$(awk -F: '{ print $1 }' <<<"$rows")}
as_student=build/baseline-as-student
wrong=0

record() { awk -v key="$1" '$1 == key { print $2 }' "$2"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

echo "| lesson | graded kernel | passed | speed-up over baseline: min / median / max | required | % of the yardstick (cudaMemcpy, cuBLAS), median: graded / solution / baseline | graded kernel ms | solution ms | baseline ms |"
echo "|---|---|---|---|---|---|---|---|---|"
for n in $lessons; do
  IFS=: read -r _ folder kernel baseline family baseline_family < <(grep "^$n:" <<<"$rows")
  # The slow kernels: the baseline as the student's file where it can stand in for it, and every
  # mutant of the lesson marked `calibrates: yes` (the fastest wrong way the lesson expects).
  slow=()
  if [ "$family" = "$baseline_family" ]; then
    mkdir -p "$as_student/$folder"
    # The baseline under the lesson's kernel name, so it can stand in for the student's file.
    sed "s/\b$(basename "$baseline" .cu)\b/$kernel/g" "$baseline" > "$as_student/$folder/$kernel.cu"
    slow+=("$as_student")
  fi
  for mutant in $(build/workbook cases --fields lesson,calibrates,source mutants | awk -F'\t' -v n="$n" '$1 == n && $2 == "yes" { print $3 }'); do
    slow+=("build/mutants/$(basename "$mutant" .mutant)")
    build/workbook mutate "$mutant" "${slow[-1]}" >&2 || exit 1
  done
  [ ${#slow[@]} -gt 0 ] || { echo "lesson $n: its baseline is written for another launch, and no mutant of it says 'calibrates: yes'" >&2; exit 1; }
  for src in solutions "${slow[@]}"; do
    id=$(tr / _ <<<"$src")
    bin=build/$id/$folder/check
    $make -s --no-print-directory SRC="$src" "$bin" >&2 || exit 1
    required=$(record min_speedup "lessons/$folder/thresholds") # the threshold's one home
    passed=0
    : > "build/$id/$folder/calibration"
    for ((i = 1; i <= runs; i++)); do
      ONLY='speed*' WB_RESULT_FILE="build/$id/$folder/result" "$bin" >> "build/$id/$folder/calibration.log" 2>&1
      result=build/$id/$folder/result # the judge's record, read by key (checker/include/check_record.h)
      [ "$(awk '$1 == "case" && $3 == "speed" { print $2 }' "$result")" = passed ] && passed=$((passed + 1))
      echo "$(record speedup "$result") $(record speed_ms "$result") $(record solution_ms "$result") $(record baseline_ms "$result") $(record limit_share "$result")" \
        >> "build/$id/$folder/calibration"
    done
    f=build/$id/$folder/calibration
    sp_min=$(awk '{ print $1 }' "$f" | sort -g | head -1)
    sp_max=$(awk '{ print $1 }' "$f" | sort -g | tail -1)
    case $src in
      solutions) what=solution ;;
      "$as_student") what="baseline as student" ;;
      *) what="$(basename "$src") (mutant)" ;;
    esac
    # The yardstick's time is the graded kernel's over its share; the solution's and the
    # baseline's shares follow from it, run by run.
    shares=$(for col in 2 3 4; do awk -v c=$col '{ print ($5 > 0 && $c > 0) ? $5 * $2 / $c : 0 }' "$f" | median; done |
      awk '{ printf "%s%s", (NR > 1 ? " / " : ""), ($1 > 0 ? sprintf("%.1f%%", 100 * $1) : "-") }')
    printf '| %s %s | %s | %d/%d | %.2f / %.2f / %.2f | %s | %s | %.3f | %.3f | %.3f |\n' "$n" "$folder" "$what" \
      "$passed" "$runs" "$sp_min" "$(awk '{ print $1 }' "$f" | median)" "$sp_max" "$required" \
      "$shares" \
      "$(awk '{ print $2 }' "$f" | median)" "$(awk '{ print $3 }' "$f" | median)" "$(awk '{ print $4 }' "$f" | median)"
    if [ "$src" = solutions ] && [ $passed -ne "$runs" ]; then wrong=1; fi
    if [ "$src" != solutions ] && [ $passed -ne 0 ]; then wrong=1; fi
  done
done
exit $wrong
