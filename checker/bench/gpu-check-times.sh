#!/usr/bin/env bash
# On a GPU machine: what `make check` costs a student per lesson, their file's build included,
# with the gates on (compute-sanitizer and Nsight Compute, the default on a GPU, as in make
# grade), for every solution and every stub; then the wrong kernels named on the command line
# (default: those added for issue 21) through the same check. A table last.
#   Usage: checker/bench/gpu-check-times.sh [MUTANT...]      Reports in build/check-times/.
set -u
make=${MAKE:-make}
out=build/check-times
mkdir -p "$out"
mutants=("$@")
[ ${#mutants[@]} -gt 0 ] || mutants=(fast_path_typo sgemm_float4_even_n sgemm_float4_unchecked_rows
  padded_only_at_counting_size reduce_atomic_unzeroed)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
t0=$(date +%s)
$make -s -j"$(nproc)" build-all > "$out/build.log" 2>&1 || { echo "build failed:"; tail -30 "$out/build.log"; exit 1; }
echo "build-all (what every lesson shares, once): $(( $(date +%s) - t0 )) s"
rows=()
while read -r n folder; do
  for src in solutions exercises; do
    rm -rf "build/$src/$folder" # the student's part is built again, as after an edit
    t=$(date +%s%N)
    $make -s --no-print-directory check SRC="$src" LESSON="$n" > "$out/$src-$n.log" 2>&1
    rc=$?
    ms=$(( ($(date +%s%N) - t) / 1000000 ))
    verdict=$(grep -E '^[0-9]+ +[0-9]{2}_' "$out/$src-$n.log" | tail -n 1 | sed 's/^[0-9]* *[^ ]* *//')
    rows+=("$(printf '%-2s %-10s %4d.%d s  exit %d  %s' "$n" "$src" $((ms / 1000)) $((ms % 1000 / 100)) "$rc" "$verdict")")
  done
done < <(build/workbook lessons number folder)
t0=$(date +%s)
MAKE=$make checker/tools/run-cases.py "${mutants[@]}" > "$out/mutants.log" 2>&1
echo "mutants (gates on): $(( $(date +%s) - t0 )) s"
grep -E 'rejected|NOT REJECTED|skipped' "$out/mutants.log" | cut -c1-160
echo "lesson src        make check (build included)  verdict"
printf '%s\n' "${rows[@]}"
