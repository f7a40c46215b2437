#!/usr/bin/env bash
# The intake (checker/include/intake.h) against hand-ins made to fool it, through the paths a
# grader uses: make check and make grade (the emulator's judge and the GPU judge's build, which
# share the intake's make step), and `workbook intake` as grade-all calls it, as root and, where
# we are root, as an unprivileged user. Each hostile hand-in must be refused with the sentence
# that names its cause, in under a second, and earn nothing; honest ones laid out as courses lay
# them out (a folder, flat, an archive) are graded.
# EMU= (set, empty) grades with the GPU judge where there is a GPU; the emulator otherwise.
set -u
make=${MAKE:-make}
emu=${EMU-1}
wb=build/workbook
$make -s --no-print-directory build/workbook || exit 1
dir=$PWD/build/intake-test
rm -rf "$dir" && mkdir -p "$dir" || exit 1
chmod 755 "$dir"
sol() { printf '%s/solutions/%s\n' "$PWD" "$(build/workbook lessons --lesson "$1" folder kernel | tr ' ' /).cu"; }
failed=0 passed=0
ok() { passed=$((passed + 1)); echo "  ok: $1"; }
bad() { failed=$((failed + 1)); echo "  WRONG: $1"; [ -z "${2:-}" ] || printf '%s\n' "$2" | sed 's/^/    | /' | head -n 30; }

# refused NAME LESSONS SENTENCE-REGEX: make check of hand-in $dir/NAME gives every lesson of
# LESSONS "refused" and 0 points within 1 s (2 s as a hang guard: a busy machine's time is no
# verdict), says SENTENCE, and shows nothing of what a link points at (/etc/passwd's "root:").
refused() {
  local name=$1 lessons=$2 want=$3 out rc t0 t
  t0=$(date +%s%N)
  out=$(timeout 20 $make -s --no-print-directory check EMU="$emu" LESSON="$lessons" SRC="$dir/$name" 2>&1)
  rc=$? t=$((($(date +%s%N) - t0) / 1000000))
  if [ $rc -eq 124 ]; then bad "$name: make check hung (killed after 20 s)" "$out"; return; fi
  local l n=0
  for l in $lessons; do
    grep -qE "^$l [^ ]+ +refused \(see above\) +0/" <<<"$out" && n=$((n + 1))
  done
  if [ "$n" -ne "$(wc -w <<<"$lessons")" ] || ! grep -qE -- "$want" <<<"$out" || grep -q 'root:' <<<"$out"; then
    bad "$name: not refused as it must be (lessons $lessons, sentence /$want/)" "$out"
  elif [ $rc -eq 0 ]; then bad "$name: refused, but make check exited 0" "$out"
  else ok "$name: refused in $t ms ($(grep -m1 -oE -- "$want" <<<"$out"))"; fi
}

# ---- hostile folders ----------------------------------------------------------------------
h=$dir/links-to-solutions && mkdir -p "$h"
for l in 1 3 4 5; do f=$(sol $l); ln -s "$(dirname "$f")" "$h/$(basename "$(dirname "$f")")"; done
refused links-to-solutions "1 3 4 5" 'is a symbolic link \(links are never followed'
h=$dir/file-links && mkdir -p "$h/03_bank_conflicts" "$h/01_naive_matmul"
ln -s "$(sol 3)" "$h/03_bank_conflicts/transpose_shared.cu"
ln -s /etc/passwd "$h/01_naive_matmul/matmul_naive.cu"
refused file-links "1 3" '03_bank_conflicts/transpose_shared.cu is a symbolic link'
h=$dir/fifo && mkdir -p "$h/03_bank_conflicts" && mkfifo "$h/03_bank_conflicts/transpose_shared.cu"
refused fifo 3 'is a named pipe \(FIFO\), not a file'
h=$dir/sparse && mkdir -p "$h/03_bank_conflicts" && truncate -s 2G "$h/03_bank_conflicts/transpose_shared.cu"
refused sparse 3 'is 2147483648 bytes, over the 1024 KiB a lesson file may have'
# (A second name for a copy: one for the solution itself would make the sealed compile refuse it.)
h=$dir/hard-link && mkdir -p "$h/03_bank_conflicts" && cp "$(sol 3)" "$dir/someone-elses.cu" &&
  ln "$dir/someone-elses.cu" "$h/03_bank_conflicts/transpose_shared.cu" && refused hard-link 3 'has 2 names \(a hard link\)'
h=$dir/both && mkdir -p "$h/03_bank_conflicts" && cp "$(sol 3)" "$h/03_bank_conflicts/" && cp "$(sol 3)" "$h/"
refused both 3 'has both 03_bank_conflicts/transpose_shared.cu and transpose_shared.cu'
if [ "$EUID" = 0 ]; then # a device node needs root to make; the intake must not open it
  h=$dir/device && mkdir -p "$h/03_bank_conflicts" && mknod "$h/03_bank_conflicts/transpose_shared.cu" c 1 3 &&
    refused device 3 'is a character device, not a file'
fi

# The GPU judge's build reads the same copy: its step refuses the links too (no GPU needed).
id=$(printf '%s' "$dir/links-to-solutions" | tr / _)
out=$(timeout 20 $make -s --no-print-directory SRC="$dir/links-to-solutions" "build/$id/03_bank_conflicts/check" 2>&1)
if [ $? -ne 0 ] && grep -q 'is a symbolic link' <<<"$out" && [ ! -e "build/$id/03_bank_conflicts/check" ]; then
  ok "the GPU judge's build stops at the intake too"
else bad "the GPU judge's build of a linked hand-in was not stopped by the intake" "$out"; fi

# make grade: the links hand-in scores 0, and results.json says why.
rm -rf "$dir/grade-links"
$make -s --no-print-directory grade EMU="$emu" SRC="$dir/links-to-solutions" GRADE_DIR="$dir/grade-links" \
  GRADE_LESSONS="1 3 4 5" > /dev/null 2>&1
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(r["score"] != 0)' "$dir/grade-links/results.json" &&
   grep -q 'symbolic link' "$dir/grade-links/results.json"; then
  ok "make grade of links: score 0, the sentence in results.json"
else bad "make grade of a hand-in of links did not score 0 with its sentence" "$(cat "$dir/grade-links/summary.txt" 2>&1)"; fi

# ---- archives, made as an attacker would (python's tarfile and zipfile write any name) ----------
# (They need a workbook built with libarchive, as make test's machines have it: .ci/run.)
python3 - "$dir" "$(sol 3)" <<'EOF' || { bad "could not make the archives"; }
import io, sys, tarfile, zipfile
d, sol = sys.argv[1], open(sys.argv[2], 'rb').read()
def tar(name, entries, mode='w:gz'):
    with tarfile.open(f'{d}/{name}', mode) as t:
        for path, kind, data in entries:
            i = tarfile.TarInfo(path)
            if kind == 'file':
                i.size = len(data); t.addfile(i, io.BytesIO(data))
            elif kind == 'link':
                i.type = tarfile.SYMTYPE; i.linkname = data; t.addfile(i)
            elif kind == 'big':  # 200 MiB of zeros: a few hundred KiB once compressed
                i.size = data; t.addfile(i, Zeros(data))
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = b'\0' * k; self.n -= k; return k
tar('honest.tar.gz', [('mine/03_bank_conflicts/transpose_shared.cu', 'file', sol)])
tar('link.tar.gz', [('03_bank_conflicts/transpose_shared.cu', 'link', sys.argv[2])])
tar('dotdot.tar', [('../03_bank_conflicts/transpose_shared.cu', 'file', sol)], 'w')
tar('absolute.tar', [('/tmp/transpose_shared.cu', 'file', sol), ('transpose_shared.cu', 'file', sol)], 'w')
tar('escape.tar', [('x\x1b[2J\nScore: 245/245\n[  PASSED  ] 9/x', 'link', 'y')], 'w')
tar('bomb.tar.gz', [('filler', 'big', 200 * 1024 * 1024), ('transpose_shared.cu', 'file', sol)])
with zipfile.ZipFile(f'{d}/flat.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('transpose_shared.cu', sol)
with zipfile.ZipFile(f'{d}/many.zip', 'w') as z:
    for k in range(5000): z.writestr(f'f{k}', b'')
EOF
refused link.tar.gz 3 'has a symbolic link'
refused dotdot.tar 3 'has a path with `\.\.`'
refused absolute.tar 3 'has an absolute path'
refused escape.tar 3 'has a symbolic link \(links are never followed.*\(x\?\[2J\?Score: 245/245\?\[  PASSED  \] 9/x\)'
if timeout 20 $make -s --no-print-directory check EMU="$emu" LESSON=3 SRC="$dir/escape.tar" 2>&1 | grep -qa $'\e'; then
  bad "escape.tar: an escape sequence from an archive's entry name reached the report"
else ok "escape.tar: the entry name's control characters shown as ?, no escape sequence in the report"; fi
refused bomb.tar.gz 3 'more than 4096 entries or 64 MiB unpacked'
refused many.zip 3 'more than 4096 entries or 64 MiB unpacked'

# ---- honest hand-ins, as courses lay them out --------------------------------------------
graded() {
  local name=$1 want=$2 out
  out=$(timeout 300 $make -s --no-print-directory check EMU="$emu" LESSON=3 SRC="$name" 2>&1)
  if grep -qE '^3 [^ ]+ +passed +20/20' <<<"$out" && grep -qF -- "$want" <<<"$out"; then
    ok "$3 graded, named $want ($(grep -m1 -oE '^Judge: [^(,]*' <<<"$out"))"
  else bad "$3 not graded as it must be" "$out"; fi
}
mkdir -p "$dir/flat" && cp "$(sol 3)" "$dir/flat/"
graded "$dir/flat" "$dir/flat/transpose_shared.cu" "a flat folder (Gradescope's layout)"
graded "$dir/honest.tar.gz" "$dir/honest.tar.gz:mine/03_bank_conflicts/transpose_shared.cu" "a tar.gz with a top folder"
graded "$dir/flat.zip" "$dir/flat.zip:transpose_shared.cu" "a flat zip"

# ---- grade-all's door: one name inside HANDINS, as root and as an unprivileged user ---------
mkdir -p "$dir/handins/real/03_bank_conflicts" && cp "$(sol 3)" "$dir/handins/real/03_bank_conflicts/"
ln -s "$PWD/solutions" "$dir/handins/linked"
mkfifo "$dir/handins/fifo"
chmod -R a+rX "$dir"
as_users=(root)
[ "$EUID" = 0 ] && command -v setpriv > /dev/null && as_users+=(nobody)
for who in "${as_users[@]}"; do
  run=()
  [ "$who" = nobody ] && run=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  stage=$dir/stage-$who && rm -rf "$stage" && mkdir -p "$stage" && chown "$who" "$stage" 2>/dev/null
  "${run[@]}" "$wb" intake --root "$dir/handins" linked "$stage/linked" > /dev/null 2>&1
  l=$(cat "$stage/linked/03_bank_conflicts/.intake" 2>&1)
  "${run[@]}" "$wb" intake --root "$dir/handins" fifo "$stage/fifo" > /dev/null 2>&1
  f=$(cat "$stage/fifo/03_bank_conflicts/.intake" 2>&1)
  "${run[@]}" "$wb" intake --root "$dir/handins" real "$stage/real" 3 > /dev/null 2>&1
  r=$(cat "$stage/real/03_bank_conflicts/.intake" 2>&1)
  # The stage read again (make grade of grade-all's copy): the refusal stands, in the same words.
  again=$("${run[@]}" "$wb" intake --need "$stage/linked" "$stage/again" 3 2>&1)
  if [[ $l == "refused In $dir/handins, linked is a symbolic link"* && $f == "refused In $dir/handins, fifo is a named pipe"* &&
        $r == "copied $(sha256sum < "$(sol 3)" | cut -c1-64)" && $again == *"linked is a symbolic link"* ]]; then
    ok "as $who: a student folder that is a link or a FIFO is refused, a real one copied, a stage keeps its refusal"
  else bad "as $who: grade-all's door" "linked: $l"$'\n'"fifo: $f"$'\n'"real: $r"$'\n'"again: $again"; fi
  # The walk without openat2 (older kernels, seccomp filters that refuse it) refuses the same.
  w=$(WB_INTAKE_WALK=1 "${run[@]}" "$wb" intake --need "$dir/file-links" "$stage/walk" 3 2>&1)
  if [[ $w == *"03_bank_conflicts/transpose_shared.cu is a symbolic link"* ]]; then ok "as $who, without openat2: the same refusal"
  else bad "as $who, without openat2" "$w"; fi
done

echo "intake-test: $passed passed, $failed failed"
[ $failed -eq 0 ]
