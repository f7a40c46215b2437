#!/usr/bin/env python3
"""A whole class on a Slurm cluster: the shared check programs built once, then one array task
per hand-in still to grade (checker/course/grade_all.py --task), then one job after them all
that writes OUT/gradebook.csv (each student's results in OUT/students/STUDENT/). Run it from
the workbook's folder on a login node whose file system the nodes share; docs/cluster.md says
more. Slurm schedules; nothing here does.

The judge follows EMU=1 (the CPU emulator; else the GPU judge). Resources per task, with
defaults that fit the judge: --gres SPEC (gpu:1 for the GPU judge, none for the emulator;
"none" asks for no gres) and --cpus-per-task N (2 for the GPU judge, 1 for the emulator).
SBATCH_OPTIONS adds the rest to every submission (a partition, an account, a time).
A request that no node can meet is refused before anything is submitted.

Built where it grades: the emulator's programs here (they do not depend on the machine);
the GPU judge's for --cuda-arch N (or CUDA_ARCH) here, else by a job on a node of the
partition, for its GPU. A failed build stops the submission.
  Usage: [EMU=1] checker/course/grade_slurm.py [--gres SPEC|none] [--cpus-per-task N] [--cuda-arch N] HANDINS OUT
"""
import os
import re
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # nothing of ours left in the tree, whoever runs it
import grade_lib as lib  # noqa: E402
from grade_lib import say  # noqa: E402

USAGE = "usage: [EMU=1] grade_slurm.py [--gres SPEC|none] [--cpus-per-task N] [--cuda-arch N] HANDINS OUT"
GRADE_ALL = "checker/course/grade_all.py"
TASK = "checker/course/grade_slurm_task.py"  # what sbatch runs (it copies the file: it reads nothing beside it)
# Reasons a pending job never starts for.
NEVER = {"PartitionConfig", "BadConstraints", "PartitionNodeLimit", "PartitionTimeLimit", "InvalidAccount",
         "InvalidQOS", "DependencyNeverSatisfied", "AccountNotAllowed", "QOSMaxGRESPerJob", "QOSMaxCpuPerJobLimit"}


def awk_number(text):
    """A field as awk reads a number: its leading number, else 0."""
    m = re.match(r"[ \t]*([-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)", text)
    return float(m.group(1)) if m else 0.0


def grade_all(kind, step, handins, out, arch="", stdout=None):
    """grade_all.py's step for the judge KIND (as env -u EMU JUDGE_KIND=KIND ...): its exit status."""
    env = dict(os.environ, JUDGE_KIND=kind)
    env.pop("EMU", None)
    if arch:
        env["CUDA_ARCH"] = arch
    return lib.call([sys.executable, GRADE_ALL, step, handins, out], env=env, stdout=stdout)


def newest(pattern_dir, prefix):
    """`ls -t DIR/PREFIX*.out | head -n 1`: the newest of those files, or "" (and why, where DIR cannot
    be read)."""
    try:
        found = [e for e in os.scandir(pattern_dir) if e.name.startswith(prefix) and e.name.endswith(".out")]
    except OSError as e:
        say(f"{pattern_dir}: {e.strerror}", 2)
        return ""
    found.sort(key=lambda e: (-e.stat().st_mtime_ns, os.fsencode(e.name)))
    return found[0].path if found else ""


def link_logs(target, link):
    """ln -sfn TARGET LINK: LINK made a link to TARGET, whatever link was there."""
    if os.path.isdir(link) and not os.path.islink(link):
        link = os.path.join(link, os.path.basename(target))
    tmp = f"{link}.{os.getpid()}.tmp"
    try:
        os.symlink(target, tmp)
        os.replace(tmp, link)
    except OSError as e:
        lib.remove(tmp)
        say(f"ln: {link}: {e.strerror}", 2)


def main(argv):
    lib.start()
    gres, cpus, arch = "", "", os.environ.get("CUDA_ARCH", "")
    while argv:
        a = argv[0]
        if a in ("--gres", "--cpus-per-task", "--cuda-arch"):
            if len(argv) < 2:
                say(f"{a} needs a value; {USAGE}")
                return 2
            if a == "--gres":
                gres = argv[1]
            elif a == "--cpus-per-task":
                cpus = argv[1]
            else:
                arch = argv[1]
            argv = argv[2:]
        elif a.startswith(("--gres=", "--cpus-per-task=", "--cuda-arch=")):
            value = a.split("=", 1)[1]
            if a.startswith("--gres="):
                gres = value
            elif a.startswith("--cpus-per-task="):
                cpus = value
            else:
                arch = value
            argv = argv[1:]
        elif a == "--":
            argv = argv[1:]
            break
        elif a.startswith("-"):
            say(f"grade_slurm.py: unknown option {a}; {USAGE}")
            return 2
        else:
            break
    if len(argv) != 2:
        say(USAGE)
        return 2
    if not os.path.isfile("lessons/registry"):
        say("grade_slurm.py runs from the workbook's folder (where lessons/registry is).")
        return 2
    handins, out = (a[:-1] if a.endswith("/") else a for a in argv)
    if not os.path.isdir(handins):
        say(f"HANDINS={handins} is not a folder: give the folder that holds one folder per student.")
        return 2
    sbatch = (os.environ.get("SBATCH") or "sbatch").split()
    sinfo = (os.environ.get("SINFO") or "sinfo").split()
    squeue = (os.environ.get("SQUEUE") or "squeue").split()
    scancel = (os.environ.get("SCANCEL") or "scancel").split()

    judge_kind = os.environ.get("JUDGE_KIND", "")
    kind = judge_kind or "gpu"
    if os.environ.get("EMU"):
        if (judge_kind or "emulator") != "emulator":
            say(f"EMU=1 and JUDGE_KIND={judge_kind} disagree: say one.")
            return 2
        kind = "emulator"
    if kind not in ("emulator", "gpu"):
        say(f"JUDGE_KIND={kind}: the judge is emulator or gpu.")
        return 2
    gres, cpus = (gres or "gpu:1", cpus or "2") if kind == "gpu" else (gres or "none", cpus or "1")
    if not re.fullmatch(r"[1-9][0-9]*", cpus):
        say(f"--cpus-per-task {cpus} is not a whole number of CPUs (1 or more).")
        return 2
    if gres != "none" and not re.fullmatch(r"[A-Za-z0-9_.:,-]+", gres):
        say(f"--gres {gres} is not a gres like gpu:1 (or none).")
        return 2
    if arch and kind != "gpu":
        say("--cuda-arch is for the GPU judge; the emulator needs none (drop it, or EMU=1).")
        return 2
    if arch and not re.fullmatch(r"[0-9]{2,3}", arch):
        say(f"--cuda-arch {arch} is not an architecture number like 90.")
        return 2
    opts = os.environ.get("SBATCH_OPTIONS", "").split()
    for o in opts:
        if o.startswith(("--gres", "--gpus", "-G", "--cpus-per-task", "-c")):
            say(f"SBATCH_OPTIONS has {o}: give GPUs and CPUs as grade_slurm.py's --gres and --cpus-per-task, which"
                " the build")
            say("job, the tasks and the checks all use.")
            return 2
        if o.startswith(("--array", "-a", "--output", "-o", "--dependency", "-d", "--wait", "-W")):
            say(f"SBATCH_OPTIONS has {o}, which grade_slurm.py sets itself: leave it out.")
            return 2
    res = [f"--cpus-per-task={cpus}"] + ([] if gres == "none" else [f"--gres={gres}"])
    want = f"{cpus} CPU(s), no gres" if gres == "none" else f"{cpus} CPU(s) and gres {gres}"
    # The partition: the last --partition=P or -pP, else the last -p P or --partition P.
    said = []
    for o in opts:
        if o.startswith("--partition="):
            o = o[len("--partition="):]
            said.append(o)
        if re.match(r"-p.", o, re.S):
            said.append(o[2:])
    partition = said[-1] if said else ""
    if not partition:
        for i, o in enumerate(opts):
            if o in ("-p", "--partition"):
                partition = opts[i + 1] if i + 1 < len(opts) else ""
    where = f"partition {partition}" if partition else "the default partition"

    # Names first: one that cannot be graded is said now; its row in the gradebook says so too, and
    # the rest of the class is graded.
    lib.lessons()
    problem = lib.check_places(handins, out)
    if problem:
        for line in problem:
            say(line)
        return 2
    roster = lib.roster(handins)
    total = 0
    for what, name, why in roster:
        if what == "student":
            total += 1
        else:
            say(f"Refused: {handins}/{name}: {why} (its gradebook row will say so; the others are graded).")
    if not roster:
        say(f"{handins} holds no hand-ins: one folder per student, each laid out like work/ (NN_topic/kernel.cu).")
        return 2

    # A request no node can meet is refused now, in one sentence, instead of pending forever.
    rc, nodes = lib.capture(sinfo + ["-h"] + (["-p", partition] if partition else []) + ["-o", "%c %G"],
                            stderr=subprocess.DEVNULL)
    if rc == 0 and nodes:
        rows = [lib.fields(os.fsencode(line)) for line in lib.records(os.fsencode(nodes))]
        most = max([0.0] + [awk_number(os.fsdecode(f[0])) for f in rows if f])
        most = str(int(most)) if most == int(most) else "%.6g" % most
        if float(most) < int(cpus):
            say(f"No node of {where} has {cpus} CPUs (the most is {most}): ask for fewer with --cpus-per-task {most}.")
            return 2
        g = gres.split(":")[0]
        if gres != "none" and not any(len(f) > 1 and re.search("(^|,)" + g + "[:(]", os.fsdecode(f[1])) for f in rows):
            if kind == "emulator":
                advice = "the emulator needs none, drop --gres"
            else:
                advice = "give the partition of the GPU nodes in SBATCH_OPTIONS, or grade in the emulator with EMU=1"
            say(f"No node of {where} declares the gres {g} (--gres {gres}): {advice}.")
            return 2
    elif not os.environ.get("SINFO"):
        say(f"{' '.join(sinfo)} does not answer: is this a Slurm login node? (Nothing was submitted.)")
        return 2
    try:
        p = subprocess.run(sbatch + ["--test-only"] + opts + res + ["--job-name=wb-check", "--wrap=true"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        rc, why = lib.status(p.returncode), os.fsdecode(p.stdout.rstrip(b"\n"))
    except OSError as e:
        rc, why = 127, f"{sbatch[0]}: {e.strerror}"
    if rc != 0:
        say(f"No node of {where} can run a grading task with {want}; sbatch --test-only says: {why.split(chr(10))[-1]}")
        return 2

    try:
        os.makedirs(out + "/.wb", exist_ok=True)
    except OSError:
        say(f"Cannot create {out}.")
        return 2
    here = lib.logical_cwd()
    logs = lib.stage_root(out) + "/slurm"
    try:
        os.makedirs(logs, exist_ok=True)
        link_logs(f"{here}/{logs}", out + "/.wb/slurm")
    except OSError as e:
        say(f"mkdir: {logs}: {e.strerror}", 2)

    # The shared programs, once, where they will be valid; a failed build stops here.
    if kind == "emulator" or arch:
        if grade_all(kind, "--build", handins, out, arch) != 0:
            return 1
    else:
        say(f"Building the GPU judge's programs on a node of {where}, for its GPU (a job; --cuda-arch N builds"
            " here)...")
        if lib.call(sbatch + ["--wait", "--quiet"] + opts + res + ["--job-name=wb-build", f"--chdir={here}",
                    f"--output={logs}/build-%j.out", TASK, "--build", kind, handins, out]) != 0:
            say("The build job failed, so nothing was submitted. Its log:")
            text = lib.read_bytes(newest(logs, "build-")) or b""
            lib.write_fd(1, b"".join(b"  | " + line for line in lib.tail(text, 20)))
            return 1
        log = newest(logs, "build-")
        if log:
            try:
                with open(log, "rb") as f:
                    lib.write_fd(1, f.read())
            except OSError as e:
                say(f"{log}: {e.strerror}", 2)

    # The hand-ins copied as they are now (what the tasks grade), and those still to grade.
    roll = f"{logs}/students-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}"
    try:
        with open(roll, "wb") as f:
            rc = grade_all(kind, "--pending", handins, out, stdout=f)
    except OSError:
        rc = 1
    if rc != 0:
        say("Could not list the hand-ins.")
        return 2
    data = lib.read_bytes(roll) or b""
    n = len(lib.records(data)) if data else 0
    if n == 0:
        say(f"All {total} hand-ins are graded already from their present files by this build (or none can be); the"
            " gradebook:")
        return grade_all(kind, "--gradebook-only", handins, out)
    rc, array = lib.capture(sbatch + ["--parsable"] + opts + res + ["--job-name=wb-grade", f"--array=0-{n - 1}",
                            f"--chdir={here}", f"--output={logs}/%A_%a.out", TASK, "--task", kind, roll, handins, out])
    if rc != 0:
        say("sbatch refused the grading array (above); nothing is pending.")
        return 1
    array = array.split(";")[0]
    rc, book = lib.capture(sbatch + ["--parsable"] + opts + ["--cpus-per-task=1", "--job-name=wb-gradebook",
                           f"--dependency=afterany:{array}", "--kill-on-invalid-dep=yes", f"--chdir={here}",
                           f"--output={logs}/gradebook-%j.out", TASK, "--gradebook", kind, handins, out])
    if rc != 0:
        say("sbatch refused the gradebook job (above); cancelling the array.")
        lib.call(scancel + [array])
        return 1
    book = book.split(";")[0]
    say(f"Submitted: {n} of {total} hand-ins to grade (array job {array}, {want} each) and the gradebook after them"
        f" (job {book}).")

    # A job pending for a reason that never clears is cancelled now, with that reason.
    for _ in range(3):
        _, text = lib.capture(squeue + ["-h", "-j", f"{array},{book}", "-o", "%r"], stderr=subprocess.DEVNULL)
        reasons = sorted(set(text.split("\n"))) if text else []
        if NEVER & set(" ".join(reasons).split()):
            lib.call(scancel + [array, book], stderr=subprocess.DEVNULL)
            say(f"Slurm would never start these jobs (reason: {' '.join(reasons)}), so they were cancelled: change the"
                " partition or the")
            say("resources (--gres, --cpus-per-task, SBATCH_OPTIONS).")
            return 1
        time.sleep(1)
    say(f"The gradebook will be {out}/gradebook.csv; Slurm's logs are in {out}/.wb/slurm/. Running this again grades"
        " exactly")
    say("the hand-ins not graded (or changed).")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
