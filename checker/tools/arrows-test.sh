#!/usr/bin/env bash
# make arrows-test: the rooms of checker/ include only what docs/architecture.md lets them, as the
# compiler itself reads each source file (`cc -MM`, every header it opens, transitively), not as a
# pattern match of #include lines. A runner only runs kernels and reports: it must not see the
# judge's comparison, gates, records or registry; the families and the bank model stand on the
# ground floor alone; the ground floor (checker/include/) includes nothing above it.
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
# room (its sources)   the headers they may read: a folder ends in /, a name is checker/include/NAME
rules() {
  cat <<'EOF'
checker/runner        checker/runner/ bank_model.h counts.h family.h gpu_job.h gpu_turn.h half.h isolate.h poison.h residues.h tolerance.h
checker/families      family.h reference.h residues.h tolerance.h
checker/model         bank_model.h counts.h
checker/src           checker/include/
checker/judge         checker/judge/ checker/include/
checker/commands      checker/commands/ checker/include/
checker/include       checker/include/
EOF
}
flags="-std=gnu11 -MM -MG -Ichecker/include -Ichecker/runner -Ichecker/runner/emu -Ichecker/runner/ptx -Ichecker/judge -Ichecker/commands"
pass=0 fail=0
while read -r room allowed; do
  bad=""
  for src in $(find "$room" -name '*.c' -o -name '*.h' -o -name '*.cu' | sort); do
    # The headers the compiler opens for it (a missing one, e.g. CUDA's, is named as it was written).
    deps=$($CC $flags -x c "$src" 2>&1 | tr ' \\' '\n\n' | grep -E '\.(h|cuh)$' | grep '^checker/') ||
      { bad+="  $src: the compiler could not read it"$'\n'; continue; }
    for h in $deps; do
      ok=0
      for a in $allowed; do
        case $a in
          */) [[ $h == "$a"* ]] && ok=1 ;;
          *) [ "$h" = "checker/include/$a" ] && ok=1 ;;
        esac
      done
      [ $ok = 1 ] || bad+="  $src reads $h"$'\n'
    done
  done
  if [ -z "$bad" ]; then pass=$((pass + 1)); echo "  $room: only what it may read"
  else fail=$((fail + 1)); printf '  %s READS WHAT IT MAY NOT (docs/architecture.md):\n%s' "$room" "$bad"; fi
done < <(rules)
echo "arrows: $pass passed, $fail failed"
[ $fail -eq 0 ]
