#!/usr/bin/env bash
# make cluster-test: grade-slurm.sh on a real Slurm. As root, installs Debian's slurm-wlm and
# munge if missing, starts munged, slurmctld and two slurmd on this machine (node cpu1 in
# partition cpu, no gres; node gpu1 in partition gpu, declaring Gres=gpu:1 on a dummy device
# file), all on private ports, files and sockets under CLUSTER_TEST_DIR, and then, on a copy of
# the workbook (its own clean build):
#   1. a class of five hand-ins (perfect, stubs, partly done, a syntax error, a name with a
#      space and non-ASCII letters) graded in the emulator on each partition, into an OUT with a
#      space in its path; each gradebook row must equal `make grade` of that student;
#   2. requests no node can meet (a GPU on partition cpu, too many CPUs) refused before submission;
#   3. the GPU judge where the GPUs are not what the login node thinks: built for the wrong
#      architecture, and built on the node (a stand-in nvidia-smi; there is no GPU): every
#      student "not graded" with the reason, nobody a 0;
#   4. a task killed while grading: "not graded"; the rerun grades exactly it;
#   5. six tasks at once on a clean build, three times: every grade right, no task rebuilt the
#      shared programs.
# It stops everything it started, whatever happens. CLUSTER_TEST_DIR (default
# /tmp/wb-cluster-test) holds the logs; CLUSTER_TEST_PORT the first of three ports (26817).
set -u
root=${CLUSTER_TEST_DIR:-/tmp/wb-cluster-test}
# It is emptied first: a folder of its own, at least two levels deep (never /, /tmp or /home).
real_root=$(realpath -m -- "$root")
if [[ ! $real_root =~ ^/[^/]+/[^/]+ ]]; then
  echo "cluster-test: CLUSTER_TEST_DIR=$root would be emptied first: name a folder of its own (e.g. /tmp/wb-cluster-test)"
  exit 2
fi
port=${CLUSTER_TEST_PORT:-26817}
t_start=$(date +%s)
say() { echo "cluster-test: $*"; }
fail=0
bad() { say "FAILED: $*"; fail=1; }
[ "$(id -u)" = 0 ] || { say "needs root, to install Slurm and start munged, slurmctld and slurmd; run it as root (CI does)."; exit 2; }
[ -f lessons/registry ] || { say "runs from the workbook's folder."; exit 2; }

# ---- Slurm, from the distribution ---------------------------------------------------------
if ! command -v slurmctld > /dev/null || ! command -v slurmd > /dev/null || ! command -v munged > /dev/null || ! command -v sbatch > /dev/null; then
  command -v apt-get > /dev/null || { say "Slurm is not installed and there is no apt-get to install it (Debian/Ubuntu: slurm-wlm munge)."; exit 2; }
  say "installing slurm-wlm and munge (apt-get)"
  { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge ||
    { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends slurm-wlm munge; }; } > /tmp/wb-cluster-apt.log 2>&1 ||
    { say "could not install slurm-wlm and munge; apt-get said:"; tail -n 5 /tmp/wb-cluster-apt.log; exit 2; }
fi
# Our own daemons only: stopped by the pids they wrote, at the end whatever happens.
stop_all() {
  [ -n "${SLURM_CONF:-}" ] && scancel -u root > /dev/null 2>&1
  local f
  for f in "$root"/run/slurmd.*.pid "$root"/run/slurmctld.pid "$root"/run/munged.pid; do
    [ -f "$f" ] && kill "$(cat "$f")" 2> /dev/null
  done
  sleep 1
  for f in "$root"/run/*.pid; do [ -f "$f" ] && kill -9 "$(cat "$f")" 2> /dev/null; rm -f "$f"; done
}
if [ -d "$root/run" ]; then stop_all; fi
rm -rf "$root" && mkdir -p "$root"/{run,log,state,spool,bin}
trap 'stop_all; say "stopped munged, slurmctld and slurmd (logs: $root/log)"' EXIT
touch "$root/run/gpu0" # the declared GPU's device file: a dummy, AutoDetect is off
cp /etc/munge/munge.key "$root/run/munge.key" 2> /dev/null || dd if=/dev/urandom of="$root/run/munge.key" bs=128 count=1 status=none
chmod 400 "$root/run/munge.key"
host=$(hostname -s)
cat > "$root/slurm.conf" <<EOF
ClusterName=wbtest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$root/run/munge.sock
CredType=cred/munge
StateSaveLocation=$root/state
SlurmdSpoolDir=$root/spool/%n
SlurmctldPidFile=$root/run/slurmctld.pid
SlurmdPidFile=$root/run/slurmd.%n.pid
SlurmctldLogFile=$root/log/slurmctld.log
SlurmdLogFile=$root/log/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
GresTypes=gpu
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
KillWait=5
# cpu1 declares 6 CPUs on this small machine so that six tasks race at once (the emulator's
# limits are CPU time, so the verdicts do not depend on how many run together).
SlurmdParameters=config_overrides
NodeName=cpu1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 1)) CPUs=6 State=UNKNOWN
NodeName=gpu1 NodeHostname=$host NodeAddr=127.0.0.1 Port=$((port + 2)) CPUs=2 Gres=gpu:1 State=UNKNOWN
PartitionName=cpu Nodes=cpu1 Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=gpu1 MaxTime=INFINITE State=UP
EOF
printf 'AutoDetect=off\nNodeName=gpu1 Name=gpu File=%s\n' "$root/run/gpu0" > "$root/gres.conf"
export SLURM_CONF=$root/slurm.conf
munged --force --socket="$root/run/munge.sock" --key-file="$root/run/munge.key" --log-file="$root/log/munged.log" \
  --pid-file="$root/run/munged.pid" --seed-file="$root/run/munged.seed" ||
  { say "munged did not start (log: $root/log/munged.log)"; exit 2; }
slurmctld -f "$SLURM_CONF" || { say "slurmctld did not start:"; tail -n 5 "$root/log/slurmctld.log"; exit 2; }
for n in cpu1 gpu1; do slurmd -f "$SLURM_CONF" -N "$n" || { say "slurmd $n did not start:"; tail -n 5 "$root/log/slurmd.$n.log"; exit 2; }; done
for _ in $(seq 60); do [ "$(sinfo -h -o '%t' 2>/dev/null | sort -u | paste -sd' ')" = idle ] && break; sleep 1; done
[ "$(sinfo -h -o '%t' | sort -u | paste -sd' ')" = idle ] ||
  { say "the nodes did not come up:"; sinfo; tail -n 5 "$root"/log/slurm*.log; exit 2; }
say "Slurm up in $(( $(date +%s) - t_start )) s: $(sinfo -h -o '%P %N %c CPUs %G' | paste -sd';' | sed 's/;/; /g')"

# ---- the workbook: a copy, with a build of its own (the tests below delete it) -----------
wb=$root/workbook
mkdir -p "$wb"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
  tar --null -T - -cf - | tar -C "$wb" -xf -
cd "$wb" || exit 2
# shellcheck source=checker/tools/grade-lib.sh
. checker/tools/grade-lib.sh
# Waits until no job of ours is left (at most $1 s).
wait_jobs() {
  local i
  for i in $(seq "${1:-900}"); do squeue -h -u root | grep -q . || return 0; sleep 1; done
  bad "jobs still queued after ${1:-900} s:"; squeue; return 1
}
H=$root/class
mk() { mkdir -p "$H/$1/$2"; cp "$3" "$H/$1/$2/"; }
s3=03_bank_conflicts/transpose_shared.cu s4=04_padding/transpose_padded.cu
mk ada 03_bank_conflicts solutions/$s3; mk ada 04_padding solutions/$s4
mk bob 03_bank_conflicts exercises/$s3; mk bob 04_padding exercises/$s4
mk cy 03_bank_conflicts solutions/$s3; mk cy 04_padding exercises/$s4
mk dee 03_bank_conflicts solutions/$s3; mk dee 04_padding solutions/$s4
sed -i '0,/__syncthreads();/s//__syncthreads()/' "$H/dee/$s3" # a syntax error: a semicolon gone
grep -q '__syncthreads()$' "$H/dee/$s3" || { say "could not make dee's syntax error"; exit 2; }
mk "Zoë Brontë" 03_bank_conflicts solutions/$s3; mk "Zoë Brontë" 04_padding solutions/$s4

# The reference: make grade of each student on its own, under a name make takes.
t=$(date +%s)
ncols=$(( $(build/workbook lessons number | grep -c '') + 3 ))
ref=$root/reference.csv
{ printf 'student'; for l in $(build/workbook lessons number); do printf ',lesson%s' "$l"; done; printf ',total,out_of\n'; } > "$ref"
i=0
while IFS= read -r s; do
  i=$((i + 1)); mkdir -p "$root/ref/s$i" && cp -r "$H/$s"/. "$root/ref/s$i/"
  make -s --no-print-directory grade EMU=1 SRC="$root/ref/s$i" GRADE_DIR="$root/ref/out$i" > "$root/ref/grade$i.log" 2>&1 ||
    bad "make grade of $s failed: $root/ref/grade$i.log"
  wb_csv "$s" >> "$ref"
  awk -v lessons="$(build/workbook lessons number | paste -sd' ')" '
    /^[0-9]+ / { split($NF, p, "/"); pts[$1] = p[1] } /^Score: / { split($2, t, "/"); total = t[1]; max = t[2] }
    END { n = split(lessons, ls, " "); for (i = 1; i <= n; i++) printf ",%s", (ls[i] in pts) ? pts[ls[i]] : 0; printf ",%s,%s\n", total, max }' \
    "$root/ref/out$i/summary.txt" >> "$ref"
done < <(find "$H" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | LC_ALL=C sort)
say "reference: make grade of each of the 5 students, $(( $(date +%s) - t )) s: $(tail -n +2 "$ref" | awk -F, '{ print $(NF - 1) }' | paste -sd' ')"

# Gradebook $1 against the reference: the points columns equal, every row graded by judge $2.
check_book() {
  local book=$1 judge=$2 what=$3
  if [ ! -f "$book" ]; then bad "$what: no gradebook $book"; return; fi
  if diff -u "$ref" <(python3 -c 'import csv,sys; w=csv.writer(sys.stdout, lineterminator="\n")
for r in csv.reader(open(sys.argv[1], encoding="utf-8")): w.writerow(r[:int(sys.argv[2])])' "$book" "$ncols") &&
     python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1], encoding="utf-8")))[1:]
sys.exit(0 if rows and all(r[-4] == "graded" and r[-3] == sys.argv[2] for r in rows) else 1)' "$book" "$judge"; then
    say "ok: $what: the gradebook equals make grade of each student, every row graded by the $judge judge"
  else bad "$what: the gradebook (above: reference, then made; $book)"; cat "$book"; fi
}
# A gradebook whose every row is "not graded" with a reason matching $2, no points given.
check_not_graded() {
  local book=$1 pattern=$2 what=$3
  if python3 -c 'import csv,re,sys; rows=list(csv.reader(open(sys.argv[1], encoding="utf-8")))[1:]
sys.exit(0 if rows and all(r[-4].startswith("not graded: ") and re.search(sys.argv[2], r[-4]) and r[-6] == "" for r in rows) else 1)' "$book" "$pattern"; then
    say "ok: $what: every student not graded, with the reason ($(python3 -c 'import csv,sys; print(list(csv.reader(open(sys.argv[1], encoding="utf-8")))[1][-4][:150])' "$book"))"
  else bad "$what: expected every row not graded (/$pattern/):"; cat "$book"; fi
}

# ---- 1. the class on each partition --------------------------------------------------------
for part in cpu gpu; do
  t=$(date +%s); out="$root/grades $part"
  extra=(); [ "$part" = gpu ] && extra=(--gres gpu:1)
  EMU=1 SBATCH_OPTIONS="--partition=$part" checker/tools/grade-slurm.sh "${extra[@]}" "$H" "$out" > "$root/submit-$part.log" 2>&1 ||
    { bad "grade-slurm.sh on partition $part:"; cat "$root/submit-$part.log"; }
  wait_jobs 900
  nodes=$(cat "$out/.wb/slurm/"*_*.out 2>/dev/null | sed -n 's/^Task [0-9]* on node \([^:]*\):.*/\1/p' | sort -u | paste -sd' ')
  [ "$nodes" = "${part}1" ] || bad "partition $part: the tasks ran on '$nodes', not ${part}1"
  check_book "$out/gradebook.csv" emulator "partition $part (${extra[*]:-no gres}; build, submission and grading in $(( $(date +%s) - t )) s)"
done

# ---- 2. requests no node can meet, refused before submission -------------------------------
for try in "--partition=cpu|--gres gpu:1|declares the gres" "--partition=cpu|--cpus-per-task 8|has 8 CPUs" "--partition=gpu|--gres gpu:2|sbatch --test-only says"; do
  IFS='|' read -r popt ropt expect <<<"$try"
  # shellcheck disable=SC2086
  msg=$(EMU=1 SBATCH_OPTIONS="$popt" checker/tools/grade-slurm.sh $ropt "$H" "$root/refused" 2>&1); rc=$?
  if [ $rc -ne 0 ] && grep -q "$expect" <<<"$msg" && ! squeue -h -u root | grep -q .; then
    say "ok: $popt $ropt refused before submission: $(tail -n 1 <<<"$msg")"
  else bad "$popt $ropt: not refused as expected (exit $rc): $msg"; fi
done

# ---- 3. the GPU judge where the login node's view is wrong ---------------------------------
# A stand-in nvidia-smi that reports an sm_90 GPU (there is none; the GPU judge then cannot
# run). Only the GPU judge's path is tested here: every student must be "not graded".
cat > "$root/bin/nvidia-smi" <<'EOF'
#!/bin/sh
case "$*" in *compute_cap*) echo "9.0" ;; *uuid*) echo "GPU-00000000-fake" ;; *) echo "GPU 0: stand-in (UUID: GPU-00000000-fake)" ;; esac
EOF
chmod +x "$root/bin/nvidia-smi"
G=$root/gpu-class; mkdir -p "$G"; cp -r "$H/ada" "$H/Zoë Brontë" "$G/"
t=$(date +%s)
PATH=$root/bin:$PATH SBATCH_OPTIONS="--partition=gpu" checker/tools/grade-slurm.sh --cuda-arch 80 "$G" "$root/gpu-wrong-arch" > "$root/submit-arch.log" 2>&1 ||
  { bad "grade-slurm.sh --cuda-arch 80:"; cat "$root/submit-arch.log"; }
wait_jobs 600
check_not_graded "$root/gpu-wrong-arch/gradebook.csv" "built for sm_80 but gpu1's GPU is sm_90" "GPU judge built for sm_80 on the login node, node's GPU sm_90 ($(( $(date +%s) - t )) s)"
t=$(date +%s)
PATH=$root/bin:$PATH SBATCH_OPTIONS="--partition=gpu" checker/tools/grade-slurm.sh "$G" "$root/gpu-on-node" > "$root/submit-node.log" 2>&1 ||
  { bad "grade-slurm.sh (GPU judge, built on a node):"; cat "$root/submit-node.log"; }
wait_jobs 600
grep -q "sm_90" "$root/gpu-on-node/.wb/build" 2>/dev/null || grep -q "arch=90" "$root/gpu-on-node/.wb/build" ||
  bad "the GPU build job did not build for the node's sm_90: $(cat "$root/gpu-on-node/.wb/build" 2>&1)"
check_not_graded "$root/gpu-on-node/gradebook.csv" "." "GPU judge built on node gpu1 for its sm_90, no GPU to run on ($(( $(date +%s) - t )) s)"
# A build that fails stops the submission: nothing queued, no gradebook.
mv solutions/$s3 "$root/s3.away"; echo "this is not CUDA" > solutions/$s3
msg=$(EMU=1 SBATCH_OPTIONS="--partition=cpu" checker/tools/grade-slurm.sh "$H" "$root/failed-build" 2>&1); rc=$?
mv "$root/s3.away" solutions/$s3
if [ $rc -ne 0 ] && grep -q "did not build" <<<"$msg" && [ ! -f "$root/failed-build/gradebook.csv" ] && ! squeue -h -u root | grep -q .; then
  say "ok: a failed build of the shared programs stops the submission: $(head -n 1 <<<"$msg" | cut -c1-120)"
else bad "a failed build did not stop the submission (exit $rc): $msg"; fi

# ---- 4. a task killed while grading, then the same command again ------------------------
t=$(date +%s); out=$root/killed
EMU=1 SBATCH_OPTIONS="--partition=cpu" checker/tools/grade-slurm.sh "$H" "$out" > "$root/submit-kill.log" 2>&1 || bad "submission for the kill test failed"
victim="" task=""
for _ in $(seq 300); do
  for d in "$out"/students/*/; do
    [ -f "$d/.started" ] && { victim=$(basename "$d"); task=$(sed -n 's/^job=//p' "$d/.started"); break 2; }
  done
  sleep 0.2
done
if [ -n "$task" ]; then scancel "$task"; else bad "no task was seen grading"; fi
wait_jobs 600
row=$(python3 -c 'import csv,sys; print(",".join(next((r for r in csv.reader(open(sys.argv[1], encoding="utf-8")) if r[0] == sys.argv[2]), [])))' \
  "$out/gradebook.csv" "$victim")
if [[ $row == *"not graded: "* ]]; then say "ok: task $task killed while grading $victim: $(grep -o 'not graded: [^,]*' <<<"$row" | head -c 140)"
else bad "the killed task's student has a grade: $row"; fi
EMU=1 SBATCH_OPTIONS="--partition=cpu" checker/tools/grade-slurm.sh "$H" "$out" > "$root/resubmit.log" 2>&1 || bad "resubmission failed"
grep -q "Submitted: 1 of 5" "$root/resubmit.log" && say "ok: the rerun submitted exactly the one not graded" ||
  bad "the rerun did not submit exactly one: $(cat "$root/resubmit.log")"
wait_jobs 600
check_book "$out/gradebook.csv" emulator "after the kill and a rerun ($(( $(date +%s) - t )) s)"

# ---- 5. six tasks at once on a clean build, three times ----------------------------------
R=$root/race; for k in 1 2 3 4 5 6; do mkdir -p "$R/r$k/03_bank_conflicts"; cp solutions/$s3 "$R/r$k/03_bank_conflicts/"; done
want=$(sed -n 's/^"\{0,1\}ada"\{0,1\},\([0-9,]*\).*/\1/p' "$ref" | cut -d, -f3)
for round in 1 2 3; do
  t=$(date +%s)
  rm -rf build # this copy's own build: the shared programs from nothing
  EMU=1 SBATCH_OPTIONS="--partition=cpu" checker/tools/grade-slurm.sh "$R" "$root/race-$round" > "$root/race-$round.log" 2>&1 ||
    bad "race $round: submission failed: $(cat "$root/race-$round.log")"
  sums=$root/race-$round/.wb/build.sums
  wait_jobs 600
  ok=$(python3 -c 'import csv,sys; rows=list(csv.reader(open(sys.argv[1])))[1:]
print(sum(1 for r in rows if r[-4] == "graded" and r[3] == sys.argv[2]))' "$root/race-$round/gradebook.csv" "$want" 2>/dev/null)
  # No task built a shared program: each is as the build before the array left it.
  if [ "${ok:-0}" = 6 ] && sha256sum -c --quiet "$sums" > /dev/null 2>&1 && ! grep -qs "does not build\|could not" "$root/race-$round"/students/r*/grade.log; then
    say "ok: race $round: six tasks at once on a clean build, all six graded $want/20 for lesson 3, the shared programs untouched ($(( $(date +%s) - t )) s)"
  else bad "race $round: $ok of 6 right:"; cat "$root/race-$round/gradebook.csv"; fi
done

say "$([ $fail -eq 0 ] && echo "every check passed" || echo "SOME CHECKS FAILED"), in $(( $(date +%s) - t_start )) s"
exit $fail
