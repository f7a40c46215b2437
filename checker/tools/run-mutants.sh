#!/usr/bin/env bash
# Grades every wrong kernel in checker/mutants/ and asserts that the check rejects it with
# the diagnosis its EXPECT file names: a checker that merely fails is not enough.
# Without a GPU only the mutants that fail before any kernel runs can be judged; the rest
# are reported as skipped, never as passed.
set -u
make=${MAKE:-make}
pass=0 fail=0 skip=0
for dir in checker/mutants/*/; do
  name=$(basename "$dir")
  lesson=$(sed -n 's/^lesson //p' "$dir/EXPECT")
  expect=$(sed -n 's/^expect //p' "$dir/EXPECT")
  out=$($make -s --no-print-directory check SRC="${dir%/}" LESSON="$lesson" 2>&1)
  rc=$?
  mkdir -p build/mutants && printf '%s\n' "$out" > "build/mutants/$name.log"   # each report, kept for reading
  if [ $rc -ne 0 ] && grep -qF -- "$expect" <<<"$out"; then
    pass=$((pass + 1)); printf '  rejected, as it must: %-24s ("%s")\n' "$name" "$expect"
  elif grep -q 'cannot be graded on a GPU' <<<"$out"; then
    skip=$((skip + 1)); printf '  skipped (no GPU):      %s\n' "$name"
  else
    fail=$((fail + 1)); printf '  NOT REJECTED AS IT MUST: %s (exit %d, expected "%s"); its report:\n' "$name" $rc "$expect"
    sed 's/^/    | /' <<<"$out"
  fi
done
echo "mutants: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
