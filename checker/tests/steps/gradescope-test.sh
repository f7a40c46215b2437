#!/usr/bin/env bash
# make gradescope's autograder.zip, unpacked into a folder laid out as Gradescope's /autograder
# (source/, submission/, results/), and its run_autograder (without setup.sh: the tools are
# here) on a submission uploaded flat as Gradescope lays one out: lessons 3 and 4's solutions
# and lesson 5's stub. Its results.json must be Gradescope's format (checked by
# checker/course/gradescope/validate-results.py) and give the solutions full marks, the stub 0.
# Also: the zip holds what grading needs and not the wrong kernels or the tests; a grading the
# grader spoiled (a grader-faults line) writes no results.json and says so; and the validator
# fails with its sentence when results.json is missing.
set -u
make=${MAKE:-make}
dir=$PWD/build/gradescope-test
zip=$dir/autograder.zip
ag=$dir/autograder # Gradescope's /autograder
validate=checker/course/gradescope/validate-results.py
failed=0
bad() { echo "  WRONG: $1"; failed=1; }
rm -rf "$dir" && mkdir -p "$ag/submission" "$ag/results" || exit 1
$make -s --no-print-directory gradescope GRADESCOPE_ZIP="$zip" GRADESCOPE_LESSONS="3 4 5" > "$dir/make.log" 2>&1 ||
  { echo "make gradescope failed:"; cat "$dir/make.log"; exit 1; }

# Unpacked as Gradescope does, into source/ (Python's unzip, which drops the modes: the
# autograder must restore them itself); run_autograder copied beside it.
python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$zip" "$ag/source" || exit 1
cp "$ag/source/run_autograder" "$ag/run_autograder" && chmod +x "$ag/run_autograder" || exit 1
listing=$(python3 -c 'import sys, zipfile; print("\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))' "$zip")
needed=(setup.sh run_autograder workbook/GRADESCOPE workbook/Makefile workbook/lessons/registry
        workbook/solutions/03_bank_conflicts/transpose_shared.cu workbook/checker/compile/main.c)
missing=$(for f in "${needed[@]}"; do grep -qxF "$f" <<<"$listing" || echo "$f"; done)
extra=$(grep -E '^workbook/(checker/(mutants|redteam|tests)|\.ci|docs|build|work)/' <<<"$listing" | head -n 3)
modes=$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1])
print(" ".join(n for n in ("setup.sh", "run_autograder") if (z.getinfo(n).external_attr >> 16) & 0o111 != 0o111))' \
  "$zip")
if [ -z "$missing$extra$modes" ]; then
  echo "  ok: the zip has setup.sh and run_autograder at its root (executable), the workbook with solutions/," \
    "no wrong kernels, attacks or tests ($(grep -c '' <<<"$listing") files)"
else bad "the zip: missing ${missing:-nothing}; should not hold ${extra:-nothing}; not executable: ${modes:-none}"; fi

# The upload: flat, by file name.
declare -A points
for l in 3 4 5; do
  read -r folder kernel "points[$l]" <<<"$(build/workbook lessons --lesson "$l" folder kernel points)"
  from=solutions; [ "$l" = 5 ] && from=exercises
  cp "$from/$folder/$kernel.cu" "$ag/submission/"
done
# Gradescope's run: from /autograder, the root overridden; the sealed compile's cache shared with
# this tree's (an absolute path), for speed alone.
run_autograder() { (cd "$ag" && AUTOGRADER_ROOT=$ag WB_SEALED_CACHE=$PWD/build/sealed-cache ./run_autograder); }
t0=$(date +%s)
run_autograder > "$dir/run.log" 2>&1
rc=$?
solved=$((points[3] + points[4]))
if [ $rc -eq 0 ] && $validate "$ag/results/results.json" --lesson 3="${points[3]}/${points[3]}" \
     --lesson 4="${points[4]}/${points[4]}" --lesson 5="0/${points[5]}" --score "$solved/$((solved + points[5]))" \
     > "$dir/validate.log" 2>&1; then
  echo "  ok: run_autograder on a flat upload, $(( $(date +%s) - t0 )) s: $(cat "$dir/validate.log"):" \
    "the solutions full marks, the stub 0"
else bad "run_autograder (exit $rc):"; sed 's/^/    | /' "$dir/run.log" "$dir/validate.log" 2> /dev/null; fi

# A grading the grader spoiled (make grade's grader-faults names a lesson): no results.json.
faulty=$dir/faulty-make.sh
cat > "$faulty" <<'EOF'
#!/usr/bin/env bash
# make; then, for a make grade, the line FAULT in its grader-faults (as make grade writes one).
"$REAL_MAKE" "$@"; rc=$?
for a; do case $a in GRADE_DIR=*) echo "$FAULT" >> "${a#GRADE_DIR=}/grader-faults" ;; esac; done
exit $rc
EOF
chmod +x "$faulty"
REAL_MAKE=$(command -v "$make") FAULT="4 the judge found no GPU (a stand-in)" MAKE=$faulty run_autograder \
  > "$dir/fault.log" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ ! -e "$ag/results/results.json" ] &&
   grep -q 'NOT GRADED.*lesson 4: the judge found no GPU' "$dir/fault.log"; then
  echo "  ok: a grading the grader spoiled writes no results.json and says why (exit $rc)"
else bad "a grader's fault (exit $rc):"; sed 's/^/    | /' "$dir/fault.log"; fi
msg=$($validate "$ag/results/results.json" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q 'results.json is missing: run_autograder wrote no results' <<<"$msg"; then
  echo "  ok: the validator, on no results.json: $msg"
else bad "the validator on a missing results.json (exit $rc): $msg"; fi

[ $failed -eq 0 ] && echo "gradescope: the autograder grades a flat upload into Gradescope's results.json"
exit $failed
