#!/usr/bin/env bash
# On a GPU machine with Nsight Compute: measures how one warp's 32-, 64- and 128-bit shared
# accesses split into wavefronts (checker/bench/shared-wavefronts.cu) and writes DIR/patterns.csv
# (what each launch asked for), DIR/ncu.csv (Nsight Compute's counters, one row per launch) and
# DIR/sass.txt (the shared-memory instructions, to show LDS.64/LDS.128 were used).
# checker/bench/shared-wavefronts-join.py turns them into checker/tests/data/h200-shared-wavefronts.csv.
#   Usage: checker/bench/shared-wavefronts.sh [DIR]   (default build/shared-wavefronts)
set -eu
out=${1:-build/shared-wavefronts}
mkdir -p "$out"
nvcc -O3 -arch=sm_90 -o "$out/shared-wavefronts" checker/bench/shared-wavefronts.cu
cuobjdump -sass "$out/shared-wavefronts" | grep -E 'Function|LDS|STS' > "$out/sass.txt" || true
metrics=smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
ncu --clock-control none --csv --page raw --print-units base --metrics "$metrics" \
  --log-file "$out/ncu.csv" "$out/shared-wavefronts" > "$out/patterns.csv"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
echo "$(( $(wc -l < "$out/patterns.csv") - 1 )) patterns, $(grep -c '^"' "$out/ncu.csv") ncu rows (with the header)"
