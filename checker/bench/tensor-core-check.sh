#!/usr/bin/env bash
# On a GPU machine (an H200): holds the PTX interpreter's tensor-core instructions (ldmatrix,
# mma.sync m16n8k16, cp.async), written from the PTX ISA alone, against the hardware. The kernels
# of checker/tests/ptx/kernels.cu run with test_ptx_run.c's arguments, from the very PTX the unit
# test runs (make build/tests/ptx_kernels.ptx), once in the interpreter
# (tensor-core-check-emu.c, linked as test_ptx_run is, without cmocka) and once on the GPU
# (tensor-core-check-gpu.cu: ptxas makes a cubin of that PTX, the driver API launches it). Each
# dumps every output word ("kernel case index hex" a line); the dumps are compared case by case.
# Nsight Compute then counts ldmatrix's own shared-memory wavefronts and bank conflicts
# (the ldsm counters: the tile's fill is stores) beside the interpreter's count for the same
# launch. Writes into DIR (default build/tensor-core-check): cases.txt, emu.dump, gpu.dump,
# emu-counts.txt, ncu.csv, diff.txt and the logs; ends with a table. Without a GPU the
# interpreter's half still runs and the script says the GPU's could not (exit 3).
#   Usage: checker/bench/tensor-core-check.sh [DIR]   (from the project root; no cmocka needed)
set -u
out=${1:-build/tensor-core-check}
make=${MAKE:-make}
cc=${CC:-cc}
cuda_bin=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
export PATH=$cuda_bin:$PATH
mkdir -p "$out"
rm -f "$out"/{emu,gpu}.dump "$out"/{emu-counts,ncu-counts,diff}.txt "$out"/ncu.csv

# The cases: kernel, case, mangled name, output words, arguments (in: 128 floats k + 1; out: 192
# words of 0xcdcdcdcd; numbers: 32-bit ints); one block of 32 threads each. ldmatrix_tile's
# stride is in halves: 8 packs the rows (4 wavefronts), 64 makes them 128 bytes apart (8-way:
# 32) unless swizzled (4); test_ptx_run.c checks the layout at 8 unswizzled and 64 swizzled.
cat > "$out/cases.txt" <<'EOF'
ldmatrix_tile stride8_trans0 _Z13ldmatrix_tilePfiii 128 out 8 0 0
ldmatrix_tile stride8_trans1 _Z13ldmatrix_tilePfiii 128 out 8 1 0
ldmatrix_tile stride64_trans0 _Z13ldmatrix_tilePfiii 128 out 64 0 0
ldmatrix_tile stride64_trans1 _Z13ldmatrix_tilePfiii 128 out 64 1 0
ldmatrix_tile swizzled_trans0 _Z13ldmatrix_tilePfiii 128 out 64 0 1
ldmatrix_tile swizzled_trans1 _Z13ldmatrix_tilePfiii 128 out 64 1 1
mma_tile - _Z8mma_tilePf 128 out
mma_after_divergence - _Z20mma_after_divergencePf 160 out
async_copy mode0 _Z10async_copyPKfPfi 32 in out 0
async_copy mode3 _Z10async_copyPKfPfi 32 in out 3
async_copy mode4 _Z10async_copyPKfPfi 32 in out 4
async_copy16 from12_e2 _Z12async_copy16PKfPfii 32 in out 12 2
async_copy16 from12_e3 _Z12async_copy16PKfPfii 32 in out 12 3
async_copy16 from4_e0 _Z12async_copy16PKfPfii 32 in out 4 0
async_copy16 from4_e1 _Z12async_copy16PKfPfii 32 in out 4 1
async_copy16 from0_e0 _Z12async_copy16PKfPfii 32 in out 0 0
async_copy16 from16_e3 _Z12async_copy16PKfPfii 32 in out 16 3
async_reuse barrier1 _Z11async_reusePKfPfi 32 in out 1
EOF

# ---- the interpreter's half: the unit test's PTX and objects, from the Makefile ----
ptx=build/tests/ptx_kernels.ptx
objs="$(for c in checker/runner/ptx/*.c; do [ "${c##*/}" = ptx_runner.c ] || echo "build/common/ptx/$(basename "$c" .c).o"; done)
build/common/emu/emu_trace.o build/common/emu/emu_report.o"
objs=$(tr '\n' ' ' <<<"$objs")
if ! $make -s $ptx $objs build/common/libchecker.a > "$out/build.log" 2>&1 ||
   ! $cc -std=gnu11 -O2 -g -Wall -Wextra -ffp-contract=off -Ichecker/include -Ichecker/runner -Ichecker/runner/emu \
       -Ichecker/runner/ptx -o "$out/emu" checker/bench/tensor-core-check-emu.c $objs build/common/libchecker.a -lm \
       >> "$out/build.log" 2>&1; then
  echo "building the interpreter's half failed:"; tail -n 30 "$out/build.log"; exit 1
fi
"$out/emu" "$ptx" "$out/emu-counts.txt" < "$out/cases.txt" > "$out/emu.dump" 2> "$out/emu.log" ||
  { echo "the interpreter refused some case (its exit status $?):"; cat "$out/emu.log"; }
echo "interpreter: $(wc -l < "$out/emu.dump") words from $(grep -vc '^#' "$out/emu-counts.txt") cases"

# ---- the GPU's half: a cubin of the same PTX, launched by a host program on the driver API ----
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .')
nvcc -O2 -o "$out/gpu" checker/bench/tensor-core-check-gpu.cu -L"$cuda_bin/../lib64/stubs" -lcuda >> "$out/build.log" 2>&1 &&
  ptxas -arch="sm_${arch:-90}" -lineinfo -o "$out/kernels.cubin" "$ptx" >> "$out/build.log" 2>&1 ||
  { echo "building the GPU's half failed:"; tail -n 30 "$out/build.log"; exit 1; }
# The machine code the cases ran: ldmatrix as LDSM, mma as HMMA, cp.async as LDGSTS.
{ cuobjdump -sass "$out/kernels.cubin" || echo "(no cuobjdump here)"; } 2>&1 | grep -E "Function|LDSM|HMMA|LDGSTS|cuobjdump" > "$out/sass.txt"
gpu=1
if [ -z "$arch" ]; then
  gpu=0; echo "no GPU here (nvidia-smi lists none): the GPU's half and Nsight Compute are skipped"
elif ! "$out/gpu" "$out/kernels.cubin" < "$out/cases.txt" > "$out/gpu.dump" 2> "$out/gpu.log"; then
  gpu=0; echo "the GPU's half failed:"; cat "$out/gpu.log"
else
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$out/gpu.txt"
  echo "GPU ($(cat "$out/gpu.txt")): $(wc -l < "$out/gpu.dump") words"
fi

# ---- Nsight Compute on the ldmatrix cases alone: ldmatrix's instructions, wavefronts, conflicts ----
# Each column's counter: the first of its names (a|b) that this ncu knows (2025.3 on an H200: the
# first each; the l1tex__*_op_ldsm names are for others). ptxas makes ldmatrix_tile's two asm
# branches two predicated LDSMs, both executed: the instructions counted are those with a lane on.
columns="smsp__inst_executed_op_ldsm_pred_on_any.sum|smsp__inst_executed_op_ldsm.sum
smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum|l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum|l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"
if [ $gpu = 1 ]; then
  ncu --query-metrics > "$out/ncu-metrics.txt" 2>&1 || echo "ncu --query-metrics failed: asking for the first name of each counter"
  wanted="" metrics=""
  for c in $columns; do
    pick=""
    for m in ${c//|/ }; do
      if [ -z "$pick" ] && { grep -q "^${m%.sum}[[:space:]]" "$out/ncu-metrics.txt" || ! grep -q '^Device' "$out/ncu-metrics.txt"; }; then
        pick=$m; metrics="$metrics,$m"; fi
    done
    if [ -z "$pick" ]; then
      echo "Nsight Compute has none of ${c//|/, }; its ldsm counters (ncu --query-metrics | grep -i ldsm):"
      grep -i '^[^ ]*ldsm' "$out/ncu-metrics.txt"
    fi
    wanted="$wanted ${pick:-${c%%|*}}"
  done
  grep '^ldmatrix_tile ' "$out/cases.txt" > "$out/ncu-cases.txt"
  if [ -n "$metrics" ] && ncu --clock-control none --csv --page raw --print-units base --metrics "${metrics#,}" \
       --log-file "$out/ncu.csv" "$out/gpu" "$out/kernels.cubin" < "$out/ncu-cases.txt" > /dev/null 2> "$out/ncu.log" &&
     grep -q '^"ID"' "$out/ncu.csv"; then
    # ncu.csv: ncu's notes, a header ("ID", ...), a row of units, then one row a launch, in the
    # cases' order; ncu-counts.txt: the three counters a case ("-": one ncu did not know).
    awk -F'","' -v want="$wanted" 'NR == FNR { split($0, f, " "); name[FNR] = f[1] " " f[2]; next }
      !/^"/ { next }
      { gsub(/^"|"$/, "") }
      !head { head = 1; n = split(want, m, " "); for (i = 1; i <= NF; i++) for (j = 1; j <= n; j++) if ($i == m[j]) col[j] = i
        printf "# kernel case"; for (j = 1; j <= n; j++) printf " %s", m[j]; print ""; next }
      !units { units = 1; next }
      { row++; printf "%s", name[row]; for (j = 1; j <= n; j++) { v = (j in col) ? $col[j] : "-"; gsub(/,/, "", v); printf " %s", v }; print "" }' \
      "$out/ncu-cases.txt" "$out/ncu.csv" > "$out/ncu-counts.txt"
  else
    echo "Nsight Compute gave no counts:"; tail -n 15 "$out/ncu.log" "$out/ncu.csv" 2>/dev/null
  fi
fi

# ---- the comparison and the table ----
# diff.txt: every word where the two differ; the table: the first two of each case.
[ $gpu = 1 ] && awk 'NR == FNR { g[$1 " " $2 " " $3] = $4; next }
  ($1 " " $2 " " $3) in g && g[$1 " " $2 " " $3] != $4 { print $1, $2, "word", $3, "gpu", g[$1 " " $2 " " $3], "interpreter", $4 }' \
  "$out/gpu.dump" "$out/emu.dump" > "$out/diff.txt"
awk -v gpu=$gpu -v dir="$out" 'BEGIN { OFS = " | "
    while ((getline l < (dir "/emu-counts.txt")) > 0) { split(l, f, " "); k = f[1] " " f[2]; rc[k] = f[3]; wf[k] = f[4] " | " f[5] " (ideal " f[6] ")" }
    while ((getline l < (dir "/ncu-counts.txt")) > 0) if (l !~ /^#/) { split(l, f, " "); ncu[f[1] " " f[2]] = f[3] " | " f[4] " | " f[5] }
    while ((getline l < (dir "/diff.txt")) > 0) { split(l, f, " "); k = f[1] " " f[2]
      if (nd[k]++ < 2) first[k] = first[k] sprintf(" w%s gpu %s interp %s;", f[4], f[6], f[8]) }
    while ((getline l < (dir "/gpu.dump")) > 0) { split(l, f, " "); ng[f[1] " " f[2]]++ }
    while ((getline l < (dir "/emu.dump")) > 0) { split(l, f, " "); ne[f[1] " " f[2]]++ } }
  { k = $1 " " $2
    if (!gpu) v = "no GPU run"
    else if (ng[k] != $4 || ne[k] != $4) v = sprintf("words missing (gpu %d, interpreter %d)", ng[k], ne[k])
    else v = nd[k] ? sprintf("DIFFER in %d of %d:%s", nd[k], $4, first[k]) : "same"
    if (rc[k] != 0) v = v " (interpreter: rc " rc[k] ")"
    if ($1 == "ldmatrix_tile") { lds = wf[k]; nc = (k in ncu) ? ncu[k] : "- | - | -" } else { lds = "- | -"; nc = "- | - | -" }
    print "| " $1, $2, v, lds, nc " |"; bad += v != "same" }
  END { exit bad != 0 }' "$out/cases.txt" > "$out/table.md"
status=$?
echo
echo "| kernel | case | GPU vs interpreter | interpreter ldmatrix instructions | interpreter ldmatrix wavefronts | ncu ldsm instructions | ncu ldsm wavefronts | ncu ldsm bank conflicts |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
cat "$out/table.md"
[ $gpu = 1 ] || exit 3
exit $status
