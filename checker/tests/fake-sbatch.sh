#!/usr/bin/env bash
# A stand-in for Slurm's sbatch, for testing checker/tools/grade-slurm.sh where there is no
# cluster: an array job's tasks run here one after another, with SLURM_ARRAY_TASK_ID set as
# Slurm sets it; --wrap runs its command; other options are accepted and ignored. Prints a job
# id, as sbatch --parsable does.
set -u
array="" wrap="" script=()
for a in "$@"; do
  case $a in
    --array=*) array=${a#--array=} ;;
    --wrap=*) wrap=${a#--wrap=} ;;
    --*) ;;
    *) script+=("$a") ;;
  esac
done
if [ -n "$wrap" ]; then
  bash -c "$wrap" > /dev/null 2>&1
elif [ -n "$array" ]; then
  for id in $(seq "${array%-*}" "${array#*-}"); do
    SLURM_ARRAY_TASK_ID=$id "${script[@]}" > /dev/null 2>&1
  done
fi
echo $((1000 + RANDOM % 1000))
