# Sourced by grade-all.sh and grade-slurm.sh: what they share about hand-ins, their names and
# the shared check programs. Paths are relative to the workbook's folder.

# The lesson files the grading reads, "number folder kernel" a line, in registry order, as the
# workbook reads lessons/registry: built first where it is not yet (grade-slurm.sh may be the
# first command run in a fresh copy).
[ -x build/workbook ] || ${MAKE:-make} -s --no-print-directory build/workbook >&2 || exit 2
wb_rows=$(build/workbook lessons number folder kernel) || exit 2
mapfile -t WB_LESSONS <<<"$wb_rows"
unset wb_rows

# A hand-in folder's name that cannot be used, as a sentence; nothing when it can. Any UTF-8
# name works (the grading runs under an ASCII alias); control characters cannot be written in
# a gradebook row or a list of one name per line.
wb_name_problem() {
  local name=$1 LC_ALL=C
  if [[ $name =~ [[:cntrl:]] ]]; then
    printf '%q has a control character (a newline or a tab) in its name: rename the folder.' "$name"
  elif ! printf '%s' "$name" | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1; then
    printf '%q is not a UTF-8 name: rename the folder.' "$name"
  fi
}

# The students of HANDINS, one a line (sorted, C order): folders and links to folders. Hidden
# ones are left out, and said so on stderr; a name that cannot be used fails with its sentence.
wb_students() {
  local handins=$1 name why bad=0
  while IFS= read -r -d '' name; do
    name=${name#"$handins"/}
    if [[ $name == .* ]]; then echo "Left out: $handins/$name (a hidden folder is not a hand-in)." >&2; continue; fi
    why=$(wb_name_problem "$name")
    if [ -n "$why" ]; then echo "Refused: in $handins, $why" >&2; bad=1; continue; fi
    printf '%s\n' "$name"
  done < <(find "$handins" -mindepth 1 -maxdepth 1 -xtype d -print0 | LC_ALL=C sort -z)
  return $bad
}

# An ASCII name for a student's folders inside the workbook (make cannot take spaces): the
# name's safe characters and a hash of the whole name, so two names never share one.
wb_alias() {
  local safe
  safe=$(printf '%s' "$1" | LC_ALL=C tr -c 'A-Za-z0-9._-' '_' | cut -c1-24)
  printf '%s-%s\n' "$safe" "$(printf '%s' "$1" | sha256sum | cut -c1-10)"
}

# A hand-in's identity: a line per lesson file (its sha256, "absent" or "symlink"), hashed.
# Only the files graded count, so a note beside them changes nothing.
wb_manifest() {
  local dir=$1 number folder kernel f
  for line in "${WB_LESSONS[@]}"; do
    read -r number folder kernel <<<"$line"
    f=$dir/$folder/$kernel.cu
    if [ -L "$f" ] || [ -L "$dir/$folder" ]; then echo "$folder/$kernel.cu symlink"
    elif [ -f "$f" ]; then echo "$folder/$kernel.cu $(sha256sum < "$f" | cut -c1-64)"
    else echo "$folder/$kernel.cu absent"; fi
  done
}
wb_files_hash() { wb_manifest "$1" | sha256sum | cut -c1-16; }

# Copies a hand-in's lesson files (regular files only) into STAGE, fresh: the grading reads
# this copy, so what was hashed is what was graded. A symbolic link is not followed (it could
# point at a solution): STAGE/.problem says why the hand-in cannot be graded. Prints the hash.
wb_stage() {
  local src=$1 stage=$2 number folder kernel f manifest=""
  rm -rf "$stage.new" && mkdir -p "$stage.new" || return 1
  for line in "${WB_LESSONS[@]}"; do
    read -r number folder kernel <<<"$line"
    f=$src/$folder/$kernel.cu
    if [ -L "$f" ] || [ -L "$src/$folder" ]; then
      manifest+="$folder/$kernel.cu symlink"$'\n'
      echo "$folder/$kernel.cu is a symbolic link: hand in the file itself (links are not followed)." >> "$stage.new/.problem"
    elif [ -f "$f" ]; then
      mkdir -p "$stage.new/$folder" && cp -- "$f" "$stage.new/$folder/" || return 1
      manifest+="$folder/$kernel.cu $(sha256sum < "$stage.new/$folder/$kernel.cu" | cut -c1-64)"$'\n'
    else
      manifest+="$folder/$kernel.cu absent"$'\n'
    fi
  done
  printf '%s' "$manifest" | sha256sum | cut -c1-16 > "$stage.new/.files"
  rm -rf "$stage" && mv "$stage.new" "$stage" && cat "$stage/.files"
}

# The lessons a hand-in (or its copy) has a regular file for (numbers, space-separated).
wb_lessons_in() {
  local dir=$1 number folder kernel
  for line in "${WB_LESSONS[@]}"; do
    read -r number folder kernel <<<"$line"
    [ -f "$dir/$folder/$kernel.cu" ] && [ ! -L "$dir/$folder/$kernel.cu" ] && [ ! -L "$dir/$folder" ] && printf '%s ' "$number"
  done
  return 0
}

# The shared check programs of a judge ("emulator" or "gpu") for some lessons: what every
# grading uses and none may build for itself.
wb_shared_targets() {
  local kind=$1 want=" $2 " number folder kernel ext runner
  if [ "$kind" = emulator ]; then ext=ptx runner=build/common/ptx-runner; else ext=cubin runner=build/common/gpu-runner; fi
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

# A CSV field: quoted when it holds a comma, a quote or starts with a space.
wb_csv() {
  local v=$1
  if [[ $v == *[,\"]* || $v == " "* || $v == *" " ]]; then v=${v//\"/\"\"}; printf '"%s"' "$v"; else printf '%s' "$v"; fi
}

# Where the student's copies, make grade's output and Slurm's logs for OUT go, inside the
# workbook (a path make can take, on the file system the nodes share): one folder per OUT.
wb_stage_root() { printf 'build/grade-stage/%s\n' "$(printf '%s' "$(cd "$1" && pwd -P)" | sha256sum | cut -c1-12)"; }

# key=value files (.graded, the build's stamp): the value of KEY, or nothing.
wb_get() { sed -n "s/^$2=//p" "$1" 2>/dev/null | head -n 1; }
