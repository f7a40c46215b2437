#!/usr/bin/env bash
# temporary: named cases through every gate on the GPU
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
export PATH=/usr/local/cuda/bin:$PATH
git add -A > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
t0=$EPOCHREALTIME
make -s -j16 build-all > /tmp/build.log 2>&1 || { echo build failed; tail -20 /tmp/build.log; }
echo "build $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s"
export SANITIZE=1 PROFILE=1 WB_GPU_LOCK=$PWD/build/gpu.lock WB_GPU_LOCK_LOG=$PWD/build/gpu-lock.log GPU_JOBS=8
t0=$EPOCHREALTIME
timeout 150 checker/tools/run-cases.sh ${CASES:-string_state string_state_middle input_state_between_launches 07_reduction 09_fast_reduction 04_padding} > $OUT/D.log 2>&1
echo "$(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.0f", b-a}') s"; grep -E "passed|failed|NOT|FAILED" $OUT/D.log | head -20
mkdir -p $OUT/D-logs; cp build/redteam-gpu/*.log build/mutants-gpu/*.log build/features-gpu/*.log build/lessons-gpu/*.log $OUT/D-logs/ 2>/dev/null
grep -h -B2 -A3 "timed launches gave another\|least value\|greatest value" $OUT/D-logs/*.log | head -40
awk '{n[$1]++; h[$1]+=$3} END {for (k in n) printf "%s %d x %.1f s; ", k, n[k], h[k]; print ""}' build/gpu-lock.log
