#!/usr/bin/env bash
# Every lesson's quiz answered right from its key must score full marks, and answered wrong must
# not (make quiz without a terminal). Either way the score is recorded, and make status says how
# the answers came (piped in; from a file with make quiz ANSWERS=file), in records of the test's
# own (WB_STATE), so that an answer key never reaches a student's work/state.
set -u
make=${MAKE:-make}
wb=build/workbook
state=build/quiz-test.state
lessons=$($wb lessons number) || exit 1
mkdir -p build
rm -f $state $state.file
for n in $lessons; do
  SEED=$n $wb quiz-key "$n" | WB_STATE=$state SEED=$n $wb quiz "$n" > "build/quiz-$n.log" ||
    { echo "lesson $n: its own answer key does not score full marks:"; cat "build/quiz-$n.log"; exit 1; }
  grep -q '^Recorded for make status.*"piped in"' "build/quiz-$n.log" ||
    { echo "lesson $n: a quiz answered through a pipe does not say that its score was recorded, and how"; exit 1; }
  ! yes 999 | WB_STATE=$state SEED=$n $wb quiz "$n" > /dev/null ||
    { echo "lesson $n: wrong answers scored full marks"; exit 1; }
  WB_STATE=$state $wb status | grep -qE '^. '"$n"' [0-9a-z_]+ .* piped in: ([0-9]+)/\1$' || {
    echo "lesson $n: make status does not show the piped quiz's full marks, marked piped in:"
    WB_STATE=$state $wb status; exit 1; }
done
SEED=1 $wb quiz-key 1 > build/quiz-answers.txt &&
  WB_STATE=$state.file $make -s --no-print-directory quiz LESSON=1 SEED=1 ANSWERS=build/quiz-answers.txt \
    > build/quiz-file.log &&
  grep -q '^Recorded for make status.*"from a file"' build/quiz-file.log &&
  WB_STATE=$state.file $wb status | grep -qE '^. 1 [0-9a-z_]+ .* from a file: ([0-9]+)/\1$' ||
  { echo "make quiz ANSWERS=file: its score is not recorded, or not marked as from a file:"; cat build/quiz-file.log
    exit 1; }
echo "quiz: $(wc -w <<<"$lessons") passed, 0 failed; scores recorded whether piped in or from a file"
