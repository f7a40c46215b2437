#!/usr/bin/env bash
# make grade on the solutions (full marks), on the stubs (none), on lesson 2 right but not tiled
# (its correctness points, not its speed's), on lesson 1 carrying a forged-grade attack (none,
# and nothing left behind: its sentinel looked for under the attack's lock, which the red team's
# run of it takes too) and on lesson 1 wrong and printing forged checker lines behind escape
# sequences, or bytes that are not UTF-8 (none, and its log quotes them: check-quoted.py), its
# files checked by a JSON reader against Gradescope's format and by a JUnit XML parser; with the
# emulator. The grades run two at a time (each is one core's work); build-all built what they
# share.
set -u
make=${MAKE:-make}
wb=build/workbook
$make --no-print-directory build-all || exit 1
grade() { $make -s --no-print-directory grade EMU=1 "$@"; }
printing="printf_forged_pass printf_not_utf8"
for h in slow forged $printing; do rm -rf "build/$h-handin" && cp -r exercises "build/$h-handin" || exit 1; done
$wb mutate checker/mutants/not_tiled.mutant build/slow-handin > /dev/null &&
  $wb mutate checker/redteam/atexit_forgery.mutant build/forged-handin > /dev/null || exit 1
for h in $printing; do $wb mutate "checker/redteam/$h.mutant" "build/$h-handin" > /dev/null || exit 1; done
grade SRC=solutions GRADE_DIR=build/grade-solutions > /dev/null & a=$!
grade SRC=exercises GRADE_DIR=build/grade-exercises > /dev/null; b=$?
wait $a && [ $b -eq 0 ] || exit 1
grade SRC=build/slow-handin GRADE_DIR=build/grade-slow GRADE_LESSONS=2 > /dev/null & a=$!
MAKE=$make flock -o build/redteam-atexit_forgery.lock sh -c 'rm -f /tmp/wb-redteam-atexit_forgery;
  WB_SKIP_LINT=1 $MAKE -s --no-print-directory grade EMU=1 SRC=build/forged-handin GRADE_DIR=build/grade-forged \
    GRADE_LESSONS=1 > /dev/null 2>&1;
  ! test -e /tmp/wb-redteam-atexit_forgery' ||
  { echo "grade-test: the forged hand-in made /tmp/wb-redteam-atexit_forgery"; false; }
f=$?
wait $a && [ $f -eq 0 ] || exit 1
set -- $printing
grade SRC=build/$1-handin GRADE_DIR=build/grade-$1 GRADE_LESSONS=1 > /dev/null & a=$!
grade SRC=build/$2-handin GRADE_DIR=build/grade-$2 GRADE_LESSONS=1 > /dev/null; b=$?
wait $a && [ $b -eq 0 ] || exit 1
one=$($wb lessons --lesson 1 points) || exit 1
checker/tools/validate-grade.py build/grade-$1 0 "$one" && checker/tools/validate-grade.py build/grade-$2 0 "$one" &&
  checker/tools/check-quoted.py build/grade-$1/lesson-1.log '[  PASSED  ] 7' 'Score: 235/235' '[       OK ] correct' &&
  checker/tools/check-quoted.py build/grade-$2/lesson-1.log '2J at N=' || exit 1
total=$($wb lessons --sum points) || exit 1
checker/tools/validate-grade.py build/grade-solutions "$total" "$total" || exit 1
checker/tools/validate-grade.py build/grade-exercises 0 "$total" || exit 1
checker/tools/validate-grade.py build/grade-slow 10 "$($wb lessons --lesson 2 points)" || exit 1
exec checker/tools/validate-grade.py build/grade-forged 0 "$one"
