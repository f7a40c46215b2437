#!/usr/bin/env bash
# The emulator (the PTX interpreter), after build-all: the reference side's cache gives the same
# report whether empty, full or damaged; the line table must tell apart two accesses on one line by
# the buffer each touches (lesson 1's A and B loads); each conflicted line's bank map must be drawn
# (below); then the right kernels of checker/tests/features/ and the wrong kernels. The solutions and the stubs are grade-test's (make
# grade: full marks, and 0), but in a copy without solutions/, where the stubs are graded here.
set -u
make=${MAKE:-make}
$make --no-print-directory build-all || exit 1
checker/tests/steps/ref-cache-test.sh || exit 1
if [ ! -d solutions ]; then
  MAKE=$make WB_JUDGE=check-emu build/workbook check exercises fail $(build/workbook lessons number) \
    > build/emu-exercises.log 2>&1 || { cat build/emu-exercises.log; exit 1; }
else
  ONLY='memory*' WB_RESULT_FILE= build/solutions/01_naive_matmul/check-emu 2>/dev/null |
    grep -oE 'matmul_naive.cu:[0-9]+:[0-9]+ \((A|B)\) global loads' | sort -u | wc -l | grep -qx 2 ||
    { echo "the line table does not tell lesson 1's two loads on one line apart (file:line:column (buffer))"; exit 1; }
  # The bank maps (issue 47): each shared-memory line with bank conflicts draws its worst request,
  # in the report and as an SVG beside it: the stubs of lessons 3, 5, 8 and 10 as handed out, lesson
  # 3's solution and lesson 10's unswizzled kernel, each with the map its conflict must get; a
  # conflict-free kernel (lesson 4's solution) gets none.
  maps() { # SRC/NN_topic: the memory case's report, its lines joined
    rm -f build/"$1"/bank-map-*.svg
    ONLY='memory*' WB_RESULT_FILE= build/"$1"/check-emu 2>/dev/null | sed -e ':a' -e 'N' -e '$!ba' -e 's/\n */ /g'
  }
  map_says() { # SRC/NN_topic SVGS PHRASE...: the report holds each phrase, and the folder SVGS maps
    local dir=$1 svgs=$2 out phrase
    shift 2
    out=$(maps "$dir")
    for phrase in "$@"; do
      grep -qF -- "$phrase" <<<"$out" || { echo "no bank map as it must be in $dir's report: \"$phrase\" is missing"; exit 1; }
    done
    [ "$(ls build/"$dir"/bank-map-*.svg 2>/dev/null | wc -l)" = "$svgs" ] ||
      { echo "$dir: $svgs bank maps expected as SVG beside the report, found: $(ls build/"$dir"/bank-map-*.svg 2>/dev/null)"; exit 1; }
  }
  map_says solutions/03_bank_conflicts 1 \
    'Bank map of the worst shared-load request at solutions/03_bank_conflicts/transpose_shared.cu:' \
    '(tile): 32-way, 32 wavefronts where 1 would do.' 'lanes 0-31  +...............................' \
    'bank 0, 32 words, as lane:word (word w of tile: its bytes 4w to 4w+3): 0:0 1:32 2:64' '31:992 Drawn as build/solutions/03_bank_conflicts/bank-map-1.svg.'
  map_says exercises/03_bank_conflicts 1 \
    'Bank map of the worst shared-store request at exercises/03_bank_conflicts/transpose_shared.cu:' \
    '(tile): 32-way, 32 wavefronts where 1 would do.' 'bank 0, 32 words, as lane:word (word w of tile: its bytes 4w to 4w+3): 0:0 1:32'
  map_says exercises/10_tensor_cores 2 \
    'Bank map of the worst shared-load request at exercises/10_tensor_cores/hgemm_swizzled.cu:' \
    '(As): 32-way, 32 wavefronts where 1 would do.' 'bank 0, 32 words, as lane:word (word w of As: its bytes 4w to 4w+3): 0:0 1:32'
  map_says exercises/05_swizzle 1 'Bank map of the worst shared-load request at exercises/05_swizzle/transpose_swizzled.cu:' \
    '(tile): 32-way, 32 wavefronts where 1 would do.' 'bank 0, 32 words, as lane:word (word w of tile: its bytes 4w to 4w+3): 0:0 1:32'
  map_says exercises/08_sgemm 2 'Bank map of the worst shared-store request at exercises/08_sgemm/sgemm_blocked.cu:' \
    '(As): 4-way, 4 wavefronts where 1 would do.' '(Bs): 4-way, 4 wavefronts where 1 would do.' \
    'lanes 0-31  4...4...4...4...4...4...4...4...' 'bank 0, 4 words, as lane:word (word w of As: its bytes 4w to 4w+3): 0:0 8:32 16:64 24:96'
  # The kernel a lesson-10 student writes first, right but unswizzled (hgemm_unswizzled): its
  # ldmatrix reads draw their map, eight lanes at a time.
  unswizzled=build/maps-test/unswizzled
  rm -rf "$unswizzled" && mkdir -p "$(dirname "$unswizzled")" &&
    build/workbook mutate checker/mutants/hgemm_unswizzled.mutant "$unswizzled" > /dev/null || exit 1
  out=$(ONLY='memory*' $make -s --no-print-directory check EMU=1 LESSON=10 SRC="$unswizzled" 2>&1 |
    sed -e ':a' -e 'N' -e '$!ba' -e 's/\n */ /g')
  for phrase in 'Bank map of the worst shared-load request at' \
    '(As): 8-way, 32 wavefronts where 4 would do. Each lane reads 16 bytes, so the banks serve 8 lanes at a time' \
    'lanes 0-7   8888............................' 'bank-map-2.svg'; do
    grep -qF -- "$phrase" <<<"$out" || { echo "no bank map as it must be in lesson 10's unswizzled kernel's report: \"$phrase\" is missing"; exit 1; }
  done
  # What make lessonN says of the counting sizes (issue 47: "a multiple of 1 from 2 to 6"; lesson 10's
  # second size, which no seed draws, said to be drawn).
  for l in $(build/workbook lessons folder); do
    d=$(build/exercises/"$l"/check-emu --describe) || { echo "$l: --describe failed"; exit 1; }
    ! grep -q 'a multiple of 1 ' <<<"$d" || { echo "$l's --describe: $(grep -A1 'memory traffic counted' <<<"$d")"; exit 1; }
  done
  build/exercises/09_fast_reduction/check-emu --describe | grep -qF '(rows from 2 to 6; cols a multiple of 4096 from 8192 to 20480, never 4x16384 itself),' ||
    { echo "lesson 9's --describe does not say its second counting size as it must"; exit 1; }
  build/exercises/10_tensor_cores/check-emu --describe | grep -qF 'memory traffic counted at N=256 and at N=128, the same rules at both:' ||
    { echo "lesson 10's --describe does not say its second counting size as it must"; exit 1; }
  out=$(maps solutions/04_padding)
  ! grep -q 'Bank map' <<<"$out" && ! ls build/solutions/04_padding/bank-map-*.svg > /dev/null 2>&1 ||
    { echo "a bank map for lesson 4's solution, which has no bank conflict"; exit 1; }
fi
MAKE=$make EMU=1 exec checker/tools/run-cases.py features mutants
