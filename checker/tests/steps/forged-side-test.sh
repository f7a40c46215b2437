#!/usr/bin/env bash
# The judge takes from a side's copy of the job only what that side may write: each lesson's
# stub and solution, and two wrong kernels whose verdict rests on the baseline's counts, are
# graded by the emulator twice, once with the real runner and once with
# checker/tests/forge/forged_runner.c in its place, which runs the real one and then, on the
# student's side, rewrites every field that side may not speak for (roles, the reference's and
# the baseline's counts and timings, the device, the buffers' offsets, the job's shape). Both
# gradings must give the same points, case by case, and the judge must not crash. The judge runs
# its correctness jobs in batches (WB_BATCH=1, as it does unless WB_BATCH=0), so the forger
# rewrites every job of a batch.
#   Usage: checker/tests/steps/forged-side-test.sh   (make forged-side-test: build-all first)
set -u
make=${MAKE:-make}
$make --no-print-directory build-all || exit 1
root=$(mktemp -d /tmp/wb-forge-XXXXXX)
trap 'rm -rf "$root"' EXIT
cc -std=gnu11 -O2 -Wall -Wextra -Ichecker/include -Ichecker/runner -o "$root/forger" checker/tests/forge/forged_runner.c \
  || { echo "forged-side test: the forger does not build"; exit 1; }
# Wrong kernels whose verdict rests on the baseline's counts (right, but too many sectors): a
# judge that took the baseline's counts from the student's side would pass them.
for m in not_tiled sgemm_scalar_loads; do
  rm -rf "build/forge-mutants/$m"; build/workbook mutate "checker/mutants/$m.mutant" "build/forge-mutants/$m" > /dev/null || { echo "cannot make $m"; exit 1; }
done
# One lesson's sources, each graded honest and forged, in one tree per lesson: the forged
# gradings' reference sides (run by the forger too, whose bytes key the reference side's cache,
# checker/judge/ref_cache.c) are run once per lesson and then found kept. Each verdict line into
# $root/verdict.ID.N.
one() {
  local n=$1 src id folder dir
  shift
  folder=$(build/workbook lessons --lesson "$n" folder)
  dir=$root/lesson.$n
  mkdir -p "$dir/build/common"
  cp build/common/ptx-runner "$dir/build/common/ptx-runner.real" && cp "$root/forger" "$dir/build/common/ptx-runner"
  for src in "$@"; do
    id=$(sed 's|/|_|g; s|_$||' <<<"$src")
    { # the build shares build/common: one lesson's at a time
      flock 9
      $make -s --no-print-directory SRC="$src" "build/$id/$folder/check-emu" > /dev/null 2>&1
    } 9> "$root/build.lock" || { echo "FAIL   cannot build $src $folder" > "$root/verdict.$id.$n"; continue; }
    # A copy of the build tree where the forger stands in for the runner.
    mkdir -p "$dir/build/$id"
    [ -d "$dir/build/common/$folder" ] || cp -r "build/common/$folder" "$dir/build/common/"
    cp -r "build/$id/$folder" "$dir/build/$id/"
    for who in honest forged; do
      judge=build/$id/$folder/check-emu
      [ $who = forged ] && judge=$dir/build/$id/$folder/check-emu
      # In batches (as on a GPU): the forger rewrites every job of a batch.
      WB_BATCH=1 SEED=${SEED:-7} WB_RESULT_FILE="$dir/$id.$who.record" "$judge" > "$dir/$id.$who.log" 2>&1
      echo $? > "$dir/$id.$who.rc"
    done
    points() { grep '^case ' "$dir/$id.$1.record" 2>/dev/null | awk '{print $2, $3, $4}'; }
    if [ "$(cat "$dir/$id.forged.rc")" -gt 1 ] && [ "$(cat "$dir/$id.forged.rc")" -ne 3 ]; then
      { echo "FAIL   THE JUDGE FAILED ON A FORGED SIDE: ${src##*/} lesson $n (exit $(cat "$dir/$id.forged.rc"))"
        tail -5 "$dir/$id.forged.log"; } > "$root/verdict.$id.$n"
    elif [ "$(points honest)" != "$(points forged)" ] || [ -z "$(points honest)" ]; then
      { echo "FAIL   A FORGED SIDE CHANGED THE GRADE: ${src##*/} lesson $n"; diff <(points honest) <(points forged) | head; } \
        > "$root/verdict.$id.$n"
    else
      echo "PASS" > "$root/verdict.$id.$n"
    fi
  done
}
export -f one
export make root
gradings=$(for src in solutions exercises build/forge-mutants/not_tiled:2 build/forge-mutants/sgemm_scalar_loads:8; do
  lessons=$(build/workbook lessons number)
  [[ $src == *:* ]] && lessons=${src##*:} && src=${src%:*}
  for n in $lessons; do echo "$src $n"; done
done)
# A lesson a core, its sources in turn.
awk '{ srcs[$2] = srcs[$2] " " $1 } END { for (n in srcs) print n srcs[n] }' <<<"$gradings" | sort -n |
  xargs -P "$(nproc)" -L 1 bash -c 'one "$@"' _
pass=$(cat "$root"/verdict.* 2>/dev/null | grep -c '^PASS')
fail=$(( $(wc -l <<<"$gradings") - pass )) # a grading that left no verdict failed too
cat "$root"/verdict.* 2>/dev/null | grep -v '^PASS' | sed 's/^FAIL   /  /'
echo "forged sides: $pass passed, $fail failed"
[ $fail -eq 0 ]
