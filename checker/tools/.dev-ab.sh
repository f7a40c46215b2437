#!/usr/bin/env bash
# temporary: the lessons and features pool, the GPU lock taken at the runner's start (A, HEAD) or at its context's word (B, this tree)
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
export PATH=/usr/local/cuda/bin:$PATH
git add -A > /dev/null 2>&1
git -c user.email=a@b -c user.name=a stash -q && git worktree add -q -f /tmp/a HEAD && git stash pop -q || echo STASH-FAILED
B=$PWD A=/tmp/a
for t in $A $B; do (cd $t && make -s -j16 build-all > /tmp/build.log 2>&1 && make -s -j16 programs SRC=solutions && make -s -j16 programs SRC=exercises) > /dev/null 2>&1 || { echo "build $t failed"; tail -20 /tmp/build.log; }; done
one() { # TREE LABEL
  cd $1; rm -rf build/ref-cache build/gpu-lock.log; mkdir -p build/ref-cache; cp $B/checker/tools/.dev-case-times build/case-times-gpu
  local t0=$EPOCHREALTIME
  SEED=12345 WB_REF_CACHE=$PWD/build/ref-cache SANITIZE=1 PROFILE=1 WB_GPU_LOCK=$PWD/build/gpu.lock WB_GPU_LOCK_LOG=$PWD/build/gpu-lock.log GPU_JOBS=8 \
    timeout 200 checker/tools/run-cases.sh lessons features > $OUT/$2.log 2>&1
  echo "$2 $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s: $(grep -E 'passed|failed' $OUT/$2.log | tr '\n' ' ')"
  awk -v L=$2 '{n[$1]++; w[$1]+=$2; h[$1]+=$3} END {printf "  %s:", L; for (k in n) printf " %s %d x held %.0f waited %.0f;", k, n[k], h[k], w[k]; print ""}' build/gpu-lock.log
  cp build/gpu-lock.log $OUT/$2-lock.log; cp build/case-times-gpu $OUT/$2-times
  mkdir -p $OUT/$2-logs; cp build/lessons-gpu/*.log $OUT/$2-logs/ 2>/dev/null
}
one $A A1; one $B B1; one $A A2; one $B B2
