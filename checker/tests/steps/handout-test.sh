#!/usr/bin/env bash
# make handout on this tree, unpacked in a fresh folder: nothing secret inside, and there the
# solutions dropped in as a student's hand-in pass while the stubs fail, in the emulator on every
# machine; on a GPU the hand-in passes there too, the last lesson with the gates (sharing it by
# WB_GPU_LOCK).
set -u
make=${MAKE:-make}
export MAKE=$make EMU=1
root=$PWD
test=build/handout-test
common=build/common
wb=build/workbook
# The fresh tree compiles through this tree's result cache: the same bytes give the same PTX
# whatever the folder, and its sealed compile, built from the same sources, has the same rules
# (checker/compile/cache.c), so only its cubins' ptxas runs again.
export WB_SEALED_CACHE=$root/build/sealed-cache
# So does what this tree built of the same files (up to date here first): the checker's library,
# the emulator's runner and the workbook command, copied in the order they are made, are newer
# than the handout's files (which bear the last commit's time) and up to date there; what differs
# without solutions (each lesson's judge) is built. A source the handout lacks still fails the
# build: its object is in no list of the handout's Makefile.
reused=(model families lib emu ptx sandbox.o libchecker.a ptx-runner)
$make -s --no-print-directory $common/ptx-runner || exit 1
rm -rf $test && mkdir -p $test || exit 1
probe=handout-untracked-probe.txt
echo "an instructor's note" > $probe
checker/course/handout.py $test/workbook.tar.gz > $test/handout.log; rc=$?
rm -f $probe
[ $rc -eq 0 ] || { cat $test/handout.log; exit 1; }
secret='/(solutions|checker/mutants|checker/redteam|checker/tests)/|untracked-probe'
if tar -tzf $test/workbook.tar.gz | grep -E "$secret"; then
  echo "handout: the tarball holds the files above, which must stay out of it"; exit 1; fi
if tar -xzOf $test/workbook.tar.gz shared-memory-workbook/README.md |
  grep -nE 'SRC=solutions|For authors|make mutants'; then
  echo "handout: its README is the authors' (the lines above), not the students'"; exit 1; fi
fresh=$test/shared-memory-workbook
tar -C $test -xzf $test/workbook.tar.gz && cp -r solutions $fresh/hand-in || exit 1
mkdir -p $fresh/$common && cp -r "${reused[@]/#/$common/}" $fresh/$common/ && cp $wb $fresh/$wb || exit 1
cd $fresh || exit 1
$make -s -j"$(nproc)" --no-print-directory programs SRC=exercises &&
  $make -s -j"$(nproc)" --no-print-directory programs SRC=hand-in > /dev/null || exit 1
$make -s --no-print-directory author-check > ../run.log 2>&1 ||
  { echo "handout: make author-check:"; cat ../run.log; exit 1; }
tail -n 1 ../run.log
# On a GPU the hand-in is graded there too, its lessons side by side (make test's GPU lock shares
# the GPU among them and gpu-test's judges; one after the other they took 368 s beside gpu-test on
# the H200), each lesson's report in its own log. The gates (compute-sanitizer, Nsight Compute) run
# on the last lesson: compute-sanitizer runs the student's side alone, Nsight Compute the student's
# kernel and the baseline, so on each lesson they would take the same kernel bytes, runner and tool
# as gpu-test's solutions do, which pass every gate; here they show that a handout's tree runs
# them. (What differs in a handout, the baseline as the reference the outputs are judged against,
# the emulator's run above judges on every lesson.) Their GPU programs are built first, in one
# make: four makes building the runner they share raced (a link beside another's object half
# written; a runner not there yet, exit 127).
gpu_hand_in() {
  local last
  last=$($wb lessons number | tail -n 1)
  [ -n "$last" ] || { echo "handout: workbook lessons number lists no lesson"; return 1; }
  EMU= $make -s --no-print-directory -j"$(nproc)" programs SRC=hand-in &&
    $wb lessons number | LAST=$last xargs -P 4 -I{} sh -c 'g=$([ {} = "$LAST" ] && echo 1 || echo 0); \
    EMU= SANITIZE=$g PROFILE=$g $MAKE -s --no-print-directory check SRC=hand-in LESSON={} EXPECT=pass \
    > ../run-hand-in-gpu-{}.log 2>&1 || { cat ../run-hand-in-gpu-{}.log; exit 1; }' &&
    echo "hand-in (GPU; every gate on lesson $last): every lesson passed as it must."
}
gpu=${WB_GPU_CC:-}
# Its four judges share the GPU by the lock (make test's, or one of its own for make handout-test):
# a timing has it alone.
export WB_GPU_LOCK=${WB_GPU_LOCK:-$root/build/gpu.lock}
$make -s --no-print-directory check SRC=hand-in LESSON=all EXPECT=pass > ../run-hand-in.log 2>&1 & h=$!
{ [ -z "$gpu" ] || gpu_hand_in; } > ../run-hand-in-gpu.log 2>&1 & g=$!
WB_STOP_AT_FAILURE=1 $make -s --no-print-directory check SRC=exercises LESSON=all EXPECT=fail \
  > ../run-exercises.log 2>&1; e=$?
wait $h; h=$?
wait $g; g=$?
for r in hand-in:$h exercises:$e ${gpu:+hand-in-gpu:$g}; do
  [ "${r#*:}" -eq 0 ] || { echo "handout: make check SRC=${r%:*}:"; cat "../run-${r%:*}.log"; exit 1; }
  tail -n 1 "../run-${r%:*}.log"
done
checker/tools/help-test.sh README.md || exit 1
"$root/checker/tools/student-loop-test.sh" || exit 1
echo "handout: no solutions inside; graded from a fresh folder: the solutions pass, the stubs fail"
