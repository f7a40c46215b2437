#!/usr/bin/env bash
# TEMPORARY (untracked): where a lesson's make check spends its time on the GPU.
set -u
dpkg -i --force-depends debs/*.deb >/dev/null 2>&1
export PATH=/usr/local/cuda/bin:$PATH
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
ms() { echo $(( (${EPOCHREALTIME/./} - $1) / 1000 )); }
stamp() { local t0=$1; while IFS= read -r l; do printf '%6d %s\n' "$(ms $t0)" "$l"; done; }
t0=${EPOCHREALTIME/./}
make -s -j16 build-all > $OUT/build.log 2>&1 || { tail -30 $OUT/build.log; exit 1; }
echo "build-all $(ms $t0) ms"
rows=()
for spec in ${CHECKS:-solutions:3 solutions:4 solutions:5 solutions:6 exercises:4}; do
  src=${spec%:*} n=${spec#*:}
  folder=$(checker/tools/lessons.sh number folder | awk -v n=$n '$1==n{print $2}')
  rm -rf build/$src/$folder
  t0=${EPOCHREALTIME/./}
  make -s --no-print-directory check SRC=$src LESSON=$n 2>&1 | stamp $t0 > $OUT/check-$src-$n.log
  rows+=("$src $n: $(ms $t0) ms  $(grep -E '^ *[0-9]+ [0-9] [0-9]{2}_' $OUT/check-$src-$n.log | tail -1 | cut -c8-)")
done
for v in "" "--cache-control none --clock-control none"; do
  t0=${EPOCHREALTIME/./}
  WB_NCU=$PWD/checker/tools/.ncu-wrap.sh NCU_EXTRA="$v" make -s --no-print-directory check SRC=solutions LESSON=4 ONLY='Nsight*' > $OUT/ncu.log 2>&1
  rows+=("ncu [$v] lesson 4: $(ms $t0) ms, $(tail -1 $OUT/ncu.log)")
done
t0=${EPOCHREALTIME/./}
MAKE=make checker/tools/run-mutants.sh ${MUTANTS:-input_state_between_launches fast_path_typo padded_only_at_counting_size} > $OUT/mutants.log 2>&1
rows+=("mutants: $(ms $t0) ms")
grep -E 'rejected|NOT REJECTED|skipped' $OUT/mutants.log | cut -c1-200
for f in $OUT/check-solutions-4.log $OUT/check-solutions-6.log; do grep -E "RUN|OK|FAIL|Score|median|Speed-up" $f | cut -c1-120; done
printf '%s\n' "${rows[@]}"
