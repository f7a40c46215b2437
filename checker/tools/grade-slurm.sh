#!/usr/bin/env bash
# A whole class on a Slurm cluster: the shared check programs built once, then one array task
# per hand-in still to grade (checker/tools/grade-all.sh --task), then one job after them all
# that writes OUT/gradebook.csv (each student's results in OUT/students/STUDENT/). Run it from
# the workbook's folder on a login node whose file system the nodes share; docs/cluster.md says
# more. Slurm schedules; nothing here does.
#
# The judge follows EMU=1 (the CPU emulator; else the GPU judge). Resources per task, with
# defaults that fit the judge: --gres SPEC (gpu:1 for the GPU judge, none for the emulator;
# "none" asks for no gres) and --cpus-per-task N (2 for the GPU judge, 1 for the emulator).
# SBATCH_OPTIONS adds the rest to every submission (a partition, an account, a time).
# A request that no node can meet is refused before anything is submitted.
#
# Built where it grades: the emulator's programs here (they do not depend on the machine);
# the GPU judge's for --cuda-arch N (or CUDA_ARCH) here, else by a job on a node of the
# partition, for its GPU. A failed build stops the submission.
#   Usage: [EMU=1] checker/tools/grade-slurm.sh [--gres SPEC|none] [--cpus-per-task N] [--cuda-arch N] HANDINS OUT
set -u
usage="usage: [EMU=1] grade-slurm.sh [--gres SPEC|none] [--cpus-per-task N] [--cuda-arch N] HANDINS OUT"
gres="" cpus="" arch=${CUDA_ARCH:-}
while [ $# -gt 0 ]; do
  case $1 in
    --gres|--cpus-per-task|--cuda-arch) [ $# -ge 2 ] || { echo "$1 needs a value; $usage"; exit 2; }
      case $1 in --gres) gres=$2 ;; --cpus-per-task) cpus=$2 ;; --cuda-arch) arch=$2 ;; esac; shift 2 ;;
    --gres=*) gres=${1#*=}; shift ;;
    --cpus-per-task=*) cpus=${1#*=}; shift ;;
    --cuda-arch=*) arch=${1#*=}; shift ;;
    --) shift; break ;;
    -*) echo "grade-slurm.sh: unknown option $1; $usage"; exit 2 ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || { echo "$usage"; exit 2; }
[ -f lessons/registry ] ||
  { echo "grade-slurm.sh runs from the workbook's folder (where lessons/registry is)."; exit 2; }
handins=${1%/} out=${2%/}
[ -d "$handins" ] ||
  { echo "HANDINS=$handins is not a folder: give the folder that holds one folder per student."; exit 2; }
sbatch=${SBATCH:-sbatch} sinfo=${SINFO:-sinfo} squeue=${SQUEUE:-squeue} scancel=${SCANCEL:-scancel}

kind=${JUDGE_KIND:-gpu}
if [ -n "${EMU:-}" ]; then
  [ "${JUDGE_KIND:-emulator}" = emulator ] || { echo "EMU=1 and JUDGE_KIND=$JUDGE_KIND disagree: say one."; exit 2; }
  kind=emulator
fi
case $kind in emulator|gpu) ;; *) echo "JUDGE_KIND=$kind: the judge is emulator or gpu."; exit 2 ;; esac
if [ "$kind" = gpu ]; then gres=${gres:-gpu:1} cpus=${cpus:-2}; else gres=${gres:-none} cpus=${cpus:-1}; fi
[[ $cpus =~ ^[1-9][0-9]*$ ]] || { echo "--cpus-per-task $cpus is not a whole number of CPUs (1 or more)."; exit 2; }
[[ $gres == none || $gres =~ ^[A-Za-z0-9_.:,-]+$ ]] ||
  { echo "--gres $gres is not a gres like gpu:1 (or none)."; exit 2; }
[ -z "$arch" ] || [ "$kind" = gpu ] ||
  { echo "--cuda-arch is for the GPU judge; the emulator needs none (drop it, or EMU=1)."; exit 2; }
[ -z "$arch" ] || [[ $arch =~ ^[0-9]{2,3}$ ]] ||
  { echo "--cuda-arch $arch is not an architecture number like 90."; exit 2; }
# shellcheck disable=SC2206
opts=(${SBATCH_OPTIONS:-})
for o in "${opts[@]}"; do
  case $o in
    --gres*|--gpus*|-G*|--cpus-per-task*|-c*)
      echo "SBATCH_OPTIONS has $o: give GPUs and CPUs as grade-slurm.sh's --gres and --cpus-per-task, which the build"
      echo "job, the tasks and the checks all use."
      exit 2 ;;
    --array*|-a*|--output*|-o*|--dependency*|-d*|--wait*|-W*)
      echo "SBATCH_OPTIONS has $o, which grade-slurm.sh sets itself: leave it out."; exit 2 ;;
  esac
done
res=(--cpus-per-task="$cpus")
[ "$gres" = none ] || res+=(--gres="$gres")
want="$cpus CPU(s)$([ "$gres" = none ] && echo ", no gres" || echo " and gres $gres")"
partition=$(printf '%s\n' "${opts[@]}" | sed -n 's/^--partition=//p; s/^-p\(.\)/\1/p' | tail -n 1)
if [ -z "$partition" ]; then
  for i in "${!opts[@]}"; do case ${opts[$i]} in -p|--partition) partition=${opts[$((i + 1))]:-} ;; esac; done
fi
where=${partition:+partition $partition}; where=${where:-the default partition}

# Names first: one that cannot be graded is said now; its row in the gradebook says so too, and
# the rest of the class is graded.
# shellcheck source=checker/tools/grade-lib.sh
. checker/tools/grade-lib.sh
wb_check_places "$handins" "$out" || exit 2
mapfile -t roster < <(wb_roster "$handins")
total=0
for line in "${roster[@]}"; do
  IFS=$'\t' read -r what name why <<<"$line"
  if [ "$what" = student ]; then total=$((total + 1))
  else echo "Refused: $handins/$name: $why (its gradebook row will say so; the others are graded)."; fi
done
[ ${#roster[@]} -gt 0 ] ||
  { echo "$handins holds no hand-ins: one folder per student, each laid out like work/ (NN_topic/kernel.cu)."; exit 2; }

# A request no node can meet is refused now, in one sentence, instead of pending forever.
if nodes=$($sinfo -h ${partition:+-p "$partition"} -o '%c %G' 2>/dev/null) && [ -n "$nodes" ]; then
  most=$(awk '{ if ($1 + 0 > m) m = $1 + 0 } END { print m + 0 }' <<<"$nodes")
  [ "$most" -ge "$cpus" ] ||
    { echo "No node of $where has $cpus CPUs (the most is $most): ask for fewer with --cpus-per-task $most."; exit 2; }
  if [ "$gres" != none ] && ! awk -v g="${gres%%:*}" '$2 ~ "(^|,)" g "[:(]" { f = 1 } END { exit !f }' <<<"$nodes"; then
    if [ "$kind" = emulator ]; then advice="the emulator needs none, drop --gres"
    else advice="give the partition of the GPU nodes in SBATCH_OPTIONS, or grade in the emulator with EMU=1"; fi
    echo "No node of $where declares the gres ${gres%%:*} (--gres $gres): $advice."
    exit 2
  fi
elif [ -z "${SINFO:-}" ]; then
  echo "$sinfo does not answer: is this a Slurm login node? (Nothing was submitted.)"; exit 2
fi
if ! why=$($sbatch --test-only "${opts[@]}" "${res[@]}" --job-name=wb-check --wrap=true 2>&1); then
  echo "No node of $where can run a grading task with $want; sbatch --test-only says: $(tail -n 1 <<<"$why")"
  exit 2
fi

mkdir -p "$out/.wb" || { echo "Cannot create $out."; exit 2; }
stage_root=$(wb_stage_root "$out")
logs=$stage_root/slurm
mkdir -p "$logs" && ln -sfn "$PWD/$logs" "$out/.wb/slurm"
task=checker/tools/grade-slurm-task.sh

# The shared programs, once, where they will be valid; a failed build stops here.
if [ "$kind" = emulator ] || [ -n "$arch" ]; then
  env -u EMU JUDGE_KIND="$kind" ${arch:+CUDA_ARCH="$arch"} checker/tools/grade-all.sh --build "$handins" "$out" ||
    exit 1
else
  echo "Building the GPU judge's programs on a node of $where, for its GPU (a job; --cuda-arch N builds here)..."
  if ! $sbatch --wait --quiet "${opts[@]}" "${res[@]}" --job-name=wb-build --chdir="$PWD" \
       --output="$logs/build-%j.out" "$task" --build "$kind" "$handins" "$out"; then
    echo "The build job failed, so nothing was submitted. Its log:"
    tail -n 20 "$(ls -t "$logs"/build-*.out 2>/dev/null | head -n 1)" 2>/dev/null | sed 's/^/  | /'
    exit 1
  fi
  cat "$(ls -t "$logs"/build-*.out | head -n 1)"
fi

# The hand-ins copied as they are now (what the tasks grade), and those still to grade.
list=$logs/students-$(date +%Y%m%d-%H%M%S)-$$
env -u EMU JUDGE_KIND="$kind" checker/tools/grade-all.sh --pending "$handins" "$out" > "$list" ||
  { echo "Could not list the hand-ins."; exit 2; }
n=$(grep -c '' "$list")
if [ "$n" -eq 0 ]; then
  echo "All $total hand-ins are graded already from their present files by this build (or none can be); the gradebook:"
  env -u EMU JUDGE_KIND="$kind" checker/tools/grade-all.sh --gradebook-only "$handins" "$out"; exit
fi
array=$($sbatch --parsable "${opts[@]}" "${res[@]}" --job-name=wb-grade --array=0-$((n - 1)) --chdir="$PWD" \
  --output="$logs/%A_%a.out" "$task" --task "$kind" "$list" "$handins" "$out") ||
  { echo "sbatch refused the grading array (above); nothing is pending."; exit 1; }
array=${array%%;*}
book=$($sbatch --parsable "${opts[@]}" --cpus-per-task=1 --job-name=wb-gradebook --dependency=afterany:"$array" \
  --kill-on-invalid-dep=yes --chdir="$PWD" --output="$logs/gradebook-%j.out" \
  "$task" --gradebook "$kind" "$handins" "$out") ||
  { echo "sbatch refused the gradebook job (above); cancelling the array."; $scancel "$array"; exit 1; }
book=${book%%;*}
echo "Submitted: $n of $total hand-ins to grade (array job $array, $want each) and the gradebook after them" \
  "(job $book)."

# A job pending for a reason that never clears is cancelled now, with that reason.
for _ in 1 2 3; do
  reasons=$($squeue -h -j "$array,$book" -o '%r' 2>/dev/null | sort -u | paste -sd' ')
  case " $reasons " in
    *" PartitionConfig "*|*" BadConstraints "*|*" PartitionNodeLimit "*|*" PartitionTimeLimit "*|*" InvalidAccount "*|\
    *" InvalidQOS "*|*" DependencyNeverSatisfied "*|*" AccountNotAllowed "*|*" QOSMaxGRESPerJob "*|\
    *" QOSMaxCpuPerJobLimit "*)
      $scancel "$array" "$book" 2>/dev/null
      echo "Slurm would never start these jobs (reason: $reasons), so they were cancelled: change the partition or the"
      echo "resources (--gres, --cpus-per-task, SBATCH_OPTIONS)."
      exit 1 ;;
  esac
  sleep 1
done
echo "The gradebook will be $out/gradebook.csv; Slurm's logs are in $out/.wb/slurm/. Running this again grades exactly"
echo "the hand-ins not graded (or changed)."
