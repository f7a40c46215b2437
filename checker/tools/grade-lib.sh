# Sourced by grade-all.sh and grade-slurm.sh: what they share about hand-ins, their names and
# the shared check programs. Paths are relative to the workbook's folder.

# The lesson files the grading reads, "number folder kernel" a line, in registry order, as the
# workbook reads lessons/registry: built first where it is not yet (grade-slurm.sh may be the
# first command run in a fresh copy).
[ -x build/workbook ] || ${MAKE:-make} -s --no-print-directory build/workbook >&2 || exit 2
wb_rows=$(build/workbook lessons number folder kernel) || exit 2
mapfile -t WB_LESSONS <<<"$wb_rows"
unset wb_rows

# A hand-in folder's name that cannot be graded, as a sentence; nothing when it can. Any UTF-8
# name works (the grading runs under an ASCII alias, results go to OUT/students/NAME/); a control
# character or bytes that are not UTF-8 cannot be written in a gradebook row, a terminal line
# or a list of one name per line.
wb_name_problem() {
  local name=$1 LC_ALL=C
  if [[ $name =~ [[:cntrl:]] ]]; then
    printf 'its name has a control character (a newline, a tab, ...): rename the folder'
  elif ! printf '%s' "$name" | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1; then
    printf 'its name is not UTF-8: rename the folder'
  fi
}

# A name as printable ASCII, for a refused one: \n, \t, \\ and \xNN for every other byte that
# is not printable ASCII (its letters too: the bytes are what identifies the folder).
wb_shown_name() {
  local byte ch shown=""
  for byte in $(printf '%s' "$1" | od -An -v -tx1); do
    case $byte in
      0a) shown+='\n' ;; 09) shown+='\t' ;; 5c) shown+='\\' ;;
      2[0-9a-f]|[3-6][0-9a-f]|7[0-9a-e]) printf -v ch "\\x$byte"; shown+=$ch ;;
      *) shown+="\\x$byte" ;;
    esac
  done
  printf '%s\n' "$shown"
}

# The hand-ins of HANDINS in C order, a line each, tab-separated: "student NAME" for one to
# grade, "refused SHOWN WHY" for a name that cannot be graded (wb_name_problem). A hand-in is a
# folder or a symbolic link (workbook intake refuses a link, and says so in its lessons' reports);
# hidden entries (.git) and plain files are left out, and said so on stderr.
wb_roster() {
  local handins=$1 path name why shown
  while IFS= read -r -d '' path; do
    name=${path#"$handins"/} shown=${path#"$handins"/}
    why=$(wb_name_problem "$name")
    [ -z "$why" ] || shown=$(wb_shown_name "$name")
    if [[ $name == .* ]]; then
      echo "Left out: $handins/$shown (a hidden entry is not a hand-in)." >&2
    elif [ ! -L "$path" ] && [ ! -d "$path" ]; then
      echo "Left out: $handins/$shown (not a folder: a hand-in is a folder laid out like work/)." >&2
    elif [ -n "$why" ]; then
      printf 'refused\t%s\t%s\n' "$shown" "$why"
    else
      printf 'student\t%s\n' "$name"
    fi
  done < <(find "$handins" -mindepth 1 -maxdepth 1 -print0 | LC_ALL=C sort -z)
}

# HANDINS and OUT apart, or a sentence why not: OUT inside HANDINS would make its folders hand-ins,
# HANDINS inside OUT/students or OUT/.wb would be written over by the grading.
wb_check_places() {
  local handins out
  handins=$(cd "$1" && pwd -P) out=$(realpath -m -- "$2")
  case $out/ in "$handins"/*)
    echo "The output folder $2 is inside HANDINS=$1, where its folders would be taken for hand-ins: put it" \
      "elsewhere."
    return 1 ;;
  esac
  case $handins/ in "$out"/students/*|"$out"/.wb/*)
    echo "HANDINS=$1 is inside $2/students or $2/.wb, which grading writes: put the hand-ins elsewhere."; return 1 ;;
  esac
}

# An ASCII name for a student's folders inside the workbook (make cannot take spaces): the
# name's safe characters and a hash of the whole name, so two names never share one.
wb_alias() {
  local safe
  safe=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_' | cut -c1-24)
  printf '%s-%s\n' "$safe" "$(printf '%s' "$1" | sha256sum | cut -c1-10)"
}

# Every hand-in is read through one door, `workbook intake` (checker/include/intake.h): it copies
# each lesson file of HANDINS/NAME into STAGE/FOLDER/ without following any link (NAME itself
# included), refuses links, FIFOs and sparse files unread (STAGE/FOLDER/.intake says copied,
# absent, refused or grader, with the sentence why), and prints the hash of the hand-in's
# lesson files. The grading reads that copy alone, so what was hashed is what was graded.
# wb_intake HANDINS NAME STAGE: STAGE brought up to date (the intake rewrites only what changed,
# so make sees an unchanged file as unchanged), its hash in STAGE/.files; on failure, no .files
# and STAGE.error holds the sentence why (intake's exit 3: the grader's side; 2: misused).
wb_intake() {
  local handins=$1 name=$2 stage=$3 hash rc end=()
  [[ $name != --* ]] || end=(--) # a name that starts with -- is no option of intake's
  rm -f -- "$stage/.files" "$stage.error" && mkdir -p -- "${stage%/*}" || return 3
  # A folder the grading user may not read is the grader's to fix, not the student's 0 (intake
  # would refuse it as the student's).
  local folder=$handins/$name
  if [ ! -L "$folder" ] && [ -d "$folder" ] && ! { [ -r "$folder" ] && [ -x "$folder" ]; }; then
    echo "the grading user ($(id -un)) may not read $folder: let it, then run the same command again" > "$stage.error"
    return 3
  fi
  hash=$(build/workbook intake --root "$handins" "${end[@]}" "$name" "$stage" 2> "$stage.intake-log")
  rc=$?
  if [ $rc -ne 0 ] || ! [[ $hash =~ ^[0-9a-f]{16}$ ]]; then
    printf 'its files could not be taken in (workbook intake, exit %s): %s\n' "$rc" \
      "$(tr -d '\000-\037' < "$stage.intake-log" | tail -c 300)" > "$stage.error"
    return $((rc ? rc : 3))
  fi
  printf '%s\n' "$hash" > "$stage/.files"
}

# The hash of the lesson files HANDINS/NAME holds now (what wb_intake would record), or nothing.
wb_files_hash() {
  local hash end=() folder=$1/$2
  [[ $2 != --* ]] || end=(--)
  [ -L "$folder" ] || [ ! -d "$folder" ] || { [ -r "$folder" ] && [ -x "$folder" ]; } || return 1
  hash=$(build/workbook intake --root "$1" "${end[@]}" "$2" --hash 2> /dev/null) &&
    [[ $hash =~ ^[0-9a-f]{16}$ ]] &&
    printf '%s\n' "$hash"
}

# The lessons a stage holds (numbers, space-separated): those whose .intake says copied or
# refused (a refusal is graded too: the student's 0, with the reason in the lesson's report).
wb_lessons_in() {
  local stage=$1 number folder kernel word
  for line in "${WB_LESSONS[@]}"; do
    read -r number folder kernel <<<"$line"
    read -r word _ 2> /dev/null < "$stage/$folder/.intake" || continue
    case $word in copied|refused) printf '%s ' "$number" ;; esac
  done
  return 0
}

# The shared check programs of a judge ("emulator" or "gpu") for some lessons: what every
# grading uses and none may build for itself.
wb_shared_targets() {
  local kind=$1 want=" $2 " number folder kernel ext runner
  ext=cubin runner=build/common/gpu-runner
  [ "$kind" = emulator ] && ext=ptx runner=build/common/ptx-runner
  printf '%s\n' build/workbook "$runner"
  for line in "${WB_LESSONS[@]}"; do
    read -r number folder kernel <<<"$line"
    [[ $want == *" $number "* ]] || continue
    printf '%s\n' "build/common/$folder/judge" "build/common/$folder/thresholds" "build/common/$folder/baseline.$ext"
    [ -f "solutions/$folder/$kernel.cu" ] && printf '%s\n' "build/common/$folder/solution.$ext"
  done
}

# The build's identity: the judge, the architecture and the shared programs' contents.
wb_build_hash() {
  local kind=$1 arch=$2 lessons=$3 t
  {
    echo "$kind $arch"
    while IFS= read -r t; do
      [ -f "$t" ] || { echo "missing $t"; continue; }
      sha256sum "$t"
    done < <(wb_shared_targets "$kind" "$lessons")
  } | sha256sum | cut -c1-12
}

# A gradebook row (RFC 4180): every cell quoted, a quote inside doubled; a cell that starts
# with =, +, -, @, a tab or a CR gets a ' first, so that no spreadsheet evaluates it (a student
# named =HYPERLINK(...) is text).
wb_csv_row() {
  local cell sep=""
  for cell in "$@"; do
    [[ $cell == [-=+@]* || $cell == $'\t'* || $cell == $'\r'* ]] && cell="'$cell"
    printf '%s"%s"' "$sep" "${cell//\"/\"\"}"
    sep=,
  done
  printf '\n'
}
# A CSV field quoted only where it must be, as Python's csv writer quotes it (cluster-test.sh's
# reference rows).
wb_csv() {
  local v=$1
  if [[ $v == *[,\"]* || $v == " "* || $v == *" " ]]; then printf '"%s"' "${v//\"/\"\"}"; else printf '%s' "$v"; fi
}

# Where the student's copies, make grade's output and Slurm's logs for OUT go, inside the
# workbook (a path make can take, on the file system the nodes share): one folder per OUT.
wb_stage_root() { printf 'build/grade-stage/%s\n' "$(printf '%s' "$(cd "$1" && pwd -P)" | sha256sum | cut -c1-12)"; }

# key=value files (.graded, the build's stamp): the value of KEY, or nothing.
wb_get() { sed -n "s/^$2=//p" "$1" 2>/dev/null | head -n 1; }
