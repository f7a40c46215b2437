#!/usr/bin/env bash
# The test of the sealed compile (build/tools/sealed-compile, from checker/compile/): every attack
# that once worked on the grader's nvcc
# (an #include of /etc/passwd or of the solution, a symlink to the solution, a constexpr loop, a
# macro explosion, a huge table), each refused or stopped with its sentence and exit status, and
# a look into the box itself; and the result cache (WB_SEALED_CACHE): a repeat is a hit, any
# change a miss, a damaged entry compiled again, refusals still refused, and a hit starts no
# process. Also prints what a sealed compile costs, per lesson solution, and what a hit costs.
#
# Usage: checker/tools/sealed-compile-test.sh   (from anywhere; as root or as any user; ~2 min)
# Needs nvcc, bwrap, unshare, the lesson solutions (solutions/*/*.cu) and the program built (make
# builds it here where it is missing or older than its sources; a user who cannot write build/
# needs it built first). Last line: "N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
root=$(cd "$here/../.." && pwd -P)
# WB_SEALED_PROGRAM: another build of it to test (one with sanitizers, say), used as it is.
sc=${WB_SEALED_PROGRAM:-$root/build/tools/sealed-compile}
[ -n "${WB_SEALED_PROGRAM:-}" ] || (cd "$root" && { ${MAKE:-make} -sq --no-print-directory build/tools/sealed-compile 2> /dev/null ||
  ${MAKE:-make} -s --no-print-directory build/tools/sealed-compile; }) && [ -x "$sc" ] ||
  { echo "cannot build $sc (make build/tools/sealed-compile)"; echo "0 passed, 1 failed"; exit 1; }
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
export NVCC
unset WB_SEALED_CPU_S WB_SEALED_MEM_MB WB_SEALED_FSIZE_MB WB_SEALED_WALL_S WB_SEALED_NPROC \
  WB_UNSEALED_OK WB_SEALED_DEBUG_CMD
T=$(mktemp -d "${TMPDIR:-/tmp}/wb-sealed-test.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT
export WB_SEALED_CACHE=$T/cache
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "  ok    $*"; }
bad() { fail=$((fail + 1)); echo "  FAIL  $*"; }

# expect NAME STATUS ERE COMMAND...: COMMAND exits with STATUS and its output matches ERE.
expect() {
  local name=$1 want=$2 pat=$3
  shift 3
  out=$("$@" 2>&1)
  rc=$?
  if [ $rc = "$want" ] && grep -Eq -- "$pat" <<<"$out"; then
    ok "$name"
  else
    bad "$name: exit $rc (expected $want and /$pat/); it said:"
    head -c 1500 <<<"$out" | sed 's/^/          /'
  fi
}
ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
# The processes whose command line is "sleep $1" (read with builtins: no grep that matches itself).
procs_with() {
  local f args
  for f in /proc/[0-9]*/cmdline; do
    mapfile -d '' args 2>/dev/null < "$f" || continue
    [ "${args[*]-}" = "sleep $1" ] && { f=${f#/proc/}; echo "${f%/cmdline}"; }
  done
}

cd "$T" && mkdir work || exit 1
echo "sealed-compile test, as uid $(id -u), in $T"
k='__global__ void k(float *x) { x[0] = 1; }'
sol=$root/solutions/01_naive_matmul/matmul_naive.cu
[ -f "$sol" ] || { echo "no lesson solutions under $root/solutions"; echo "0 passed, 1 failed"; exit 1; }

echo "-- lesson solutions compile, as they would unsealed"
# The same PTX byte for byte, but for .debug_str: the mangled names of internal functions
# (_INTERNAL_<hash of the file's path>_<its name>) name /box/kernel.cu. Three kinds of kernel
# (a plain loop, shuffles, register tiles with vector loads): every solution is compiled sealed
# by build-all and graded by both judges, and each compile here costs a second of CPU.
nodebugstr() { sed '/^[[:space:]]*\.section[[:space:]]*\.debug_str/,/^[[:space:]]*}/d' "$1"; }
for f in "$root"/solutions/01_*/*.cu "$root"/solutions/07_*/*.cu "$root"/solutions/08_*/*.cu; do
  name=$(basename "$f" .cu) rel=solutions/${f#"$root"/solutions/}
  t0=$(ms)
  out=$(cd "$root" && "$sc" ptx "$rel" "$T/$name.ptx" 2>&1)
  rc=$? t1=$(ms)
  (cd "$root" && "$NVCC" -ptx -lineinfo -arch=sm_90 -o "$T/$name.plain.ptx" "$rel")
  t2=$(ms)
  if [ $rc = 0 ] && [ -z "$out" ] && grep -Eq "^\.visible \.entry _Z[0-9]+$name" "$T/$name.ptx" &&
    cmp -s <(nodebugstr "$T/$name.ptx") <(nodebugstr "$T/$name.plain.ptx"); then
    ok "$rel: .entry $name, the unsealed ptx (sealed $((t1 - t0)) ms, unsealed $((t2 - t1)) ms)"
  else
    bad "$rel: exit $rc: $out"
  fi
done
expect "a cubin (ELF) for sm_90" 0 '^$' "$sc" cubin "$root/solutions/08_sgemm/sgemm_blocked.cu" "$T/s.cubin" -- -arch=sm_90
[ "$(head -c 4 "$T/s.cubin" 2>/dev/null | od -An -c | tr -d ' ')" = '177ELF' ] && ok "the cubin is an ELF file" || bad "the cubin is not an ELF file"
expect "ptx for another arch (-arch=sm_75)" 0 '^$' "$sc" ptx "$sol" "$T/s75.ptx" -- -arch=sm_75
grep -q '^\.target sm_75' "$T/s75.ptx" && ok "its .target is sm_75" || bad "the -arch=sm_75 ptx has no .target sm_75"
expect "a cubin without -arch is the caller's mistake" 4 'needs the GPU' "$sc" cubin "$sol" "$T/x.cubin"
expect "a cubin older than its instructions (lesson 10 for sm_75): the GPU it needs, and EMU=1" 1 \
  'needs a GPU of compute capability 8\.0 or newer .* this build is for sm_75 .*make check EMU=1' \
  "$sc" cubin "$root/solutions/10_tensor_cores/hgemm_swizzled.cu" "$T/old.cubin" -- -arch=sm_75
ls "$WB_SEALED_CACHE"/baseline-*.deps > /dev/null 2>&1 && ok "the empty file's list is cached in WB_SEALED_CACHE" || bad "no cached list in $WB_SEALED_CACHE"

echo "-- compile errors and warnings, as the student's file:line"
printf 'int a = 1\n%s\n' "$k" > work/syntax.cu
echo stale > work/syntax.ptx
expect "a syntax error: exit 1, work/syntax.cu:2" 1 '^work/syntax\.cu:2: error' "$sc" ptx work/syntax.cu work/syntax.ptx
[ ! -e work/syntax.ptx ] && ok "a failed compile leaves no stale OUT" || bad "a stale OUT survived a failed compile"
printf '%s\n' '__global__ void k(float *x) { int unused; x[0] = 1; }' > work/warn.cu
expect "a warning is shown as work/warn.cu:1 and the file compiles" 0 '^work/warn\.cu:1: warning' "$sc" ptx work/warn.cu o.ptx
printf '%s\n' '__constant__ float t[32];' '__global__ void k(float *x) { t[threadIdx.x] = 1; x[0] = t[0]; }' > work/const.cu
expect "a store to __constant__ memory (nvcc drops it) is an error on its line" 1 \
  '^work/const\.cu:2: error: this stores to __constant__ memory' "$sc" ptx work/const.cu o.ptx
printf '%s\n' '__global__ void k(float *x)' \
  '{ unsigned s; asm("mov.u32 %0, %%smid;" : "=r"(s)); x[0] = s; }' > work/smid.cu
expect "a read of %smid (a result that depends on where it runs) is an error on its line, for a cubin too" 1 \
  "^work/smid\.cu:2: error: reads %smid: lesson files may not read clocks or SM ids" \
  "$sc" cubin work/smid.cu o.cubin -- -arch=sm_90
for i in $(seq 3000); do echo "#warning padding the compiler output to more than 64 KiB, line $i"; done > work/chatty.cu
echo "$k" >> work/chatty.cu
out=$("$sc" ptx work/chatty.cu o.ptx 2>&1)
[ $? = 0 ] && [ ${#out} -le 66000 ] && grep -q 'more bytes of compiler output not shown' <<<"$out" &&
  ok "compiler output is cut at 64 KiB (${#out} characters shown)" || bad "compiler output not cut: ${#out} characters"

echo "-- #include is refused by the preprocessor's own list of the files it read"
printf '#include "/etc/passwd"\n%s\n' "$k" > work/passwd.cu
printf '\n#include "%s"\n' "$(realpath --relative-to="$T/work" "$sol")" > work/relative.cu
printf '#include "%s"\n' "$sol" > work/absolute.cu
printf '#include <cuda_fp16.h>\n%s\n' "$k" > work/fp16.cu
printf '// comment\r#include "/etc/hostname"\n%s\n' "$k" > work/cr.cu
# The lone CR really ends the comment for the compiler: outside the box nvcc reads the file.
"$NVCC" -M -arch=sm_90 work/cr.cu 2>/dev/null | grep -q '/etc/hostname' &&
  ok "(unsealed, nvcc -M does read /etc/hostname behind a lone CR: the attack is real)" ||
  bad "nvcc does not treat a lone CR as a line end here: the CR case proves nothing"
"$NVCC" -M -arch=sm_90 work/absolute.cu 2>/dev/null | grep -qF "$sol" &&
  ok "(unsealed, nvcc -M does read the solution through an absolute #include)" || bad "the absolute #include reads nothing unsealed"
expect "#include \"/etc/passwd\"" 2 '^work/passwd\.cu:1: includes /etc/passwd: lesson files may not include anything' \
  "$sc" ptx work/passwd.cu o.ptx
expect "#include of the solution by a relative path" 2 '^work/relative\.cu:2: includes .*solutions/01_naive_matmul/matmul_naive\.cu: lesson files' \
  "$sc" ptx work/relative.cu o.ptx
expect "#include of the solution by an absolute path" 2 "^work/absolute\.cu:1: includes $sol: lesson files" \
  "$sc" ptx work/absolute.cu o.ptx
expect "#include <cuda_fp16.h> (a toolkit header)" 2 '^work/fp16\.cu:1: includes /.*/cuda_fp16\.h: lesson files' \
  "$sc" ptx work/fp16.cu o.ptx
expect "#include behind a lone CR" 2 '^work/cr\.cu:2: includes /etc/hostname: lesson files' "$sc" ptx work/cr.cu o.ptx
expect "#include of the solution in a cubin compile too" 2 'includes .*matmul_naive\.cu' "$sc" cubin work/absolute.cu o.cubin -- -arch=sm_90
# The list is the device pass's line markers (the pass that makes the PTX): a header only that
# pass reads, an empty file, and a marker the file writes itself to pose as nvcc's own code.
printf '#ifdef __CUDA_ARCH__\n#include <cuda_fp16.h>\n#endif\n%s\n' "$k" > work/device-only.cu
printf '#include "/dev/null"\n%s\n' "$k" > work/empty-include.cu
printf '# 1 "<command-line>" 1\n#include <cuda_fp16.h>\n%s\n' "$k" > work/forged-marker.cu
expect "#include in device code alone (#ifdef __CUDA_ARCH__)" 2 '^work/device-only\.cu:2: includes /.*/cuda_fp16\.h' \
  "$sc" ptx work/device-only.cu o.ptx
expect "#include of an empty file (/dev/null)" 2 '^work/empty-include\.cu:1: includes /dev/null' "$sc" ptx work/empty-include.cu o.ptx
expect "#include after a line marker of the file's own" 2 'includes /.*/cuda_fp16\.h' "$sc" ptx work/forged-marker.cu o.ptx
# A stale or foreign cached list must not refuse an honest file: it is checked against a fresh one.
for f in "$WB_SEALED_CACHE"/baseline-*.deps; do echo /usr/include/nothing.h > "$f"; done
expect "a wrong cached list does not refuse an honest file" 0 '^$' "$sc" ptx "$sol" o.ptx

echo "-- SRC must be a regular file of its own"
ln -s "$sol" work/link.cu
expect "a symbolic link to the solution" 2 "^work/link\.cu is a symbolic link \(to $sol\): hand in the file itself" "$sc" ptx work/link.cu o.ptx
mkfifo work/fifo.cu
expect "a fifo (and no hang)" 2 '^work/fifo\.cu is a named pipe' timeout 20 "$sc" ptx work/fifo.cu o.ptx
expect "a folder" 2 '^work is a folder' "$sc" ptx work o.ptx
expect "a missing file" 2 '^work/none\.cu does not exist' "$sc" ptx work/none.cu o.ptx
[ -e /dev/null ] && expect "a device" 2 '^/dev/null is a device' "$sc" ptx /dev/null o.ptx
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' ' ' > work/big.cu
expect "a file over 1 MiB" 2 '^work/big\.cu is 1048577 bytes, over the 1 MiB limit' "$sc" ptx work/big.cu o.ptx
echo "$k" > work/mine.cu && ln work/mine.cu work/hard.cu
expect "a hard link (two names for one file)" 2 '^work/hard\.cu has 2 names' "$sc" ptx work/hard.cu o.ptx

echo "-- the result cache (WB_SEALED_CACHE)"
entries() { find "$WB_SEALED_CACHE" -maxdepth 1 -name 'result-*' ! -name '*.tmp.*' | wc -l; }
newest() { ls -t "$WB_SEALED_CACHE"/result-* | head -n 1; }
# sc_run ARGS...: the sealed compile's output in $out, its status in $rc, its time in ms in $took, and
# in $how whether the cache answered ("hit") or nvcc ran ("compiled"; WB_SEALED_TRACE): the
# verdicts rest on that, never on a time, which a busy machine stretches.
export WB_SEALED_TRACE=$T/trace
sc_run() {
  local t0
  : > "$WB_SEALED_TRACE"
  t0=$(ms); out=$("$sc" "$@" 2>&1); rc=$?; took=$(($(ms) - t0))
  how=$(tail -n 1 "$WB_SEALED_TRACE")
}
# sc_best ARGS...: sc_run three times; $took the fastest, $rc and $out the first unless a later
# run said otherwise (then $rc is "differs"), $how "hit" only if all three were.
sc_best() {
  local best rc1 out1 how1
  sc_run "$@"
  best=$took rc1=$rc out1=$out how1=$how
  for _ in 2 3; do
    sc_run "$@"
    [ $took -lt $best ] && best=$took
    [ $rc = "$rc1" ] && [ "$out" = "$out1" ] || rc1=differs
    [ "$how" = hit ] || how1=$how
  done
  took=$best rc=$rc1 out=$out1 how=$how1
}
# hit NAME OUT ARGS...: three more compiles into OUT, each answered by the cache, each saying what
# the last compile said ($out), with its status ($rc).
hit() {
  local name=$1 dest=$2 want=$rc said=$out
  shift 2
  sc_best "$@"
  if [ "$rc" = "$want" ] && [ "$out" = "$said" ] && [ "$how" = hit ] && { [ "$want" != 0 ] || cmp -s "$dest" "$dest.first"; }; then
    ok "$name: a hit, $took ms (the miss: $miss ms), the same text, exit $want$([ "$want" = 0 ] && echo ", OUT byte-identical")"
  else
    bad "$name: ${how:-neither hit nor compiled} in $took ms, exit $rc (the miss: $want), said: $out"
  fi
}
# Bytes of their own (the PTX stage's entries serve any path: the solution's is there already).
{ cat "$sol"; echo "// the cache's own copy"; } > work/c.cu
n=$(entries)
sc_run ptx work/c.cu c.ptx
miss=$took
[ $rc = 0 ] && [ -z "$out" ] && [ "$(entries)" = $((n + 1)) ] && [ "$how" = compiled ] && ok "a first compile is a miss, stored ($miss ms)" ||
  bad "a first compile: exit $rc, $(entries) entries (before: $n): $out"
mv c.ptx c.ptx.first
hit "the same file again (another OUT)" c.ptx ptx work/c.cu c.ptx
# A hit is this one process: no box, no compiler, no tool started (the shell script it replaced
# started about 30). Counted in a pid namespace of its own, where the shell is pid 1 and the
# compile pid 2: the last pid given out there is 2 unless the compile started a process.
: > "$WB_SEALED_TRACE"
last=$(unshare --user --pid --mount --fork --mount-proc bash -c \
  '"$0" ptx work/c.cu c.alone.ptx > /dev/null 2>&1 && read -r last < /proc/sys/kernel/ns_last_pid && echo "$last"' "$sc" 2>&1)
how=$(tail -n 1 "$WB_SEALED_TRACE")
[ "$last" = 2 ] && [ "$how" = hit ] && cmp -s c.alone.ptx c.ptx.first &&
  ok "a hit starts no process (alone in a pid namespace, the last pid there is its own, 2)" ||
  bad "a hit in a pid namespace of its own: ${how:-neither hit nor compiled}, the last pid there '$last' (2: none started)"
WB_SEALED_CACHE="" "$sc" ptx work/c.cu c0.ptx && cmp -s c0.ptx c.ptx && ok "the hit's ptx is that of a compile without the cache" ||
  bad "the hit's ptx differs from an uncached compile's"
rm -f c.ptx && (umask 027 && "$sc" ptx work/c.cu c.ptx) && [ "$(stat -c %a c.ptx)" = 640 ] &&
  ok "a hit's OUT is made with the caller's umask (027: 640)" || bad "a hit's OUT has mode $(stat -c %a c.ptx 2>&1) under umask 027"
# The text is made at replay, from the stored log: it names SRC as this call spells it.
"$sc" ptx work/warn.cu o.ptx > /dev/null 2>&1
sc_best ptx "$(pwd -P)/work/warn.cu" o.ptx
[ $rc = 0 ] && [ "$how" = hit ] && grep -q "^$(pwd -P)/work/warn\.cu:1: warning" <<<"$out" &&
  ok "a hit names SRC as this call spells it (an absolute path: $took ms)" || bad "warn.cu by its absolute path: exit $rc, $took ms: $out"
printf '%s\n' '__global__ void k(int *x) { x[0] = 7; }' > work/v.cu
"$sc" ptx work/v.cu v7.ptx
sed -i 's/= 7;/= 8;/' work/v.cu # one byte, the same size
n=$(entries)
sc_run ptx work/v.cu v8.ptx
WB_SEALED_CACHE="" "$sc" ptx work/v.cu v8.fresh.ptx
[ $rc = 0 ] && [ "$(entries)" = $((n + 1)) ] && grep -q '%r1, 8;' v8.ptx && cmp -s v8.ptx v8.fresh.ptx &&
  [ "$how" = compiled ] && ok "a one-byte change to the source is a miss ($took ms), its ptx new" || bad "a one-byte change: exit $rc, $took ms, entries $n -> $(entries)"
n=$(entries)
sc_run ptx work/c.cu c75.ptx -- -arch=sm_75
miss=$took
[ $rc = 0 ] && [ "$(entries)" = $((n + 1)) ] && grep -q '^\.target sm_75' c75.ptx && [ "$how" = compiled ] && ok "another -arch is a miss ($took ms)" ||
  bad "another -arch: exit $rc, $took ms, entries $n -> $(entries)"
mv c75.ptx c75.ptx.first
hit "another -arch again" c75.ptx ptx work/c.cu c75.ptx -- -arch=sm_75
n=$(entries)
# A cubin's first step is a ptx call's (the same flags): the PTX cached above serves it.
sc_run cubin work/c.cu c.cubin -- -arch=sm_90
miss=$took
[ $rc = 0 ] && [ "$(entries)" = $((n + 1)) ] && mv c.cubin c.cubin.first && [ "$how" = assembled ] &&
  ok "a cubin of a file compiled to PTX before: ptxas alone, stored as its cubin ($took ms)" ||
  bad "a cubin after its PTX: $how, exit $rc, entries $n -> $(entries): $out"
hit "the cubin again" c.cubin cubin work/c.cu c.cubin -- -arch=sm_90
# A file's cubin first (the GPU judge's build): stored as its PTX and its cubin, and its PTX
# (the emulator's) then a hit.
{ cat "$sol"; echo "// a cubin first"; } > work/cf.cu
n=$(entries)
sc_run cubin work/cf.cu cf.cubin -- -arch=sm_90
[ $rc = 0 ] && [ "$(entries)" = $((n + 2)) ] && [ "$how" = compiled ] &&
  ok "a cubin of a new file: a miss, stored as its PTX and its cubin ($took ms)" ||
  bad "a cubin of a new file: $how, exit $rc, entries $n -> $(entries): $out"
sc_run ptx work/cf.cu cf.ptx
WB_SEALED_CACHE="" "$sc" ptx work/cf.cu cf.fresh.ptx
[ $rc = 0 ] && [ "$how" = hit ] && cmp -s cf.ptx cf.fresh.ptx &&
  ok "then its PTX: a hit, that of a compile without the cache ($took ms)" || bad "the PTX after a cubin: $how, exit $rc: $out"
WB_SEALED_CACHE="" "$sc" cubin work/c.cu c0.cubin -- -arch=sm_90 && cmp -s c0.cubin c.cubin &&
  ok "the hit's cubin is that of a compile without the cache" || bad "the hit's cubin differs from an uncached compile's"
# The same bytes at another path: the PTX stage serves it, with the new path in .file; a cubin
# there costs ptxas alone, and is the cubin an uncached compile makes at that path.
mkdir -p work/elsewhere && cp work/c.cu work/elsewhere/c.cu
sc_run ptx work/elsewhere/c.cu ce.ptx
WB_SEALED_CACHE="" "$sc" ptx work/elsewhere/c.cu ce.fresh.ptx
[ $rc = 0 ] && [ "$how" = hit ] && grep -q "elsewhere/c\.cu" ce.ptx && cmp -s ce.ptx ce.fresh.ptx &&
  ok "the same file at another path: a hit, naming its own path ($took ms)" || bad "another path: $how, exit $rc: $out"
n=$(entries)
sc_run cubin work/elsewhere/c.cu ce.cubin -- -arch=sm_90
WB_SEALED_CACHE="" "$sc" cubin work/elsewhere/c.cu ce.fresh.cubin -- -arch=sm_90
[ $rc = 0 ] && [ "$how" = assembled ] && [ "$(entries)" = $((n + 1)) ] && cmp -s ce.cubin ce.fresh.cubin &&
  ok "its cubin: ptxas alone on the cached PTX, as an uncached compile makes it ($took ms)" ||
  bad "a cubin at another path: $how, exit $rc, entries $n -> $(entries): $out"
printf 'int a = 1\n%s\n// the cache test\n' "$k" > work/e.cu
n=$(entries)
sc_run ptx work/e.cu e.ptx
miss=$took
[ $rc = 1 ] && grep -q '^work/e\.cu:[0-9]*: error' <<<"$out" && [ "$(entries)" = $((n + 1)) ] &&
  ok "a compile error (exit 1, on a line of SRC) is stored" || bad "a compile error: exit $rc, entries $n -> $(entries): $out"
echo stale > e.ptx
hit "the compile error again" e.ptx ptx work/e.cu e.ptx
[ ! -e e.ptx ] && ok "a replayed compile error leaves no OUT" || bad "a stale OUT survived a replayed compile error"
# A corrupt entry is compiled again, and what it holds is never delivered.
cp "$sol" work/d.cu
"$sc" ptx work/d.cu d.ptx
entry=$(newest)
WB_SEALED_CACHE="" "$sc" ptx work/d.cu d.fresh.ptx
printf '#' | dd of="$entry" bs=1 seek=$(($(stat -c %s "$entry") - 40)) conv=notrunc status=none
sc_run ptx work/d.cu d.ptx
[ $rc = 0 ] && [ "$how" = compiled ] && cmp -s d.ptx d.fresh.ptx && ok "an entry with a byte changed is compiled again ($took ms), OUT right" ||
  bad "a changed entry: exit $rc, $took ms, $(cmp d.ptx d.fresh.ptx 2>&1)"
truncate -s -100 "$entry"
sc_run ptx work/d.cu d.ptx
[ $rc = 0 ] && [ "$how" = compiled ] && cmp -s d.ptx d.fresh.ptx && ok "a truncated entry is compiled again ($took ms), OUT right" ||
  bad "a truncated entry: exit $rc, $took ms, $(cmp d.ptx d.fresh.ptx 2>&1)"
sc_best ptx work/d.cu d.ptx
[ $rc = 0 ] && [ "$how" = hit ] && cmp -s d.ptx d.fresh.ptx && ok "and stored again whole: a hit ($took ms)" || bad "after a repair: exit $rc, $took ms"
# The same bytes under the same path, so the same key: refused all the same (step 1 runs first).
echo "$k" > work/r.cu && "$sc" ptx work/r.cu o.ptx && mv work/r.cu work/r-target.cu && ln -s r-target.cu work/r.cu
expect "a symbolic link where a stored file was (the same bytes)" 2 '^work/r\.cu is a symbolic link' "$sc" ptx work/r.cu o.ptx
rm work/r.cu && mv work/r-target.cu work/r.cu && ln work/r.cu work/r2.cu
expect "a second name for a stored file" 2 '^work/r\.cu has 2 names' "$sc" ptx work/r.cu o.ptx
rm work/r2.cu
sc_best ptx work/r.cu o.ptx
[ $rc = 0 ] && [ "$how" = hit ] && ok "(its entry was there all along: a hit once it is a file of its own, $took ms)" || bad "r.cu: exit $rc, $took ms"
n=$(entries)
expect "#include \"/etc/passwd\", a second call: refused again" 2 '^work/passwd\.cu:1: includes /etc/passwd' "$sc" ptx work/passwd.cu o.ptx
expect "#include \"/etc/passwd\", a third call" 2 '^work/passwd\.cu:1: includes /etc/passwd' "$sc" ptx work/passwd.cu o.ptx
[ "$(entries)" = "$n" ] && ok "a refused file leaves no entry" || bad "a refusal stored an entry ($n -> $(entries))"
# make -j, or hand-ins graded at once: one file compiled by three at the same time.
cp "$sol" work/p.cu
pids=()
for i in 1 2 3; do "$sc" ptx work/p.cu p$i.ptx > p$i.log 2>&1 & pids+=($!); done
rcs=""
for p in "${pids[@]}"; do wait "$p"; rcs+="$? "; done
[ "$rcs" = "0 0 0 " ] && cmp -s p1.ptx p2.ptx && cmp -s p1.ptx p3.ptx && [ -z "$(cat p?.log)" ] &&
  [ -z "$(find "$WB_SEALED_CACHE" -name '*.tmp.*')" ] && ok "three compiles of one file at once: all right, no temp file left" ||
  bad "three at once: exits $rcs, $(cat p?.log)"
sc_best ptx work/p.cu p4.ptx
[ $rc = 0 ] && [ "$how" = hit ] && cmp -s p1.ptx p4.ptx && ok "and then a hit ($took ms)" || bad "after three at once: exit $rc, $took ms"
# Bounded: unused for 7 days, or past 2000 entries, the least recently used go (at a store).
(cd "$WB_SEALED_CACHE" && touch -d '8 days ago' result-fake-old && touch -d '1 hour ago' result-fake-{0001..2000})
echo "$k // bounded" > work/b.cu
"$sc" ptx work/b.cu o.ptx
sc_best ptx work/c.cu c.ptx
[ ! -e "$WB_SEALED_CACHE/result-fake-old" ] && [ "$(entries)" = 2000 ] && [ ! -e "$WB_SEALED_CACHE/result-fake-0001" ] &&
  [ $rc = 0 ] && [ "$how" = hit ] && ok "7 days unused: dropped; over 2000: the least recently used dropped (c.cu still a hit, $took ms)" ||
  bad "bounds: $(entries) entries, $(ls "$WB_SEALED_CACHE" | grep -c fake) fakes, c.cu: exit $rc, $took ms"
rm -f "$WB_SEALED_CACHE"/result-fake-*
expect "a cache folder the box would show is refused" 4 'WB_SEALED_CACHE \(/usr/share/wb-sealed-cache\) lies where the compiler' \
  env WB_SEALED_CACHE=/usr/share/wb-sealed-cache "$sc" ptx work/c.cu o.ptx
expect "a cache folder that cannot be made is no error" 0 '^$' env WB_SEALED_CACHE=/dev/null/cache "$sc" ptx work/c.cu o.ptx

echo "-- limits, each named"
cat > work/burn.cu <<'EOF'
// Each instantiation spends ~0.1 s of constexpr evaluation (just under the front end's own
// step limit); 2^15 of them keep cicc busy for about an hour.
constexpr unsigned long long spin(unsigned long long n, unsigned long long s) {
    for (unsigned long long i = 0; i < n; ++i) s += i ^ (s >> 3);
    return s;
}
template <int D, unsigned M> struct Burn {
    static_assert(spin(300000, M) != 1, "");
    static constexpr unsigned v = Burn<D - 1, 2 * M>::v + Burn<D - 1, 2 * M + 1>::v;
};
template <unsigned M> struct Burn<0, M> { static constexpr unsigned v = 1; };
static_assert(Burn<14, 1>::v != 0, "");
__global__ void k(unsigned *x) { x[0] = 1; }
EOF
t0=$(ms)
expect "a constexpr computation without end: the CPU limit" 3 '^work/burn\.cu: the compiler used up its 2 s of CPU time' \
  env WB_SEALED_CPU_S=2 "$sc" ptx work/burn.cu o.ptx
echo "        (stopped after $(($(ms) - t0)) ms)"
cat > work/templates.cu <<'EOF'
// 2^30 distinct instantiations: memory grows by ~100 MB a second.
template <int N, unsigned M> struct E { static constexpr unsigned v = E<N - 1, 2 * M>::v + E<N - 1, 2 * M + 1>::v; };
template <unsigned M> struct E<0, M> { static constexpr unsigned v = 1; };
static_assert(E<30, 0>::v > 0, "");
__global__ void k(unsigned *x) { x[0] = 1; }
EOF
expect "a template explosion: the memory limit" 3 '^work/templates\.cu: the compiler ran out of its 512 MiB of memory' \
  env WB_SEALED_MEM_MB=512 "$sc" ptx work/templates.cu o.ptx
{
  echo '// A macro argument is expanded in memory before it is substituted: 2^40 tokens.'
  echo '#define D(x) x x'
  printf 'static const int bomb[] = { %s1,%s };\n' "$(printf 'D(%.0s' $(seq 40))" "$(printf ')%.0s' $(seq 40))"
  echo '__global__ void k(int *x) { x[0] = bomb[0]; }'
} > work/macros.cu
expect "a preprocessor explosion: the memory limit" 3 '^work/macros\.cu: the compiler ran out of its 512 MiB of memory' \
  env WB_SEALED_MEM_MB=512 "$sc" ptx work/macros.cu o.ptx
cat > work/table.cu <<'EOF'
// 16 MiB of zeros before one non-zero byte: the PTX spells out all of them (~48 MB).
struct Table { char pad[1 << 24]; char last; };
__constant__ Table table = { {}, 1 };
__global__ void k(char *x) { x[0] = table.last; }
EOF
expect "a huge __constant__ table: the file-size limit" 3 '^work/table\.cu: the compiler tried to write a file over the 4 MiB limit' \
  env WB_SEALED_FSIZE_MB=4 "$sc" ptx work/table.cu o.ptx
expect "too few processes for nvcc: named, not taken for a compile error" 3 'could not start a process' \
  env WB_SEALED_NPROC=4 "$sc" ptx "$sol" o.ptx
t0=$(ms)
expect "the wall-clock backstop stops the box" 3 'wall-clock time and was stopped with everything it started' \
  env WB_SEALED_WALL_S=2 WB_SEALED_DEBUG_CMD='sleep 271828 & exec sleep 271829' "$sc" ptx "$sol" o.ptx
took=$(($(ms) - t0))
sleep 0.5
[ -z "$(procs_with 271828)$(procs_with 271829)" ] && [ $took -lt 15000 ] && ok "nothing of the box survives it (stopped after $took ms)" ||
  bad "after the wall-clock stop ($took ms), these survive: $(procs_with 271828) $(procs_with 271829)"

echo "-- inside the box"
box() { WB_SEALED_DEBUG_CMD=$1 "$sc" ptx "$sol" o.ptx 2>&1; }
# /etc may hold links made again on the way to the toolkit (/etc/alternatives/cuda), nothing else.
out=$(box 'ls -A / | tr "\n" " "; echo; for d in /work /root /home /run /var /mnt /opt '"$root"' '"$WB_SEALED_CACHE"'; do ls -d $d 2>/dev/null; done;
  find /etc ! -type d ! -type l 2>/dev/null | tr "\n" " "; echo; echo $(ls -A /box) / $(ls -A /box/keep)')
tops=$(head -n 1 <<<"$out")
[ -z "$(sed -n 2p <<<"$out")" ] && ok "no /work /root /home /run /var /mnt /opt, no project tree, no cache, no file in /etc (/ holds: $tops)" ||
  bad "visible in the box: $(sed -n 2p <<<"$out")"
[ "$(sed -n 3p <<<"$out")" = "keep kernel.cu /" ] && ok "/box holds the copy alone, and an empty folder for what nvcc keeps" ||
  bad "/box holds: $(sed -n '3,$p' <<<"$out")"
out=$(box 'cat /etc/passwd '"$sol"' 2>&1 | head -c 300; echo; touch /usr/x /tmp/x 2>&1')
grep -q 'passwd: No such file' <<<"$out" && grep -qF "$sol: No such file" <<<"$out" && ! grep -q root: <<<"$out" &&
  ok "/etc/passwd and the solution cannot be read" || bad "readable in the box: $out"
grep -q 'Read-only file system' <<<"$out" && ok "/usr is read-only, /tmp writable" || bad "writes in the box: $out"
out=$(box 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')
[ "$out" = lo ] && ok "no network (interfaces: lo)" || bad "network interfaces in the box: $out"
out=$(box 'id -u; id -g; grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status | tr -s "\t " " "')
if [ "$(sed -n 1,2p <<<"$out" | tr '\n' ' ')" = "65534 65534 " ] &&
  [ "$(grep -c ' 0000000000000000$' <<<"$out")" = 5 ]; then
  ok "uid and gid 65534, every capability set empty (CapEff 0)"
else
  bad "in the box: $out"
fi
out=$(box 'grep -E "^Max (cpu time|file size|address space|processes|core file size)" /proc/self/limits | tr -s " "')
grep -q 'Max cpu time 60 65 seconds' <<<"$out" && grep -q 'Max file size 16777216 16777216' <<<"$out" &&
  grep -q 'Max address space 4294967296 4294967296' <<<"$out" && grep -q 'Max processes 256 256' <<<"$out" &&
  grep -q 'Max core file size 0 0' <<<"$out" && ok "limits in the box: CPU 60 s (+5 hard), 16 MiB files, 4 GiB, 256 processes, no core" ||
  bad "limits in the box: $out"
# Who the compiler is outside the box, seen from here; and SIGTERM to the sealed compile ends the box.
WB_SEALED_DEBUG_CMD='exec sleep 314159' TMPDIR=$T "$sc" ptx "$sol" o.ptx > /dev/null 2>&1 &
compile=$!
for _ in $(seq 50); do pid=$(procs_with 314159 | head -n 1) && [ -n "$pid" ] && break; sleep 0.1; done
uid=$(awk '/^Uid:/ { print $2 }' "/proc/${pid:-0}/status" 2>/dev/null)
if [ "$(id -u)" = 0 ]; then
  [ "$uid" = 65534 ] && ok "run by root, the compiler is uid 65534 outside the box too" ||
    bad "run by root, the compiler is uid '${uid:-?}' outside the box (unprivileged user namespaces off?)"
else
  [ "$uid" = "$(id -u)" ] && ok "the compiler is our own uid $uid outside the box (no capabilities)" || bad "outside uid '${uid:-?}'"
fi
kill -TERM $compile
wait $compile 2>/dev/null
sleep 0.5
[ -z "$(procs_with 314159)" ] && [ -z "$(ls -d "$T"/wb-sealed.* 2>/dev/null)" ] &&
  ok "SIGTERM to the sealed compile ends the box and removes its folder" || bad "after SIGTERM: $(procs_with 314159) $(ls -d "$T"/wb-sealed.* 2>/dev/null)"

echo "-- without bubblewrap"
mkdir -p "$T/nobwrap" && printf '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n' > "$T/nobwrap/bwrap" &&
  chmod +x "$T/nobwrap/bwrap"
# A file compiled before: its result, made in the box, is the cache's, and no box is made for it.
expect "a cached result is served without a box (a sealed compile made it)" 0 '^$' \
  env PATH="$T/nobwrap:$PATH" "$sc" ptx "$sol" o.ptx
{ echo '// not compiled before'; cat "$sol"; } > work/fresh.cu
expect "a bwrap that may not make namespaces: exit 4, what to allow" 4 'cannot make its box here .*allow unprivileged user namespaces' \
  env PATH="$T/nobwrap:$PATH" "$sc" ptx work/fresh.cu o.ptx
expect "WB_UNSEALED_OK=1: compiled with limits, and says it is not sealed" 0 'NOT sealed' \
  env PATH="$T/nobwrap:$PATH" WB_UNSEALED_OK=1 "$sc" ptx work/fresh.cu o.ptx
expect "an unsealed result is not kept: compiled again, not sealed" 0 'NOT sealed' \
  env PATH="$T/nobwrap:$PATH" WB_UNSEALED_OK=1 "$sc" ptx work/fresh.cu o.ptx
expect "WB_UNSEALED_OK=1 still refuses #include \"/etc/passwd\"" 2 '^work/passwd\.cu:1: includes /etc/passwd' \
  env PATH="$T/nobwrap:$PATH" WB_UNSEALED_OK=1 "$sc" ptx work/passwd.cu o.ptx
expect "WB_UNSEALED_OK=1 still stops a constexpr computation" 3 'used up its 2 s of CPU time' \
  env PATH="$T/nobwrap:$PATH" WB_UNSEALED_OK=1 WB_SEALED_CPU_S=2 "$sc" ptx work/burn.cu o.ptx

echo "$pass passed, $fail failed"
[ $fail = 0 ]
