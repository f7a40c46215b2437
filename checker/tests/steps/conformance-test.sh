#!/usr/bin/env bash
# make conformance-test: the conformance suite (checker/tests/conformance/README.md) on this machine.
# Every form forms.py writes assembles for sm_90 (ptxas, when nvcc is here: a form it refuses could
# never be recorded on a GPU); the interpreter runs or refuses each by name, never fails inside
# one; its outputs equal, bit for bit, the GPU's recorded by make conformance (records/*.tsv) for
# every form the interpreter runs. Then the replay is shown able to fail: a record made of the
# interpreter's own outputs passes, and the same outputs with one bit flipped do not.
set -u
make=${MAKE:-make}
dir=build/conformance
here=checker/tests/conformance
$make -s --no-print-directory $dir/conform-emu || exit 1
python3 $here/forms.py $dir || exit 1
if command -v ptxas > /dev/null; then
  ptxas -arch=sm_90 -o /dev/null $dir/all.ptx > $dir/ptxas.log 2>&1 ||
    { echo "conformance-test: ptxas refuses a form (a GPU could never run it):"; head -n 20 $dir/ptxas.log; exit 1; }
  echo "conformance-test: ptxas assembles every form for sm_90"
fi
$dir/conform-emu $dir || exit 1
failed=0
records=$(ls $here/records/*.tsv 2> /dev/null)
for r in ${records:-$here/records/h200.tsv}; do
  python3 $here/conform.py replay $dir "$r" || failed=1
done

# The replay against a record of the interpreter's own outputs, then against one bit flipped.
self=$dir/self-test
rm -rf $self && mkdir -p $self && cp -r $dir/ptx $dir/forms.tsv $dir/emu.tsv $self/ && ln -s ../inputs.bin $self/inputs.bin
cp $dir/emu.bin $self/gpu.bin && cp $dir/emu.tsv $self/gpu.tsv && echo "the interpreter itself (a self-test)" > $self/gpu.txt
cp $dir/emu.bin $self/emu.bin
python3 $here/conform.py record $self $self/record.tsv > /dev/null || exit 1
out=$(python3 $here/conform.py replay $self $self/record.tsv) ||
  { echo "conformance-test: WRONG: the interpreter differs from a record of its own outputs:"; echo "$out"; exit 1; }
# Flip one bit of the first case of the first form both ran.
read -r id off <<< "$(awk -F'\t' 'NR == FNR { if ($2 == "ran") ran[$1] = 1; next }
  !/^#/ && ($1 in ran) { print $1, $8; exit }' $self/emu.tsv $self/forms.tsv)"
name=$(awk -F'\t' -v id="$id" '$1 == id { print $3 }' $self/forms.tsv)
python3 - "$self/emu.bin" "$off" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(int(sys.argv[2])); b = f.read(1); f.seek(int(sys.argv[2])); f.write(bytes([b[0] ^ 1]))
PY
if out=$(python3 $here/conform.py replay $self $self/record.tsv); then
  echo "conformance-test: WRONG: a bit flipped in $name's outputs passed the replay"; failed=1
elif ! grep -qF "$name: the interpreter's bits differ from the GPU's in cases 0-63" <<< "$out"; then
  echo "conformance-test: WRONG: the flipped bit in $name is not named:"; echo "$out"; failed=1
else
  echo "conformance-test: the replay refuses one flipped bit ($name, cases 0-63)"
fi
exit $failed
