#!/usr/bin/env bash
# make sanitized-test: the emulator's runner built with AddressSanitizer and UndefinedBehaviorSanitizer
# (build/asan/ptx-runner, in its seccomp filter) runs every kernel the workbook's tests grade: each
# lesson's solution, stub and baseline, and every feature, wrong kernel and red-team attack that nvcc
# compiles, the lint skipped (the interpreter is what is under test), each past one tile (the lessons'
# own at their counting sizes too), run and counted (checker/tests/sanitize/run_sanitized.c). Any sanitizer
# report fails the step, shown with its stack named. First a canary: a heap overflow inside the
# sandbox must be reported with its line, or the step would pass with sanitizers that cannot speak.
set -u
make=${MAKE:-make}
dir=build/asan/cases
$make -s --no-print-directory build-all || exit 1
$make -s --no-print-directory -j"$(nproc)" build/asan/ptx-runner build/asan/run-sanitized build/asan/canary \
  build/tools/sealed-compile || exit 1

# The sanitizers print stacks as (module+offset) inside the filter: each frame named here.
name_frames() {
  local line module offset
  while IFS= read -r line; do
    if [[ $line =~ ^\ *#[0-9]+\ 0x[0-9a-f]+\ +\((.+)\+(0x[0-9a-f]+)\)$ ]]; then
      module=${BASH_REMATCH[1]} offset=${BASH_REMATCH[2]}
      printf '%s  %s\n' "$line" "$(addr2line -f -i -p -e "$module" "$offset" 2>/dev/null | tr '\n' ' ')"
    else
      printf '%s\n' "$line"
    fi
  done
}

canary=$(build/asan/canary 2>&1)
rc=$?
at=canary.c:$(grep -n 'canary: one word past' checker/tests/sanitize/canary.c | cut -d: -f1)
if [ $rc -ne 86 ] || ! grep -q 'heap-buffer-overflow' <<<"$canary" || ! name_frames <<<"$canary" | grep -q "$at"; then
  echo "the sanitizers' canary (checker/tests/sanitize/canary.c) was not reported as it must be" \
    "(exit $rc, expected 86, a heap-buffer-overflow at $at):"
  name_frames <<<"$canary" | head -30
  exit 1
fi
echo "  canary: a heap overflow inside the sandbox reported (exit 86, at $at)"

# The kernels, one a line: NAME PTX KERNEL FAMILY SOURCE [count]. The lessons' PTX is build-all's, and
# runs at the counting size too (count); the cases' (mutants, attacks, features) past one tile alone.
rm -rf "$dir" && mkdir -p "$dir"
list=$dir/list
: > "$list"
while read -r n folder kernel family baseline base_family; do
  printf '%s\t%s\t%s\t%s\t%s\tcount\n' "solution-$n" "build/common/$folder/solution.ptx" "$kernel" "$family" \
    "solutions/$folder/$kernel.cu" "stub-$n" "build/exercises/$folder/student.ptx" "$kernel" "$family" \
    "exercises/$folder/$kernel.cu" "baseline-$n" "build/common/$folder/baseline.ptx" "$(basename "$baseline" .cu)" \
    "$base_family" "$baseline" >> "$list"
done < <(build/workbook lessons number folder kernel family baseline baseline_family)

# Each case's file as its check makes it (an edit of a lesson file, or a feature's own file),
# compiled by the sealed compile (its cache makes a file compiled before cost ~10 ms).
export dir
one_case() {
  local kind=$1 name=$2 lesson=$3 src=$4 file=$5 kernel family out rc
  family=$(build/workbook lessons --lesson "$lesson" family)
  kernel=$(basename "$file" .cu)
  if [ "$kind" = feature ] && [ ! -f "$src/${file%.cu}.mutant" ]; then
    out=$src/$file
  else
    [ "$kind" = feature ] && src=$src/${file%.cu}.mutant
    build/workbook mutate "$src" "$dir/$name" > /dev/null || { echo "FAIL cannot make $name from $src"; return; }
    out=$dir/$name/$file
  fi
  WB_SEALED_CACHE=${WB_SEALED_CACHE-build/sealed-cache} build/tools/sealed-compile ptx "$out" "$dir/$name.ptx" \
    > "$dir/$name.log" 2>&1
  rc=$?
  case $rc in
    0) printf '%s\t%s\t%s\t%s\t%s\n' "$kind-$name" "$dir/$name.ptx" "$kernel" "$family" "$out" ;;
    1 | 2 | 3) echo "NOT COMPILED $kind-$name" ;; # refused before the interpreter, as in a check
    *) echo "FAIL the sealed compile of $name: exit $rc"; cat "$dir/$name.log" ;;
  esac
}
export -f one_case
build/workbook cases --fields kind,name,lesson,source,file features mutants redteam | tr '\t' ' ' |
  xargs -r -P "$(nproc)" -L 1 bash -c 'one_case "$@"' _ > "$dir/compiled"
if grep -q '^FAIL' "$dir/compiled"; then grep -A20 '^FAIL' "$dir/compiled"; exit 1; fi
grep -v '^NOT COMPILED' "$dir/compiled" | sort >> "$list"
echo "  $(grep -c '^NOT COMPILED' "$dir/compiled") cases nvcc does not compile (refused before the interpreter," \
  "as in a check)"

# A kernel once per (PTX, family): a baseline is often an earlier lesson's solution.
awk -F'\t' '{ cmd = "sha256sum < " $2; cmd | getline sum; close(cmd); if (!seen[sum, $4]++) print }' \
  "$list" > "$list.unique"
# Two drivers side by side, every other kernel each.
for half in 0 1; do
  awk -v h=$half 'NR % 2 == h' "$list.unique" | build/asan/run-sanitized build/asan/ptx-runner \
    > "$dir/report.$half" 2>&1 &
done
wait
status=0
for half in 0 1; do
  grep -q '^sanitized runner: .* 0 wrong$' "$dir/report.$half" || status=1
  grep -v '^sanitized runner: ' "$dir/report.$half" | name_frames
done
# The halves' counts added up: kernels, runs, CPU seconds, refused, failed, at the limit, wrong.
grep -h '^sanitized runner: ' "$dir"/report.* | sed 's/([^0-9]*//' | grep -o '[0-9.]\+' | paste - - - - - - - |
  awk '{ for (i = 1; i <= 7; i++) n[i] += $i }
    END { printf "sanitized runner: %d kernels, %d runs in %.1f s of CPU (%d refused by the interpreter, %d failed " \
            "its checks, %d stopped at the CPU limit), %d wrong\n", n[1], n[2], n[3], n[4], n[5], n[6], n[7] }'
exit $status
