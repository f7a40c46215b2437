#!/usr/bin/env bash
# A whole class on a Slurm cluster: one array task per hand-in, each with a GPU of its own
# (checker/tools/grade-all.sh --only STUDENT), then one job after them all that writes
# OUT/gradebook.csv (--gradebook-only). Run it from the workbook's folder on a login node
# whose file system the GPU nodes share; docs/cluster.md says more. Slurm schedules; nothing
# here does. SBATCH_OPTIONS adds options to both submissions (a partition, an account, a time).
#   Usage: checker/tools/grade-slurm.sh HANDINS OUT
set -eu
handins=${1%/} out=${2%/}
sbatch=${SBATCH:-sbatch}
[ -d "$handins" ] || { echo "HANDINS=$handins is not a folder."; exit 2; }
n=$(find "$handins" -mindepth 1 -maxdepth 1 -type d | wc -l)
[ "$n" -gt 0 ] || { echo "$handins holds no hand-ins (one folder per student)."; exit 2; }
mkdir -p "$out/slurm"
# Built once here, so that the tasks do not all build the same shared parts at once.
${MAKE:-make} -s -k --no-print-directory build-all > "$out/slurm/build.log" 2>&1 || true
# shellcheck disable=SC2086
array=$($sbatch --parsable ${SBATCH_OPTIONS:-} --job-name=wb-grade --array=0-$((n - 1)) --gres=gpu:1 \
  --cpus-per-task=4 --output="$out/slurm/%A_%a.out" checker/tools/grade-slurm-task.sh "$handins" "$out")
# shellcheck disable=SC2086
book=$($sbatch --parsable ${SBATCH_OPTIONS:-} --job-name=wb-gradebook --dependency=afterany:"${array%%;*}" \
  --output="$out/slurm/gradebook.out" --wrap="checker/tools/grade-all.sh --gradebook-only '$handins' '$out'")
echo "Submitted: $n gradings (array job ${array%%;*}) and the gradebook after them (job ${book%%;*})."
echo "The gradebook will be $out/gradebook.csv; a task that failed can be run again with grade-all.sh --only."
