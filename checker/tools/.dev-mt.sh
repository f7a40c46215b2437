#!/usr/bin/env bash
# temporary: make test on the lent GPU (no pandoc or chromium there: test-tools and site-test left out)
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
rm -rf /tmp/sng && mkdir -p /tmp/sng /tmp/bin && for d in debs/stress-ng/*.deb; do dpkg -x $d /tmp/sng; done
printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec /tmp/sng/usr/bin/stress-ng "$@"\n' "$(find /tmp/sng -name '*.so*' -printf '%h\n' | sort -u | tr '\n' :)" > /tmp/bin/stress-ng
chmod +x /tmp/bin/stress-ng; /tmp/bin/stress-ng --version
export PATH=/usr/local/cuda/bin:/tmp/bin:$PATH
git add -A > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
vmstat 5 > $OUT/vmstat.log &
t0=$EPOCHREALTIME
timeout 570 make test LEAVE_OUT="test-tools site-test" ${MT_ARGS:-} 2>&1 | while IFS= read -r l; do echo "$(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.1f", b-a}') $l"; done > $OUT/mt.log
kill %1
cp build/gpu-lock.log build/case-times-gpu $OUT/ 2>/dev/null
tar czf $OUT/logs.tgz build/test-*.log build/lessons-gpu build/mutants-gpu build/redteam-gpu build/features-gpu build/gpu-test build/handout-test/*.log 2>/dev/null
grep -E "== make test: |cases:|GPU held|passed, .* failed|FAILED|^[0-9.]+ test:" $OUT/mt.log | tail -40
