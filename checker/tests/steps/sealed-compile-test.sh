#!/usr/bin/env bash
# make test's step for the sealed compile (checker/tools/sealed-compile-test.sh): regular files only,
# no #include, limits named, nothing of the grader's machine visible, the compiler nobody. Its last
# line, "N passed, M failed", is the step's report; all of it where something failed.
set -u
out=$(checker/tools/sealed-compile-test.sh) || { printf '%s\n' "$out"; exit 1; }
tail -n 1 <<<"$out"
