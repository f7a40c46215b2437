#!/usr/bin/env bash
# The measurements of checker/bench/context-end.cu, on a GPU machine: what a runner's end costs
# with and without cudaDeviceReset (the exit timed from the program's END to its parent's wait),
# and a timed copy alone, then beside processes that make a context, allocate 1 GiB and end, in a
# loop.   Usage: checker/bench/context-end.sh   (from the project root)
set -eu
bin=build/context-end
mkdir -p build
nvcc -O2 -arch=native -o "$bin" checker/bench/context-end.cu
now() { date +%s.%N; }
echo "== a runner's end: its exit after the work, without and with cudaDeviceReset first"
for how in "" reset "" reset; do
  line=$("$bin" end $how)
  ended=$(now)
  echo "$line; the exit after END: $(awk -v e="$ended" -v l="$line" 'BEGIN { n = split(l, w, " "); printf "%.3f s", e - w[n] }')"
done
echo "== a timed copy alone"
"$bin" time 3000
echo "== beside a loop of processes that make a context, allocate 1 GiB and end"
stop=$(mktemp -u)
(n=0; while [ ! -e "$stop" ]; do "$bin" churn; n=$((n + 1)); done; echo "  (those processes: $n)") &
"$bin" time 3000
touch "$stop"; wait; rm -f "$stop"
echo "== alone again"
"$bin" time 3000
