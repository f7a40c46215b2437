#!/usr/bin/env bash
# make fuzz-test: 30 s of libFuzzer over the PTX reader and the interpreter (make fuzz,
# checker/tools/fuzz.sh), from the seeds alone into a fresh corpus (build/fuzz/test: the same work
# every run, where make fuzz's corpus grows), with make test's seed: any sanitizer report or crash
# fails it, its input kept in build/fuzz/test/crashes/. "SKIPPED" without clang's libFuzzer.
set -u
make=${MAKE:-make}
rm -rf build/fuzz/test/corpus
FUZZ_SECONDS=30 FUZZ_OUT=build/fuzz/test FUZZ_FLAGS="${SEED:+-seed=$((SEED % 2147483647))} ${FUZZ_FLAGS:-}" \
  MAKE=$make exec checker/tools/fuzz.sh
