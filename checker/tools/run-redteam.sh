#!/usr/bin/env bash
# The red-team catalogue (checker/redteam/*.mutant): lesson files that try to forge a verdict or
# to act on the grader. Each is graded twice by the judge EMU selects: as a student's file (it
# must fail with `expect:`, usually the lint's sentence), and with the lint skipped
# (WB_SKIP_LINT=1), so that the layers below it are tried too: the compiler, the gate on the
# cubin, the interpreter, its tracer and its sandbox (it must fail with `expect-unlinted:`; an
# attack whose file says `may-pass:` why it has nothing to act on may pass). Either way
# the side effect must not happen: the `sentinel:` file must not exist afterwards, and no
# process the attack started may survive (an attack that starts one names it
# wb-redteam-survivor, which nothing else does).
set -u
make=${MAKE:-make}
reports=build/redteam$([ -n "${EMU:-}" ] || echo -gpu) # each judge its own: make test runs both at once
pass=0 fail=0
judge=$([ -n "${EMU:-}" ] && echo emulator || echo GPU)
# One red team at a time on this machine (make test runs both judges at once on a GPU machine):
# an attack's sentinel is the same file whichever judge grades it.
mkdir -p build && exec 9> build/redteam.lock && flock 9
# (The pattern's [o] keeps one pgrep from matching another's own command line: attacks run side
# by side.)
pkill -f 'wb-redteam-surviv[o]r' 2>/dev/null
rm -f /tmp/wb-redteam-*
# Names given on the command line: only those.
files=(checker/redteam/*.mutant)
[ $# -gt 0 ] && files=("${@/#/checker/redteam/}") && files=("${files[@]/%/.mutant}")
# One mode of an attack graded (both modes of one attack run at once, a core each).
grade_mode() { # grade_mode FILE MODE: the report into DIR.log, the exit status into DIR.rc
  local file=$1 mode=$2 dir=$reports/$(basename "$1" .mutant)-$2 needs
  needs=$(sed -n 's/^gpu-needs: //p' "$file")
  (if [ "$mode" = unlinted ]; then export WB_SKIP_LINT=1; fi
   # A GPU attack only a compute-sanitizer gate sees (gpu-needs: SANITIZE) runs with it on.
   if [ -n "$needs" ] && [ "$judge" = GPU ]; then export "$needs=1"; fi
   $make -s --no-print-directory check SRC="$dir" LESSON="$(sed -n 's/^lesson: //p' "$file")" > "$dir.log" 2>&1
   echo $? > "$dir.rc")
}
# One attack, both modes at once, then its side effects; its report printed whole, its counts
# into $reports/NAME.count. Attacks run side by side (a pool, below): a process one of them left
# may then be seen by another's check, but a survivor is never killed before every check has
# looked (pkill runs once, at the end), so none goes unseen.
attack() {
  local file=$1 name sentinel modes=() mode dir expect out rc said effect="" pass=0 fail=0 text=""
  name=$(basename "$file" .mutant)
  sentinel=$(sed -n 's/^sentinel: //p' "$file")
  for mode in linted unlinted; do
    if build/workbook mutate "$file" "$reports/$name-$mode" > /dev/null 2>&1; then modes+=("$mode")
    else fail=$((fail + 1)); text+="  CANNOT BUILD ATTACK $name ($mode)"$'\n'; fi
  done
  for mode in "${modes[@]}"; do grade_mode "$file" "$mode" & done
  wait
  [ -n "$sentinel" ] && [ -e "$sentinel" ] && effect="it made $sentinel"
  pgrep -f 'wb-redteam-surviv[o]r' > /dev/null && effect="${effect:+$effect; }a process it (or an attack beside it) started survived"
  for mode in "${modes[@]}"; do
    dir=$reports/$name-$mode
    expect=$(sed -n "s/^expect$([ $mode = unlinted ] && echo -unlinted): //p" "$file")
    out=$(cat "$dir.log") rc=$(cat "$dir.rc")
    said=0
    while IFS= read -r phrase; do grep -qF -- "$phrase" <<<"$out" && said=1; done < <(sed 's/ | /\n/g' <<<"$expect")
    # Some attacks have nothing to act on in either judge (no host code of a lesson file is
    # compiled, only device code): one whose file says why (may-pass:) may pass, as long as it
    # did nothing.
    [ "$rc" -eq 0 ] && grep -q '^may-pass: ' "$file" && said=1 && rc=1
    if grep -q 'cannot be graded on a GPU' <<<"$out"; then
      text+="  skipped (no GPU): $name"$'\n'; continue
    elif [ "$rc" -ne 0 ] && [ $said = 1 ] && [ -z "$effect" ]; then
      pass=$((pass + 1)); text+=$(printf '  refused, as it must (%-8s): %-22s ("%s")' "$mode" "$name" "$expect")$'\n'
    else
      fail=$((fail + 1))
      text+=$(printf '  NOT REFUSED AS IT MUST (%s): %s (exit %d, expected "%s")%s; its report:' "$mode" "$name" "$rc" "$expect" "${effect:+; $effect}")$'\n'
      text+=$(sed 's/^/    | /' <<<"$out" | tail -n 25)$'\n'
    fi
  done
  [ -n "$sentinel" ] && [ -e "$sentinel" ] && rm -f "$sentinel"
  printf '%s' "$text"
  echo "$pass $fail" > "$reports/$name.count"
}
export -f attack grade_mode
export make reports judge
mkdir -p "$reports" && rm -f "$reports"/*.count
# The emulator's two judges an attack a core each; on a GPU, GPU_JOBS judges at a time in all.
# (Without the lock's descriptor: a process an attack left must not keep the next run waiting.)
printf '%s\n' "${files[@]}" |
  xargs -r -P "$(( ($([ -n "${EMU:-}" ] && nproc || echo "${GPU_JOBS:-2}") + 1) / 2 ))" -I{} bash -c 'attack {}' 9>&-
for file in "${files[@]}"; do
  read -r p f < "$reports/$(basename "$file" .mutant).count" 2>/dev/null || { p=0 f=2; }
  pass=$((pass + p)) fail=$((fail + f))
done
if pgrep -f 'wb-redteam-surviv[o]r' > /dev/null; then
  fail=$((fail + 1)); echo "  A PROCESS AN ATTACK STARTED SURVIVED the red team's run"
fi
pkill -f 'wb-redteam-surviv[o]r' 2>/dev/null
echo "red team ($judge): $pass passed, $fail failed"
[ $fail -eq 0 ]
