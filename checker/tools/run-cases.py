#!/usr/bin/env python3
"""Grades the workbook's own cases with the judge EMU selects (EMU=1: the emulator; else the GPU),
all in one pool, the longest first, and asserts each verdict:
  solution  each lesson's solution passes, with every gate on a GPU;
  stub      each lesson's stub fails, earning nothing;
  feature   each right kernel of checker/tests/features/ (CUDA features beyond the lessons'
            own) passes;
  mutant    each wrong kernel of checker/mutants/ is rejected with the diagnosis its file
            expects: a checker that merely fails is not enough (and no sentence of a report,
            any kind's, may end "?.": a question given a full stop too);
  attack    each of the red team's files (checker/redteam/) is refused twice, as a student's
            file and with the lint skipped (WB_SKIP_LINT=1, so that the layers below it are
            tried too), and its side effect does not happen: its sentinel file is not made
            and no process it started (named wb-redteam-survivor) outlives it; what its
            kernel printed reaches the report quoted (checker/tools/check-quoted.py).
The cases and their columns come from `build/workbook cases` (checker/commands/cases.c), the
one reader of the .mutant files, which prints the columns FIELDS names, in that order. Each
report is kept in build/KIND-DIR/NAME.log (-gpu after the folder's name for the GPU judge:
make test runs both judges at once on a GPU machine).
A case the judge cannot see is skipped and said to be, never passed: a mistake only the
emulator's thread order exposes on a GPU (unless its gate, `needs`, is on), one only timing
shows in the emulator, a GPU case on a machine without one.
  Usage: checker/tools/run-cases.py [lessons|features|mutants|redteam|NAME...]   (none: all)
Jobs: every core in the emulator (it counts, it does not time, and its limits are CPU time);
on a GPU one at a time (timings must not share the machine), or GPU_JOBS at once where the
judges share it by WB_GPU_LOCK (checker/tests/steps/gpu-test.sh).
Every command is an argument list: no name or path of a case goes through a shell."""
import fcntl
import os
import re
import signal
import subprocess
import sys
import threading
import time
import traceback
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

EMU = os.environ.get("EMU", "")
MAKE = (os.environ.get("MAKE") or "make").split()  # split on blanks, as the shell split $make
WORKBOOK = "build/workbook"
SFX = "" if EMU else "-gpu"
JUDGE = "emulator" if EMU else "GPU"
CORES = int(subprocess.run(["nproc"], stdout=subprocess.PIPE).stdout)  # nproc's own rules (OMP_NUM_THREADS)
JOBS = CORES if EMU else int(os.environ.get("GPU_JOBS") or 1) if os.environ.get("WB_GPU_LOCK") else 1
FIELDS = "kind,name,lesson,source,expect,unlinted,only,needs,timeout,every,sentinel,may_pass,calibrates,file"
# Each kind's folder of reports, and its name in the counts.
KINDS = (("solution", "lessons", "solutions"), ("stub", "lessons", "stubs"),
         ("feature", "features", "features"), ("mutant", "mutants", "mutants"), ("attack", "redteam", "red team"))
REPORTS = {kind: f"build/{folder}{SFX}" for kind, folder, _ in KINDS}
TIMES = "build/case-times" + SFX  # each case's seconds (and start) in its last run: the longest go first
SURVIVOR = "wb-redteam-surviv[o]r"  # the brackets: no command line that looks for it matches itself
said_lock = threading.Lock()


def say(text):
    """A case's sentence on stderr, in one write: cases ending side by side never mix lines."""
    data = os.fsencode(text + "\n")
    with said_lock:
        while data:
            data = data[os.write(2, data):]


def text(data):
    """A command's output as the shell's $(...) took it: the NUL bytes and the last newlines gone."""
    return os.fsdecode(data.replace(b"\0", b"")).rstrip("\n")


def run(cmd, env=None, out=subprocess.PIPE, err=subprocess.STDOUT):
    """Runs cmd, by default its stdout and stderr together; (status, output)."""
    p = subprocess.run(cmd, env=env, stdout=out, stderr=err)
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode  # a signal, as the shell says it
    return rc, text(p.stdout or b"")


def quiet(cmd):
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def forget(src, lesson, env=None):
    subprocess.run([WORKBOOK, "record", src, lesson, "--forget"], env=env, stdout=subprocess.DEVNULL)


def save(path, data):
    with open(path, "wb") as f:
        f.write(os.fsencode(data))


def said(out, expect):
    """Whether the report holds the phrase ("a | b": either phrase will do, the judges may word
    one mistake differently). An empty phrase is in every report: it never counts."""
    return any(p.replace(" ", "") and p in out for p in expect.split(" | "))


def no_gpu(src, lesson):
    """Whether the last check of lesson N in SRC found no GPU to judge on (its record says,
    `workbook record`; a report's sentences are for people)."""
    p = subprocess.run([WORKBOOK, "record", src, lesson], stdout=subprocess.PIPE)
    rows = [line.split() for line in os.fsdecode(p.stdout).splitlines()]
    return "\n".join((r[1:] or [""])[0] for r in rows if r and r[0] == "no_gpu") == "1"


def leaks(out):
    """The report is the student's: no line of the checker's own source may show in it."""
    return "checker/judge/" in out


def misworded(out):
    """Nor a sentence that ends in a question and a full stop ("...?."), outside what a kernel
    printed (quoted after the fence "  | ")."""
    return any(re.search(r"\?\.( |$)", line) for line in out.split("\n") if not line.startswith("  | "))


def indent(out):
    return "\n".join("    | " + line for line in out.split("\n"))


def judge_env(**more):
    return dict(os.environ, WB_JUDGE="check-emu" if EMU else "check", **more)


def grade_lesson(kind, lesson, source, expect, **_):
    """A lesson's solution or stub, as it must be (pass or fail). A stub must fail and earn
    nothing: the gates (compute-sanitizer, Nsight Compute, the emulator's own checks) are worth no
    points and can only take points away, so a stub that earns nothing without them earns nothing
    with them; it is graded without them (on the H200 they were 40 of its GPU processes and 10 of
    the GPU's holds alone)."""
    gates = {"SANITIZE": "0", "PROFILE": "0"} if kind == "stub" else {}
    rc, out = run([WORKBOOK, "check", source, expect, lesson], judge_env(**gates))
    save(f"{REPORTS[kind]}/{kind}-{lesson}.log", out + "\n")
    if rc != 0 and no_gpu(source, lesson):
        say(f"  skipped (no GPU): {source}, lesson {lesson}")
        return ["skip"]
    if rc == 0 and misworded(out):
        say(f'  A SENTENCE ENDS "?." ({expect}): {source}, lesson {lesson}; its report:\n{indent(out)}')
        return ["fail"]
    if rc == 0:
        say(f"  as it must ({expect}): {source}, lesson {lesson}")
        return ["pass"]
    say(f"  NOT AS IT MUST ({expect}): {source}, lesson {lesson}; its report:\n{indent(out)}")
    return ["fail"]


def grade_feature(name, lesson, source, file, **_):
    """A right kernel with CUDA features: it must pass. One that is a near copy of the solution is
    kept as an edit of it (NN_topic/KERNEL.mutant, expect: pass), made here into its own folder."""
    folder, src = REPORTS["feature"], source
    edit = f"{source}/{file.removesuffix('.cu')}.mutant"
    if os.path.isfile(edit):
        rc, out = run([WORKBOOK, "mutate", edit, f"{folder}/{name}"])
        if rc != 0:
            say(f"  CANNOT BUILD FEATURE {name}: {out}")
            return ["fail"]
        src = f"{folder}/{name}"
    rc, out = run([WORKBOOK, "check", src, "pass", lesson], judge_env())
    save(f"{folder}/{name}.log", out + "\n")
    if rc != 0 and no_gpu(src, lesson):
        say(f"  skipped (no GPU): {name} (lesson {lesson})")
        return ["skip"]
    if rc == 0:
        say(f"  passed, as it must: {name} (lesson {lesson})")
        return ["pass"]
    say(f"  FAILED, A RIGHT KERNEL: {name} (lesson {lesson}); its report:\n{indent(out)}")
    return ["fail"]


def grade_mutant(name, lesson, source, expect, only, needs, timeout, every, **_):
    """A wrong kernel: rejected, with its diagnosis."""
    src = f"{REPORTS['mutant']}/{name}"
    if only == "emulator" and not EMU and (not needs or (os.environ.get(needs) or "0") != "1"):
        say(f"  skipped (emulator only{f'; on a GPU with {needs}=1' if needs else ''}): {name}")
        return ["skip"]
    if only == "gpu" and EMU:
        say(f"  skipped (GPU only: only timing shows it): {name}")
        return ["skip"]
    rc, out = run([WORKBOOK, "mutate", source, src])
    if rc != 0:
        say(f"  CANNOT BUILD MUTANT {name}: {out}")
        return ["fail"]

    # The first failed case's report, the cases after it (the largest sizes, the timings, the
    # gates) skipped: most mutants say what they must there. Where it does not say it (a gate's
    # finding, or `every: yes`, or `gpu` on a GPU), every case runs. A kernel that never ends is
    # found at TIMEOUT (10 s of CPU time in the emulator): `timeout` finds it sooner, the same way.
    def check(stop):
        forget(src, lesson)
        env = dict(os.environ, WB_STOP_AT_FAILURE=stop, **({"TIMEOUT": timeout} if timeout else {}))
        return run(MAKE + ["-s", "--no-print-directory", "check", f"EMU={EMU}", f"SRC={src}",
                           f"LESSON={lesson}"], env)
    stop = "" if every == "yes" or (every == "gpu" and not EMU) else "1"
    rc, out = check(stop)
    runs = 2 if stop and not said(out, expect) else 1
    if runs == 2:
        rc, out = check("")
    save(f"{src}.log", out + "\n")
    note = ", two runs" if runs == 2 else ""
    if leaks(out):
        say(f"  NOT REJECTED AS IT MUST: {name} (a checker/judge/ source line is shown); its report:\n"
            + indent(out))
    elif misworded(out):
        say(f'  NOT REJECTED AS IT MUST: {name} (a sentence ends "?."); its report:\n{indent(out)}')
    elif rc != 0 and said(out, expect):
        say(f'  rejected, as it must: {name:<24} ("{expect}"){note}')
        return ["pass"]
    elif no_gpu(src, lesson):
        say(f"  skipped (no GPU):      {name}")
        return ["skip"]
    else:
        say(f'  NOT REJECTED AS IT MUST: {name} (exit {rc}, expected "{expect}"); its report:\n{indent(out)}')
    return ["fail"]


def survivors():
    return subprocess.run(["pgrep", "-f", SURVIVOR], stdout=subprocess.DEVNULL).returncode == 0


def rm(path):
    try:
        os.remove(path)
    except OSError:
        pass


def grade_attack(name, lesson, source, expect, unlinted, only, needs, sentinel, may_pass, file, **_):
    """An attack on the grader, one mode after the other, then its side effects. The same attack is
    graded by one judge at a time on this machine (build/redteam-NAME.lock): its sentinel is the
    same file for both. Every attack holds build/redteam.lock shared from its start to its look for
    survivors, and a run's end takes it alone to kill them: a survivor is seen by the check of the
    attack that started it (or of one beside it) before anything kills it. The graded processes
    keep neither lock's descriptor (Python's are not inherited): one an attack left must not keep
    the others waiting. A file the lint lets through is built and run the same way with the lint
    skipped: one check then stands for both modes (each mode's phrase must be in its report all
    the same)."""
    if only == "emulator" and not EMU:  # an attack on the interpreter's own code
        say(f"  skipped (emulator only: an attack on the interpreter): {name}")
        return ["skip"]
    folder, expects = REPORTS["attack"], {"linted": expect, "unlinted": unlinted}
    verdicts, modes, same, rcs = [], [], False, {}
    with open("build/redteam.lock", "w") as shared, open(f"build/redteam-{name}.lock", "w") as alone:
        fcntl.flock(shared, fcntl.LOCK_SH)
        fcntl.flock(alone, fcntl.LOCK_EX)
        if sentinel:
            rm(sentinel)  # a run stopped midway may have left it
        for mode in ("linted", "unlinted"):
            if same:
                continue
            if not quiet([WORKBOOK, "mutate", source, f"{folder}/{name}-{mode}"]):
                verdicts.append("fail")
                say(f"  CANNOT BUILD ATTACK {name} ({mode})")
                continue
            modes.append(mode)
            base = os.path.basename(file)
            same = mode == "linted" and quiet([WORKBOOK, "lint", f"{folder}/{name}-{mode}/{file}",
                                               base.removesuffix(".cu") or base])
        for mode in modes:
            # A GPU attack only a compute-sanitizer gate sees (needs: SANITIZE) runs with it on.
            env = dict(os.environ, **({"WB_SKIP_LINT": "1"} if mode == "unlinted" else {}),
                       **({needs: "1"} if needs and not EMU else {}))
            forget(f"{folder}/{name}-{mode}", lesson, env)
            with open(f"{folder}/{name}-{mode}.log", "wb") as log:
                rcs[mode], _ = run(MAKE + ["-s", "--no-print-directory", "check", f"EMU={EMU}",
                                           f"SRC={folder}/{name}-{mode}", f"LESSON={lesson}"], env, log)
            save(f"{folder}/{name}-{mode}.rc", f"{rcs[mode]}\n")
        effect = [f"it made {sentinel}"] if sentinel and os.path.exists(sentinel) else []
        if survivors():
            effect.append("a process it (or an attack beside it) started survived")
        effect = "; ".join(effect)
        if sentinel:
            rm(sentinel)
    if same:
        modes.append("unlinted")
    for mode in modes:
        frm = "linted" if mode == "unlinted" and same else mode
        log, rc = f"{folder}/{name}-{frm}.log", rcs[frm]
        with open(log, "rb") as f:
            out = text(f.read())
        # What a kernel printed reaches the report quoted: no byte a terminal acts on, all UTF-8.
        q, why = run(["checker/tools/check-quoted.py", log], err=None)
        raw = "" if q == 0 else "; " + why
        # An attack with nothing to act on in either judge (no host code of a lesson file is
        # compiled, only device code) may pass, as long as it did nothing.
        ok = (rc != 0 and said(out, expects[mode])) or (rc == 0 and may_pass == "yes")
        if not effect and no_gpu(f"{folder}/{name}-{frm}", lesson):  # a side effect fails it all the same
            verdicts.append("skip")
            say(f"  skipped (no GPU): {name}")
        elif ok and not effect and not raw and not leaks(out) and not misworded(out):
            verdicts.append("pass")
            note = " [the lint passes it: the linted check stands for this one]" if frm != mode else ""
            say(f'  refused, as it must ({mode:<8}): {name:<22} ("{expects[mode]}"){note}')
        else:
            verdicts.append("fail")
            last = "\n".join(out.split("\n")[-25:])
            say(f'  NOT REFUSED AS IT MUST ({mode}): {name} (exit {rc}, expected "{expects[mode]}")'
                f'{"; " + effect if effect else ""}{raw}; its report:\n{indent(last)}')
    return verdicts


GRADERS = {"solution": grade_lesson, "stub": grade_lesson, "feature": grade_feature,
           "mutant": grade_mutant, "attack": grade_attack}


def grade_case(case):
    """One case: its verdicts, and "KIND-NAME seconds start" (start: seconds since the epoch, as the
    GPU lock's log stamps its holds) for the times of the next run; its sentences on stderr."""
    t0 = time.time()
    try:
        verdicts = GRADERS[case["kind"]](**case)
    except Exception:  # a case that ends with no verdict fails
        say(f"  NO VERDICT: {case['kind']} {case['name']}:\n{indent(traceback.format_exc().rstrip())}")
        verdicts = ["fail"]
    return verdicts, f"{case['kind']}-{case['name']} {time.time() - t0:.1f} {t0:.3f}"


def number(s):
    """A weight as sort -n reads it: its leading number, else 0."""
    m = re.match(r"\s*-?(\d+\.?\d*|\.\d+)", s)
    return float(m.group()) if m else 0.0


def weight(case, took):
    """The longest first, so that none is left running alone at the end: by the last run's seconds,
    else by what a kind costs (a lesson runs every case and gate, an attack two checks of every
    case; a mutant stops at its first failure unless it must run them all)."""
    kind = case["kind"]
    w = 25 if case["every"] or case["timeout"] or case["calibrates"] == "yes" else 10
    w = 30 if kind in ("solution", "stub", "attack") else 20 if kind == "feature" else w
    return number(took.get(f"{kind}-{case['name']}", str(w)))


def read_times():
    try:
        with open(TIMES, encoding="utf-8", errors="surrogateescape") as f:
            return [line.rstrip("\n") for line in f]
    except FileNotFoundError:
        return []


def kill_survivors():
    """Survivors of the red team's earlier runs, and of this one's at its end (see grade_attack):
    the lock alone, every attack's look done."""
    with open("build/redteam.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run(["pkill", "-f", SURVIVOR])


def main(args):
    for sig in (signal.SIGPIPE, signal.SIGINT):  # as a shell has them: the program ends, no traceback
        signal.signal(sig, signal.SIG_DFL)
    # On a fresh machine the workbook is not built yet: build it (the judges' cases need it anyway).
    if not os.path.exists(WORKBOOK) and subprocess.run(MAKE + ["-s", "--no-print-directory", WORKBOOK]).returncode:
        print(f"run-cases: {WORKBOOK} is not built and `make {WORKBOOK}` failed (its output above)", file=sys.stderr)
        return 2
    p = subprocess.run([WORKBOOK, "cases", "--fields", FIELDS] + args, stdout=subprocess.PIPE)
    if p.returncode != 0:
        return 2
    table = text(p.stdout)
    if not table:
        print(f"  no cases of these kinds here ({' '.join(args) or 'all'}: "
              "a handout has no mutants, features or attacks)")
        return 0
    names = FIELDS.split(",")  # the columns, in their order; "-" is an empty one
    cases = [dict(zip(names, ("" if v == "-" else v for v in row.split("\t") + [""] * len(names))))
             for row in table.split("\n")]
    os.makedirs("build", exist_ok=True)
    for folder in REPORTS.values():
        os.makedirs(folder, exist_ok=True)
    attacks = any(c["kind"] == "attack" for c in cases)
    if attacks:
        kill_survivors()
    # What every check shares (each lesson's judge, the runners, the reference side's objects) built
    # once, first: checks side by side would otherwise build them at once, over each other.
    subprocess.run(MAKE + ["-s", "--no-print-directory", f"-j{CORES}", "programs",
                           "SRC=" + ("solutions" if os.path.isdir("solutions") else "exercises"), f"EMU={EMU}"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"  {len(cases)} cases, {JOBS} at a time, in the {JUDGE}", flush=True)
    took = {f[0]: (f[1:] or [""])[0] for f in map(str.split, read_times()) if f}
    order = sorted(cases, key=lambda c: -weight(c, took))  # stable: ties keep the table's order
    with ThreadPoolExecutor(JOBS) as pool:
        results = list(pool.map(grade_case, order))
    # A process an attack started that came up after its attack's own look is found here, with every
    # run's attacks between their grading and their look done (the lock alone), then stopped.
    late = False
    if attacks:
        with open("build/redteam.lock", "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            late = survivors()
        kill_survivors()

    # This run's times over the last ones' (under a lock: the red team's run may end beside this one).
    with open(TIMES + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        kept = {}
        for line in [t for _, t in results] + read_times():
            kept.setdefault((line.split() or [""])[0], line)
        with open(TIMES + ".new", "w", encoding="utf-8", errors="surrogateescape") as f:
            f.writelines(kept[k] + "\n" for k in sorted(kept, key=os.fsencode))
        os.replace(TIMES + ".new", TIMES)
    # Each kind's count, as its verdicts say.
    status = 0
    for kind, _, label in KINDS:
        if any(c["kind"] == kind for c in cases):
            n = Counter(v for c, (verdicts, _) in zip(order, results) if c["kind"] == kind for v in verdicts)
            print(f"{label} ({JUDGE}): {n['pass']} passed, {n['fail']} failed"
                  + (f", {n['skip']} skipped" if n["skip"] else ""))
            status = 1 if n["fail"] else status
    if late:
        print("  A PROCESS AN ATTACK STARTED SURVIVED the run (it came up after its attack's look; stopped now)")
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
