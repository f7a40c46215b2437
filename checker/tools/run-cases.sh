#!/usr/bin/env bash
# Grades the workbook's own cases with the judge EMU selects (EMU=1: the emulator; else the GPU),
# all in one pool, the longest first, and asserts each verdict:
#   solution  each lesson's solution passes, with every gate on a GPU;
#   stub      each lesson's stub fails, earning nothing;
#   feature   each right kernel of checker/tests/features/ (CUDA features beyond the lessons'
#             own) passes;
#   mutant    each wrong kernel of checker/mutants/ is rejected with the diagnosis its file
#             expects: a checker that merely fails is not enough (and no sentence of a report,
#             any kind's, may end "?.": a question given a full stop too);
#   attack    each of the red team's files (checker/redteam/) is refused twice, as a student's
#             file and with the lint skipped (WB_SKIP_LINT=1, so that the layers below it are
#             tried too), and its side effect does not happen: its sentinel file is not made
#             and no process it started (named wb-redteam-survivor) outlives it; what its
#             kernel printed reaches the report quoted (checker/tools/check-quoted.py).
# The cases and their columns come from `build/workbook cases` (checker/commands/cases.c), the
# one reader of the .mutant files, which prints the columns FIELDS names, in that order. Each
# report is kept in build/KIND-DIR/NAME.log (-gpu after the folder's name for the GPU judge:
# make test runs both judges at once on a GPU machine).
# A case the judge cannot see is skipped and said to be, never passed: a mistake only the
# emulator's thread order exposes on a GPU (unless its gate, `needs`, is on), one only timing
# shows in the emulator, a GPU case on a machine without one.
#   Usage: checker/tools/run-cases.sh [lessons|features|mutants|redteam|NAME...]   (none: all)
# Jobs: every core in the emulator (it counts, it does not time, and its limits are CPU time);
# on a GPU one at a time (timings must not share the machine), or GPU_JOBS at once where the
# judges share it by WB_GPU_LOCK (checker/tools/gpu-test.sh).
set -u
make=${MAKE:-make}
if [ -n "${EMU:-}" ]; then judge=emulator sfx="" jobs=$(nproc)
else judge=GPU sfx=-gpu jobs=$([ -n "${WB_GPU_LOCK:-}" ] && echo "${GPU_JOBS:-1}" || echo 1); fi
FIELDS=kind,name,lesson,source,expect,unlinted,only,needs,timeout,every,sentinel,may_pass,calibrates,file
table=$(build/workbook cases --fields "$FIELDS" "$@") || exit 2
[ -n "$table" ] || { echo "  no cases of these kinds here (${*:-all}: a handout has no mutants, features or attacks)"; exit 0; }
mkdir -p build
times=build/case-times$sfx # each case's seconds (and start) in its last run: the longest go first

# The folder a kind's reports go to.
reports() {
  case $1 in
    solution | stub) echo "build/lessons$sfx" ;; feature) echo "build/features$sfx" ;;
    mutant) echo "build/mutants$sfx" ;; attack) echo "build/redteam$sfx" ;;
  esac
}
# said TEXT EXPECT: whether the report holds the phrase ("a | b": either phrase will do, the
# judges may word one mistake differently).
said() {
  local phrase
  while IFS= read -r phrase; do
    [ -n "${phrase// /}" ] && grep -qF -- "$phrase" <<<"$1" && return 0 # an empty phrase is in every report
  done < <(sed 's/ | /\n/g' <<<"$2")
  return 1
}
# no_gpu SRC N: whether the last check of lesson N in SRC found no GPU to judge on (its record
# says, `workbook record`; a report's sentences are for people).
no_gpu() { [ "$(build/workbook record "$1" "$2" | awk '$1 == "no_gpu" { print $2 }')" = 1 ]; }
# The report is the student's: no line of the checker's own source may show in it.
leaks() { grep -q 'checker/judge/' <<<"$1"; }
# Nor a sentence that ends in a question and a full stop ("...?."), outside what a kernel printed
# (quoted after the fence "  | ").
misworded() { grep -v '^  | ' <<<"$1" | grep -qE '\?\.( |$)'; }
indent() { sed 's/^/    | /' <<<"$1"; }

# A lesson's solution or stub, as it must be (pass or fail). A stub must fail and earn nothing: the
# gates (compute-sanitizer, Nsight Compute, the emulator's own checks) are worth no points and can
# only take points away, so a stub that earns nothing without them earns nothing with them; it is
# graded without them (on the H200 they were 40 of its GPU processes and 10 of the GPU's holds alone).
grade_lesson() {
  local kind=$1 name=$2 lesson=$3 src=$4 expect=$5 dir out gates=()
  dir=$(reports "$kind")
  [ "$kind" = stub ] && gates=(SANITIZE=0 PROFILE=0)
  out=$(env "${gates[@]}" WB_JUDGE=$([ -n "${EMU:-}" ] && echo check-emu || echo check) \
    build/workbook check "$src" "$expect" "$lesson" 2>&1)
  local rc=$?
  printf '%s\n' "$out" > "$dir/$kind-$lesson.log"
  if [ $rc -ne 0 ] && no_gpu "$src" "$lesson"; then
    echo skip; printf '  skipped (no GPU): %s, lesson %s\n' "$src" "$lesson" >&2
  elif [ $rc -eq 0 ] && misworded "$out"; then
    echo fail; printf '  A SENTENCE ENDS "?." (%s): %s, lesson %s; its report:\n%s\n' "$expect" "$src" "$lesson" "$(indent "$out")" >&2
  elif [ $rc -eq 0 ]; then
    echo pass; printf '  as it must (%s): %s, lesson %s\n' "$expect" "$src" "$lesson" >&2
  else
    echo fail; printf '  NOT AS IT MUST (%s): %s, lesson %s; its report:\n%s\n' "$expect" "$src" "$lesson" "$(indent "$out")" >&2
  fi
}

# A right kernel with CUDA features: it must pass. One that is a near copy of the solution is kept
# as an edit of it (NN_topic/KERNEL.mutant, expect: pass), made here into its own folder.
grade_feature() { # NAME LESSON SOURCE FILE
  local name=$1 lesson=$2 src=$3 edit=$3/${4%.cu}.mutant dir out rc
  dir=$(reports feature)
  if [ -f "$edit" ]; then
    if ! out=$(build/workbook mutate "$edit" "$dir/$name" 2>&1); then
      echo fail; printf '  CANNOT BUILD FEATURE %s: %s\n' "$name" "$out" >&2; return
    fi
    src=$dir/$name
  fi
  out=$(WB_JUDGE=$([ -n "${EMU:-}" ] && echo check-emu || echo check) build/workbook check "$src" pass "$lesson" 2>&1)
  rc=$?
  printf '%s\n' "$out" > "$dir/$name.log"
  if [ $rc -ne 0 ] && no_gpu "$src" "$lesson"; then
    echo skip; printf '  skipped (no GPU): %s (lesson %s)\n' "$name" "$lesson" >&2
  elif [ $rc -eq 0 ]; then
    echo pass; printf '  passed, as it must: %s (lesson %s)\n' "$name" "$lesson" >&2
  else
    echo fail; printf '  FAILED, A RIGHT KERNEL: %s (lesson %s); its report:\n%s\n' "$name" "$lesson" "$(indent "$out")" >&2
  fi
}

# A wrong kernel: rejected, with its diagnosis.
grade_mutant() { # NAME LESSON SOURCE EXPECT ONLY NEEDS TIMEOUT EVERY
  local name=$1 lesson=$2 file=$3 expect=$4 only=$5 needs=$6 timeout=$7 every=$8 dir out rc
  dir=$(reports mutant)
  if [ "$only" = emulator ] && [ -z "${EMU:-}" ] && { [ -z "$needs" ] || [ "${!needs:-0}" != 1 ]; }; then
    echo skip; printf '  skipped (emulator only%s): %s\n' "${needs:+; on a GPU with $needs=1}" "$name" >&2; return
  fi
  if [ "$only" = gpu ] && [ -n "${EMU:-}" ]; then
    echo skip; printf '  skipped (GPU only: only timing shows it): %s\n' "$name" >&2; return
  fi
  if ! out=$(build/workbook mutate "$file" "$dir/$name" 2>&1); then
    echo fail; printf '  CANNOT BUILD MUTANT %s: %s\n' "$name" "$out" >&2; return
  fi
  # The first failed case's report, the cases after it (the largest sizes, the timings, the
  # gates) skipped: most mutants say what they must there. Where it does not say it (a gate's
  # finding, or `every: yes`, or `gpu` on a GPU), every case runs. A kernel that never ends is
  # found at TIMEOUT (10 s of CPU time in the emulator): `timeout` finds it sooner, the same way.
  local stop=1 runs=1
  case $every in yes) stop= ;; gpu) [ -n "${EMU:-}" ] || stop= ;; esac
  run() {
    build/workbook record "$dir/$name" "$lesson" --forget
    out=$(env WB_STOP_AT_FAILURE="$1" ${timeout:+TIMEOUT=$timeout} $make -s --no-print-directory check EMU="${EMU:-}" SRC="$dir/$name" \
      LESSON="$lesson" 2>&1)
    rc=$?
  }
  run "$stop"
  [ -n "$stop" ] && ! said "$out" "$expect" && runs=2 && run ""
  printf '%s\n' "$out" > "$dir/$name.log"
  local note=$([ $runs = 2 ] && echo ", two runs")
  if leaks "$out"; then
    echo fail; printf '  NOT REJECTED AS IT MUST: %s (a checker/judge/ source line is shown); its report:\n%s\n' "$name" "$(indent "$out")" >&2
  elif misworded "$out"; then
    echo fail; printf '  NOT REJECTED AS IT MUST: %s (a sentence ends "?."); its report:\n%s\n' "$name" "$(indent "$out")" >&2
  elif [ $rc -ne 0 ] && said "$out" "$expect"; then
    echo pass; printf '  rejected, as it must: %-24s ("%s")%s\n' "$name" "$expect" "$note" >&2
  elif no_gpu "$dir/$name" "$lesson"; then
    echo skip; printf '  skipped (no GPU):      %s\n' "$name" >&2
  else
    echo fail; printf '  NOT REJECTED AS IT MUST: %s (exit %d, expected "%s"); its report:\n%s\n' "$name" $rc "$expect" "$(indent "$out")" >&2
  fi
}

# An attack on the grader, one mode after the other, then its side effects. The same attack is
# graded by one judge at a time on this machine (build/redteam-NAME.lock): its sentinel is the
# same file for both. Every attack holds build/redteam.lock shared from its start to its look for
# survivors, and a run's end takes it alone to kill them: a survivor is seen by the check of the
# attack that started it (or of one beside it) before anything kills it. The graded processes
# keep neither lock's descriptor: one an attack left must not keep the others waiting. A file the
# lint lets through is built and run the same way with the lint skipped: one check then stands
# for both modes (each mode's phrase must be in its report all the same).
grade_attack() { # NAME LESSON SOURCE EXPECT UNLINTED ONLY NEEDS SENTINEL MAY_PASS FILE
  local name=$1 lesson=$2 file=$3 only=$6 needs=$7 sentinel=$8 may=$9 lessonfile=${10} dir mode modes=() effect="" same=""
  dir=$(reports attack)
  if [ "$only" = emulator ] && [ -z "${EMU:-}" ]; then # an attack on the interpreter's own code
    echo skip; printf '  skipped (emulator only: an attack on the interpreter): %s\n' "$name" >&2; return
  fi
  declare -A expect=([linted]=$4 [unlinted]=$5)
  exec 8> build/redteam.lock 9> "build/redteam-$name.lock" && flock -s 8 && flock 9
  [ -n "$sentinel" ] && rm -f "$sentinel" # a run stopped midway may have left it
  for mode in linted unlinted; do
    [ -n "$same" ] && continue
    if build/workbook mutate "$file" "$dir/$name-$mode" > /dev/null 2>&1; then modes+=("$mode")
    else echo fail; printf '  CANNOT BUILD ATTACK %s (%s)\n' "$name" "$mode" >&2; continue; fi
    [ $mode = linted ] && build/workbook lint "$dir/$name-$mode/$lessonfile" "$(basename "$lessonfile" .cu)" > /dev/null 2>&1 &&
      same=linted
  done
  for mode in "${modes[@]}"; do
    # A GPU attack only a compute-sanitizer gate sees (needs: SANITIZE) runs with it on.
    (if [ "$mode" = unlinted ]; then export WB_SKIP_LINT=1; fi
     if [ -n "$needs" ] && [ -z "${EMU:-}" ]; then export "$needs=1"; fi
     build/workbook record "$dir/$name-$mode" "$lesson" --forget
     $make -s --no-print-directory check EMU="${EMU:-}" SRC="$dir/$name-$mode" LESSON="$lesson" > "$dir/$name-$mode.log" 2>&1
     echo $? > "$dir/$name-$mode.rc") 8>&- 9>&-
  done
  [ -n "$sentinel" ] && [ -e "$sentinel" ] && effect="it made $sentinel"
  pgrep -f 'wb-redteam-surviv[o]r' > /dev/null && effect="${effect:+$effect; }a process it (or an attack beside it) started survived"
  [ -n "$sentinel" ] && rm -f "$sentinel"
  exec 8>&- 9>&-
  [ -n "$same" ] && modes+=(unlinted)
  for mode in "${modes[@]}"; do
    local out rc raw ok=0 from=$mode
    [ $mode = unlinted ] && [ -n "$same" ] && from=linted
    out=$(cat "$dir/$name-$from.log") rc=$(cat "$dir/$name-$from.rc")
    # What a kernel printed reaches the report quoted: no byte a terminal acts on, all UTF-8.
    raw=$(checker/tools/check-quoted.py "$dir/$name-$from.log") && raw="" || raw="; $raw"
    # An attack with nothing to act on in either judge (no host code of a lesson file is
    # compiled, only device code) may pass, as long as it did nothing.
    { [ "$rc" -ne 0 ] && said "$out" "${expect[$mode]}"; } || { [ "$rc" -eq 0 ] && [ "$may" = yes ]; } && ok=1
    if [ -z "$effect" ] && no_gpu "$dir/$name-$from" "$lesson"; then # a side effect fails it all the same
      echo skip; printf '  skipped (no GPU): %s\n' "$name" >&2
    elif [ $ok = 1 ] && [ -z "$effect$raw" ] && ! leaks "$out" && ! misworded "$out"; then
      echo pass; printf '  refused, as it must (%-8s): %-22s ("%s")%s\n' "$mode" "$name" "${expect[$mode]}" \
        "$([ $from != $mode ] && echo " [the lint passes it: the linted check stands for this one]")" >&2
    else
      echo fail
      printf '  NOT REFUSED AS IT MUST (%s): %s (exit %d, expected "%s")%s%s; its report:\n%s\n' "$mode" "$name" "$rc" \
        "${expect[$mode]}" "${effect:+; $effect}" "$raw" "$(indent "$(tail -n 25 <<<"$out")")" >&2
    fi
  done
}

# One case, from its row (line N of this run's ordered table: no row's text is ever on a command
# line, where `pgrep -f` would see it): its verdicts (one a line) and "NAME seconds start"
# (start: seconds since the epoch, as the GPU lock's log stamps its holds) into this run's
# folder, its sentences on stderr as it ends.
grade_case() {
  local row t0=$EPOCHREALTIME kind name lesson source expect unlinted only needs timeout every sentinel may_pass \
    calibrates file v
  row=$(sed -n "$1p" "$run/table")
  IFS=$'\t' read -r kind name lesson source expect unlinted only needs timeout every sentinel may_pass calibrates \
    file <<<"$row" # (FIELDS, in its order)
  for v in kind name lesson source expect unlinted only needs timeout every sentinel may_pass calibrates file; do
    [ "${!v}" = - ] && printf -v "$v" '%s' ""
  done
  case $kind in
    solution | stub) grade_lesson "$kind" "$name" "$lesson" "$source" "$expect" ;;
    feature) grade_feature "$name" "$lesson" "$source" "$file" ;;
    mutant) grade_mutant "$name" "$lesson" "$source" "$expect" "$only" "$needs" "$timeout" "$every" ;;
    attack) grade_attack "$name" "$lesson" "$source" "$expect" "$unlinted" "$only" "$needs" "$sentinel" "$may_pass" "$file" ;;
  esac > "$run/$kind-$name.verdict"
  awk -v a="$t0" -v b="$EPOCHREALTIME" -v n="$kind-$name" 'BEGIN { printf "%s %.1f %.3f\n", n, b - a, a }' \
    > "$run/$kind-$name.took"
}
export -f reports said no_gpu leaks misworded indent grade_lesson grade_feature grade_mutant grade_attack grade_case
# This run's verdicts, apart from another run's beside it (make test runs the red team and the
# other cases at once).
run=$(mktemp -d build/cases-run.XXXXXX) || exit 2
trap 'rm -rf "$run"' EXIT
export make sfx run
for kind in solution feature mutant attack; do mkdir -p "$(reports $kind)"; done

# The longest first, so that none is left running alone at the end: by the last run's seconds,
# else by what a kind costs (a lesson runs every case and gate, an attack two checks of every
# case; a mutant stops at its first failure unless it must run them all).
weight() {
  awk -F'\t' -v times="$times" -v fields="$FIELDS" '
    BEGIN { while ((getline line < times) > 0) { split(line, f, " "); took[f[1]] = f[2] }
            n = split(fields, names, ","); for (i = 1; i <= n; i++) c[names[i]] = i }
    { kind = $c["kind"]; id = kind "-" $c["name"]
      w = (kind == "feature") ? 20 : ($c["every"] != "-" || $c["timeout"] != "-" || $c["calibrates"] == "yes") ? 25 : 10
      if (kind == "solution" || kind == "stub" || kind == "attack") w = 30
      if (id in took) w = took[id]
      printf "%s\t%s\n", w, $0 }' | sort -t $'\t' -k1,1 -rn -s | cut -f2-
}
# Survivors of the red team's earlier runs, and of this one's at its end (see grade_attack).
kill_survivors() { grep -q '^attack' <<<"$table" && flock build/redteam.lock pkill -f 'wb-redteam-surviv[o]r'; }
kill_survivors
# What every check shares (each lesson's judge, the runners, the reference side's objects) built
# once, first: checks side by side would otherwise build them at once, over each other.
$make -s --no-print-directory -j"$(nproc)" programs SRC="$([ -d solutions ] && echo solutions || echo exercises)" \
  EMU="${EMU:-}" > /dev/null 2>&1
echo "  $(wc -l <<<"$table") cases, $jobs at a time, in the $judge"
weight <<<"$table" > "$run/table"
seq "$(wc -l < "$run/table")" | xargs -r -P "$jobs" -I{} bash -c 'grade_case "$1"' _ {}
# A process an attack started that came up after its attack's own look is found here, with every
# run's attacks between their grading and their look done (the lock alone), then stopped.
late=""
grep -q '^attack' <<<"$table" && flock build/redteam.lock pgrep -f 'wb-redteam-surviv[o]r' > /dev/null && late=1
kill_survivors

# This run's times over the last ones' (under a lock: the red team's run may end beside this one).
(flock 9 && { cat "$run"/*.took; cat "$times"; } 2>/dev/null | sort -s -u -k1,1 > "$times.new" && mv "$times.new" "$times") 9> "$times.lock"
# Each kind's count, as its verdicts say (a case that left none failed).
status=0
while IFS=$'\t' read -r kind label; do
  pass=0 fail=0 skip=0 any=0
  while IFS=$'\t' read -r k name _; do
    [ "$k" = "$kind" ] || continue
    any=1
    v=$(cat "$run/$k-$name.verdict" 2>/dev/null)
    [ -n "$v" ] || v=fail
    pass=$((pass + $(grep -c '^pass$' <<<"$v"))) fail=$((fail + $(grep -c '^fail$' <<<"$v"))) skip=$((skip + $(grep -c '^skip$' <<<"$v")))
  done <<<"$table"
  [ $any = 1 ] || continue
  echo "$label: $pass passed, $fail failed$([ $skip -gt 0 ] && echo ", $skip skipped")"
  [ $fail -eq 0 ] || status=1
done <<EOF
solution	solutions ($judge)
stub	stubs ($judge)
feature	features ($judge)
mutant	mutants ($judge)
attack	red team ($judge)
EOF
if [ -n "$late" ]; then
  echo "  A PROCESS AN ATTACK STARTED SURVIVED the run (it came up after its attack's look; stopped now)"; status=1
fi
exit $status
