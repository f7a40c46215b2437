#!/usr/bin/env bash
# make grade-all HANDINS=dir: a whole class. Every folder of HANDINS is one student's hand-in
# (STUDENT/NN_topic/kernel.cu, laid out like work/); each is graded as `make grade` grades
# (results.json, junit.xml, summary.txt and the lessons' reports in OUT/STUDENT/), then
# OUT/gradebook.csv gets a row per student: each lesson's points, the total, and how the grade
# came about (status, judge, build, files: docs/cluster.md).
#
# A grade is kept only when the grading was sound: the student's lesson files are copied first
# (what is hashed is what is graded), the shared check programs are built once, before any
# grading, and checked unchanged before and after each; an infrastructure error (a failed
# build, no GPU, a kernel image for another GPU, a killed task) leaves the student "not graded"
# with the reason, never a 0. Resumable: a hand-in graded from the same files by the same judge
# and build is not graded again, so running the same command again grades exactly the rest.
# Any UTF-8 folder name works (the grading runs under an ASCII alias); names with control
# characters are refused before anything is graded.
#
# The judge: EMU=1 (or JUDGE_KIND=emulator) the CPU emulator, on every core at once (it counts,
# never times); else the GPU judge, each grading holding a lock on one GPU
# (/tmp/wb-gpu-UUID.lock), built for CUDA_ARCH or for this machine's GPU.
#   Usage: checker/tools/grade-all.sh [--only STUDENT] HANDINS OUT
#   Slurm's steps (checker/tools/grade-slurm.sh): --build, --pending, --task STUDENT, --gradebook-only
set -u
mode=all only=""
case ${1:-} in
  --only|--task) mode=${1#--}; only=${2-}; shift 2 ;;
  --build|--pending|--gradebook-only) mode=${1#--}; shift ;;
  --*) echo "grade-all.sh: unknown option $1 (options: --only STUDENT)."; exit 2 ;;
esac
[ $# -eq 2 ] || { echo "usage: grade-all.sh [--only STUDENT] HANDINS OUT"; exit 2; }
[ -f lessons/registry ] || { echo "grade-all.sh runs from the workbook's folder (where lessons/registry is)."; exit 2; }
case $PWD in *[[:space:]]*) echo "The workbook's folder ($PWD) has a space in its path, which make cannot build in: move it."; exit 2 ;; esac
handins=${1%/} out=${2%/}
make=${MAKE:-make}
[ -d "$handins" ] || { echo "HANDINS=$handins is not a folder: give the folder that holds one folder per student."; exit 2; }
# shellcheck source=checker/tools/grade-lib.sh
. checker/tools/grade-lib.sh

# The judge follows EMU=1 as everywhere in the workbook; JUDGE_KIND (the Makefile's) agrees.
kind=${JUDGE_KIND:-}
if [ -n "${EMU:-}" ]; then
  [ "$kind" = gpu ] && { echo "EMU=1 and JUDGE_KIND=gpu disagree: say one."; exit 2; }
  kind=emulator
fi
if [ -z "$kind" ]; then nvidia-smi -L > /dev/null 2>&1 && kind=gpu || kind=emulator; fi
case $kind in emulator|gpu) ;; *) echo "JUDGE_KIND=$kind: the judge is emulator or gpu."; exit 2 ;; esac

list=$(mktemp) && trap 'rm -f "$list"' EXIT
if ! notes=$(wb_students "$handins" 2>&1 > "$list"); then
  printf '%s\n' "$notes" | grep '^Refused'; echo "Nothing was graded: every name must be usable first."; exit 2
fi
[ -z "$notes" ] || printf '%s\n' "$notes" >&2
mapfile -t students < "$list"
[ ${#students[@]} -gt 0 ] ||
  { echo "$handins holds no hand-ins: one folder per student, each laid out like work/ (NN_topic/kernel.cu)."; exit 2; }
if [ -n "$only" ]; then
  [ -d "$handins/$only" ] || { echo "There is no hand-in $handins/$only."; exit 2; }
  [[ $only != */* ]] || { echo "--only takes a student's folder name, not a path: $only."; exit 2; }
fi
mkdir -p "$out/.wb/locks" || { echo "Cannot create $out."; exit 2; }
stage_root=$(wb_stage_root "$out")
mkdir -p "$stage_root"
stamp=$out/.wb/build sums=$out/.wb/build.sums
host=${SLURMD_NODENAME:-$(hostname -s 2>/dev/null || hostname)}
job=${SLURM_ARRAY_JOB_ID:+${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID:-}}
job=${job:-${SLURM_JOB_ID:-}}

# The GPU's architecture: CUDA_ARCH, else this machine's first GPU (make's own choice).
gpu_arch() {
  nvidia-smi ${1:+--id="$1"} --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d ' .'
}

# ---- the shared programs: built once, before any grading ----------------------------------
build_shared() {
  # Every lesson any hand-in has, so that one build serves the whole class (and --only).
  local lessons="" s arch=-
  for s in "${students[@]}"; do lessons+=" $(wb_lessons_in "$handins/$s")"; done
  # shellcheck disable=SC2086
  lessons=$(printf '%s\n' $lessons | sort -un | paste -sd' ')
  if [ "$kind" = gpu ]; then
    arch=${CUDA_ARCH:-$(gpu_arch)}
    [ -n "$arch" ] || { echo "No GPU answers nvidia-smi on $host, so there is no architecture to build for: give CUDA_ARCH=NN (e.g. 90 for an H100/H200), build on a GPU node (grade-slurm.sh does when CUDA_ARCH is not given), or grade in the emulator with EMU=1."; return 2; }
    [[ $arch =~ ^[0-9]{2,3}$ ]] || { echo "CUDA_ARCH=$arch is not an architecture number like 90."; return 2; }
  fi
  local targets lk log=$out/.wb/build.log
  mapfile -t targets < <(wb_shared_targets "$kind" "$lessons")
  # Gradings hold this lock shared while they run: a build never changes programs in use.
  exec {lk}>build/.grade-shared.lock
  flock -n -x "$lk" || { echo "Waiting for the gradings that use the shared programs to finish..."; flock -x "$lk"; }
  # A cubin's architecture is no part of make's rules: rebuilt for the one asked (the sealed
  # compile's cache makes an unchanged one cheap).
  [ "$kind" = gpu ] && rm -f build/common/*/solution.cubin build/common/*/baseline.cubin
  if ! $make -s --no-print-directory -j"$(nproc)" $([ "$kind" = gpu ] && echo "CUDA_ARCH=$arch") \
       "${targets[@]}" > "$log" 2>&1; then
    echo "The shared check programs did not build on $host ($kind judge$([ "$kind" = gpu ] && echo ", sm_$arch")), so nothing was graded. The end of $log:"
    tail -n 15 "$log" | sed 's/^/  | /'
    rm -f "$stamp" "$sums"
    exec {lk}>&-; return 1
  fi
  (for t in "${targets[@]}"; do sha256sum "$t"; done) > "$sums.tmp" && mv "$sums.tmp" "$sums"
  printf 'judge=%s\narch=%s\nlessons=%s\nhost=%s\nat=%s\n' "$kind" "$arch" "$lessons" "$host" "$(date -u +%FT%TZ)" > "$stamp.tmp" &&
    mv "$stamp.tmp" "$stamp"
  exec {lk}>&-
  echo "Shared check programs ready on $host ($kind judge$([ "$kind" = gpu ] && echo ", sm_$arch"); lessons ${lessons:-none}; log: $log)."
}

# The build a staged hand-in is graded with: its lessons' shared programs as the build made
# them (their sums), or a sentence why they cannot be used; prints "ID ARCH".
build_of() {
  local stage=$1 targets t line sub="" arch
  [ -f "$stamp" ] && [ -f "$sums" ] || { echo "the shared programs were never built for $out (the build step did not run or failed)"; return 1; }
  [ "$(wb_get "$stamp" judge)" = "$kind" ] ||
    { echo "the shared programs were built for the $(wb_get "$stamp" judge) judge, this grading is for the $kind judge"; return 1; }
  arch=$(wb_get "$stamp" arch)
  mapfile -t targets < <(wb_shared_targets "$kind" "$(wb_lessons_in "$stage")")
  for t in "${targets[@]}"; do
    line=$(awk -v t="$t" '$2 == t' "$sums")
    [ -n "$line" ] || { echo "$t was not built by the submission's build (a lesson handed in after it?): submit again"; return 1; }
    sub+=$line$'\n'
  done
  printf '%s' "$sub" | sha256sum -c --quiet > /dev/null 2>&1 ||
    { echo "the shared programs changed after the build that this grading was to use (rebuilt by another run?): submit again"; return 1; }
  # Up to date by make's rules too, or make grade would rebuild them here, beside other tasks.
  $make -q --no-print-directory $([ "$kind" = gpu ] && echo "CUDA_ARCH=$arch") "${targets[@]}" > /dev/null 2>&1 ||
    { echo "the shared programs are out of date with the workbook's sources (edited since the build?): submit again"; return 1; }
  printf '%s %s\n' "$(printf '%s %s\n%s' "$kind" "$arch" "$sub" | sha256sum | cut -c1-12)" "$arch"
}

# The judge as the gradebook names it.
judge_name() { if [ "$kind" = gpu ]; then echo "gpu sm_$1"; else echo emulator; fi; }

# ---- one hand-in ----------------------------------------------------------------------
# Grades STUDENT (staging its files first unless this is a Slurm task, which grades the copy
# made at submission). Leaves OUT/STUDENT/.graded (files, judge, build) only for a sound grading,
# else .not-graded with the reason.
grade_one() {
  local name=$1 alias stage dest files rc gout lf why="" build arch id sfd
  alias=$(wb_alias "$name"); stage=$stage_root/$alias; dest=$out/$name; gout=$stage.out
  mkdir -p "$dest" || { echo "  $name: NOT GRADED: cannot create $dest"; return 1; }
  exec {sfd}>"$out/.wb/locks/$alias"
  flock -n "$sfd" || { echo "  $name: another grading of this hand-in is running; left to it"; return 0; }
  not_graded() {
    printf '%s\n' "$1" > "$dest/.not-graded"; rm -f "$dest/.started"
    echo "  $name: NOT GRADED: $1"
  }
  if [ "$mode" != task ]; then
    files=$(wb_stage "$handins/$name" "$stage") || { not_graded "its files could not be copied from $handins/$name"; return 1; }
  else
    files=$(cat "$stage/.files" 2>/dev/null) || { not_graded "the copy of the hand-in made at submission ($stage) is gone: submit again"; return 1; }
  fi
  if id=$(build_of "$stage"); then build=${id% *} arch=${id#* }; else build="" why=$id; fi
  if [ -z "$why" ] && [ -f "$dest/.graded" ] && [ "$(wb_get "$dest/.graded" files)" = "$files" ] &&
     [ "$(wb_get "$dest/.graded" judge)" = "$(judge_name "$arch")" ] && [ "$(wb_get "$dest/.graded" build)" = "$build" ]; then
    echo "  $name: unchanged since it was graded ($(tail -n 1 "$dest/summary.txt"))"; return 0
  fi
  rm -f "$dest/.graded" "$dest/.not-graded"
  printf 'host=%s\njob=%s\nat=%s\n' "$host" "$job" "$(date -u +%FT%TZ)" > "$dest/.started"
  trap 'not_graded "killed while grading on $host${job:+ (Slurm job $job)}: scancel, a time limit or preemption"; exit 143' TERM INT
  [ -z "$why" ] || { not_graded "$why"; return 1; }
  [ -f "$stage/.problem" ] && { not_graded "$(paste -sd' ' "$stage/.problem")"; return 1; }
  if [ "$kind" = gpu ] && [ "$mode" = task ]; then
    local here
    here=$(gpu_arch "${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}}")
    [ -n "$here" ] || { not_graded "no GPU answers nvidia-smi on $host (Slurm gave GPUs '${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-none}}')"; return 1; }
    [ "$here" = "$arch" ] || { not_graded "the programs were built for sm_$arch but $host's GPU is sm_$here: its kernels would not load (submit with --cuda-arch $here, or to a partition of one kind of GPU)"; return 1; }
  fi
  # The locks are this shell's, not passed on: a process of the grading that outlived a kill
  # (scancel) must not keep every later build, or the GPU, waiting (cluster-test met one).
  local lk
  exec {lk}>build/.grade-shared.lock
  flock -s "$lk"
  rm -rf "$gout" "build/$(printf '%s' "$stage" | tr / _)"
  local run=("$make" -s --no-print-directory grade SRC="$stage" GRADE_DIR="$gout")
  if [ "$kind" = gpu ]; then run+=(EMU= CUDA_ARCH="$arch"); else run+=(EMU=1); fi
  if [ ${#gpus[@]} -gt 0 ]; then
    # A free GPU if there is one, else wait for the first; the lock is held for the whole grading.
    local pick="" g fd
    for g in "${gpus[@]}"; do
      exec {fd}>"/tmp/wb-gpu-$g.lock"
      if flock -n "$fd"; then pick=$g; break; fi
      exec {fd}>&-
    done
    if [ -z "$pick" ]; then pick=${gpus[0]}; exec {fd}>"/tmp/wb-gpu-$pick.lock"; flock "$fd"; fi
    CUDA_VISIBLE_DEVICES=$pick "${run[@]}" > "$gout.log" 2>&1 {lk}>&- {fd}>&-
    rc=$?
    exec {fd}>&-
  else
    "${run[@]}" > "$gout.log" 2>&1 {lk}>&-
    rc=$?
  fi
  # Sound only if the shared programs are still the ones checked before.
  id=$(build_of "$stage") || why="the shared programs changed while it was graded: $id"
  exec {lk}>&-
  if [ -z "$why" ] && { [ ! -f "$gout/results.json" ] || [ ! -f "$gout/summary.txt" ]; }; then
    local msg
    msg=$(grep -h -m1 -E 'No NVIDIA GPU|could not (start|run)|cannot run on this GPU|no kernel image' "$gout"/lesson-*.log 2>/dev/null | head -n 1)
    [ -n "$msg" ] || msg=$(grep -v -E '^\s*$|^make(\[[0-9]+\])?: ' "$gout.log" | tail -n 1)
    why="make grade stopped before writing results (exit $rc) on $host: ${msg:-its log, grade.log, says nothing more}"
  fi
  # A lesson that the judge could not run, or that the grader could not compile, is the
  # grader's failure, not the student's 0.
  if [ -z "$why" ]; then
    while read -r n _; do
      lf=$gout/lesson-$n.log
      if grep -qE "^$n [^ ]+ +the check did not finish" "$gout/summary.txt"; then
        why="lesson $n's check did not finish on $host: $(grep -m1 -E 'could not (start|run)|No NVIDIA GPU|cannot run on this GPU|no kernel image' "$lf" || grep -v '^\s*$' "$lf" | tail -n 1)"
      elif grep -qE 'could not be compiled here|no kernel image is available|cannot run on this GPU' "$lf" 2>/dev/null; then
        why="lesson $n on $host: $(grep -m1 -E -A1 'could not be compiled here|no kernel image is available|cannot run on this GPU' "$lf" | paste -sd' ')"
      fi
      [ -n "$why" ] && break
    done < <(awk '/^[0-9]+ / { print $1 }' "$gout/summary.txt")
  fi
  [ -z "$why" ] || { cp "$gout.log" "$dest/grade.log" 2>/dev/null; cp "$gout"/lesson-*.log "$dest"/ 2>/dev/null; not_graded "$why"; return 1; }
  rm -f "$dest"/results.json "$dest"/junit.xml "$dest"/summary.txt "$dest"/lesson-*.log "$dest"/lesson-*.xml
  cp -r "$gout"/. "$dest"/ && cp "$gout.log" "$dest/grade.log" ||
    { not_graded "its results could not be copied into $dest"; return 1; }
  printf 'files=%s\njudge=%s\nbuild=%s\nhost=%s\njob=%s\nat=%s\n' "$files" "$(judge_name "$arch")" "$build" "$host" "$job" \
    "$(date -u +%FT%TZ)" > "$dest/.graded.tmp" && mv "$dest/.graded.tmp" "$dest/.graded"
  rm -f "$dest/.started"
  trap - TERM INT
  echo "  $name: $(tail -n 1 "$dest/summary.txt")"
}

# ---- the gradebook --------------------------------------------------------------------
# A row per student in HANDINS now: a grade only if it was graded from the files there now.
write_gradebook() {
  local lessons out_of s dest cur why missing=0 n=0
  lessons=$(build/workbook lessons number | paste -sd' ')
  out_of=$(build/workbook lessons --sum points)
  {
    printf 'student'; for l in $lessons; do printf ',lesson%s' "$l"; done; printf ',total,out_of,status,judge,build,files\n'
    for s in "${students[@]}"; do
      dest=$out/$s; cur=$(wb_files_hash "$handins/$s"); why=""
      if [ -f "$dest/.graded" ] && [ "$(wb_get "$dest/.graded" files)" = "$cur" ] && [ -f "$dest/summary.txt" ]; then
        wb_csv "$s"
        awk -v lessons="$lessons" '
          /^[0-9]+ / { split($NF, p, "/"); pts[$1] = p[1] }
          /^Score: / { split($2, t, "/"); total = t[1]; max = t[2] }
          END { n = split(lessons, ls, " ");
                for (i = 1; i <= n; i++) printf ",%s", (ls[i] in pts) ? pts[ls[i]] : 0;
                printf ",%s,%s", total, max }' "$dest/summary.txt"
        printf ',graded,%s,%s,%s\n' "$(wb_get "$dest/.graded" judge)" "$(wb_get "$dest/.graded" build)" "$cur"
        continue
      fi
      if [ -f "$dest/.graded" ]; then why="its files changed after it was graded"
      elif [ -f "$dest/.not-graded" ]; then why=$(head -n 1 "$dest/.not-graded")
      elif [ -f "$dest/.started" ]; then
        why="grading began on $(wb_get "$dest/.started" host)$(j=$(wb_get "$dest/.started" job); [ -n "$j" ] && echo " (Slurm job $j)") at $(wb_get "$dest/.started" at) and never finished: the task was killed, ran out of time or lost its node"
      else why="no grading of it has run (a task that never started?)"; fi
      wb_csv "$s"; for l in $lessons; do printf ','; done; printf ',,%s,' "$out_of"; wb_csv "not graded: $why"; printf ',,,%s\n' "$cur"
      missing=$((missing + 1))
    done
  } > "$out/gradebook.csv.tmp" && mv "$out/gradebook.csv.tmp" "$out/gradebook.csv"
  n=${#students[@]}
  if [ "$missing" -gt 0 ]; then
    echo "Gradebook: $out/gradebook.csv ($n students, $missing not graded; the status column says why; run the same command again to grade exactly those)."
    return 1
  fi
  echo "Gradebook: $out/gradebook.csv ($n students, every one graded)."
}

# ---- the modes ------------------------------------------------------------------------
gpus=()
case $mode in
  gradebook-only) write_gradebook; exit ;;
  build) build_shared; exit ;;
  pending)
    # For grade-slurm.sh: each hand-in copied as it is now, and the names still to grade.
    for s in "${students[@]}"; do
      alias=$(wb_alias "$s") dest=$out/$s
      exec {sfd}>"$out/.wb/locks/$alias"
      flock -n "$sfd" || { echo "$s: being graded by a running task; left to it" >&2; exec {sfd}>&-; continue; }
      files=$(wb_stage "$handins/$s" "$stage_root/$alias") || { echo "Cannot copy $handins/$s." >&2; exit 2; }
      if id=$(build_of "$stage_root/$alias") && [ -f "$dest/.graded" ] && [ "$(wb_get "$dest/.graded" files)" = "$files" ] &&
         [ "$(wb_get "$dest/.graded" judge)" = "$(judge_name "${id#* }")" ] && [ "$(wb_get "$dest/.graded" build)" = "${id% *}" ]; then
        exec {sfd}>&-; continue
      fi
      exec {sfd}>&-
      printf '%s\n' "$s"
    done
    exit 0 ;;
  task)
    grade_one "$only"; exit ;;
esac

# make grade-all (or --only STUDENT): build, grade, then the gradebook.
if [ "$kind" = gpu ]; then
  # The GPUs by UUID (CUDA_VISIBLE_DEVICES takes them too); only those CUDA_VISIBLE_DEVICES names.
  mapfile -t gpus < <(nvidia-smi ${CUDA_VISIBLE_DEVICES:+--id="$CUDA_VISIBLE_DEVICES"} --query-gpu=uuid \
                        --format=csv,noheader 2>/dev/null | tr -d ' ')
  [ ${#gpus[@]} -gt 0 ] || { echo "No GPU answers nvidia-smi: grade in the emulator with EMU=1."; exit 2; }
  jobs=${#gpus[@]}
else
  jobs=$(nproc)
fi
build_shared || exit 2
todo=("${students[@]}")
[ -n "$only" ] && todo=("$only")
echo "Grading ${#todo[@]} hand-in(s) from $handins into $out, $jobs at a time ($kind judge)."
export -f grade_one build_of judge_name gpu_arch
export handins out make kind mode stage_root stamp sums host job GPUS_LIST="${gpus[*]:-}"
printf '%s\0' "${todo[@]}" |
  xargs -0 -r -P "$jobs" -I{} bash -c '. checker/tools/grade-lib.sh; gpus=($GPUS_LIST); grade_one "$1"' _ {}
write_gradebook
