#!/usr/bin/env bash
# make gradescope: the workbook as a Gradescope autograder, OUT.zip (default
# build/gradescope/autograder.zip). At the zip's root, as Gradescope's format wants them:
# setup.sh (run once, as root, when Gradescope builds the autograder's image: installs what the
# workbook needs) and run_autograder (run for every submission: grades the uploaded kernel files
# with make grade, into /autograder/results/results.json); the workbook itself in workbook/.
#
# The workbook goes with solutions/, which grading compares against (Gradescope never shows the
# autograder to students), and without what grading does not need: the wrong kernels of
# checker/mutants/, the red team's attacks, the workbook's own tests, CI and docs/ (what
# make handout leaves out too, but for solutions/). Only what git tracks, as it is now: an
# instructor's hand-ins or grade logs lying in the tree never travel (they are named).
#
# Usage: checker/course/gradescope/build.sh OUT.zip [LESSON...]   (no lessons: all of them;
# those given are the ones this autograder grades, out of their points alone)
set -u
out=${1:?usage: checker/course/gradescope/build.sh OUT.zip [LESSON...]}
shift
here=checker/course/gradescope
[ -d solutions ] ||
  { echo "There is no solutions/ here (a handout?): the autograder grades against them." >&2; exit 1; }
git rev-parse --git-dir > /dev/null 2>&1 ||
  { echo "make gradescope packs the files git tracks, and this is not a git checkout." >&2; exit 1; }
command -v python3 > /dev/null ||
  { echo "make gradescope writes the zip with python3, which is not installed." >&2; exit 1; }
lessons=()
for n in "$@"; do
  build/workbook lessons --lesson "$n" number > /dev/null 2>&1 ||
    { echo "GRADESCOPE_LESSONS names lesson '$n', which lessons/registry does not have." >&2; exit 1; }
  lessons+=("$n")
done

left_out=(-e '^checker/mutants/' -e '^checker/redteam/' -e '^checker/tests/' -e '^\.ci/' -e '^docs/')
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
wb=$stage/workbook
mkdir -p "$wb"
untracked=$(git ls-files --others --exclude-standard | grep -v "${left_out[@]}")
if [ -n "$untracked" ]; then
  echo "Left out, because git does not track them (git add what the autograder needs):"
  head -n 20 <<<"$untracked" | sed 's/^/  /'
fi
git ls-files -z --cached | grep -zv "${left_out[@]}" |
  while IFS= read -r -d '' f; do [ -f "$f" ] && [ ! -L "$f" ] && printf '%s\0' "$f"; done |
  xargs -0 cp --parents -t "$wb" || { echo "Copying the workbook's files failed." >&2; exit 1; }
cp "$here/setup.sh" "$here/run_autograder" "$stage/" && chmod 755 "$stage/setup.sh" "$stage/run_autograder" || exit 1
# An unzip that drops the modes (Python's does) would leave the scripts unrunnable: run_autograder
# and setup.sh restore them from this list.
(cd "$wb" && find . -type f -perm -u+x -printf '%P\n' | LC_ALL=C sort) > "$wb/.executables"
{
  echo "A Gradescope autograder of the shared-memory workbook, made $(date -u +%Y-%m-%d) from commit" \
    "$(git rev-parse --short HEAD)."
  echo "It grades the lessons below with make grade (the CPU emulator where there is no GPU)."
  echo "lessons=${lessons[*]:-$(build/workbook lessons number | paste -sd' ')}"
} > "$wb/GRADESCOPE"

mkdir -p "$(dirname "$out")" || exit 1
python3 - "$stage" "$out" "$(git log -1 --format=%ct)" <<'EOF' || { echo "Writing $out failed." >&2; exit 1; }
import os, sys, time, zipfile
stage, out, stamp = sys.argv[1], sys.argv[2], time.gmtime(int(sys.argv[3]))[:6]
paths = []
for top, dirs, files in os.walk(stage):
    paths += [os.path.relpath(os.path.join(top, f), stage) for f in files]
with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_DEFLATED) as z:
    for p in sorted(paths):
        info = zipfile.ZipInfo(p, date_time=max(stamp, (1980, 1, 1, 0, 0, 0)))
        info.external_attr = (0o100755 if os.access(os.path.join(stage, p), os.X_OK) else 0o100644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(os.path.join(stage, p), "rb") as f:
            z.writestr(info, f.read())
os.replace(out + ".tmp", out)
EOF
cat "$wb/GRADESCOPE"
echo "Written: $out ($(du -k "$out" | cut -f1) KiB): upload it as the assignment's autograder (Configure Autograder," \
  "Zip file upload)."
