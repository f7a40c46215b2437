#!/usr/bin/env bash
# make gpu-test, on a machine with a GPU: with every gate on (SANITIZE=1 PROFILE=1), each lesson's
# solution must pass and its stub fail earning nothing (without the gates, which cannot give a
# stub points: run-cases.py), each right kernel of checker/tests/features
# pass, and each wrong kernel of checker/mutants/ and attack of checker/redteam/ be refused with
# its diagnosis (checker/tools/run-cases.py; handout-test grades a handout's hand-in on the
# GPU). GPU_JOBS judges at a time (half the cores, 2 to 8) share the GPU: correctness runs, compute-sanitizer and
# every runner's setup side by side, a timing and Nsight Compute's counted launches alone
# (WB_GPU_LOCK, checker/judge/gpu_share.c, checker/include/gpu_turn.h), so that no timing or
# counter takes in another's kernels, and no wait counts against a time limit. Its last lines:
# how long the GPU was held by each kind of hold, and its time alone, draining, shared and idle.
#   Usage: checker/tests/steps/gpu-test.sh      (from the project root; GPU_JOBS=1: one at a time)
set -u
make=${MAKE:-make}
# Judges mostly wait on the GPU, and each one's compiles and CPU references want a core now and then.
half=$(($(nproc) / 2)); half=$((half < 2 ? 2 : half > 8 ? 8 : half))
export SANITIZE=1 PROFILE=1 MAKE=$make WB_GPU_LOCK=${WB_GPU_LOCK:-$PWD/build/gpu.lock} GPU_JOBS=${GPU_JOBS:-$half}
export WB_GPU_LOCK_LOG=$PWD/build/gpu-lock.log
[[ $GPU_JOBS =~ ^[1-9][0-9]?$ ]] || { echo "GPU_JOBS must be a number from 1 to 99, not '$GPU_JOBS'"; exit 2; }
log=$PWD/build/gpu-test
rm -rf "$log" "$WB_GPU_LOCK_LOG" && mkdir -p "$log"
# Where the GPU's time went, from the judges' holds ("WHAT waited held since alone|shared" a
# line): the sum of each kind; then each moment from the first hold to the last as one of: held
# alone; draining (one waits to be alone while shared holds end); shared; idle.
holds() {
  [ -s "$WB_GPU_LOCK_LOG" ] || return 0
  awk '{ n[$1]++; s[$1] += $3 } END { printf "GPU held:"; for (k in n)
    printf " %s %d x %.0f s;", k, n[k], s[k]; print "" }' "$WB_GPU_LOCK_LOG"
  awk '{ k = $5 == "alone" ? "A" : "S"; printf "%.3f %s 1\n%.3f %s -1\n", $4, k, $4 + $3, k
         if (k == "A") printf "%.3f W 1\n%.3f W -1\n", $4 - $2, $4 }' "$WB_GPU_LOCK_LOG" | sort -n -s -k1,1 |
    awk 'NR > 1 { t[A > 0 ? "alone" : S == 0 ? "idle" : W > 0 ? "draining" : "shared"] += $1 - at }
         NR == 1 { first = $1 } { at = $1; c[$2] += $3; A = c["A"]; S = c["S"]; W = c["W"] }
         END { printf "GPU time: alone %.0f s, draining %.0f s, shared %.0f s, idle %.0f s, of %.0f s\n",
               t["alone"], t["draining"], t["shared"], t["idle"], at - first }'
}
trap holds EXIT
# The check programs first, on every core: the judges started side by side then find them built.
build() {
  (cd "$1" && $make -s --no-print-directory -j"$(nproc)" programs SRC="$2") > "$log/build-$3.log" 2>&1 ||
    { echo "gpu-test: the check programs of $1/$2 do not build:"; cat "$log/build-$3.log"; exit 1; }
}
[ -d solutions ] && build . solutions solutions
build . exercises exercises
# The reference side's cache, which the gradings below share (WB_REF_CACHE, make test's), on the
# GPU: untimed jobs only, the same report with and without it. Beside the lessons' gradings (it
# grades three cases of one stub six times, one after the other: with all its correctness cases
# it kept the lessons' phase on the H200 to 122 s, where the lessons alone took 74 s).
checker/tests/steps/ref-cache-test.sh --gpu > "$log/ref-cache.log" 2>&1 &
ref_cache_test=$!
# Every case in one pool (checker/tools/run-cases.py: the solutions and the stubs, the feature
# kernels, the wrong kernels and the red team's attacks), the longest first: none of them waits
# for another kind's last case to end.
t=$SECONDS
checker/tools/run-cases.py
status=$?
wait $ref_cache_test || status=1
cat "$log/ref-cache.log"
echo "cases: $((SECONDS - t)) s"
exit $status
