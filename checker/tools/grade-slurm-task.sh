#!/usr/bin/env bash
# One task of checker/tools/grade-slurm.sh's array: the hand-in with index SLURM_ARRAY_TASK_ID
# (in sorted order) graded on the GPU Slurm gave this task.
#   Usage (by sbatch): grade-slurm-task.sh HANDINS OUT
set -u
handins=${1%/} out=${2%/}
mapfile -t students < <(find "$handins" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | LC_ALL=C sort)
student=${students[${SLURM_ARRAY_TASK_ID:?this runs as a task of a Slurm array}]:-}
[ -n "$student" ] || { echo "task $SLURM_ARRAY_TASK_ID: no hand-in with that index in $handins"; exit 2; }
exec env MAKE="${MAKE:-make}" JUDGE_KIND="${JUDGE_KIND:-gpu}" checker/tools/grade-all.sh --only "$student" "$handins" "$out"
