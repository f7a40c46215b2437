#!/usr/bin/env bash
# On a GPU machine: what the PTX interpreter (checker/runner/ptx/) is held against.
#   counts    Nsight Compute's counters of every lesson's solution and baseline at the
#             emulator's counting sizes (checker/bench/ncu-counts.sh), and of the right kernels of
#             checker/tests/features/ (run-cases.py features, PROFILE=1), for docs/emulator.md
#   verdicts  the GPU judge, gates on, on the kernels whose verdict the interpreter changed: the
#             lesson-6 wrong kernels it rejects by bytes in flight, and features/local_accumulator
#   conformance  the conformance suite (make conformance): every instruction form on the GPU and
#             in the interpreter, compared bit for bit, the GPU's outputs recorded in
#             checker/tests/conformance/records/h200.tsv (copied to DIR: commit it from there)
#   catalogue the GPU judge, gates on, on the catalogue entries issue 45 added in the emulator
# Reports go to DIR (default build/ptx-gpu), one tarball of them to DIR.tar.gz.
#   Usage: checker/bench/ptx-gpu-check.sh [DIR] [STEP...]   (cmocka built or CMOCKA_DIR given)
set -u
# shellcheck source=checker/bench/gpu-steps-lib.sh
. checker/bench/gpu-steps-lib.sh
gpu_steps build/ptx-gpu "counts verdicts" "$@"

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$out/gpu.txt"
nvcc --version | tail -n 1 | tee -a "$out/gpu.txt"
date -u +%Y-%m-%dT%H:%MZ | tee -a "$out/gpu.txt"
build_all

if step counts; then
  checker/bench/ncu-counts.sh "$out/ncu"
  PROFILE=1 MAKE=$make checker/tools/run-cases.py features > "$out/features.log" 2>&1; tail -n 1 "$out/features.log"
  cp build/features-gpu/*.log "$out/ncu/" 2>/dev/null
  took counts
fi
if step verdicts; then
  export SANITIZE=1 PROFILE=1
  MAKE=$make checker/tools/run-cases.py coarsened_loads_not_unrolled coarsened_dependent_loads coarsened_one_warp \
    > "$out/mutants.log" 2>&1
  tail -n 1 "$out/mutants.log"
  MAKE=$make checker/tools/run-cases.py local_accumulator > "$out/local-accumulator.log" 2>&1
  grep -E 'passed, as it must|FAILED|features \(' "$out/local-accumulator.log"
  grep -hE 'your kernel .*(TFLOP/s|GB/s)|speed-up|x the baseline' build/features-gpu/local_accumulator.log | head -5
  took verdicts
fi
if step conformance; then
  $make -s conformance > "$out/conformance.log" 2>&1
  tail -n 60 "$out/conformance.log" | grep -E '^conform|^\| `' | head -60
  # The GPU's raw outputs too (gpu.bin, gpu.tsv): every differing case can be studied off the GPU.
  cp build/conformance/report.txt build/conformance/gpu.bin build/conformance/gpu.tsv \
    checker/tests/conformance/records/h200.tsv "$out/" 2>/dev/null
  cp build/conformance/gpu.txt "$out/conformance-gpu.txt" 2>/dev/null # $out/gpu.txt is this script's
  took conformance
fi
if step catalogue; then
  export SANITIZE=1 PROFILE=1
  MAKE=$make checker/tools/run-cases.py sink_destination param_outside clock_in_asm rounding_tells_judges_apart \
    nsmid_tells_judges_apart named_barrier_count saturated_sum global_load_of_shared slice_async_one_float \
    hgemm_async_store_conflicts reduce_zeroed_beside_atomics reduce_warps_add_without_atomics \
    reduce_zeroed_by_atomic_exch unknown_instruction hgemm_chunk_copy_when_n_is_4k find_first_set \
    > "$out/catalogue.log" 2>&1
  grep -E 'as it must|FAILED|WRONG|skipped|\(' "$out/catalogue.log" | tail -n 25
  took catalogue
fi
tar -C "$(dirname "$out")" -czf "$out.tar.gz" "$(basename "$out")"
echo "reports: $out.tar.gz"
