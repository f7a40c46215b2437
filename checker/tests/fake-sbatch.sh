#!/usr/bin/env bash
# A stand-in for Slurm's sbatch, for testing checker/course/grade_slurm.py where there is no
# cluster: an array job's tasks run here as many at once as there are cores, as a cluster runs
# them side by side, with SLURM_ARRAY_TASK_ID set as Slurm sets it; --wrap runs its command; --test-only accepts any request; other options are
# accepted and ignored. Everything after the script's path is the script's own arguments, as
# in sbatch. Prints a job id, as sbatch --parsable does. Like sbatch, it fails when the job
# fails only with --wait: otherwise the job's exit status is the job's, not the submission's.
set -u
array="" wrap="" test_only="" wait="" script=()
while [ $# -gt 0 ]; do
  case $1 in
    --array=*) array=${1#--array=} ;;
    --wrap=*) wrap=${1#--wrap=} ;;
    --test-only) test_only=1 ;;
    --wait|-W) wait=1 ;;
    -*) ;;
    *) script=("$@"); break ;;
  esac
  shift
done
id=$((1000 + RANDOM % 1000))
if [ -n "$test_only" ]; then echo "sbatch: Job $id to start now (fake-sbatch)" >&2; exit 0; fi
if [ -n "$wrap" ]; then
  bash -c "$wrap" > /dev/null 2>&1
elif [ -n "$array" ]; then
  cores=$(nproc)
  for t in $(seq "${array%-*}" "${array#*-}"); do
    while [ "$(jobs -rp | wc -l)" -ge "$cores" ]; do wait -n; done
    SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$t "${script[@]}" > /dev/null 2>&1 &
  done
  wait
elif [ ${#script[@]} -gt 0 ]; then
  SLURM_JOB_ID=$id "${script[@]}" > /dev/null 2>&1
  rc=$?
  [ -z "$wait" ] || [ $rc -eq 0 ] || exit $rc
fi
echo $id
