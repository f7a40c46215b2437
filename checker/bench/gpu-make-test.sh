#!/usr/bin/env bash
# make test on a GPU machine where nothing can be installed (the lent H200 of docs/measurements.md):
# cmocka, bubblewrap and libseccomp installed from the Debian packages in DEBS, stress-ng unpacked
# from DEBS/stress-ng with its libraries; then make test, each line of its output stamped with
# the seconds since the start, into OUT/make-test.log, with the GPU lock's log, the cases' times,
# vmstat's every 5 s and the steps' logs. Its last lines: make test's own, and gpu-test's.
#   Usage: DEBS=debs OUT=dir checker/bench/gpu-make-test.sh [make test's variables]
#   (default: LEAVE_OUT="test-tools site-test": no pandoc or chromium there)
set -u
debs=${DEBS:-debs} out=${OUT:?OUT names the folder for the logs}
cd "$(dirname "$0")/../.."
dpkg -i --force-depends "$debs"/libcmocka*.deb "$debs"/bubblewrap_*.deb "$debs"/libseccomp-dev_*.deb > /dev/null 2>&1 ||
  echo "gpu-make-test: dpkg -i of $debs's packages failed; going on with what is installed"
tools=$(mktemp -d)
for d in "$debs"/stress-ng/*.deb; do [ -e "$d" ] && dpkg -x "$d" "$tools/root"; done
if [ -x "$tools/root/usr/bin/stress-ng" ]; then
  libs=$(find "$tools/root" -name '*.so*' -printf '%h\n' | sort -u | tr '\n' :)
  mkdir -p "$tools/bin"
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s exec %s "$@"\n' "$libs" "$tools/root/usr/bin/stress-ng" > "$tools/bin/stress-ng"
  chmod +x "$tools/bin/stress-ng"
fi
export PATH=/usr/local/cuda/bin:$tools/bin:$PATH
mkdir -p "$out"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u; git log --oneline -1; } | tee "$out/machine.txt"
vmstat 5 > "$out/vmstat.log" &
vm=$!
t0=$EPOCHREALTIME
[ $# -gt 0 ] || set -- LEAVE_OUT="test-tools site-test"
make test "$@" 2>&1 | while IFS= read -r line; do
  printf '%s %s\n' "$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')" "$line"
done > "$out/make-test.log"
status=${PIPESTATUS[0]}
kill $vm
cp build/gpu-lock.log build/case-times-gpu "$out"/ 2>/dev/null
tar czf "$out/logs.tgz" build/test-*.log build/lessons-gpu build/mutants-gpu build/redteam-gpu build/features-gpu \
  build/gpu-test 2>/dev/null
rm -rf "$tools"
grep -E "== make test: |cases:|GPU held|GPU time|passed, .* failed|FAILED|^[0-9.]+ test:" "$out/make-test.log" | tail -40
exit "$status"
