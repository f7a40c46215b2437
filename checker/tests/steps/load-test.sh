#!/usr/bin/env bash
# A correct kernel must never fail because the machine is busy: every solution graded RUNS times
# (default 2) in the emulator while stress-ng keeps every core busy; each run must score full
# marks. The emulator's hang limit is CPU time, at least TIMEOUT and 20 times what the reference
# needed (checker/judge/jobs.c), so the load may slow a run but not fail it.
set -u
make=${MAKE:-make}
runs=${RUNS:-2}
# In make test the reference side's results are kept (WB_REF_CACHE), most of them measured
# before the load: the student's side then runs loaded against budgets taken from an unloaded
# reference, the harder case for the rule above.
if ! command -v stress-ng > /dev/null; then
  echo "load test: no stress-ng here (apt-get install stress-ng; make test's first step installs it as root)"; exit 1
fi
$make -s --no-print-directory programs SRC=solutions EMU=1 > /dev/null 2>&1
# The lessons graded as many at once as there are cores, beside as many burners: the machine
# twice over-full, and the run over sooner than one grading at a time.
lessons=$(build/workbook lessons number)
T=$(mktemp -d /tmp/wb-load-XXXXXX)
stress-ng --cpu "$(nproc)" --timeout 1800s --quiet & burner=$!
trap 'kill $burner 2>/dev/null; wait $burner 2>/dev/null; rm -rf "$T"' EXIT
# The load must be there all along, or a pass here says nothing: stress-ng that could not start
# (a library missing, say) fails the test, as does one that ended before the gradings did.
burning() {
  kill -0 $burner 2>/dev/null && return 0
  wait $burner; echo "load test: stress-ng is not running (it exited with status $?), so nothing was graded under load"
  exit 1
}
sleep 1
burning
pass=0 fail=0
for i in $(seq "$runs"); do
  t0=$(date +%s)
  rm -f "$T"/*.log
  for n in $lessons; do build/workbook record solutions "$n" --forget; done # no earlier run's record is read as this one's
  # Each with the 1,024 open files an ordinary user's shell allows a process (a grader run as root
  # may allow more): a batch of jobs once needed file numbers past 1,000, and lessons 7 and 9 failed
  # for every student, never for root.
  xargs -P "$(nproc)" -I{} sh -c "ulimit -Sn 1024; $make -s --no-print-directory check SRC=solutions LESSON={} EMU=1 > $T/{}.log 2>&1; echo \$? > $T/{}.rc" <<<"$lessons"
  burning
  full=0 wrong=""
  for n in $lessons; do
    # Full marks, as the check's exit status and its record say (not its report's last line).
    if [ "$(cat "$T/$n.rc")" = 0 ] && build/workbook record solutions "$n" |
      awk '{ v[$1] = $2 } END { exit !(v["ran"] && v["passed"] && v["points"] == v["max_points"]) }'; then
      full=$((full + 1)); else wrong="$wrong $n"; fi
  done
  if [ -z "$wrong" ]; then
    pass=$((pass + 1)); echo "  run $i: $full lessons, each full marks, in $(( $(date +%s) - t0 )) s, with every core busy"
  else
    fail=$((fail + 1)); echo "  run $i FAILED under load, lessons$wrong:"
    for n in $wrong; do grep -E 'FAILED|Score|answer' "$T/$n.log" | sed 's/^/    | /'; done
  fi
done
echo "load test: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
