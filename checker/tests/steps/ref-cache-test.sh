#!/usr/bin/env bash
# The reference-side cache (WB_REF_CACHE, checker/judge/ref_cache.c): a lesson's stub graded on
# one seed without it, with an empty one (every batch a miss, then kept), with the entries (every
# batch a hit), and with entries damaged (a byte changed; one cut short, one emptied: each a
# miss, run again and kept whole): the same report every time. In the emulator by default; with
# --gpu by the GPU judge, its three smallest correctness cases alone (a timed job is never kept:
# its report is the moment's; and ONLY runs each job alone, two CUDA processes each).
#   Usage: checker/tests/steps/ref-cache-test.sh [--gpu] [LESSON]   (after make build-all)
set -u
judge_name=check-emu only=""
[ "${1:-}" = --gpu ] && judge_name=check only='correct ?x*' && shift
lesson=${1:-7}
folder=$(build/workbook lessons --lesson "$lesson" folder) || exit 1
judge=build/exercises/$folder/$judge_name
[ -x "$judge" ] || { echo "ref-cache test: no $judge (make build-all first)"; exit 1; }
T=$(mktemp -d /tmp/wb-ref-cache-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { echo "  FAILED: $*"; fail=1; }
grade() { # grade NAME CACHE: the report, and the cache's trace of this grading
  SEED=4242 ONLY=$only WB_REF_CACHE=$2 WB_REF_CACHE_TRACE=$T/$1.trace WB_RESULT_FILE= "$judge" 2>&1 |
    grep -v '^Inputs from seed' > "$T/$1.log"
  touch "$T/$1.trace"
}
said() { sort -u "$T/$1.trace" | awk '{print $1}' | sort -u | tr '\n' ' '; }
grade plain ""
grade first "$T/cache"
grade again "$T/cache"
entries=("$T"/cache/ref-*)
[ ${#entries[@]} -ge 3 ] && [ -f "${entries[0]}" ] || bad "fewer than 3 entries kept: ${#entries[@]}"
[ "$(said first)" = "kept miss " ] || bad "an empty cache: every batch a miss, then kept; the trace says: $(said first)"
[ "$(said again)" = "hit " ] || bad "the same grading again: every batch a hit; the trace says: $(said again)"
cmp -s "$T/plain.log" "$T/first.log" && cmp -s "$T/plain.log" "$T/again.log" ||
  bad "the reports differ with and without the cache: $(diff "$T/plain.log" "$T/again.log" | head -5)"
# One entry with a byte of its middle changed; then one cut short and one emptied.
e0=${entries[0]} e1=${entries[1]} e2=${entries[2]}
byte=$(($(stat -c %s "$e0") / 2))
printf '%b' "\\x$(printf '%02x' $(( $(od -An -tu1 -j $byte -N 1 "$e0") ^ 0x5a )))" |
  dd of="$e0" bs=1 seek=$byte conv=notrunc status=none
grade flipped "$T/cache"
truncate -s $(($(stat -c %s "$e1") - 3)) "$e1"
: > "$e2"
grade damaged "$T/cache"
for g in flipped damaged; do
  grep -q '^miss' "$T/$g.trace" && grep -q '^kept' "$T/$g.trace" ||
    bad "$g entries were not taken for misses and kept again; the trace says: $(said $g)"
  cmp -s "$T/plain.log" "$T/$g.log" || bad "$g entries changed the report: $(diff "$T/plain.log" "$T/$g.log" | head -5)"
done
grade after "$T/cache" # each entry written whole again (its CPU time is this run's: not the same bytes)
[ "$(said after)" = "hit " ] || bad "after the damaged entries were kept again: every batch a hit; the trace says: $(said after)"
[ $fail = 0 ] && echo "ref cache ($judge_name): the same report without it, empty, full and damaged (${#entries[@]} entries)"
exit $fail
