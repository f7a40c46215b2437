#!/usr/bin/env bash
# The emulator (the PTX interpreter), after build-all: the reference side's cache gives the same
# report whether empty, full or damaged; the line table must tell apart two accesses on one line by
# the buffer each touches (lesson 1's A and B loads); then the right kernels of
# checker/tests/features/ and the wrong kernels. The solutions and the stubs are grade-test's (make
# grade: full marks, and 0), but in a copy without solutions/, where the stubs are graded here.
set -u
make=${MAKE:-make}
$make --no-print-directory build-all || exit 1
checker/tools/ref-cache-test.sh || exit 1
if [ ! -d solutions ]; then
  MAKE=$make WB_JUDGE=check-emu build/workbook check exercises fail $(build/workbook lessons number) \
    > build/emu-exercises.log 2>&1 || { cat build/emu-exercises.log; exit 1; }
else
  ONLY='memory*' WB_RESULT_FILE= build/solutions/01_naive_matmul/check-emu 2>/dev/null |
    grep -oE 'matmul_naive.cu:[0-9]+:[0-9]+ \((A|B)\) global loads' | sort -u | wc -l | grep -qx 2 ||
    { echo "the line table does not tell lesson 1's two loads on one line apart (file:line:column (buffer))"; exit 1; }
fi
MAKE=$make EMU=1 exec checker/tools/run-cases.sh features mutants
