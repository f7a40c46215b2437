#!/usr/bin/env bash
# The student's loop, tried in a fresh handout folder (make handout-test runs it there, where
# work/ and its record are the test's own): each step must keep the promise the README makes.
#   Usage: (cd UNPACKED_HANDOUT && checker/tools/student-loop-test.sh)
set -u
make=${MAKE:-make}
m() { "$make" -s --no-print-directory "$@" 2>&1; }
failed=0
expect() { # expect WHAT OUTPUT PATTERN: the output must match the extended regex
  if grep -qE -- "$3" <<<"$2"; then echo "  ok: $1"; else
    echo "  BROKEN PROMISE: $1 (no /$3/ in:)"; sed 's/^/    | /' <<<"$2" | tail -15; failed=1; fi
}
refuse() { # refuse WHAT OUTPUT PATTERN: the output must not match
  if grep -qE -- "$3" <<<"$2"; then echo "  BROKEN PROMISE: $1 (/$3/ in:)"; sed 's/^/    | /' <<<"$2" | tail -15; failed=1
  else echo "  ok: $1"; fi
}

m lesson4 > /dev/null
# Lesson 4's solution handed in: its correctness cases pass, but a run of some cases is no pass.
cp hand-in/04_padding/*.cu work/04_padding/
out=$(m check ONLY='correct 1x1')
expect "a run of some cases (ONLY=) is reported as no pass" "$out" "ONLY's cases passed: no pass"
refuse "... and not recorded as a pass in make status" "$(m status)" '04_padding +passed'
expect "an ONLY that matches no test says so" "$(m check ONLY='no such test')" "ONLY matched no test"

first=$(m hint)
m hint > /dev/null
again=$(m hint HINT=1)
expect "make hint HINT=1 shows the first hint again" "$again" "$(head -n 1 <<<"$first" | cut -c1-40 | sed 's/[][\.*^$()+?{}|]/./g')"
expect "... and says which hints were seen" "$again" "Seen so far: hints 1 to 2"
expect "make hint HINT=n refuses a hint not reached yet" "$(m hint HINT=4)" "shows hint 3 first"
expect "make reset says the hints seen stay the student's" "$(m reset)" "hints you have seen stay yours"

expect "make next starts the lesson after the selected one" "$(m next)" "Lesson 5"
expect "... and selects it" "$(m status)" "^> 5 05_swizzle"

read -r last last_folder < <(build/workbook lessons number folder | tail -n 1)
m lesson"$last" > /dev/null
cp hand-in/"$last_folder"/*.cu work/"$last_folder"/
expect "a pass of the last lesson says what is left to do" "$(m check)" "that was the last lesson"
expect "make next after the last lesson says there is none" "$(m next)" "is the last one"
m lesson5 > /dev/null
cp hand-in/05_swizzle/*.cu work/05_swizzle/
m check > /dev/null # passed: the steps below break it again

# The quiz's best score is kept for make status (answered from the key: full marks).
# (SEED=5 on make's command line too: `make test SEED=N` passes its own to every make below it.)
SEED=5 build/workbook quiz-key 5 | m quiz SEED=5 > /dev/null
echo 999 | m quiz SEED=5 > /dev/null # a worse try keeps the best
expect "make status shows the best quiz score" "$(m status)" "^> 5 05_swizzle .* ([0-9]+)/\\1\$"

# A lesson that passed and then broke is "passed once", and make status says what that means.
echo "#error broken on purpose" >> work/05_swizzle/transpose_swizzled.cu
m check > /dev/null
expect "a lesson that passed and then broke is passed once, explained" "$(m status)" "passed once: an earlier make check passed"
cp hand-in/05_swizzle/*.cu work/05_swizzle/

if command -v entr > /dev/null || command -v inotifywait > /dev/null; then
  # make watch: a save re-runs the check (given 30 s, then stopped).
  timeout 30 "$make" -s --no-print-directory watch > watch.log 2>&1 &
  watcher=$!
  sleep 3
  echo "// saved again" >> work/05_swizzle/transpose_swizzled.cu
  for _ in $(seq 25); do grep -q '^Score' watch.log && break; sleep 1; done
  kill $watcher 2>/dev/null; wait $watcher 2>/dev/null
  expect "make watch re-checks the lesson when its file is saved" "$(cat watch.log)" "^Score: 25/25"
else
  echo "  skipped: make watch (no entr or inotifywait here)"
fi

[ $failed -eq 0 ] && echo "student loop: every promise kept"
exit $failed
