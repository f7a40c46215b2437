#!/usr/bin/env bash
cd "$(dirname "$0")/../.."
dpkg -i --force-depends debs/libcmocka*.deb debs/bubblewrap_*.deb debs/libseccomp-dev_*.deb > /dev/null 2>&1
export PATH=/usr/local/cuda/bin:$PATH
git add -A > /dev/null 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u
make -j16 build/workbook > /dev/null 2>&1
t0=$SECONDS
SANITIZE=1 PROFILE=1 timeout 200 checker/tools/run-cases.sh 02_tiled_matmul ab_swapped atexit_forgery warp_vote unpadded 2>&1 | cut -c1-150
echo "rc=$? in $((SECONDS - t0)) s"
build/workbook record build/mutants-gpu/ab_swapped 2 | tr '\n' ' '; echo
build/workbook record solutions 2 | tr '\n' ' '; echo
