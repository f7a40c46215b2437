#!/usr/bin/env python3
"""make grade-all HANDINS=dir: a whole class. Every folder of HANDINS is one student's hand-in
(STUDENT/NN_topic/kernel.cu, laid out like work/); each is graded as `make grade` grades
(results.json, junit.xml, summary.txt and the lessons' reports in OUT/students/STUDENT/), then
OUT/gradebook.csv gets a row per student: each lesson's points, the total, and how the grade
came about (status, judge, build, files: docs/cluster.md).

A grade is kept only when the grading was sound: the hand-in is taken in first by `workbook
intake` (its copy is hashed and graded; links, FIFOs and sparse files refused unread), the
shared check programs are built once, before any grading, and checked unchanged before and
after each; a grading the grader itself spoiled (make grade failed or left no results, or its
grader-faults names a lesson: a compile the grader could not run, no GPU, a kernel image for
another GPU, a judge that left no record; a killed task) leaves the student "not graded" with
the reason, never a 0. Those come from the grader's own evidence, never from what a kernel
printed. Resumable: a hand-in graded from the same files by the same judge and build is not
graded again, so running the same command again grades exactly the rest.
Any UTF-8 folder name is graded (under an ASCII alias); a name with a control, invisible or
reordering character (a newline, U+202E, U+200B), that is not UTF-8, or whose alias another name
has too, is refused, with its reason in its gradebook row, and the rest of the class is graded;
the exit status is then 1, as it is when anyone is not graded.

The judge: EMU=1 (or JUDGE_KIND=emulator) the CPU emulator, on every core at once (it counts,
never times); else the GPU judge, each grading holding a lock on one GPU
(/tmp/wb-gpu-UUID.lock), built for CUDA_ARCH or for this machine's GPU.
  Usage: checker/course/grade_all.py [--only STUDENT] HANDINS OUT
  Slurm's steps (checker/course/grade_slurm.py): --build, --pending, --task STUDENT, --gradebook-only
"""
import errno
import fcntl
import glob
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # nothing of ours left in the tree, whoever runs it
import grade_lib as lib  # noqa: E402
from grade_lib import say  # noqa: E402

USAGE = "usage: grade_all.py [--only STUDENT] HANDINS OUT"


def open_lock(path):
    """A lock file for flock, kept from every child (close-on-exec): created 0600 where missing, never
    emptied or written, never opened through a link (the GPU's is in /tmp, where anyone may plant one,
    and this often runs as root). One that cannot be opened, or that is not a regular file of the
    grading user's, stops the program (exit 1) with a sentence naming it: grading on without the
    lock could change programs in use, or time two gradings on one GPU."""
    try:
        # O_NONBLOCK, O_NOCTTY: a FIFO or a device planted there is opened without waiting or becoming
        # our terminal, then refused below.
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC,
                     0o600)
    except OSError as e:
        if e.errno != errno.ELOOP or not os.path.islink(path):
            say(f"grade_all.py: cannot open {path}: {e.strerror}", 2)
            sys.exit(1)
        what = "a symbolic link"
    else:
        st = os.fstat(fd)
        if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
            return fd
        os.close(fd)
        what = "not a regular file" if not stat.S_ISREG(st.st_mode) else f"owned by {user_name(st.st_uid)}"
    say(f"grade_all.py: {path} is {what}; a lock file must be a regular file of the grading user's"
        f" ({user_name(os.geteuid())}): remove it, then run the same command again.", 2)
    sys.exit(1)


def user_name(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"user {uid}"


def lock(fd, how, wait=True):
    """flock(1) on an open lock file: True once held."""
    try:
        fcntl.flock(fd, how | (0 if wait else fcntl.LOCK_NB))
        return True
    except OSError:
        return False


def close(fd):
    if fd is not None:
        os.close(fd)


def gpu_arch(gpu_id=""):
    """The GPU's architecture as nvidia-smi says it (90), of GPU_ID or the first; "" for none."""
    _, text = lib.capture(["nvidia-smi"] + ([f"--id={gpu_id}"] if gpu_id else []) +
                          ["--query-gpu=compute_cap", "--format=csv,noheader"], stderr=subprocess.DEVNULL)
    return text.split("\n")[0].replace(" ", "").replace(".", "")


def sums_hold(lines):
    """`sha256sum -c --quiet` of "HASH  PATH" lines: every file there with its hash."""
    checked = 0
    for line in lines:
        m = re.fullmatch(r"\\?([0-9a-fA-F]{64}) [ *](.+)", line)
        if not m:
            continue
        checked += 1
        try:
            if lib.file_sha256(m.group(2)) != m.group(1).lower():
                return False
        except OSError:
            return False
    return checked > 0


def copy_file(src, dst):
    """cp SRC DST for a regular file: SRC's bytes into DST, made with SRC's mode less the umask;
    False on failure. Neither is followed if it is a link (this often runs as root): SRC is opened
    O_NOFOLLOW and must be a regular file; DST is written as a temporary file beside it, then renamed
    over it, so a link, FIFO or folder planted at DST is replaced or refused, never written through."""
    tmp = None
    try:
        fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        with open(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode):
                return False
            mask = os.umask(0)
            os.umask(mask)
            head, base = os.path.split(dst)
            out, tmp = tempfile.mkstemp(prefix=f".{base}.", dir=head or ".")
            with open(out, "wb") as g:
                os.fchmod(g.fileno(), st.st_mode & 0o777 & ~mask)
                shutil.copyfileobj(f, g)
        os.rename(tmp, dst)
        return True
    except OSError:
        if tmp:
            lib.remove(tmp)
        return False


def copy_results(src, dst):
    """cp -r SRC/. DST/ for make grade's output folder, which is flat: each regular file of SRC copied
    into DST (copy_file). Anything else there (a folder, a link, a FIFO) is not make grade's, so
    nothing is copied and the copy fails: the student is then "not graded", with that reason."""
    try:
        entries = list(os.scandir(src))
        if not all(e.is_file(follow_symlinks=False) for e in entries):
            return False
    except OSError:
        return False
    return all([copy_file(e.path, os.path.join(dst, e.name)) for e in entries])


def rm_rf(path):
    """rm -rf PATH: a link goes itself, never what it names."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
        lib.remove(path)


class Killed(Exception):
    """SIGTERM or SIGINT while grading: the student is "not graded", and the grading ends (143)."""


class Trap:
    """A shell's `trap ... TERM INT` for a grading: a signal that comes while a command runs is taken
    once that command ends (as a shell takes it), else at once. A signal ignored when the program
    started stays ignored, as a shell keeps it (SIGINT in a shell's background job)."""
    signals = [s for s in (signal.SIGTERM, signal.SIGINT) if signal.getsignal(s) is not signal.SIG_IGN]
    pending = False
    child = False

    @classmethod
    def on(cls):
        for s in cls.signals:
            signal.signal(s, cls.handler)

    @classmethod
    def off(cls):
        for s in cls.signals:
            signal.signal(s, signal.SIG_DFL)

    @classmethod
    def handler(cls, signum, frame):
        cls.pending = True
        if not cls.child:
            cls.child = True  # the one Killed: not again while "not graded" is written
            raise Killed()

    @classmethod
    def run_logged(cls, argv, log, **kw):
        """A command's exit status, its output and errors into LOG, the signals held until it ends."""
        cls.child = True
        try:
            with open(log, "wb") as f:
                rc = lib.call(argv, stdout=f, stderr=subprocess.STDOUT, **kw)
        except OSError as e:
            say(f"{log}: {e.strerror}", 2)
            rc = 1
        finally:
            cls.child = False
        if cls.pending:
            cls.child = True
            raise Killed()
        return rc


class Grading:
    def __init__(self, mode, only, handins, out, kind, rows, roster):
        self.mode, self.only, self.handins, self.out, self.kind = mode, only, handins, out, kind
        self.rows, self.roster = rows, roster
        self.students = [name for what, name, _ in roster if what == "student"]
        self.refused = len(roster) - len(self.students)
        self.make = lib.make_command()
        self.stage_root = lib.stage_root(out)
        self.stamp, self.sums = out + "/.wb/build", out + "/.wb/build.sums"
        self.host = lib.hostname()
        array = os.environ.get("SLURM_ARRAY_JOB_ID", "")
        self.job = (f"{array}_{os.environ.get('SLURM_ARRAY_TASK_ID', '')}" if array else
                    os.environ.get("SLURM_JOB_ID", ""))
        self.busy = set()
        self.gpus = []

    def stage_of(self, name):
        return self.stage_root + "/" + lib.alias(name)

    def dest_of(self, name):
        return f"{self.out}/students/{name}"

    def arch_args(self, arch):
        return [f"CUDA_ARCH={arch}"] if self.kind == "gpu" else []

    # ---- the hand-ins taken in ---------------------------------------------------------------
    def stage_class(self):
        """Every student's hand-in copied into its stage by workbook intake (grade_lib.intake), the one
        door through which a hand-in is read; the gradings read those copies alone. Each under its lock:
        one a running grading holds is left to it (busy), with the copy that grading made."""
        for s in self.students:
            a = lib.alias(s)
            fd = open_lock(f"{self.out}/.wb/locks/{a}")
            if lock(fd, fcntl.LOCK_EX, wait=False):
                lib.intake(self.handins, s, f"{self.stage_root}/{a}")
            else:
                self.busy.add(s)
            close(fd)

    # ---- the shared programs: built once, before any grading ----------------------------------
    def build_shared(self):
        # Every lesson any hand-in has, so that one build serves the whole class (and --only).
        numbers = {}
        for s in self.students:
            for n in lib.lessons_in(self.stage_of(s), self.rows):
                numbers.setdefault(int(n) if n.isdigit() else 0, n)  # sort -un: one of each value, by value
        lessons = " ".join(numbers[k] for k in sorted(numbers))
        arch = "-"
        if self.kind == "gpu":
            arch = os.environ.get("CUDA_ARCH") or gpu_arch()
            if not arch:
                say(f"No GPU answers nvidia-smi on {self.host}, so there is no architecture to build for: give"
                    " CUDA_ARCH=NN (e.g. 90")
                say("for an H100/H200), build on a GPU node (grade_slurm.py does when CUDA_ARCH is not given), or grade"
                    " in the")
                say("emulator with EMU=1.")
                return 2
            if not re.fullmatch(r"[0-9]{2,3}", arch):
                say(f"CUDA_ARCH={arch} is not an architecture number like 90.")
                return 2
        log = self.out + "/.wb/build.log"
        judge = f"{self.kind} judge, sm_{arch}" if self.kind == "gpu" else f"{self.kind} judge"
        targets = lib.shared_targets(self.kind, lessons.split(), self.rows)
        # Gradings hold this lock shared while they run: a build never changes programs in use.
        lk = open_lock("build/.grade-shared.lock")
        if not lock(lk, fcntl.LOCK_EX, wait=False):
            say("Waiting for the gradings that use the shared programs to finish...")
            lock(lk, fcntl.LOCK_EX)
        try:
            # A cubin's architecture is no part of make's rules: rebuilt for the one asked (the sealed
            # compile's cache makes an unchanged one cheap).
            if self.kind == "gpu":
                lib.remove(*glob.glob("build/common/*/solution.cubin"), *glob.glob("build/common/*/baseline.cubin"))
            _, jobs = lib.capture(["nproc"])
            try:
                with open(log, "wb") as f:
                    rc = lib.call(self.make + ["-s", "--no-print-directory", f"-j{jobs}"] + self.arch_args(arch) +
                                  targets, stdout=f, stderr=subprocess.STDOUT)
            except OSError as e:
                say(f"{log}: {e.strerror}", 2)
                rc = 1
            if rc != 0:
                say(f"The shared check programs did not build on {self.host} ({judge}), so nothing was graded."
                    f" The end of {log}:")
                lib.write_fd(1, b"".join(b"  | " + line for line in lib.tail(lib.read_bytes(log) or b"", 15)))
                lib.remove(self.stamp, self.sums)
                return 1
            # Every program's hash or no build: a grading checks each against these, so one missing
            # would leave it unchecked (or every grading "not graded" later, for a reason far from here).
            lines, hashed = [], True
            for t in targets:
                try:
                    lines.append(f"{lib.file_sha256(t)}  {t}\n")
                except OSError as e:
                    say(f"{t}: {e.strerror}", 2)
                    hashed = False
            if not (hashed and lib.write_bytes(self.sums + ".tmp", "".join(lines))):
                say(f"The shared check programs built on {self.host} ({judge}) could not all be hashed into"
                    f" {self.sums}, so nothing was graded.")
                lib.remove(self.sums + ".tmp", self.stamp, self.sums)
                return 1
            os.replace(self.sums + ".tmp", self.sums)
            stamp = f"judge={self.kind}\narch={arch}\nlessons={lessons}\nhost={self.host}\nat={lib.now()}\n"
            if lib.write_bytes(self.stamp + ".tmp", stamp):
                os.replace(self.stamp + ".tmp", self.stamp)
        finally:
            close(lk)
        say(f"Shared check programs ready on {self.host} ({judge}; lessons {lessons or 'none'}; log: {log}).")
        return 0

    def build_of(self, stage):
        """The build a staged hand-in is graded with: its lessons' shared programs as the build made them
        (their sums), as (ID, ARCH); else (None, the sentence why they cannot be used)."""
        if not (os.path.isfile(self.stamp) and os.path.isfile(self.sums)):
            return None, f"the shared programs were never built for {self.out} (the build step did not run or failed)"
        judge = lib.get(self.stamp, "judge")
        if judge != self.kind:
            return None, (f"the shared programs were built for the {judge} judge, this grading is for the"
                          f" {self.kind} one")
        arch = lib.get(self.stamp, "arch")
        targets = lib.shared_targets(self.kind, lib.lessons_in(stage, self.rows), self.rows)
        sums = lib.records(lib.read_bytes(self.sums) or b"")
        sub = []
        for t in targets:
            mine = [os.fsdecode(line) for line in sums if lib.fields(line)[1:2] == [os.fsencode(t)]]
            if not mine:
                return None, f"{t} was not built by the submission's build (a lesson handed in after it?): submit again"
            sub += mine
        if not sums_hold(sub):
            return None, ("the shared programs changed after the build this grading was to use (rebuilt by another"
                          " run?): submit again")
        # Up to date by make's rules too, or make grade would rebuild them here, beside other tasks.
        if lib.call(self.make + ["-q", "--no-print-directory"] + self.arch_args(arch) + targets,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0:
            return None, ("the shared programs are out of date with the workbook's sources (edited since the"
                          " build?): submit again")
        return lib.sha256_hex("%s %s\n%s" % (self.kind, arch, "".join(line + "\n" for line in sub)))[:12], arch

    def judge_name(self, arch):
        """The judge as the gradebook names it."""
        return f"gpu sm_{arch}" if self.kind == "gpu" else "emulator"

    def graded_already(self, dest, files, build, arch):
        """Whether DEST was graded from FILES by this judge (for ARCH) and BUILD: then it is not again."""
        g = dest + "/.graded"
        return (os.path.isfile(g) and lib.get(g, "files") == files and lib.get(g, "build") == build
                and lib.get(g, "judge") == self.judge_name(arch))

    # ---- one hand-in ----------------------------------------------------------------------
    def grade_one(self, name):
        """Grades STUDENT from the copy of its hand-in taken in (stage_class; for a Slurm task, at
        submission). Leaves OUT/students/STUDENT/.graded (files, judge, build) only for a sound grading,
        else .not-graded with the reason. Returns the exit status."""
        a = lib.alias(name)
        stage, dest = self.stage_of(name), self.dest_of(name)
        try:
            os.makedirs(dest, exist_ok=True)
        except OSError:
            say(f"  {name}: NOT GRADED: cannot create {dest}")
            return 1
        # The hand-in's lock goes with make grade (below): no other grading of it starts while any
        # process of this one lives, since both would write its stage and its results.
        sfd = open_lock(f"{self.out}/.wb/locks/{a}")
        if not lock(sfd, fcntl.LOCK_EX, wait=False):
            say(f"  {name}: another grading of this hand-in is running; left to it")
            return 0
        os.set_inheritable(sfd, True)
        if os.path.isfile(stage + ".error"):
            return self.not_graded(name, lib.first_line(stage + ".error"))
        files = lib.read_bytes(stage + "/.files")
        if files is None:
            return self.not_graded(name, f"the copy of its hand-in taken in before grading ({stage}) is gone: run"
                                   " the same command again")
        files = os.fsdecode(files.rstrip(b"\n"))
        build, said = self.build_of(stage)
        build, arch, why = (build, said, "") if build else ("", "", said)
        if not why and self.graded_already(dest, files, build, arch):
            say(f"  {name}: unchanged since it was graded ({lib.last_line(dest + '/summary.txt')})")
            return 0
        lib.remove(dest + "/.graded", dest + "/.not-graded")
        lib.write_bytes(dest + "/.started", f"host={self.host}\njob={self.job}\nat={lib.now()}\n")
        Trap.on()
        try:
            return self.grade_staged(name, files, build, arch, why)
        except Killed:
            job = f" (Slurm job {self.job})" if self.job else ""
            self.not_graded(name, f"killed while grading on {self.host}{job}: scancel, a time limit or preemption")
            return 143

    def not_graded(self, name, why):
        """NAME's grading was not sound: the reason recorded, and an earlier grade goes (the latest grading
        is what counts). Returns the exit status, 1."""
        dest = self.dest_of(name)
        lib.write_bytes(dest + "/.not-graded", why + "\n")
        lib.remove(dest + "/.started", dest + "/.graded")
        say(f"  {name}: NOT GRADED: {why}")
        return 1

    def grade_staged(self, name, files, build, arch, why):
        """grade_one's grading proper, once NAME's lock is held and .started written (WHY: a reason it
        cannot be graded already)."""
        stage, dest = self.stage_of(name), self.dest_of(name)
        gout = stage + ".out"
        if why:
            return self.not_graded(name, why)
        if self.kind == "gpu" and self.mode == "task":
            given = os.environ.get("SLURM_JOB_GPUS") or os.environ.get("CUDA_VISIBLE_DEVICES") or ""
            here = gpu_arch(given)
            if not here:
                return self.not_graded(name, f"no GPU answers nvidia-smi on {self.host} (Slurm gave GPUs"
                                       f" '{given or 'none'}')")
            if here != arch:
                return self.not_graded(name, f"the programs were built for sm_{arch} but {self.host}'s GPU is"
                                       f" sm_{here}: its kernels would not load (submit with --cuda-arch {here}, or to"
                                       " a partition of one kind of GPU)")
        # The locks are this program's, not passed on: a process of the grading that outlived a kill
        # (scancel) must not keep every later build, or the GPU, waiting (cluster-test met one).
        lk = open_lock("build/.grade-shared.lock")
        lock(lk, fcntl.LOCK_SH)
        try:
            rm_rf(gout)
            rm_rf("build/" + stage.replace("/", "_"))
            run = self.make + ["-s", "--no-print-directory", "grade", f"SRC={stage}", f"GRADE_DIR={gout}"]
            run += ["EMU=", f"CUDA_ARCH={arch}"] if self.kind == "gpu" else ["EMU=1"]
            fd, pick = self.gpu_lock() if self.gpus else (None, None)
            try:
                env = dict(os.environ, CUDA_VISIBLE_DEVICES=pick) if pick else None
                rc = Trap.run_logged(run, gout + ".log", env=env)
            finally:
                close(fd)
            # Sound only if the shared programs are still the ones checked before.
            ok, said = self.build_of(stage)
            if not ok:
                why = "the shared programs changed while it was graded: " + said
        finally:
            close(lk)
        # The grader's own evidence that it, not the student, failed: lessons make grade names in
        # GRADE_DIR/grader-faults ("N reason": the sealed compile's exit 4, no GPU or a kernel image
        # for another GPU, a judge that left no record), make grade's exit status, its results
        # missing. Never what the lessons' reports say: a kernel prints whatever it likes there.
        faults = gout + "/grader-faults"
        if not why and os.path.exists(faults) and os.path.getsize(faults) > 0:
            text = bytes(c for c in lib.read_bytes(faults) or b"" if c >= 0x20 or c == 0x0a)
            parts = []
            for line in lib.records(text):
                if re.match(rb"[0-9]+ ", line):
                    parts.append(b"lesson %s: %s" % (lib.fields(line)[0], re.sub(rb"^[0-9]+ +", b"", line)))
                elif lib.fields(line):
                    parts.append(line)
            why = f"the grader could not grade it on {self.host}: " + os.fsdecode(b"; ".join(parts))
        results = all(os.path.isfile(f"{gout}/{f}") for f in ("results.json", "summary.txt"))
        if not why and (rc != 0 or not results):
            lines = [line for line in lib.records(lib.read_bytes(gout + ".log") or b"")
                     if not re.fullmatch(rb"\s*", line) and not re.match(rb"make(\[[0-9]+\])?: ", line)]
            last = bytes(c for c in (lines[-1] if lines else b"") if c >= 0x20)[:300]
            how = f"failed (exit {rc})" if rc != 0 else "left no results"
            why = f"make grade {how} on {self.host}: " + os.fsdecode(last)
        if why:
            copy_file(gout + ".log", dest + "/grade.log")
            for f in glob.glob(glob.escape(gout) + "/lesson-*.log"):
                copy_file(f, dest + "/" + os.path.basename(f))
            return self.not_graded(name, why)
        lib.remove(*(f"{dest}/{f}" for f in ("results.json", "junit.xml", "summary.txt", "grader-faults")),
                   *glob.glob(glob.escape(dest) + "/lesson-*.log"), *glob.glob(glob.escape(dest) + "/lesson-*.xml"))
        if not (copy_results(gout, dest) and copy_file(gout + ".log", dest + "/grade.log")):
            return self.not_graded(name, f"its results could not be copied into {dest}")
        if lib.write_bytes(dest + "/.graded.tmp", f"files={files}\njudge={self.judge_name(arch)}\nbuild={build}\n"
                                                  f"host={self.host}\njob={self.job}\nat={lib.now()}\n"):
            os.replace(dest + "/.graded.tmp", dest + "/.graded")
        lib.remove(dest + "/.started")
        Trap.off()
        # The lessons the intake refused (make grade's reports say why, as the intake said it): the
        # student's 0, said here too.
        refused = "".join(" " + number for number, folder, _ in self.rows
                          if lib.first_word(f"{stage}/{folder}/.intake") == "refused")
        note = f" (the intake refused lesson(s){refused})" if refused else ""
        say(f"  {name}: {lib.last_line(dest + '/summary.txt')}{note}")
        return 0

    def gpu_lock(self):
        """A free GPU if there is one, else the first once it is free: (its lock, held for the whole
        grading, and its UUID)."""
        for g in self.gpus:
            fd = open_lock(f"/tmp/wb-gpu-{g}.lock")
            if lock(fd, fcntl.LOCK_EX, wait=False):
                return fd, g
            close(fd)
        fd = open_lock(f"/tmp/wb-gpu-{self.gpus[0]}.lock")
        lock(fd, fcntl.LOCK_EX)
        return fd, self.gpus[0]

    def grade_class(self, todo, jobs):
        """Each hand-in of TODO graded by a process of its own, JOBS at a time (as xargs -P ran them),
        its input /dev/null."""
        running = set()
        stop = False
        for name in todo:
            while len(running) >= jobs or (stop and running):
                stop = self.reap(running) or stop
            if stop:
                break
            pid = os.fork()
            if pid == 0:
                rc = 1
                try:
                    devnull = os.open(os.devnull, os.O_RDONLY)
                    os.dup2(devnull, 0)
                    os.close(devnull)
                    rc = self.grade_one(name)
                except SystemExit as e:
                    rc = e.code if isinstance(e.code, int) else 1
                except BaseException:
                    import traceback
                    traceback.print_exc()
                finally:
                    os._exit(rc)
            running.add(pid)
        while running:
            self.reap(running)

    @staticmethod
    def reap(running):
        """Waits for one grading; True when it was killed by a signal (xargs then starts no more)."""
        pid, st = os.wait()
        running.discard(pid)
        if os.WIFSIGNALED(st):
            say(f"grade_all.py: a grading (process {pid}) was killed by signal {os.WTERMSIG(st)}; no more are"
                " started", 2)
            return True
        return False

    # ---- the gradebook --------------------------------------------------------------------
    def write_gradebook(self):
        """A row per hand-in in HANDINS now: a grade only if it was graded from the files there now.
        Written whole to a temporary file of OUT/.wb (no student's folder can take its name), then
        renamed over OUT/gradebook.csv: a reader never sees half of one."""
        _, text = lib.capture(["build/workbook", "lessons", "number"])
        lessons = text.split()
        _, out_of = lib.capture(["build/workbook", "lessons", "--sum", "points"])
        header = ["student"] + [f"lesson{n}" for n in lessons] + ["total", "out_of", "status", "judge", "build",
                                                                   "files"]
        book = self.out + "/gradebook.csv"
        try:
            fd, tmp = tempfile.mkstemp(prefix="gradebook.", dir=self.out + "/.wb")
        except OSError:
            say(f"Cannot write a gradebook in {self.out}/.wb.")
            return 2
        missing = 0
        rows = [lib.csv_row(header)]
        blank = [""] * len(lessons)
        for what, name, why in self.roster:
            if what == "refused":
                rows.append(lib.csv_row([name] + blank + ["", out_of, "refused: " + why, "", "", ""]))
                continue
            dest = f"{self.out}/students/{name}"
            cur = lib.files_hash(self.handins, name)
            graded = dest + "/.graded"
            if cur and lib.get(graded, "files") == cur and os.path.isfile(dest + "/summary.txt"):
                points = summary_points(lib.read_bytes(dest + "/summary.txt") or b"", lessons)
                how = ["graded", lib.get(graded, "judge"), lib.get(graded, "build"), cur]
                rows.append(lib.csv_row([name] + points + how))
                continue
            if os.path.isfile(dest + "/.not-graded"):
                why = lib.first_line(dest + "/.not-graded")
            elif not cur:
                why = "its hand-in cannot be read now (workbook intake --hash failed)"
            elif os.path.isfile(graded):
                why = "its files changed after it was graded"
            elif os.path.isfile(dest + "/.started"):
                started = dest + "/.started"
                job = lib.get(started, "job")
                why = (f"grading began on {lib.get(started, 'host')}{f' (Slurm job {job})' if job else ''} at"
                       f" {lib.get(started, 'at')} and never finished: the task was killed, ran out of time or lost"
                       " its node")
            else:
                why = "no grading of it has run (a task that never started?)"
            rows.append(lib.csv_row([name] + blank + ["", out_of, "not graded: " + why, "", "", cur]))
            missing += 1
        try:
            with open(fd, "wb") as f:
                f.write(b"".join(rows))
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(tmp, 0o666 & ~mask)
            os.rename(tmp, book)
        except OSError:
            lib.remove(tmp)
            say(f"The gradebook could not be written to {book}.")
            return 2
        n = len(self.roster)
        if missing + self.refused > 0:
            say(f"Gradebook: {book} ({n} hand-ins: {n - missing - self.refused} graded, {missing} not graded,"
                f" {self.refused} refused for their")
            say("names; the status column says why; run the same command again to grade exactly those not graded, and rename")
            say("the folders refused).")
            return 1
        say(f"Gradebook: {book} ({n} students, every one graded).")
        return 0


def summary_points(summary, lessons):
    """A student's points from their summary.txt ("N ... P/MAX" a lesson, "Score: T/MAX"): each lesson's
    (0 for one not there), the total and the most, as cells, each in its place (an empty one stays)."""
    pts, total, most = {}, b"", b""
    for line in lib.records(summary):
        f = lib.fields(line)
        if re.match(rb"[0-9]+ ", line):
            pts[f[0]] = f[-1].split(b"/")[0]
        if line.startswith(b"Score: "):
            t = f[1].split(b"/") if len(f) > 1 else []
            total, most = (t + [b"", b""])[0], (t + [b"", b""])[1]
    return [os.fsdecode(c) for c in [pts.get(os.fsencode(n), b"0") for n in lessons] + [total, most]]


def main(argv):
    lib.start()
    mode, only = "all", ""
    first = argv[0] if argv else ""
    if first in ("--only", "--task"):
        mode = first[2:]
        if len(argv) >= 2:
            only, argv = argv[1], argv[2:]
        else:
            only = ""
    elif first in ("--build", "--pending", "--gradebook-only"):
        mode, argv = first[2:], argv[1:]
    elif first.startswith("--"):
        say(f"grade_all.py: unknown option {first} (options: --only STUDENT).")
        return 2
    if len(argv) != 2:
        say(USAGE)
        return 2
    if not os.path.isfile("lessons/registry"):
        say("grade_all.py runs from the workbook's folder (where lessons/registry is).")
        return 2
    here = lib.logical_cwd()
    if re.search(r"[ \t\n\r\v\f]", here):
        say(f"The workbook's folder ({here}) has a space in its path, which make cannot build in: move it.")
        return 2
    handins, out = (a[:-1] if a.endswith("/") else a for a in argv)
    if not os.path.isdir(handins):
        say(f"HANDINS={handins} is not a folder: give the folder that holds one folder per student.")
        return 2
    rows = lib.lessons()
    problem = lib.check_places(handins, out)
    if problem:
        for line in problem:
            say(line)
        return 2

    # The judge follows EMU=1 as everywhere in the workbook; JUDGE_KIND (the Makefile's) agrees.
    kind = os.environ.get("JUDGE_KIND", "")
    if os.environ.get("EMU"):
        if kind == "gpu":
            say("EMU=1 and JUDGE_KIND=gpu disagree: say one.")
            return 2
        kind = "emulator"
    if not kind:
        answers = lib.call(["nvidia-smi", "-L"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) == 0
        kind = "gpu" if answers else "emulator"
    if kind not in ("emulator", "gpu"):
        say(f"JUDGE_KIND={kind}: the judge is emulator or gpu.")
        return 2

    # The class: the students to grade, and the names refused (each with its row in the gradebook).
    roster = lib.roster(handins)
    for what, name, why in roster:
        if what == "refused" and mode in ("all", "only", "gradebook-only"):
            say(f"Refused: {handins}/{name}: {why} (its gradebook row says so; the others are graded).")
    if not roster:
        say(f"{handins} holds no hand-ins: one folder per student, each laid out like work/ (NN_topic/kernel.cu).")
        return 2
    students = [name for what, name, _ in roster if what == "student"]
    if only:
        if "/" in only:
            say(f"--only takes a student's folder name, not a path: {only}.")
            return 2
        if only not in students:
            say(f"There is no hand-in {handins}/{only} to grade (a folder of HANDINS with a name that can be graded).")
            return 2
    try:
        for d in (out + "/.wb/locks", out + "/students"):
            os.makedirs(d, exist_ok=True)
    except OSError:
        say(f"Cannot create {out}.")
        return 2
    g = Grading(mode, only, handins, out, kind, rows, roster)
    try:
        os.makedirs(g.stage_root, exist_ok=True)
    except OSError as e:
        say(f"mkdir: {g.stage_root}: {e.strerror}", 2)

    if mode == "gradebook-only":
        return g.write_gradebook()
    if mode == "build":
        g.stage_class()
        return g.build_shared()
    if mode == "pending":
        # For grade_slurm.py: each hand-in taken in as it is now, and the names still to grade.
        g.stage_class()
        for s in g.students:
            if s in g.busy:
                say(f"{s}: being graded by a running task; left to it", 2)
                continue
            files = os.fsdecode((lib.read_bytes(g.stage_of(s) + "/.files") or b"").rstrip(b"\n"))
            if files:
                build, arch = g.build_of(g.stage_of(s))
                if build and g.graded_already(f"{out}/students/{s}", files, build, arch):
                    continue
            say(s)
        return 0
    if mode == "task":
        return g.grade_one(only)

    # make grade-all (or --only STUDENT): build, grade, then the gradebook.
    if kind == "gpu":
        # The GPUs by UUID (CUDA_VISIBLE_DEVICES takes them too); only those CUDA_VISIBLE_DEVICES names.
        visible = os.environ.get("CUDA_VISIBLE_DEVICES", "")
        _, text = lib.capture(["nvidia-smi"] + ([f"--id={visible}"] if visible else []) +
                              ["--query-gpu=uuid", "--format=csv,noheader"], stderr=subprocess.DEVNULL)
        g.gpus = text.replace(" ", "").split("\n") if text.replace(" ", "") else []
        if not g.gpus:
            say("No GPU answers nvidia-smi: grade in the emulator with EMU=1.")
            return 2
        jobs = len(g.gpus)
    else:
        _, n = lib.capture(["nproc"])
        jobs = int(n) if n.isdigit() and int(n) > 0 else 1
    g.stage_class()
    if g.build_shared() != 0:
        return 2
    todo = [only] if only else students
    say(f"Grading {len(todo)} hand-in(s) from {handins} into {out}, {jobs} at a time ({kind} judge).")
    g.grade_class(todo, jobs)
    return g.write_gradebook()


if __name__ == "__main__":
    sys.exit(main([os.fsdecode(a) for a in sys.argv[1:]]))
