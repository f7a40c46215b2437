#!/usr/bin/env bash
# make grade-all tried on generated hand-ins: N students (default 6), each lesson of LESSONS
# (default "3 4 5", the quick ones) a solution, a stub, a wrong kernel or missing, by a fixed
# rule; the gradebook must give every student the points of exactly their solutions. Then it
# is run again (nothing may be graded twice), and once more after one hand-in changed (only
# that one is graded again), and through the Slurm scripts with a stand-in for sbatch.
#   Usage: checker/tools/grade-all-test.sh [N] [LESSONS]   (GENERATE_ONLY=1: only make them)
set -u
make=${MAKE:-make}
n=${1:-6}
want_lessons=${2:-"3 4 5"}
dir=build/grade-all-test
rm -rf "$dir" && mkdir -p "$dir/handins"
# A wrong kernel per lesson that both judges reject whatever the timing (docs/mutants.md), and
# the points it still earns, the same whichever judge grades it (check_record.h): ab_swapped is
# right at 1x1 (one correctness case); transposed_dims is too, but its stray writes at other sizes
# void the lesson (compute-sanitizer on a GPU, the emulator's own checks); unpadded is right but
# slow where being right earns nothing (lesson 4's stub is right already); padded_not_swizzled is
# fast but breaks lesson 5's shared-memory rule.
declare -A wrong=([1]=last_row_unwritten [2]=ab_swapped [3]=transposed_dims [4]=unpadded [5]=padded_not_swizzled)
declare -A wrong_points=([1]=0 [2]=2 [3]=0 [4]=0 [5]=0)
declare -A expected
lessons_all=$(build/workbook lessons number | paste -sd' ')
for i in $(seq -w 1 "$n"); do
  student=student$i total=0
  mkdir -p "$dir/handins/$student"
  for l in $want_lessons; do
    read -r folder kernel points <<<"$(build/workbook lessons --lesson "$l" folder kernel points)"
    case $(( $(printf "%s lesson %s" "$student" "$l" | sha256sum | cut -c1-6 | sed "s/^/0x/") % 4 )) in
      0) mkdir -p "$dir/handins/$student/$folder"; cp "solutions/$folder/$kernel.cu" "$dir/handins/$student/$folder/"
         total=$((total + points)); expected[$student,$l]=$points ;;
      1) mkdir -p "$dir/handins/$student/$folder"; cp "exercises/$folder/$kernel.cu" "$dir/handins/$student/$folder/" ;;
      2) build/workbook mutate "checker/mutants/${wrong[$l]}.mutant" "$dir/handins/$student" > /dev/null
         total=$((total + wrong_points[$l])); expected[$student,$l]=${wrong_points[$l]} ;;
      3) ;; # not handed in
    esac
  done
  expected[$student]=$total
done
{
  printf 'student'; for l in $lessons_all; do printf ',lesson%s' "$l"; done; printf ',total,out_of\n'
  out_of=$(build/workbook lessons --sum points)
  for i in $(seq -w 1 "$n"); do
    student=student$i
    printf '%s' "$student"; for l in $lessons_all; do printf ',%s' "${expected[$student,$l]:-0}"; done
    printf ',%s,%s\n' "${expected[$student]}" "$out_of"
  done
} > "$dir/expected.csv"

# GENERATE_ONLY=1: the hand-ins and expected.csv alone (for a run on a GPU machine).
[ -n "${GENERATE_ONLY:-}" ] && { echo "$n hand-ins in $dir/handins, the expected gradebook in $dir/expected.csv"; exit 0; }
failed=0
# The points columns (student .. out_of) must be the expected ones, and every row graded; the
# columns after them say how (status, judge, build, files).
ncols=$(( $(build/workbook lessons number | grep -c '') + 3 ))
points() { cut -d, -f1-"$ncols" "$1"; }
same() { diff -u "$dir/expected.csv" <(points "$1") && ! grep -q ',not graded' "$1"; }
t0=$(date +%s)
$make -s --no-print-directory grade-all HANDINS="$dir/handins" GRADEBOOK_DIR="$dir/grades" > "$dir/run1.log" 2>&1
echo "  first run: $(( $(date +%s) - t0 )) s for $n hand-ins"
if same "$dir/grades/gradebook.csv"; then echo "  ok: the gradebook gives each student the points of their solutions"
else echo "  WRONG GRADEBOOK (above: expected, then made); the run said:"; sed 's/^/    | /' "$dir/run1.log"; failed=1; fi

$make -s --no-print-directory grade-all HANDINS="$dir/handins" GRADEBOOK_DIR="$dir/grades" > "$dir/run2.log" 2>&1
again=$(grep -c 'unchanged since it was graded' "$dir/run2.log")
if [ "$again" -eq "$n" ]; then echo "  ok: a second run grades nothing again"
else echo "  RESUME BROKEN: $again of $n hand-ins kept on a second run"; sed 's/^/    | /' "$dir/run2.log"; failed=1; fi

# A note beside the lesson files changes nothing; a changed lesson file is graded again.
first=$(ls "$dir/handins" | head -n 1)
echo "a note" > "$dir/handins/$first/note.txt"
changed=$(find "$dir/handins" -name '*.cu' | LC_ALL=C sort | head -n 1)
echo "// changed" >> "$changed"
$make -s --no-print-directory grade-all HANDINS="$dir/handins" GRADEBOOK_DIR="$dir/grades" > "$dir/run3.log" 2>&1
if [ "$(grep -c 'unchanged since it was graded' "$dir/run3.log")" -eq $((n - 1)) ] && same "$dir/grades/gradebook.csv" > /dev/null
then echo "  ok: after one hand-in changed, only it is graded again"
else echo "  RESUME BROKEN after a change:"; sed 's/^/    | /' "$dir/run3.log"; failed=1; fi
# A process of a grading that outlives it (one a kill did not reach: cluster-test met a bwrap
# left so) holds none of the grading's locks: the changed hand-in graded again by a make that
# leaves a sleeper behind, which must not hold the build lock (else every later build waits).
echo "// changed again" >> "$changed"
lingering=$PWD/$dir/lingering-make.sh
printf '#!/usr/bin/env bash\ncase " $* " in *" grade "*) sleep 300 & echo $! > %q ;; esac\nexec -a "$0" %q "$@"\n' \
  "$PWD/$dir/lingering.pid" "$(command -v "$make")" > "$lingering"
chmod +x "$lingering"
MAKE=$lingering "$lingering" -s --no-print-directory grade-all HANDINS="$dir/handins" GRADEBOOK_DIR="$dir/grades" \
  > "$dir/run4.log" 2>&1 # (MAKE: a MAKE from the environment would stand for make's own name)
if [ ! -s "$dir/lingering.pid" ]; then echo "  LINGERING TEST BROKEN: no grading ran through $lingering"; failed=1
elif flock -n -x build/.grade-shared.lock true; then echo "  ok: a process a grading left behind holds none of its locks"
else echo "  A PROCESS A GRADING LEFT BEHIND HOLDS THE BUILD LOCK (every later build would wait for it)"; failed=1; fi
[ -s "$dir/lingering.pid" ] && kill "$(cat "$dir/lingering.pid")" 2>/dev/null
# The same class through the Slurm scripts, with a stand-in for sbatch that runs the array's
# tasks here: the same gradebook.
SBATCH=checker/tests/fake-sbatch.sh SINFO=true SQUEUE=true SCANCEL=true EMU=1 MAKE=$make \
  checker/tools/grade-slurm.sh "$dir/handins" "$dir/slurm-grades" > "$dir/slurm.log" 2>&1
if same "$dir/slurm-grades/gradebook.csv"; then
  echo "  ok: through grade-slurm.sh (an array task per hand-in, then the gradebook), the same gradebook"
else echo "  SLURM SCRIPTS BROKEN:"; sed 's/^/    | /' "$dir/slurm.log"; failed=1; fi
[ $failed -eq 0 ] && echo "grade-all: $n hand-ins, gradebook as expected, resumable"
exit $failed
