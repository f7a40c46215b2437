#!/usr/bin/env bash
# On a Hopper GPU machine (sm_90): every figure issue 49 asks of lesson 11, in one command, the most
# wanted first, each step's reports packed as it ends (a call stopped at its limit still brings
# back what it measured). Steps (all by default; name some to split the work):
#   check      the solution with every gate (SANITIZE=1 PROFILE=1), then the stub
#   calibrate  RUNS=3 LESSONS=11 calibrate.sh: the speed-up over lesson 10 and the share of cuBLAS
#   probes     the interpreter's Hopper probes (hopper-conform.cu) against the committed record
#   bench      hgemm-wgmma.cu, the solution's shape (128 x 256 blocks, 2 consumer warpgroups):
#              N = 2048/4096/8192; 1-3 stages; 64- and 32-byte swizzles; blocks in groups of rows
#   catalogue  lesson 11's wrong kernels and features with every gate (run-cases.py)
# Reports go to DIR (default build/gpu-lesson11), packed into DIR.tgz; a table of the bench last.
#   Usage: checker/bench/gpu-lesson11.sh [DIR] [STEP...]     (docs/gpu-runs.md: what to carry)
set -u
# shellcheck source=checker/bench/gpu-steps-lib.sh
. checker/bench/gpu-steps-lib.sh
gpu_steps build/gpu-lesson11 "check calibrate probes bench catalogue" "$@"
pack() { tar czf "$out.tgz" -C "$(dirname "$out")" "$(basename "$out")"; }

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.txt"
date -u | tee -a "$out/gpu.txt"
# The bench's builds and the probes' beside the workbook's (nvcc alone: no GPU needed yet).
bench_build() {
  local tag=$1; shift
  nvcc -O3 -gencode arch=compute_90a,code=sm_90a -DBN=256 -DCONSUMERS=2 "$@" -o "build/hgemm-wgmma-$tag" \
    checker/bench/hgemm-wgmma.cu -lcublas > "$out/bench-build-$tag.log" 2>&1
}
if step bench || step probes; then
  (
    if step bench; then
      bench_build 4; bench_build 1 -DSTAGES=1; bench_build 2 -DSTAGES=2; bench_build 3 -DSTAGES=3
      bench_build sw64 -DSWIZZLE=64; bench_build sw32 -DSWIZZLE=32; bench_build g8 -DGROUP=8; bench_build g16 -DGROUP=16
    fi
    step probes && nvcc -O2 -gencode arch=compute_90a,code=sm_90a -o build/hopper-conform \
      checker/bench/hopper-conform.cu -lcuda > "$out/probes-build.log" 2>&1
  ) &
fi
build_all

if step check; then
  $make -s --no-print-directory check LESSON=11 SRC=solutions SANITIZE=1 PROFILE=1 > "$out/solution.log" 2>&1
  echo "solution, every gate: exit $?, $(grep -h 'Score' "$out/solution.log" | tail -1)"
  $make -s --no-print-directory check LESSON=11 > "$out/stub.log" 2>&1
  echo "stub: exit $?, $(grep -h 'Score' "$out/stub.log" | tail -1)"
  took check; pack
fi
if step calibrate; then
  RUNS=3 LESSONS=11 checker/bench/calibrate.sh > "$out/calibrate.log" 2>&1
  tail -n 6 "$out/calibrate.log"
  took calibrate; pack
fi
wait
if step probes; then
  build/hopper-conform > "$out/hopper-probes.txt" 2> "$out/probes.err"; echo "probes: exit $?"
  if diff <(grep -v '^#' checker/tests/conformance/records/hopper-probes.txt) <(grep -v '^#' "$out/hopper-probes.txt") \
    > "$out/probes.diff"; then echo "probes: the same answers as the record"; else echo "probes: DIFFER (probes.diff)"; fi
  took probes; pack
fi
if step bench; then
  run_bench() { # TAG N WHAT
    [ -x "build/hgemm-wgmma-$1" ] || { echo "$3 at N = $2: did not build (bench-build-$1.log)"; return; }
    echo "## $3, N = $2"; "build/hgemm-wgmma-$1" "$2" 2>&1 | tail -n 2
  }
  {
    run_bench 4 2048 "4 stages"; run_bench 4 4096 "4 stages"; run_bench 4 8192 "4 stages"
    run_bench 1 4096 "1 stage"; run_bench 2 4096 "2 stages"; run_bench 3 4096 "3 stages"
    run_bench sw64 4096 "4 stages, 64-byte swizzle"; run_bench sw32 4096 "4 stages, 32-byte swizzle"
    run_bench g8 4096 "4 stages, GROUP=8"; run_bench g8 8192 "4 stages, GROUP=8"; run_bench g16 8192 "4 stages, GROUP=16"
  } > "$out/bench.txt"
  took bench; pack
fi
if step catalogue; then
  names=$(build/workbook cases --fields lesson,name mutants features | awk -F'\t' '$1 == 11 { print $2 }')
  # shellcheck disable=SC2086 # one word a name
  SANITIZE=1 PROFILE=1 checker/tools/run-cases.py 11_tma_wgmma $names > "$out/catalogue.log" 2>&1
  echo "catalogue: exit $?"; grep -v '^    |' "$out/catalogue.log" | tail -n 20
  mkdir -p "$out/cases" && cp build/*-gpu/*.log "$out/cases/" 2>/dev/null
  took catalogue; pack
fi
if [ -f "$out/bench.txt" ]; then
  echo "== the bench (each the median of 20 launches against cublasGemmEx in the same run):"
  grep -A2 '^## ' "$out/bench.txt" | grep -v '^--' | paste - - - | sed 's/^## //' | cut -c1-200
fi
