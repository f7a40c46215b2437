#!/usr/bin/env bash
# make grade-all HANDINS=dir: a whole class. Every folder of HANDINS is one student's hand-in
# (STUDENT/NN_topic/kernel.cu, laid out like work/); each is graded as `make grade` grades
# (results.json, junit.xml, summary.txt and the lessons' reports in OUT/STUDENT/), then
# OUT/gradebook.csv gets a row per student: the points of every lesson and the total.
#
# Resumable: a hand-in whose files are unchanged since it was graded (OUT/STUDENT/.graded holds
# their checksum) is not graded again, so an interrupted run goes on where it stopped. In the
# emulator (JUDGE_KIND=emulator) the hand-ins are graded on every core at once: it counts,
# never times. On GPUs each grading holds a lock on one GPU (/tmp/wb-gpu-UUID.lock) for its
# whole run, so no timing ever shares a GPU with another grading from this tool, and a batch
# gives the scores that grading one by one gives.
#   Usage: checker/tools/grade-all.sh [--only STUDENT | --gradebook-only] HANDINS OUT
#   (the Makefile sets MAKE and JUDGE_KIND; --only and --gradebook-only are a Slurm array's task
#   and its last step: checker/tools/grade-slurm.sh, docs/cluster.md)
set -u
only="" book_only=0
case ${1:-} in
  --only) only=$2; shift 2 ;;
  --gradebook-only) book_only=1; shift ;;
esac
[ $# -eq 2 ] || { echo "usage: grade-all.sh [--only STUDENT | --gradebook-only] HANDINS OUT"; exit 2; }
handins=${1%/} out=${2%/}
make=${MAKE:-make}
kind=${JUDGE_KIND:-gpu}
[ -d "$handins" ] || { echo "HANDINS=$handins is not a folder: give the folder that holds one folder per student."; exit 2; }
mapfile -t students < <(find "$handins" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | LC_ALL=C sort)
[ ${#students[@]} -gt 0 ] ||
  { echo "$handins holds no hand-ins: one folder per student, each laid out like work/ (NN_topic/kernel.cu)."; exit 2; }
mkdir -p "$out"
if [ -n "$only" ]; then
  [ -d "$handins/$only" ] || { echo "There is no hand-in $handins/$only."; exit 2; }
  students=("$only")
fi

if [ "$book_only" = 1 ]; then
  jobs=0
elif [ "$kind" = emulator ]; then
  jobs=$(nproc)
  gpus=()
else
  # The GPUs by UUID (CUDA_VISIBLE_DEVICES takes them too); under Slurm, or wherever
  # CUDA_VISIBLE_DEVICES is set, only the ones it names.
  mapfile -t gpus < <(nvidia-smi ${CUDA_VISIBLE_DEVICES:+--id="$CUDA_VISIBLE_DEVICES"} --query-gpu=uuid \
                        --format=csv,noheader 2>/dev/null | tr -d ' ')
  [ ${#gpus[@]} -gt 0 ] || { echo "No GPU answers nvidia-smi: grade in the emulator with EMU=1."; exit 2; }
  jobs=${#gpus[@]}
fi
[ "$book_only" = 1 ] || echo "Grading ${#students[@]} hand-in(s) from $handins into $out, $jobs at a time ($kind)."

# The shared parts of every check program, once, before the gradings build in parallel.
[ "$book_only" = 1 ] || $make -s -k --no-print-directory programs SRC="$handins/${students[0]}" > /dev/null 2>&1

grade_one() {
  local student=$1 src=$handins/$1 dest=$out/$1 stamp rc
  stamp=$(cd "$src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum | sha256sum | cut -c1-16)
  if [ -f "$dest/.graded" ] && [ "$(cat "$dest/.graded")" = "$stamp" ]; then
    echo "  $student: unchanged since it was graded ($(tail -n 1 "$dest/summary.txt"))"; return 0
  fi
  rm -rf "$dest" && mkdir -p "$dest"
  local run=("$make" -s --no-print-directory grade SRC="$src" GRADE_DIR="$dest")
  if [ ${#gpus[@]} -gt 0 ]; then
    # A free GPU if there is one, else wait for the first; the lock is held for the whole grading.
    local pick="" g fd
    for g in "${gpus[@]}"; do
      exec {fd}>"/tmp/wb-gpu-$g.lock"
      if flock -n "$fd"; then pick=$g; break; fi
      exec {fd}>&-
    done
    if [ -z "$pick" ]; then pick=${gpus[0]}; exec {fd}>"/tmp/wb-gpu-$pick.lock"; flock "$fd"; fi
    CUDA_VISIBLE_DEVICES=$pick "${run[@]}" > "$dest/grade.log" 2>&1
    rc=$?
    exec {fd}>&-
  else
    "${run[@]}" > "$dest/grade.log" 2>&1
    rc=$?
  fi
  if [ -f "$dest/results.json" ] && [ -f "$dest/summary.txt" ]; then
    echo "$stamp" > "$dest/.graded"
    echo "  $student: $(tail -n 1 "$dest/summary.txt")"
  else
    echo "  $student: NOT GRADED (exit $rc); $dest/grade.log says why"
  fi
}
export -f grade_one
export handins out make
export GPUS_LIST="${gpus[*]:-}"
[ "$book_only" = 1 ] || printf '%s\n' "${students[@]}" |
  xargs -r -d '\n' -P "$jobs" -I{} bash -c 'gpus=($GPUS_LIST); grade_one "$1"' _ {}
# One task of an array: its student graded, the gradebook is the last step's.
if [ -n "$only" ]; then [ -f "$out/$only/.graded" ]; exit; fi

# The gradebook, from each student's summary.txt (the lessons' points in registry order).
lessons=$(checker/tools/lessons.sh number | paste -sd' ')
{
  printf 'student'; for n in $lessons; do printf ',lesson%s' "$n"; done; printf ',total,out_of\n'
  for student in "${students[@]}"; do
    sum=$out/$student/summary.txt
    if [ ! -f "$out/$student/.graded" ]; then
      printf '%s' "$student"; for n in $lessons; do printf ','; done; printf ',not graded,\n'; continue
    fi
    awk -v who="$student" -v lessons="$lessons" '
      /^[0-9]+ / { split($NF, p, "/"); pts[$1] = p[1] }
      /^Score: / { split($2, t, "/"); total = t[1]; max = t[2] }
      END { printf "%s", who; n = split(lessons, ls, " ");
            for (i = 1; i <= n; i++) printf ",%s", (ls[i] in pts) ? pts[ls[i]] : 0;
            printf ",%s,%s\n", total, max }' "$sum"
  done
} > "$out/gradebook.csv"
graded=$(grep -c '' "$out/gradebook.csv"); missing=$(grep -c ',not graded,' "$out/gradebook.csv")
echo "Gradebook: $out/gradebook.csv ($((graded - 1)) students$([ "$missing" -gt 0 ] && echo ", $missing not graded: run again to resume"))."
[ "$missing" -eq 0 ]
