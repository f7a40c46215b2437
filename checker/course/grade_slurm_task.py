#!/usr/bin/env python3
"""The jobs checker/course/grade_slurm.py submits (run by sbatch in the workbook's folder):
  --build KIND HANDINS OUT          the shared programs, on a node, for its GPU
  --task KIND LIST HANDINS OUT      array task: grades the student on line SLURM_ARRAY_TASK_ID+1 of LIST
  --gradebook KIND HANDINS OUT      after the array: OUT/gradebook.csv (exit 1 if a row is not graded)
The judge comes as an argument, not from the environment (SBATCH_OPTIONS may say --export=NONE).
Slurm runs a copy of this file from its spool: it reads nothing beside itself."""
import os
import sys


def say(text):
    os.write(1, os.fsencode(text + "\n"))


def grade_all(kind, *args):
    env = dict(os.environ, JUDGE_KIND=kind, MAKE=os.environ.get("MAKE") or "make")
    env.pop("EMU", None)
    os.execve(sys.executable, [sys.executable, "checker/course/grade_all.py", *args], env)


def main(argv):
    step, kind = (argv + ["", ""])[:2]
    if step in ("--build", "--gradebook"):
        if len(argv) != 4:
            say(f"usage: grade_slurm_task.py {step} KIND HANDINS OUT")
            return 2
        grade_all(kind, "--build" if step == "--build" else "--gradebook-only", argv[2], argv[3])
    if step == "--task":
        if len(argv) != 5:
            say("usage: grade_slurm_task.py --task KIND LIST HANDINS OUT")
            return 2
        task = os.environ.get("SLURM_ARRAY_TASK_ID", "")
        if not task:
            os.write(2, b"SLURM_ARRAY_TASK_ID: this runs as a task of a Slurm array\n")
            return 127
        line = int(task) + 1 if task.isdigit() else 1
        try:
            with open(argv[2], "rb") as f:
                lines = f.read().split(b"\n")
        except OSError:
            lines = []
        student = os.fsdecode(lines[line - 1]) if line <= len(lines) else ""
        if not student:
            say(f"task {task}: no line {line} in {argv[2]}")
            return 2
        say(f"Task {task} on node {os.environ.get('SLURMD_NODENAME') or os.uname().nodename.split('.')[0]}: {student}")
        grade_all(kind, "--task", student, argv[3], argv[4])
    say("usage: grade_slurm_task.py --build|--task|--gradebook KIND ... (grade_slurm.py submits these)")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
