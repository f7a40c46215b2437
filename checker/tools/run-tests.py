#!/usr/bin/env python3
"""make test's driver. The steps, when each runs and what runs it are one table,
checker/tests/steps/table (its header says how to read it); this script is its one reader.
  checker/tools/run-tests.py              every step for this machine (make test), ending with one
                                          line that counts them, `test: N passed, N failed, N skipped`
  checker/tools/run-tests.py --only STEP  that step alone, its output as it comes (make STEP)
  checker/tools/run-tests.py --list       the steps for this machine, by phase (make help)
make starts it and says whether there is a GPU: WB_GPU_CC, its compute capability, empty for none.
LEAVE_OUT="STEP..." leaves steps out of make test (a machine without pandoc or chromium, say).
The phases, in the order they start:
beside:   started first, each on its own, beside the first steps (steps that need nothing the
          first steps build, and that wait on the clock or the GPU in places: they do not count
          among the JOBS below): arrows-test, and explore (which builds its own programs and
          measures with the GPU alone), are here so that the gpu step starts once build-all ends;
first:    one at a time, in order, their output as it comes (quick checks, and the build the
          others need);
gpu:      after the first, beside everything else, not counted among the JOBS below: the GPU's
          step, whose judges mostly wait on the GPU; the together steps then run niced, so
          that the GPU judges' runners, whose timings are on the GPU's clock, never wait for
          a core;
together: after the first, up to JOBS at once (this machine's cores, 2 at least), in the table's
          order (the longest first, so that none is left running alone at the end); each one's
          report is shown whole when it ends;
last:     one at a time after all the others, with the machine to itself: the load test keeps
          every core busy on purpose.
Each step's output goes to build/test-STEP.log. A step that cannot run on this machine says
"SKIPPED: why" and is counted as skipped. At the first failure the steps still running are
stopped and the failed one's report is shown."""
import os
import random
import shutil
import signal
import subprocess
import sys
import time

TABLE = "checker/tests/steps/table"
PHASES = ("beside", "first", "gpu", "together", "last")
WHERE = {"solutions": "where there is solutions/ (a handout has none)", "gpu": "on a GPU", "no-gpu": "without a GPU"}
MAKE = os.environ.get("MAKE") or "make"


def refuse(why):
    print(f"run-tests: {why}", file=sys.stderr)
    sys.exit(2)


def echo(data):
    """Our lines and the steps' output on stdout, unbuffered, in the order they happen."""
    data = data if isinstance(data, bytes) else os.fsencode(data + "\n")
    while data:
        data = data[os.write(1, data):]


def read_table(gpu_cc):
    """The table, read once: each phase's steps for this machine, in order, what runs each, and
    where the others would run."""
    run_of, listed, unmet, steps = {}, set(), {}, {p: [] for p in PHASES}
    met = {"always": True, "solutions": os.path.isdir("solutions"), "gpu": gpu_cc != "", "no-gpu": gpu_cc == ""}
    with open(TABLE, encoding="utf-8", errors="surrogateescape") as f:
        for line, text in enumerate(f, 1):
            words = text.split(None, 4)
            if not words or words[0].startswith("#"):
                continue
            where = f"{TABLE}, line {line}"
            if len(words) < 5:
                refuse(f"{where}: a step is NAME PHASE WHEN RUN and a sentence of what it proves.")
            name, phase, when, run = words[:4]
            if phase not in PHASES:
                refuse(f"{where}: phase '{phase}' is none of {' '.join(PHASES)}.")
            if when not in met:
                refuse(f"{where}: WHEN '{when}' is none of always, solutions, gpu, no-gpu.")
            # make runs a step's script through its %-test rule, which would call this again for ever.
            if run == "make" and name.endswith("-test"):
                refuse(f"{where}: {name} is run by make test itself, not make.")
            listed.add(name)
            if not met[when]:
                unmet[name] = f"{unmet[name]}, or {WHERE[when]}" if name in unmet else WHERE[when]
                continue
            if name in run_of:
                refuse(f"{where}: {name} has a line already for this machine.")
            run_of[name] = run
            steps[phase].append(name)
    return run_of, listed, unmet, steps


def command(run_of, step):
    """The command that runs a step: make's target of its name, a script beside the table (a file
    name), or one from the workbook's root (a path)."""
    run = run_of[step]
    if run == "make":
        return [MAKE, "--no-print-directory", step]
    return [run] if "/" in run else [os.path.join(os.path.dirname(TABLE), run)]


def listing(steps):
    """A phase's names after "PHASE:", on lines of about 90 characters."""
    for phase in PHASES:
        out = f"{phase}:"
        for step in steps[phase]:
            if len(out) + len(step) >= 90:
                echo(out)
                out = "  "
            out += f" {step}"
        if steps[phase]:
            echo(out)


def python3_found_once():
    """python3 found once: a version manager's shim (pyenv's starts about ten shells per call, ~0.5 s
    on the 2-core machine, and the steps call python3 some 80 times) is put behind a link to the
    interpreter it resolves to, the same python3, in a folder of its own at the front of PATH."""
    try:
        p = subprocess.run(["python3", "-c", "import sys; print(sys.executable)"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL)
    except OSError:
        return
    py = os.fsdecode(p.stdout).rstrip("\n")
    if p.returncode != 0 or not py or not os.access(py, os.X_OK) or shutil.which("python3") == py:
        return
    os.makedirs("build/python3", exist_ok=True)
    link = "build/python3/python3"
    if os.path.islink(link) or os.path.isfile(link):
        os.remove(link)
    os.symlink(py, link)
    os.environ["PATH"] = f"{os.getcwd()}/build/python3:{os.environ.get('PATH', '')}"


class Run:
    """make test's steps, started and counted; at the first failure the run ends (exit 1)."""

    def __init__(self, run_of, jobs):
        self.run_of, self.jobs, self.start = run_of, jobs, self.seconds()
        self.passed, self.skipped, self.took = 0, [], []
        self.running, self.beside = {}, set()  # pid: (step, its start, its Popen); the beside steps' pids
        self.lower = []  # the together steps' priority: nice beside a GPU step

    @staticmethod
    def seconds():  # whole seconds, as the shell's SECONDS counts them
        return int(time.time())

    def now(self):
        return self.seconds() - self.start

    def ended(self, step, rc, secs):
        """A step that ended: counted, or the run ends here."""
        self.took.append(f"{step} {secs}s")
        if rc != 0:
            echo(f"== make test: {step} FAILED after {secs} s")
            echo(f"test: {self.passed} passed, 1 failed, {len(self.skipped)} skipped")
            sys.exit(1)
        with open(f"build/test-{step}.log", "rb") as f:
            skipped = any(line.startswith(b"SKIPPED: ") for line in f)
        if skipped:
            self.skipped.append(step)
        else:
            self.passed += 1

    def launch(self, step, beside=False):
        """A step in the background, in a process group of its own (to stop it whole), into its log."""
        echo(f"== make test: {step} started (at {self.now()} s)")
        t = self.seconds()
        with open(f"build/test-{step}.log", "wb") as log:
            try:
                p = subprocess.Popen(self.lower + command(self.run_of, step), stdout=log,
                                     stderr=subprocess.STDOUT, preexec_fn=os.setpgrp)
            except OSError as e:
                log.write(os.fsencode(f"run-tests: {e.filename}: {e.strerror}\n"))
                p = None
        if p is None:  # reported at once, as though it had ended
            self.report(step, t, 127)
            return
        self.running[p.pid] = (step, t, p)
        if beside:
            self.beside.add(p.pid)

    def reap(self):
        """Waits for any started step; shows its report and counts it."""
        pid, status = os.waitpid(-1, 0)
        if pid not in self.running:
            return
        step, t, p = self.running.pop(pid)
        self.beside.discard(pid)
        p.returncode = os.waitstatus_to_exitcode(status)
        self.report(step, t, p.returncode)

    def report(self, step, t, rc):
        echo(f"== make test: {step} (at {self.now()} s, in {self.seconds() - t} s):")
        with open(f"build/test-{step}.log", "rb") as f:
            echo(f.read())
        self.ended(step, rc, self.seconds() - t)

    def in_turn(self, step, note):
        """Runs a step in the foreground, its output as it comes (and into its log)."""
        t = self.seconds()
        echo(f"== make test: {step} (at {self.now()} s{note})")
        with open(f"build/test-{step}.log", "wb") as log:
            try:
                p = subprocess.Popen(command(self.run_of, step), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
            except OSError as e:
                data = os.fsencode(f"run-tests: {e.filename}: {e.strerror}\n")
                echo(data)
                log.write(data)
                rc = 127
            else:
                while data := os.read(p.stdout.fileno(), 65536):
                    echo(data)
                    log.write(data)
                    log.flush()
                rc = p.wait()
        self.ended(step, rc, self.seconds() - t)

    def stop_all(self):
        for pid in self.running:
            try:
                os.killpg(pid, signal.SIGTERM)
            except OSError:
                pass
        for step, t, p in self.running.values():
            p.wait()
        self.running.clear()


def main(args):
    mode = {"": "all", "--only": "only", "--list": "list"}.get(args[0] if args else "")
    if mode is None:
        refuse(f"unknown option {args[0]} (--only STEP, --list, or none: every step).")
    if mode == "only" and len(args) != 2:
        refuse("--only takes one step's name.")
    if "WB_GPU_CC" not in os.environ:
        refuse("make runs this (make test, make STEP): it says whether there is a GPU (WB_GPU_CC).")
    if not os.path.isfile(TABLE):
        refuse(f"there is no {TABLE}: this copy has no tests of its own (a handout leaves them out).")
    # The lists that made make test's steps before this table did: a command that still names them
    # would otherwise run every step.
    for v in ("TEST_FIRST", "TEST_BESIDE", "TEST_GPU", "TEST_TOGETHER", "TEST_LAST"):
        if v in os.environ:
            refuse(f'{v} no longer picks steps: {TABLE} lists them; LEAVE_OUT="STEP..." leaves some out.')
    run_of, listed, unmet, steps = read_table(os.environ["WB_GPU_CC"])

    if mode == "only":
        only = args[1]
        if only not in listed:
            refuse(f"make test has no step called '{only}' ({TABLE} lists them; so does make help).")
        if only not in run_of:
            echo(f"SKIPPED: {only} runs only {unmet[only]}.")
            return 0
        cmd = command(run_of, only)
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            print(f"run-tests: {cmd[0]}: {e.strerror}", file=sys.stderr)
            return 126 if isinstance(e, PermissionError) else 127
    if mode == "list":
        listing(steps)
        return 0

    # LEAVE_OUT: steps this run leaves out, each a step of the table.
    left_out = []
    for step in os.environ.get("LEAVE_OUT", "").split():
        if step not in listed:
            refuse(f"LEAVE_OUT names '{step}', which is no step of make test ({TABLE} lists them).")
        if step in run_of:
            left_out.append(step)
            del run_of[step]
    steps = {phase: [s for s in these if s in run_of] for phase, these in steps.items()}

    try:
        jobs = int(os.environ.get("JOBS") or subprocess.run(["nproc"], stdout=subprocess.PIPE).stdout)
    except ValueError:
        jobs = 2
    jobs = max(jobs, 2)
    os.makedirs("build", exist_ok=True)
    python3_found_once()
    # One seed for every grading that does not choose its own: a failure is replayed with the same
    # inputs (make test SEED=N), and the reference side, which runs the workbook's own kernels on
    # those inputs for every mutant and hand-in, is computed once per job (on a GPU, per untimed job)
    # and kept in a folder of this run's (WB_REF_CACHE, checker/judge/ref_cache.c).
    seed = os.environ["SEED"] = os.environ.get("SEED") or str(random.randint(1, 1 << 30))
    cache = os.environ["WB_REF_CACHE"] = f"{os.getcwd()}/build/ref-cache"
    shutil.rmtree(cache, ignore_errors=True)
    echo(f"== make test: inputs from seed {seed} (the same again: make test SEED={seed})")
    if left_out:
        echo(f"== make test: left out (LEAVE_OUT): {' '.join(left_out)}")

    run = Run(run_of, jobs)
    # A signal ends the run as an exit does: the steps still running are stopped first.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda signum, _: sys.exit(128 + signum))
    try:
        for step in steps["beside"]:
            run.launch(step, beside=True)
        for step in steps["first"]:
            run.in_turn(step, "")
        for step in steps["gpu"]:
            run.launch(step, beside=True)
            run.lower = ["nice", "-n", "10"]
        for step in steps["together"]:
            while len(run.running) - len(run.beside) >= jobs:
                run.reap()
            run.launch(step)
        while run.running:
            run.reap()
        for step in steps["last"]:
            run.in_turn(step, ", alone")
    finally:
        run.stop_all()
    # Steps of the table this machine does not meet (a copy without solutions/), named.
    not_here = "".join(f" {s} ({why})" for s, why in unmet.items() if s not in run_of and s not in left_out)
    skipped = " ".join(run.skipped)
    echo(f"== make test: every step ran{' but those left out' if left_out else ''}, in {run.now()} s"
         + (f"; skipped, since this machine cannot run them: {skipped}" if skipped else "")
         + (f"; not for this copy:{not_here}" if not_here else ""))
    echo(f"== each step: {', '.join(run.took)}" if run.took else "== each step:")
    echo(f"test: {run.passed} passed, 0 failed, {len(run.skipped)} skipped"
         + (f", {len(left_out)} left out (LEAVE_OUT): {' '.join(left_out)}" if left_out else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
