#!/usr/bin/env bash
# temporary: where one check's GPU time goes, alone, and what a CUDA process costs
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
export PATH=/usr/local/cuda/bin:$PATH
git add -A > /dev/null 2>&1
nvcc -O2 -arch=sm_90 -o /tmp/ctx checker/tools/.dev-ctx.cu || exit 1
t() { local a=$EPOCHREALTIME; "$@"; awk -v a=$a -v b=$EPOCHREALTIME 'BEGIN{printf "%.3f\n", b-a}'; }
echo "one process, alone, x5:"; for i in 1 2 3 4 5; do t /tmp/ctx; done | tr '\n' ' '; echo
echo "one process 1 GiB, alone, x3:"; for i in 1 2 3; do t /tmp/ctx 1024; done | tr '\n' ' '; echo
for p in 1 4 8 16; do echo -n "$p at once, 32 processes in all: "; t bash -c "seq 32 | xargs -P $p -I{} /tmp/ctx"; done
echo -n "8 at once, 32 processes, each 1 GiB: "; t bash -c "seq 32 | xargs -P 8 -I{} /tmp/ctx 1024"
echo -n "compute-sanitizer memcheck, one: "; t compute-sanitizer --tool memcheck /tmp/ctx > /dev/null
echo -n "compute-sanitizer racecheck, one: "; t compute-sanitizer --tool racecheck /tmp/ctx > /dev/null
echo -n "3 sanitizer tools at once: "; t bash -c "for x in memcheck racecheck synccheck; do compute-sanitizer --tool \$x /tmp/ctx > /dev/null & done; wait"
echo -n "ncu, 4 kernels: "; t ncu --clock-control none --metrics smsp__sass_inst_executed_op_shared_ld.sum /tmp/ctx 0 4 > /dev/null
echo -n "ncu, 1 kernel: "; t ncu --clock-control none --metrics smsp__sass_inst_executed_op_shared_ld.sum /tmp/ctx 0 1 > /dev/null
make -s -j16 build-all > /dev/null 2>&1
for l in 4 8; do
  rm -f build/lock.log; export WB_GPU_LOCK=$PWD/build/gpu.lock WB_GPU_LOCK_LOG=$PWD/build/lock.log
  echo -n "lesson $l solution, every gate, alone: "; t make -s check SRC=solutions LESSON=$l SANITIZE=1 PROFILE=1 SEED=1 > /tmp/l$l.log 2>&1
  grep -E "ms  \(spread|Speed-up|^[0-9]+ [0-9]" /tmp/l$l.log; cat build/lock.log
done
cp /tmp/l4.log /tmp/l8.log $OUT/
env -u WB_GPU_LOCK -u WB_GPU_LOCK_LOG bash checker/tools/.dev-mt.sh
