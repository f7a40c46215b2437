#!/usr/bin/env bash
# make arrows-test: the rooms of checker/ include only what docs/architecture.md lets them, as the
# compiler itself reads each source file (`cc -MM`; `nvcc -M` for .cu files: every file it opens,
# transitively, header or not), not as a pattern match of #include lines. A runner only runs kernels and reports: it must not see the
# judge's comparison, gates, records or registry; the families and the bank model stand on the
# ground floor alone; the ground floor (checker/include/) includes nothing above it. Inside the
# judge, each file reads only the headers of the layers below its own (judge_layers).
set -u
cd "$(dirname "$0")/../.."
CC=${CC:-cc}
# room (its sources)   the headers they may read: a folder ends in /, a name is checker/include/NAME
rules() {
  cat <<'EOF'
checker/runner        checker/runner/ bank_model.h counts.h family.h gpu_job.h gpu_turn.h half.h isolate.h lazy_input.h occupancy.h poison.h residues.h tolerance.h
checker/families      family.h reference.h residues.h tolerance.h
checker/model         bank_model.h counts.h
checker/src           checker/include/
checker/judge         checker/judge/ checker/include/
checker/commands      checker/commands/ checker/include/
checker/compile       checker/compile/ intake.h
checker/include       checker/include/
EOF
}
# (main.c, the judge built per lesson, is read as lesson 1's.)
inc="-Ichecker/include -Ichecker/runner -Ichecker/runner/emu -Ichecker/runner/ptx -Ichecker/judge -Ichecker/commands -DWB_LESSON=1 -DWB_HAVE_SOLUTION=1"
NVCC=${NVCC:-$(command -v nvcc)}
# deps SRC: every file under checker/ that the compiler opens for SRC (itself left out), its path
# made plain (a "../judge/x.h" reached from checker/runner is checker/judge/x.h); a .cu file as
# nvcc reads it (its device and host passes), where there is one. False when the compiler failed.
deps() {
  local out
  case $1 in
    *.cu) if [ -n "$NVCC" ]; then out=$("$NVCC" -M $inc "$1" 2>&1); else out=$($CC -MM -MG -x c++ -D__CUDACC__ $inc "$1" 2>&1); fi ;;
    *) out=$($CC -std=gnu11 -MM -MG -x c $inc "$1" 2>&1) ;;
  esac || { printf '%s\n' "$out" >&2; return 1; }
  tr ' \\' '\n\n' <<<"$out" | grep -v -e ':$' -e '^$' | xargs -r -d '\n' realpath -m --relative-to=. -- |
    grep '^checker/' | grep -vxF -- "$1"
  return 0
}
# deps_of[SRC]: the same, each file's list made once (the judge's files are read twice below);
# load_deps SRC fills it, false when the compiler failed.
declare -A deps_of
load_deps() {
  [ -n "${deps_of[$1]+set}" ] && return 0
  deps_of[$1]=$(deps "$1" 2> /dev/null) || { unset "deps_of[$1]"; return 1; }
}
pass=0 fail=0
while read -r room allowed; do
  bad=""
  for src in $(find "$room" \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort); do
    load_deps "$src" && list=${deps_of[$src]} || { bad+="  $src: the compiler could not read it"$'\n'; continue; }
    for h in $list; do
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

# The interpreter's engine header is its running rooms' own (docs/architecture.md): the rest of the
# runner calls ptx_exec.h.
engine=checker/runner/ptx/ptx_engine.h bad=""
for src in "${!deps_of[@]}"; do
  room=${src#checker/runner/ptx/ptx_}
  [[ $src == checker/runner/ptx/ptx_*.c && " exec.c insn.c warp.c memory.c " == *" $room "* ]] && continue
  [ "$src" = "$engine" ] && continue
  grep -qxF "$engine" <<<"${deps_of[$src]}" && bad+="  $src reads $engine, the interpreter's running rooms' own"$'\n'
done
if [ -z "$bad" ]; then pass=$((pass + 1)); echo "  $engine: read by the interpreter's running rooms alone"
else fail=$((fail + 1)); printf '  THE ENGINE'"'"'S HEADER IS READ OUTSIDE ITS ROOMS (docs/architecture.md):\n%s' "$bad"; fi

# Inside the judge, its own files stand in layers, the lowest first (docs/architecture.md): a file
# (its .c and its .h) may read only the headers of the files on the layers below its own, so
# that their calls go one way and none calls back up. A file on no layer is refused too: a new
# file of the judge is given its place here.
judge_layers() {
  cat <<'EOF'
check_run quiet_cmocka
gpu_share spawn
ref_cache
jobs
judge tools
counting
main
EOF
}
declare -A layer_of layer_names
n=0
while read -r names; do
  n=$((n + 1))
  for name in $names; do layer_of[$name]=$n layer_names[$name]=$names; done
done < <(judge_layers)
bad=""
for src in $(find checker/judge \( -name '*.c' -o -name '*.h' \) | sort); do
  name=$(basename "${src%.*}")
  own=${layer_of[$name]:-}
  if [ -z "$own" ]; then bad+="  $src is on no layer of the judge's: give it its place in judge_layers ($0)"$'\n'; continue; fi
  load_deps "$src" && list=${deps_of[$src]} || { bad+="  $src: the compiler could not read it"$'\n'; continue; }
  for h in $(grep '^checker/judge/' <<<"$list"); do
    other=$(basename "${h%.*}")
    [ "$other" = "$name" ] && continue
    at=${layer_of[$other]:-}
    if [ -z "$at" ]; then
      bad+="  $src reads $h, which is on no layer of the judge's"$'\n'
    elif [ "$at" -ge "$own" ]; then
      bad+="  $src (layer $own: ${layer_names[$name]}) reads $h, of layer $at (${layer_names[$other]}): a file of the"
      bad+=" judge may include only the headers of the layers below its own"$'\n'
    fi
  done
done
if [ -z "$bad" ]; then pass=$((pass + 1)); echo "  checker/judge: each file reads only the layers below its own"
else fail=$((fail + 1)); printf '  checker/judge READS A LAYER NOT BELOW ITS OWN (docs/architecture.md):\n%s' "$bad"; fi
echo "arrows: $pass passed, $fail failed"
[ $fail -eq 0 ]
