#!/usr/bin/env bash
# make grade-all HANDINS=dir: a whole class. Every folder of HANDINS is one student's hand-in
# (STUDENT/NN_topic/kernel.cu, laid out like work/); each is graded as `make grade` grades
# (results.json, junit.xml, summary.txt and the lessons' reports in OUT/students/STUDENT/), then
# OUT/gradebook.csv gets a row per student: each lesson's points, the total, and how the grade
# came about (status, judge, build, files: docs/cluster.md).
#
# A grade is kept only when the grading was sound: the hand-in is taken in first by `workbook
# intake` (its copy is hashed and graded; links, FIFOs and sparse files refused unread), the
# shared check programs are built once, before any grading, and checked unchanged before and
# after each; a grading the grader itself spoiled (make grade failed or left no results, or its
# grader-faults names a lesson: a compile the grader could not run, no GPU, a kernel image for
# another GPU, a judge that left no record; a killed task) leaves the student "not graded" with
# the reason, never a 0. Those come from the grader's own evidence, never from what a kernel
# printed. Resumable: a hand-in graded from the same files by the same judge and build is not
# graded again, so running the same command again grades exactly the rest.
# Any UTF-8 folder name is graded (under an ASCII alias); a name with a control character or
# that is not UTF-8 is refused, with its reason in its gradebook row, and the rest of the class
# is graded; the exit status is then 1, as it is when anyone is not graded.
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
case $PWD in *[[:space:]]*)
  echo "The workbook's folder ($PWD) has a space in its path, which make cannot build in: move it."; exit 2 ;;
esac
handins=${1%/} out=${2%/}
make=${MAKE:-make}
[ -d "$handins" ] ||
  { echo "HANDINS=$handins is not a folder: give the folder that holds one folder per student."; exit 2; }
# shellcheck source=checker/tools/grade-lib.sh
. checker/tools/grade-lib.sh
wb_check_places "$handins" "$out" || exit 2

# The judge follows EMU=1 as everywhere in the workbook; JUDGE_KIND (the Makefile's) agrees.
kind=${JUDGE_KIND:-}
if [ -n "${EMU:-}" ]; then
  [ "$kind" = gpu ] && { echo "EMU=1 and JUDGE_KIND=gpu disagree: say one."; exit 2; }
  kind=emulator
fi
if [ -z "$kind" ]; then nvidia-smi -L > /dev/null 2>&1 && kind=gpu || kind=emulator; fi
case $kind in emulator|gpu) ;; *) echo "JUDGE_KIND=$kind: the judge is emulator or gpu."; exit 2 ;; esac

# The class: the students to grade, and the names refused (each with its row in the gradebook).
mapfile -t roster < <(wb_roster "$handins")
students=() refused=0
for line in "${roster[@]}"; do
  IFS=$'\t' read -r what name why <<<"$line"
  if [ "$what" = student ]; then students+=("$name"); continue; fi
  refused=$((refused + 1))
  case $mode in all|only|gradebook-only)
    echo "Refused: $handins/$name: $why (its gradebook row says so; the others are graded)." ;;
  esac
done
[ ${#roster[@]} -gt 0 ] ||
  { echo "$handins holds no hand-ins: one folder per student, each laid out like work/ (NN_topic/kernel.cu)."; exit 2; }
if [ -n "$only" ]; then
  [[ $only != */* ]] || { echo "--only takes a student's folder name, not a path: $only."; exit 2; }
  printf '%s\n' "${students[@]}" | grep -qxF -- "$only" ||
    { echo "There is no hand-in $handins/$only to grade (a folder of HANDINS with a name that can be graded)."
      exit 2; }
fi
mkdir -p "$out/.wb/locks" "$out/students" || { echo "Cannot create $out."; exit 2; }
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

# ---- the hand-ins taken in ---------------------------------------------------------------
# Every student's hand-in copied into its stage by workbook intake (grade-lib.sh), the one door
# through which a hand-in is read; the gradings read those copies alone. Each under its lock:
# one a running grading holds is left to it (busy), with the copy that grading made.
declare -A busy=()
stage_class() {
  local s alias sfd
  for s in "${students[@]}"; do
    alias=$(wb_alias "$s")
    exec {sfd}>"$out/.wb/locks/$alias"
    if flock -n "$sfd"; then wb_intake "$handins" "$s" "$stage_root/$alias"; else busy[$s]=1; fi
    exec {sfd}>&-
  done
}

# ---- the shared programs: built once, before any grading ----------------------------------
build_shared() {
  # Every lesson any hand-in has, so that one build serves the whole class (and --only).
  local lessons="" s arch=-
  for s in "${students[@]}"; do lessons+=" $(wb_lessons_in "$stage_root/$(wb_alias "$s")")"; done
  # shellcheck disable=SC2086
  lessons=$(printf '%s\n' $lessons | sort -un | paste -sd' ')
  if [ "$kind" = gpu ]; then
    arch=${CUDA_ARCH:-$(gpu_arch)}
    [ -n "$arch" ] || {
      echo "No GPU answers nvidia-smi on $host, so there is no architecture to build for: give CUDA_ARCH=NN (e.g. 90"
      echo "for an H100/H200), build on a GPU node (grade-slurm.sh does when CUDA_ARCH is not given), or grade in the"
      echo "emulator with EMU=1."
      return 2
    }
    [[ $arch =~ ^[0-9]{2,3}$ ]] || { echo "CUDA_ARCH=$arch is not an architecture number like 90."; return 2; }
  fi
  local targets lk log=$out/.wb/build.log judge=$kind
  if [ "$kind" = gpu ]; then judge+=" judge, sm_$arch"; else judge+=" judge"; fi
  mapfile -t targets < <(wb_shared_targets "$kind" "$lessons")
  # Gradings hold this lock shared while they run: a build never changes programs in use.
  exec {lk}>build/.grade-shared.lock
  flock -n -x "$lk" || { echo "Waiting for the gradings that use the shared programs to finish..."; flock -x "$lk"; }
  # A cubin's architecture is no part of make's rules: rebuilt for the one asked (the sealed
  # compile's cache makes an unchanged one cheap).
  [ "$kind" = gpu ] && rm -f build/common/*/solution.cubin build/common/*/baseline.cubin
  if ! $make -s --no-print-directory -j"$(nproc)" $([ "$kind" = gpu ] && echo "CUDA_ARCH=$arch") \
       "${targets[@]}" > "$log" 2>&1; then
    echo "The shared check programs did not build on $host ($judge), so nothing was graded. The end of $log:"
    tail -n 15 "$log" | sed 's/^/  | /'
    rm -f "$stamp" "$sums"
    exec {lk}>&-; return 1
  fi
  (for t in "${targets[@]}"; do sha256sum "$t"; done) > "$sums.tmp" && mv "$sums.tmp" "$sums"
  printf 'judge=%s\narch=%s\nlessons=%s\nhost=%s\nat=%s\n' "$kind" "$arch" "$lessons" "$host" "$(date -u +%FT%TZ)" \
    > "$stamp.tmp" && mv "$stamp.tmp" "$stamp"
  exec {lk}>&-
  echo "Shared check programs ready on $host ($judge; lessons ${lessons:-none}; log: $log)."
}

# The build a staged hand-in is graded with: its lessons' shared programs as the build made
# them (their sums), or a sentence why they cannot be used; prints "ID ARCH".
build_of() {
  local stage=$1 targets t line sub="" arch
  [ -f "$stamp" ] && [ -f "$sums" ] ||
    { echo "the shared programs were never built for $out (the build step did not run or failed)"; return 1; }
  [ "$(wb_get "$stamp" judge)" = "$kind" ] ||
    { echo "the shared programs were built for the $(wb_get "$stamp" judge) judge, this grading is for the $kind one"
      return 1; }
  arch=$(wb_get "$stamp" arch)
  mapfile -t targets < <(wb_shared_targets "$kind" "$(wb_lessons_in "$stage")")
  for t in "${targets[@]}"; do
    line=$(awk -v t="$t" '$2 == t' "$sums")
    [ -n "$line" ] ||
      { echo "$t was not built by the submission's build (a lesson handed in after it?): submit again"; return 1; }
    sub+=$line$'\n'
  done
  printf '%s' "$sub" | sha256sum -c --quiet > /dev/null 2>&1 ||
    { echo "the shared programs changed after the build this grading was to use (rebuilt by another run?): submit again"
      return 1; }
  # Up to date by make's rules too, or make grade would rebuild them here, beside other tasks.
  $make -q --no-print-directory $([ "$kind" = gpu ] && echo "CUDA_ARCH=$arch") "${targets[@]}" > /dev/null 2>&1 ||
    { echo "the shared programs are out of date with the workbook's sources (edited since the build?): submit again"
      return 1; }
  printf '%s %s\n' "$(printf '%s %s\n%s' "$kind" "$arch" "$sub" | sha256sum | cut -c1-12)" "$arch"
}

# The judge as the gradebook names it.
judge_name() { if [ "$kind" = gpu ]; then echo "gpu sm_$1"; else echo emulator; fi; }

# Whether DEST was graded from FILES by this judge (for ARCH) and BUILD: then it is not again.
graded_already() {
  [ -f "$1/.graded" ] && [ "$(wb_get "$1/.graded" files)" = "$2" ] && [ "$(wb_get "$1/.graded" build)" = "$3" ] &&
    [ "$(wb_get "$1/.graded" judge)" = "$(judge_name "$4")" ]
}

# ---- one hand-in ----------------------------------------------------------------------
# Grades STUDENT from the copy of its hand-in taken in (stage_class; for a Slurm task, at
# submission). Leaves OUT/students/STUDENT/.graded (files, judge, build) only for a sound
# grading, else .not-graded with the reason.
grade_one() {
  local name=$1 alias stage dest files rc gout why="" build arch id sfd
  alias=$(wb_alias "$name"); stage=$stage_root/$alias; dest=$out/students/$name; gout=$stage.out
  mkdir -p -- "$dest" || { echo "  $name: NOT GRADED: cannot create $dest"; return 1; }
  exec {sfd}>"$out/.wb/locks/$alias"
  flock -n "$sfd" || { echo "  $name: another grading of this hand-in is running; left to it"; return 0; }
  not_graded() { # the latest grading is what counts: an earlier grade goes
    printf '%s\n' "$1" > "$dest/.not-graded"; rm -f "$dest/.started" "$dest/.graded"
    echo "  $name: NOT GRADED: $1"
  }
  if [ -f "$stage.error" ]; then not_graded "$(head -n 1 "$stage.error")"; return 1; fi
  files=$(cat "$stage/.files" 2>/dev/null) ||
    { not_graded "the copy of its hand-in taken in before grading ($stage) is gone: run the same command again"
      return 1; }
  if id=$(build_of "$stage"); then build=${id% *} arch=${id#* }; else build="" why=$id; fi
  if [ -z "$why" ] && graded_already "$dest" "$files" "$build" "$arch"; then
    echo "  $name: unchanged since it was graded ($(tail -n 1 "$dest/summary.txt"))"; return 0
  fi
  rm -f "$dest/.graded" "$dest/.not-graded"
  printf 'host=%s\njob=%s\nat=%s\n' "$host" "$job" "$(date -u +%FT%TZ)" > "$dest/.started"
  trap 'not_graded "killed while grading on $host${job:+ (Slurm job $job)}: scancel, a time limit or preemption"
        exit 143' TERM INT
  [ -z "$why" ] || { not_graded "$why"; return 1; }
  if [ "$kind" = gpu ] && [ "$mode" = task ]; then
    local here
    here=$(gpu_arch "${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-}}")
    local given=${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-none}}
    [ -n "$here" ] || { not_graded "no GPU answers nvidia-smi on $host (Slurm gave GPUs '$given')"; return 1; }
    local wrong="the programs were built for sm_$arch but $host's GPU is sm_$here: its kernels would not load"
    [ "$here" = "$arch" ] ||
      { not_graded "$wrong (submit with --cuda-arch $here, or to a partition of one kind of GPU)"; return 1; }
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
  # The grader's own evidence that it, not the student, failed: lessons make grade names in
  # GRADE_DIR/grader-faults ("N reason": the sealed compile's exit 4, no GPU or a kernel image
  # for another GPU, a judge that left no record), make grade's exit status, its results
  # missing. Never what the lessons' reports say: a kernel prints whatever it likes there.
  if [ -z "$why" ] && [ -s "$gout/grader-faults" ]; then
    why="the grader could not grade it on $host: $(tr -d '\000-\011\013-\037' < "$gout/grader-faults" |
      awk '/^[0-9]+ / { n = $1; sub(/^[0-9]+ +/, ""); printf "%slesson %s: %s", sep, n, $0; sep = "; "; next }
           NF { printf "%s%s", sep, $0; sep = "; " }')"
  fi
  if [ -z "$why" ] && { [ "$rc" -ne 0 ] || [ ! -f "$gout/results.json" ] || [ ! -f "$gout/summary.txt" ]; }; then
    why="make grade $([ "$rc" -ne 0 ] && echo "failed (exit $rc)" || echo "left no results") on $host: $(
      grep -v -E '^\s*$|^make(\[[0-9]+\])?: ' "$gout.log" | tail -n 1 | tr -d '\000-\037' | cut -c1-300)"
  fi
  if [ -n "$why" ]; then
    cp "$gout.log" "$dest/grade.log" 2>/dev/null; cp "$gout"/lesson-*.log "$dest"/ 2>/dev/null
    not_graded "$why"; return 1
  fi
  rm -f "$dest"/{results.json,junit.xml,summary.txt,grader-faults} "$dest"/lesson-*.log "$dest"/lesson-*.xml
  cp -r "$gout"/. "$dest"/ && cp "$gout.log" "$dest/grade.log" ||
    { not_graded "its results could not be copied into $dest"; return 1; }
  printf 'files=%s\njudge=%s\nbuild=%s\nhost=%s\njob=%s\nat=%s\n' "$files" "$(judge_name "$arch")" "$build" "$host" \
    "$job" "$(date -u +%FT%TZ)" > "$dest/.graded.tmp" && mv "$dest/.graded.tmp" "$dest/.graded"
  rm -f "$dest/.started"
  trap - TERM INT
  # The lessons the intake refused (make grade's reports say why, as the intake said it): the
  # student's 0, said here too.
  local number folder kernel word refused_lessons=""
  for line in "${WB_LESSONS[@]}"; do
    read -r number folder kernel <<<"$line"
    read -r word _ 2> /dev/null < "$stage/$folder/.intake" && [ "$word" = refused ] && refused_lessons+=" $number"
  done
  echo "  $name: $(tail -n 1 "$dest/summary.txt")${refused_lessons:+ (the intake refused lesson(s)$refused_lessons)}"
}

# ---- the gradebook --------------------------------------------------------------------
# A row per hand-in in HANDINS now: a grade only if it was graded from the files there now.
# Written whole to a temporary file of OUT/.wb (no student's folder can take its name), then
# renamed over OUT/gradebook.csv: a reader never sees half of one.
write_gradebook() {
  local lessons out_of line what name why dest cur tmp missing=0 l
  local -a header=(student) row points
  lessons=$(build/workbook lessons number | paste -sd' ')
  out_of=$(build/workbook lessons --sum points)
  for l in $lessons; do header+=("lesson$l"); done
  header+=(total out_of status judge build files)
  tmp=$(mktemp "$out/.wb/gradebook.XXXXXX") || { echo "Cannot write a gradebook in $out/.wb."; return 2; }
  {
    wb_csv_row "${header[@]}"
    for line in "${roster[@]}"; do
      IFS=$'\t' read -r what name why <<<"$line"
      row=("$name"); for l in $lessons; do row+=(""); done
      if [ "$what" = refused ]; then wb_csv_row "${row[@]}" "" "$out_of" "refused: $why" "" "" ""; continue; fi
      dest=$out/students/$name cur=$(wb_files_hash "$handins" "$name") why=""
      if [ -n "$cur" ] && [ "$(wb_get "$dest/.graded" files)" = "$cur" ] && [ -f "$dest/summary.txt" ]; then
        read -r -a points < <(awk -v lessons="$lessons" '
          /^[0-9]+ / { split($NF, p, "/"); pts[$1] = p[1] }
          /^Score: / { split($2, t, "/"); total = t[1]; max = t[2] }
          END { n = split(lessons, ls, " ");
                for (i = 1; i <= n; i++) printf "%s ", (ls[i] in pts) ? pts[ls[i]] : 0;
                printf "%s %s\n", total, max }' "$dest/summary.txt")
        wb_csv_row "$name" "${points[@]}" graded "$(wb_get "$dest/.graded" judge)" "$(wb_get "$dest/.graded" build)" \
          "$cur"
        continue
      fi
      if [ -f "$dest/.not-graded" ]; then why=$(head -n 1 "$dest/.not-graded")
      elif [ -z "$cur" ]; then why="its hand-in cannot be read now (workbook intake --hash failed)"
      elif [ -f "$dest/.graded" ]; then why="its files changed after it was graded"
      elif [ -f "$dest/.started" ]; then
        local started_job
        started_job=$(wb_get "$dest/.started" job)
        why="grading began on $(wb_get "$dest/.started" host)${started_job:+ (Slurm job $started_job)} at"
        why+=" $(wb_get "$dest/.started" at) and never finished: the task was killed, ran out of time or lost its node"
      else why="no grading of it has run (a task that never started?)"; fi
      wb_csv_row "${row[@]}" "" "$out_of" "not graded: $why" "" "" "$cur"
      missing=$((missing + 1))
    done
  } > "$tmp" && chmod "$(printf '%o' $((0666 & ~0$(umask))))" "$tmp" && mv -fT "$tmp" "$out/gradebook.csv" ||
    { rm -f "$tmp"; echo "The gradebook could not be written to $out/gradebook.csv."; return 2; }
  local n=${#roster[@]} graded=$(( ${#roster[@]} - missing - refused ))
  if [ $((missing + refused)) -gt 0 ]; then
    echo "Gradebook: $out/gradebook.csv ($n hand-ins: $graded graded, $missing not graded, $refused refused for their"
    echo "names; the status column says why; run the same command again to grade exactly those not graded, and rename"
    echo "the folders refused)."
    return 1
  fi
  echo "Gradebook: $out/gradebook.csv ($n students, every one graded)."
}

# ---- the modes ------------------------------------------------------------------------
gpus=()
case $mode in
  gradebook-only) write_gradebook; exit ;;
  build) stage_class; build_shared; exit ;;
  pending)
    # For grade-slurm.sh: each hand-in taken in as it is now, and the names still to grade.
    stage_class
    for s in "${students[@]}"; do
      [ -z "${busy[$s]:-}" ] || { echo "$s: being graded by a running task; left to it" >&2; continue; }
      stage=$stage_root/$(wb_alias "$s") dest=$out/students/$s
      files=$(cat "$stage/.files" 2>/dev/null)
      [ -n "$files" ] && id=$(build_of "$stage") && graded_already "$dest" "$files" "${id% *}" "${id#* }" && continue
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
stage_class
build_shared || exit 2
todo=("${students[@]}")
[ -n "$only" ] && todo=("$only")
echo "Grading ${#todo[@]} hand-in(s) from $handins into $out, $jobs at a time ($kind judge)."
export -f grade_one build_of judge_name graded_already gpu_arch
export handins out make kind mode stage_root stamp sums host job GPUS_LIST="${gpus[*]:-}"
[ ${#todo[@]} -eq 0 ] || printf '%s\0' "${todo[@]}" |
  xargs -0 -r -P "$jobs" -I{} bash -c '. checker/tools/grade-lib.sh; gpus=($GPUS_LIST); grade_one "$1"' _ {}
write_gradebook
