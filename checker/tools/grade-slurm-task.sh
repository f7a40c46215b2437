#!/usr/bin/env bash
# The jobs checker/tools/grade-slurm.sh submits (run by sbatch in the workbook's folder):
#   --build KIND HANDINS OUT          the shared programs, on a node, for its GPU
#   --task KIND LIST HANDINS OUT      array task: grades the student on line SLURM_ARRAY_TASK_ID+1 of LIST
#   --gradebook KIND HANDINS OUT      after the array: OUT/gradebook.csv (exit 1 if a row is not graded)
# The judge comes as an argument, not from the environment (SBATCH_OPTIONS may say --export=NONE).
set -u
step=${1:-} kind=${2:-}
case $step in
  --build|--gradebook) [ $# -eq 4 ] || { echo "usage: grade-slurm-task.sh $step KIND HANDINS OUT"; exit 2; }
    exec env -u EMU JUDGE_KIND="$kind" MAKE="${MAKE:-make}" checker/tools/grade-all.sh \
      "${step/--gradebook/--gradebook-only}" "$3" "$4" ;;
  --task) [ $# -eq 5 ] || { echo "usage: grade-slurm-task.sh --task KIND LIST HANDINS OUT"; exit 2; }
    id=${SLURM_ARRAY_TASK_ID:?this runs as a task of a Slurm array}
    student=$(sed -n "$((id + 1))p" "$3")
    [ -n "$student" ] || { echo "task $id: no line $((id + 1)) in $3"; exit 2; }
    echo "Task $id on node ${SLURMD_NODENAME:-$(hostname -s)}: $student"
    exec env -u EMU JUDGE_KIND="$kind" MAKE="${MAKE:-make}" checker/tools/grade-all.sh --task "$student" "$4" "$5" ;;
  *) echo "usage: grade-slurm-task.sh --build|--task|--gradebook KIND ... (grade-slurm.sh submits these)"; exit 2 ;;
esac
