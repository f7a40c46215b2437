#!/usr/bin/env bash
# A lesson added as an author adds one (issue 48): lesson 4 copied under the next number, a folder
# and a kernel name of its own, in new files only, plus one line in lessons/registry and one row in
# README.md's table of lessons (what a student reads first); in a copy of this tree (its tracked
# files and the untracked ones git does not ignore), beside this tree's shared programs. Nothing
# else may need an edit: the copy's new lesson must get full marks in the emulator with its
# solution, nothing with its stub, and make author-check must hold it to every authoring rule.
set -u
make=${MAKE:-make}
dir=build/new-lesson-test
tree=$dir/tree
rm -rf "$dir" && mkdir -p "$tree" || exit 1
git ls-files -z --cached --others --exclude-standard | tar --null -T - --ignore-failed-read -cf - 2> /dev/null |
  tar -xf - -C "$tree" || { echo "new-lesson-test: could not copy the tree into $tree"; exit 1; }
# The shared programs as this tree's build made them (their sources' times kept by tar, so make
# keeps what the new lesson does not change): only the new lesson's own parts are built there.
mkdir -p "$tree/build" && cp -a build/common build/workbook "$tree/build/" 2> /dev/null

from=4
read -r src_folder kernel <<<"$(build/workbook lessons --lesson $from folder kernel)"
n=$(( $(build/workbook lessons number | tail -n 1) + 1 ))
folder=$(printf '%02d_generated' "$n") new_kernel=transpose_generated
cd "$tree" || exit 1
mkdir -p "lessons/$folder" "exercises/$folder" "solutions/$folder"
cp "lessons/$src_folder"/* "lessons/$folder/"
for side in exercises solutions; do
  sed "s/\\b$kernel\\b/$new_kernel/g" "$side/$src_folder/$kernel.cu" > "$side/$folder/$new_kernel.cu"
done
# The two one-line edits: lesson 4's registry line and README row under the new number and names.
awk -v f="$from" '$1 == f' lessons/registry | sed "s/^$from /$n /; s/$src_folder/$folder/; s/\\b$kernel\\b/$new_kernel/" \
  >> lessons/registry
row=$(grep "^| $from \`$src_folder\`" README.md) || { echo "new-lesson-test: README.md has no row for lesson $from"; exit 1; }
awk -v row="${row/| $from \`$src_folder\`/| $n \`$folder\`}" -v last="^[|] $((n - 1)) " \
  '{ print } $0 ~ last { print row }' README.md > README.md.new && mv README.md.new README.md

fail=0
not_as_it_must() { # LABEL WANT LOG: the log's last lines, where the outcome is not WANT
  echo "new-lesson-test: $1 NOT AS IT MUST ($2); the end of its report:"
  tail -n 15 "$3" | sed 's/^/    | /'
  fail=1
}
$make -s --no-print-directory check EMU=1 LESSON="$n" SRC=solutions > ../solution.log 2>&1 &&
  grep -q "^Score: \([0-9]*\)/\1$" ../solution.log && echo "  ok: lesson $n's solution: full marks in the emulator" ||
  not_as_it_must "lesson $n's solution" "full marks" ../solution.log
$make -s --no-print-directory check EMU=1 LESSON="$n" SRC=exercises > ../stub.log 2>&1
grep -q "^Score: 0/" ../stub.log && echo "  ok: lesson $n's stub: no points" || not_as_it_must "lesson $n's stub" "0 points" ../stub.log
$make -s --no-print-directory author-check > ../author-check.log 2>&1 &&
  grep -q "author check: $n lessons complete" ../author-check.log && echo "  ok: make author-check holds lesson $n to every rule" ||
  not_as_it_must "make author-check" "$n lessons complete" ../author-check.log
# And what an author could get wrong, refused by name: the folders without their registry line
# (never built, checked or handed out), a CONTRACT whose Signature is not the family's.
cp lessons/registry ../registry.kept && grep -v "^$n " ../registry.kept > lessons/registry
$make -s --no-print-directory author-check > ../unregistered.log 2>&1
grep -q "lessons/$folder is a lesson's folder with no line in lessons/registry" ../unregistered.log &&
  echo "  ok: lesson $n's folders without its registry line: refused" ||
  not_as_it_must "make author-check without lesson $n's registry line" "its folders named" ../unregistered.log
cp ../registry.kept lessons/registry
sed -i "1,20s/void $new_kernel(const float \*in/void $new_kernel(const double *in/" "exercises/$folder/$new_kernel.cu"
$make -s --no-print-directory author-check > ../signature.log 2>&1
grep -q "exercises/$folder/$new_kernel.cu: its CONTRACT's Signature says" ../signature.log &&
  echo "  ok: a CONTRACT Signature other than the family's: refused" ||
  not_as_it_must "make author-check with a wrong Signature" "the Signature refused" ../signature.log
[ $fail = 0 ] && echo "new lesson: lesson $n ($folder) from new files, one registry line and one README row, graded as it must"
exit $fail
