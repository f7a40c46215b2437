#!/usr/bin/env bash
# make grade-all tried on generated hand-ins: N students (default 6), each lesson of LESSONS
# (default "3 4 5", the quick ones) a solution, a stub, a wrong kernel or missing, by a fixed
# rule; the gradebook must give every student the points of exactly their solutions. Then it
# is run again (nothing may be graded twice), and once more after one hand-in changed (only
# that one is graded again), and through the Slurm scripts with a stand-in for sbatch.
# Then a class of hand-ins made to break the gradebook and the grading (issue 44), in folders
# with spaces: students named gradebook.csv, gradebook.csv.tmp, =HYPERLINK("x"), with a space,
# in UTF-8, with a newline, with a tab; a kernel that prints the words of the grader's own
# failures; a student folder that is a link to solutions/, one whose lesson folder is one; a
# grading the grader spoiled (its grader-faults). Each must get what it earns: its points, a 0,
# "not graded" for the grader's fault alone, or its name refused while the rest are graded.
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
# slow where being right earns nothing (lesson 3's kernel is right already); padded_not_swizzled is
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
[ -n "${GENERATE_ONLY:-}" ] &&
  { echo "$n hand-ins in $dir/handins, the expected gradebook in $dir/expected.csv"; exit 0; }
failed=0
show() { sed 's/^/    | /' "$@"; }
# The gradebook read as CSV (every cell is quoted): the points columns (student .. out_of) must
# be the expected ones, and every row graded; the columns after them say how (status, judge,
# build, files).
ncols=$(( $(build/workbook lessons number | grep -c '') + 3 ))
points() {
  python3 -c 'import csv, sys
for row in csv.reader(open(sys.argv[1], encoding="utf-8", newline="")):
    print(",".join(row[:int(sys.argv[2])]))' "$1" "$ncols"
}
all_graded() {
  python3 -c 'import csv, sys
rows = list(csv.reader(open(sys.argv[1], encoding="utf-8", newline="")))[1:]
sys.exit(0 if rows and all(r[-4] == "graded" for r in rows) else 1)' "$1"
}
same() { diff -u "$dir/expected.csv" <(points "$1") && all_graded "$1"; }
grade_all() { $make -s --no-print-directory grade-all HANDINS="$dir/handins" GRADEBOOK_DIR="$dir/grades"; }
t0=$(date +%s)
grade_all > "$dir/run1.log" 2>&1
echo "  first run: $(( $(date +%s) - t0 )) s for $n hand-ins"
if same "$dir/grades/gradebook.csv"; then echo "  ok: the gradebook gives each student the points of their solutions"
else echo "  WRONG GRADEBOOK (above: expected, then made); the run said:"; show "$dir/run1.log"; failed=1; fi

grade_all > "$dir/run2.log" 2>&1
again=$(grep -c 'unchanged since it was graded' "$dir/run2.log")
if [ "$again" -eq "$n" ]; then echo "  ok: a second run grades nothing again"
else echo "  RESUME BROKEN: $again of $n hand-ins kept on a second run"; show "$dir/run2.log"; failed=1; fi

# A note beside the lesson files changes nothing; a changed lesson file is graded again.
first=$(find "$dir/handins" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort | head -n 1)
echo "a note" > "$dir/handins/$first/note.txt"
changed=$(find "$dir/handins" -name '*.cu' | LC_ALL=C sort | head -n 1)
echo "// changed" >> "$changed"
grade_all > "$dir/run3.log" 2>&1
if [ "$(grep -c 'unchanged since it was graded' "$dir/run3.log")" -eq $((n - 1)) ] &&
   same "$dir/grades/gradebook.csv" > /dev/null; then
  echo "  ok: after one hand-in changed, only it is graded again"
else echo "  RESUME BROKEN after a change:"; show "$dir/run3.log"; failed=1; fi
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
elif flock -n -x build/.grade-shared.lock true; then
  echo "  ok: a process a grading left behind holds none of its locks"
else echo "  A PROCESS A GRADING LEFT BEHIND HOLDS THE BUILD LOCK (every later build would wait for it)"; failed=1; fi
[ -s "$dir/lingering.pid" ] && kill "$(cat "$dir/lingering.pid")" 2>/dev/null
# The same class through the Slurm scripts, with a stand-in for sbatch that runs the array's
# tasks here: the same gradebook.
slurm() {
  SBATCH=checker/tests/fake-sbatch.sh SINFO=true SQUEUE=true SCANCEL=true EMU=1 MAKE=$make \
    checker/tools/grade-slurm.sh "$@"
}
slurm "$dir/handins" "$dir/slurm-grades" > "$dir/slurm.log" 2>&1
if same "$dir/slurm-grades/gradebook.csv"; then
  echo "  ok: through grade-slurm.sh (an array task per hand-in, then the gradebook), the same gradebook"
else echo "  SLURM SCRIPTS BROKEN:"; show "$dir/slurm.log"; failed=1; fi

# ---- a class made to break the gradebook and the grading (issue 44) -------------------------
# HANDINS and GRADEBOOK_DIR with spaces, given to make as they are. Lesson 3 alone (quick).
odd="$PWD/$dir/hand ins" oddout="$PWD/$dir/grades odd"
mkdir -p "$odd"
read -r folder3 kernel3 points3 <<<"$(build/workbook lessons --lesson 3 folder kernel points)"
lesson3=$folder3/$kernel3.cu
handin() { mkdir -p "$odd/$1/$folder3" && cp "$2" "$odd/$1/$lesson3"; }
# Each name, and what it must get: POINTS (graded), "not graded: REGEX" or "refused: REGEX".
declare -A odd_want=()
for name in gradebook.csv gradebook.csv.tmp '=HYPERLINK("x")' 'Zoë Brontë' faulty; do
  handin "$name" "solutions/$lesson3"; odd_want[$name]=$points3
done
handin 'with space' "exercises/$lesson3"; odd_want['with space']=0
# The words of the grader's own failures, printed by the kernel into its lesson's report: its 0.
WORDS='printf("no kernel image is available for execution on the device\ncould not be compiled here\n");' \
  awk '{ print } /^__global__/ { kernel = 1 } kernel && /^\{/ && !done {
         print "    if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0)"; print "        " ENVIRON["WORDS"]; done = 1 }' \
  "exercises/$lesson3" > "$dir/printer.cu"
grep -q 'no kernel image is available' "$dir/printer.cu" ||
  { echo "  TEST BROKEN: could not make the printing kernel"; failed=1; }
handin printer "$dir/printer.cu"; odd_want[printer]=0
# Links to solutions/: the student folder itself, and a lesson folder. Refused unread: a 0.
ln -s "$PWD/solutions" "$odd/linked"; odd_want[linked]=0
mkdir -p "$odd/lesson-linked" && ln -s "$PWD/solutions/$folder3" "$odd/lesson-linked/$folder3"
odd_want[lesson-linked]=0
# Names no gradebook row can hold: refused, the rest graded.
handin $'new\nline' "solutions/$lesson3"; odd_want['new\nline']='refused: control character'
handin $'tab\there' "solutions/$lesson3"; odd_want['tab\there']='refused: control character'
# "faulty": its make grade ends with a line in its grader-faults, as make grade writes one for a
# lesson the grader could not grade (a make in between adds it): not graded, whatever its points.
faulty_make=$PWD/$dir/faulty-make.sh
cat > "$faulty_make" <<'EOF'
#!/usr/bin/env bash
# make; then, for a make grade whose GRADE_DIR matches FAULT_DIR, the line FAULT in its grader-faults.
"$REAL_MAKE" "$@"; rc=$?
for a; do case $a in GRADE_DIR=$FAULT_DIR) echo "$FAULT" >> "${a#GRADE_DIR=}/grader-faults" ;; esac; done
exit $rc
EOF
chmod +x "$faulty_make"
odd_want[faulty]='not graded: lesson 3: the judge found no GPU'

# The odd class's gradebook against odd_want: each row's lesson 3 and total, its status; every
# cell quoted, none a spreadsheet would evaluate. Prints what is wrong, one line each.
check_odd() {
  local py want
  want=$(for k in "${!odd_want[@]}"; do printf '%s\t%s\n' "$k" "${odd_want[$k]}"; done)
  read -r -d '' py <<'EOF'
import csv, re, sys
want = dict(line.split("\t", 1) for line in sys.stdin.read().splitlines())
raw = open(sys.argv[1], encoding="utf-8", newline="").read()
cell = r'"(?:[^"]|"")*"'
for line in raw.splitlines():
    if not re.fullmatch(cell + "(?:," + cell + ")*", line):
        print("a row not quoted cell by cell:", repr(line))
rows = list(csv.reader(raw.splitlines()))
head, rows = rows[0], rows[1:]
col = {h: i for i, h in enumerate(head)}
for r in rows:
    if any(c[:1] in ("=", "+", "-", "@", "\t", "\r") for c in r):
        print(r[0] + ": a cell a spreadsheet would evaluate:", r)
got = {(r[0][1:] if r[0].startswith("'") else r[0]): r for r in rows}
for name, w in want.items():
    r = got.get(name)
    if r is None:
        print(name + ": no row; the rows are", sorted(got))
        continue
    status, lesson3, total = r[col["status"]], r[col["lesson3"]], r[col["total"]]
    if w.isdigit():
        if (status, lesson3, total) != ("graded", w, w):
            print(f"{name}: expected {w} points, graded; got lesson 3 {lesson3!r}, total {total!r}, {status!r}")
    else:
        kind, regex = w.split(": ", 1)
        if not status.startswith(kind + ": ") or not re.search(regex, status) or total != "":
            print(f"{name}: expected {w!r}; got total {total!r}, {status!r}")
if len(rows) != len(want):
    print(len(rows), "rows for", len(want), "hand-ins")
if '=HYPERLINK("x")' in want and not got.get('=HYPERLINK("x")', [""])[0].startswith("'="):
    print('=HYPERLINK("x") is not written as text (a quote first)')
EOF
  python3 -c "$py" "$1" <<<"$want"
}
# odd_broken WHAT LOG [BOOK]: the failure, with what check_odd found, the run's log and the book.
odd_broken() {
  echo "  $1:"; printf '%s\n' "$problems" | sed 's/^/    ! /'; show "$2"
  [ -z "${3:-}" ] || sed 's/^/    > /' "$3" 2>&1
  failed=1
}

t0=$(date +%s)
REAL_MAKE=$(command -v "$make") FAULT_DIR='*/faulty-*' FAULT='3 the judge found no GPU (a stand-in)' MAKE=$faulty_make \
  "$faulty_make" -s --no-print-directory grade-all EMU=1 HANDINS="$odd" GRADEBOOK_DIR="$oddout" > "$dir/odd1.log" 2>&1
rc=$?
problems=$(check_odd "$oddout/gradebook.csv" 2>&1)
book_mode=$(stat -c %a "$oddout/gradebook.csv" 2>&1) umask_mode=$(printf '%o' $((0666 & ~0$(umask))))
if [ -n "$problems" ] || [ $rc -eq 0 ] || ! grep -q '1 not graded, 2 refused for their' "$dir/odd1.log" ||
   [ -n "$(find "$oddout/.wb" -maxdepth 1 -name 'gradebook*')" ] || [ "$book_mode" != "$umask_mode" ] ||
   [ ! -f "$oddout/students/gradebook.csv/summary.txt" ] ||
   ! grep -q '^3 .*refused' "$oddout/students/lesson-linked/summary.txt"; then
  odd_broken "ODD NAMES BROKEN (exit $rc; the gradebook's mode $book_mode, umask's $umask_mode)" "$dir/odd1.log" \
    "$oddout/gradebook.csv"
else
  echo "  ok: $(( $(date +%s) - t0 )) s: students named gradebook.csv, gradebook.csv.tmp, =HYPERLINK(\"x\"), with"
  echo "      spaces and in UTF-8 graded into OUT/students/ (HANDINS and OUT with spaces), every cell quoted,"
  echo "      formulas as text; names with a newline or a tab refused, the rest graded, exit $rc; a kernel printing"
  echo "      the grader's words and links to solutions/ get their 0, graded; grader-faults alone makes \"not graded\""
fi
# Run again without the fault: only that student is graded again, and now graded.
odd_want[faulty]=$points3
$make -s --no-print-directory grade-all EMU=1 HANDINS="$odd" GRADEBOOK_DIR="$oddout" > "$dir/odd2.log" 2>&1
rc=$?
problems=$(check_odd "$oddout/gradebook.csv" 2>&1)
if [ -z "$problems" ] && [ $rc -ne 0 ] && [ "$(grep -c 'unchanged since it was graded' "$dir/odd2.log")" -eq 8 ] &&
   grep -q '0 not graded, 2 refused' "$dir/odd2.log"; then
  echo "  ok: run again, the student the grader failed is graded (and only it), the names still refused (exit $rc)"
else odd_broken "ODD NAMES' RERUN BROKEN (exit $rc)" "$dir/odd2.log"; fi
# Through the Slurm scripts, refused names do not stop the class either (a part of it, for time).
odd_slurm="$PWD/$dir/hand ins slurm"
mkdir -p "$odd_slurm" && cp -r "$odd/Zoë Brontë" "$odd"/*$'\n'* "$odd"/*$'\t'* "$odd_slurm/"
odd_want=(['Zoë Brontë']=$points3 ['new\nline']='refused: control character'
          ['tab\there']='refused: control character')
slurm "$odd_slurm" "$oddout slurm" > "$dir/odd-slurm.log" 2>&1
problems=$(check_odd "$oddout slurm/gradebook.csv" 2>&1)
if [ -z "$problems" ] && grep -q 'Submitted: 1 of 1' "$dir/odd-slurm.log" &&
   [ "$(grep -c '^Refused' "$dir/odd-slurm.log")" -eq 2 ]; then
  echo "  ok: through grade-slurm.sh the names refused are said at submission, the rest graded"
else odd_broken "ODD NAMES THROUGH SLURM BROKEN" "$dir/odd-slurm.log"; fi
# An output folder inside HANDINS would make its folders hand-ins: refused, nothing made.
msg=$(checker/tools/grade-all.sh "$odd" "$odd/grades" 2>&1); rc=$?
if [ $rc -eq 2 ] && [ ! -e "$odd/grades" ] && grep -q 'inside HANDINS' <<<"$msg"; then
  echo "  ok: an output folder inside HANDINS is refused before anything is made"
else echo "  OUTPUT INSIDE HANDINS NOT REFUSED (exit $rc): $msg"; failed=1; fi

[ $failed -eq 0 ] && echo "grade-all: $n hand-ins, gradebook as expected, resumable; every odd hand-in as it must be"
exit $failed
