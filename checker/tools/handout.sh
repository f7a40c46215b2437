#!/usr/bin/env bash
# make handout: the workbook as a tarball for students, without solutions/, the wrong kernels
# of checker/mutants/ and the workbook's own tests. The checker in it still grades: it compares
# with the baseline kernel and a CPU reference (the judge is built without a
# solution). A baseline that is an earlier lesson's solution (lesson 2's is lesson 1's kernel,
# lessons 4-5's is lesson 3's) has to travel with it: it is copied to checker/baselines/ and
# named in the tarball's HANDOUT file and here, so an instructor knows what students can see.
#
# Usage: checker/tools/handout.sh OUT.tar.gz [LESSON...]   (no lessons: all of them; after make
# build/workbook, which make handout builds first)
set -euo pipefail
out=$1
shift
want=" ${*:-all} "
top=shared-memory-workbook

[ -d solutions ] || { echo "There is no solutions/ here: this copy is a handout already." >&2; exit 1; }
git rev-parse --git-dir > /dev/null 2>&1 ||
  { echo "make handout packs the files git tracks, and this is not a git checkout." >&2; exit 1; }
if [ -n "$(git status --porcelain -- lessons exercises checker Makefile)" ]; then
  echo "Note: lessons/, exercises/, checker/ or the Makefile have uncommitted changes; they are packed as they are now."
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dest=$stage/$top
mkdir -p "$dest"
# What git tracks, as it is now; never a file git does not track (an instructor's grade logs,
# notes, hand-ins lying in the tree): those are named and left out.
untracked=$(git ls-files --others --exclude-standard | grep -v -e '^solutions/' -e '^checker/mutants/' \
  -e '^checker/redteam/' -e '^checker/tests/' -e '^\.ci/' || true)
if [ -n "$untracked" ]; then
  echo "Left out, because git does not track them (git add what students should get):"
  sed 's/^/  /' <<<"$untracked" | head -20
fi
git ls-files -z --cached |
  grep -zv -e '^solutions/' -e '^checker/mutants/' -e '^checker/redteam/' -e '^checker/tests/' -e '^\.ci/' |
  while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done | xargs -0 cp --parents -t "$dest"

# The students' README instead of the authors' (which speaks of solutions/, mutants, make test).
cp checker/tools/handout-README.md "$dest/README.md"

# The registry of the handed-out lessons, baselines moved out of solutions/: written by the
# workbook, which is told each lesson kept ("N", or "N=PATH" for one whose baseline moved).
exposed=() kept=()
registry=$dest/lessons/registry
rows=$(build/workbook lessons number folder baseline) || exit 1
while read -r number folder baseline; do
  if [ "$want" != " all " ] && [[ "$want" != *" $number "* ]]; then
    rm -rf "$dest/lessons/$folder" "$dest/exercises/$folder"
    continue
  fi
  # The hints are kept out of the lesson's text, in hints.md beside it (make hint shows them): a
  # handout without them would have a make hint with nothing to show.
  [ -s "$dest/lessons/$folder/hints.md" ] || {
    echo "lessons/$folder/hints.md is not in the handout: git does not track it (git add it)." >&2; exit 1; }
  if [[ "$baseline" == solutions/* ]]; then
    copy=checker/baselines/$(basename "$baseline")
    cp "$baseline" "$dest/$copy"
    exposed+=("lesson $number's baseline $copy is $baseline")
    # The stubs and texts name it where it now is (a stub's comment may wrap the path after a '/').
    dir=$(dirname "$baseline") file=$(basename "$baseline")
    find "$dest/exercises" "$dest/lessons" -type f \( -name '*.cu' -o -name '*.md' \) -print0 |
      xargs -0 perl -0pi -e "s{\Q$dir/\E(\n[ \t]*\*[ \t]*)?\Q$file\E}{checker/baselines/\$1$file}g"
    kept+=("$number=$copy")
  else
    kept+=("$number")
  fi
done <<<"$rows"
[ ${#kept[@]} -gt 0 ] || { echo "No lesson of '${want# }' is in lessons/registry." >&2; exit 1; }
build/workbook lessons --subset "${kept[@]}" > "$registry" || exit 1

{
  echo "A handout of the shared-memory workbook, made $(date -u +%Y-%m-%d) from commit $(git rev-parse --short HEAD)."
  echo "Lessons: $(build/workbook lessons --registry "$registry" number | paste -sd' ') (solutions/ and the checker's wrong kernels are not included)."
  echo "Checks compare with the baseline kernel and a CPU reference instead of the solution."
  if [ ${#exposed[@]} -gt 0 ]; then
    echo "Earlier solutions included as baselines (students can read them):"
    printf '  %s\n' "${exposed[@]}"
  fi
} > "$dest/HANDOUT"

mkdir -p "$(dirname "$out")"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(git log -1 --format=%ct)" -czf "$out" "$top"
cat "$dest/HANDOUT"
echo "Written: $out ($(du -k "$out" | cut -f1) KiB, $(tar -tzf "$out" | grep -vc '/$') files)."
