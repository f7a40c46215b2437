#!/usr/bin/env bash
# temporary: make test on the lent GPU
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
mkdir -p /tmp/bin && cp checker/tools/.dev-stress-ng /tmp/bin/stress-ng
export PATH=/usr/local/cuda/bin:/tmp/bin:$PATH
git add -A > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
vmstat 5 > $OUT/vmstat.log &
t0=$EPOCHREALTIME
GPU_JOBS=${JOBS:-8} timeout 570 make test TEST_FIRST="help-test author-check build-all unit-tests explore quiz-test" TEST_TOGETHER="emulator-test grade-test handout-test grade-all-test redteam-test forged-side-test" 2>&1 | while IFS= read -r l; do echo "$(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.1f", b-a}') $l"; done > $OUT/mt.log
kill %1
cp build/gpu-lock.log build/case-times-gpu $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz build/test-*.log build/lessons-gpu build/mutants-gpu build/redteam-gpu build/features-gpu build/gpu-test 2>/dev/null
grep -E "== make test: (gpu-test|every|each)|cases:|GPU held|passed, .* failed|FAILED" $OUT/mt.log | tail -20
sort -k2 -rn build/case-times-gpu | head -12
