#!/usr/bin/env bash
# make fuzz: libFuzzer over the PTX reader and the interpreter (checker/tests/fuzz/ptx_fuzz.c, built
# with clang, AddressSanitizer and UndefinedBehaviorSanitizer) for FUZZ_SECONDS (60), from seeds
# made of every lesson's PTX (solutions, stubs, baselines), Hopper's test kernels (hopper.cu's
# module), each kernel of checker/tests/ptx/kernels.cu in a file of its own (the harness runs a file's first kernel), the cases' PTX that
# sanitized-test made (build/asan/cases/, where it ran) and the crashes found before
# (checker/tests/fuzz/crash-*.ptx: each runs first, so a bug that comes back fails at once), with
# the dictionary checker/tests/fuzz/ptx.dict. Its folder (FUZZ_OUT, build/fuzz/run) holds the seeds,
# the corpus of what libFuzzer found worth keeping (kept from run to run), a crash's input
# (crashes/) and the log (fuzz.log); a crash fails the run, its report shown.
#   FUZZ_SECONDS=N       how long (60)
#   FUZZ_OUT=DIR         the run's folder (fuzz-test: build/fuzz/test, its corpus fresh each time)
#   FUZZ_FLAGS="..."     more of libFuzzer's flags (-jobs=2, -seed=N, -fork=1 -ignore_crashes=1, ...)
set -u
make=${MAKE:-make}
cc=${FUZZ_CC:-clang}
seconds=${FUZZ_SECONDS:-60}
fuzz=build/fuzz
out=${FUZZ_OUT:-$fuzz/run}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: FUZZ_SECONDS is a whole number of seconds, not '$seconds'"; exit 2; }
if ! command -v "$cc" > /dev/null ||
  ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
    "$cc" -fsanitize=fuzzer,address,undefined -x c - -o /dev/null 2> /dev/null; then
  echo "SKIPPED: no $cc with libFuzzer here (clang and its compiler-rt: Debian's clang package)"
  exit 0
fi
$make -s --no-print-directory build-all || exit 1
$make -s --no-print-directory -j"$(nproc)" $fuzz/ptx-fuzz $fuzz/kernels.ptx build/tests/ptx_hopper.ptx || exit 1

# The seeds, made again each run (a kernel once, by its bytes).
seeds=$out/seeds
rm -rf "$seeds" && mkdir -p "$seeds" "$out/corpus" "$out/crashes"
for f in build/common/*/*.ptx build/solutions/*/student.ptx build/exercises/*/student.ptx build/asan/cases/*.ptx \
  checker/tests/fuzz/crash-*.ptx build/tests/ptx_hopper.ptx; do
  [ -f "$f" ] && cp "$f" "$seeds/$(sha256sum < "$f" | cut -c1-16).ptx"
done
# kernels.cu's kernels, each with the module's header and trailer (its .file lines) around it.
awk -v dir="$seeds" '
  /^\.visible \.entry |^\.entry / { inside = 1; n++; body = "" }
  inside { body = body $0 "\n"; if ($0 == "}") { inside = 0; kernel[n] = body }; next }
  n == 0 { head = head $0 "\n"; next }
  { tail = tail $0 "\n" }
  END { for (i = 1; i <= n; i++) printf "%s%s%s", head, kernel[i], tail > (dir "/kernels-" i ".ptx") }
' $fuzz/kernels.ptx
echo "fuzz: $(ls "$seeds" | wc -l) seeds, $(ls "$out/corpus" | wc -l) inputs in $out/corpus, for $seconds s"

# -timeout: far above a launch's CPU budget (ptx_fuzz.c), for a machine that is busy. No leak check:
# the reader leaks a refused instruction's name (checker/tests/fuzz/README.md), which every refusal
# would report, and a runner's leak ends with its process. UBSan's reports with their stacks.
# shellcheck disable=SC2086
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
  UBSAN_OPTIONS=${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}print_stacktrace=1 \
  $fuzz/ptx-fuzz -max_total_time="$seconds" -dict=checker/tests/fuzz/ptx.dict -timeout=60 -rss_limit_mb=4096 \
  -detect_leaks=0 -max_len=131072 -print_final_stats=1 -artifact_prefix="$out/crashes/" ${FUZZ_FLAGS:-} \
  "$out/corpus" "$seeds" > "$out/fuzz.log" 2>&1
rc=$?
# The numbers: executions, coverage (cov: edges, ft: features), the corpus.
grep -E '^#[0-9]+.*(DONE|pulse|INITED)' "$out/fuzz.log" | tail -n 2
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$out/fuzz.log" | sort -u
if [ $rc -ne 0 ]; then
  echo "fuzz: libFuzzer stopped with exit $rc; its report ($out/fuzz.log):"
  grep -n -m1 -E 'ERROR: |runtime error|==ERROR|deadly signal|timeout' "$out/fuzz.log" | cut -d: -f1 |
    { read -r at && tail -n +"$at" "$out/fuzz.log" | grep -v -e '^stat::' -e '^0x' -e '^Base64:' | head -40; } ||
    tail -n 40 "$out/fuzz.log"
  echo "fuzz: the input: $(ls -t "$out"/crashes/* 2> /dev/null | head -1) (replay: $fuzz/ptx-fuzz FILE)"
  exit 1
fi
echo "fuzz: no crash in $seconds s"
