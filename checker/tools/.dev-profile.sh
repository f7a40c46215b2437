#!/usr/bin/env bash
# temporary: profile gpu-test alone on the lent GPU
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
mkdir -p /tmp/acct && dpkg -x debs/acct_*.deb /tmp/acct
export PATH=/usr/local/cuda/bin:$PATH
git add -A > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc
t0=$EPOCHREALTIME
make -j16 build-all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build-all $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{print b-a}') s"
vmstat 5 > $OUT/vmstat.log &
vm=$!
nvidia-smi dmon -s u -d 5 > $OUT/dmon.log 2>&1 &
dm=$!
touch /tmp/pacct; /tmp/acct/usr/sbin/accton /tmp/pacct 2>/dev/null && echo acct on
export WB_REF_CACHE=$PWD/build/ref-cache SEED=12345
t0=$EPOCHREALTIME
GPU_JOBS=8 timeout 560 checker/tools/gpu-test.sh 2>&1 | while IFS= read -r l; do echo "$(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.1f", b-a}') $l"; done > $OUT/gpu-test.log
/tmp/acct/usr/sbin/accton off 2>/dev/null
kill $vm $dm
/tmp/acct/usr/sbin/sa -a -c /tmp/pacct 2>/dev/null | head -40 > $OUT/sa.txt
cp build/gpu-lock.log $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz build/gpu-test build/mutants-gpu build/redteam-gpu build/features-gpu 2>/dev/null
grep -E "lessons:|features:|mutants and|GPU held|passed|failed" $OUT/gpu-test.log | tail -12
tail -3 $OUT/gpu-test.log
