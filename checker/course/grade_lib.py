"""What grade_all.py and grade_slurm.py share about hand-ins, their names and the shared check
programs. Paths are relative to the workbook's folder, where both run.

Names, paths and what files hold are str as the file system decodes bytes (surrogateescape), and
go out as the same bytes (say, write_bytes): a name is never changed on its way, whatever the
locale. No student's name goes through a shell: every command is an argument list."""
import hashlib
import os
import pwd
import re
import signal
import subprocess
import sys
import time
import unicodedata


def start():
    """The signals as a shell has them: a broken pipe and ^C end the program (Python would raise)."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)


def say(text, fd=1):
    """A line to stdout (fd 2: stderr), in one write as echo makes it: lines of gradings running side
    by side never mix."""
    write_fd(fd, os.fsencode(text + "\n"))


def write_fd(fd, data):
    while data:
        data = data[os.write(fd, data):]


def read_bytes(path):
    """A file's bytes, or None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def write_bytes(path, data):
    """A file written as `>` writes it (created with the umask's mode, or emptied); False on failure."""
    try:
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else os.fsencode(data))
        return True
    except OSError:
        return False


def remove(*paths):
    """rm -f: each path unlinked (a link itself, never what it names); what is not there is no error."""
    for p in paths:
        try:
            os.unlink(p)
        except FileNotFoundError:
            pass
        except OSError as e:
            say(f"cannot remove {p}: {e.strerror}", 2)


def records(data):
    """The lines of bytes as awk and tail read them: a last line without a newline is a line."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def fields(line):
    """A line's fields as awk and read split them (blanks)."""
    return [f for f in re.split(rb"[ \t\n]+", line) if f]


def tail(data, n):
    """tail -n N: the last N lines, each with its newline (a last one without keeps none)."""
    lines = data.split(b"\n")
    last = lines.pop()
    out = [line + b"\n" for line in lines] + ([last] if last else [])
    return out[-n:] if n else []


def last_line(path):
    """$(tail -n 1 FILE): its last line, without the newline; empty where it cannot be read (and why
    said on stderr)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        say(f"{path}: {e.strerror}", 2)
        return ""
    return os.fsdecode(b"".join(tail(data, 1)).rstrip(b"\n"))


def first_line(path):
    """$(head -n 1 FILE)."""
    data = read_bytes(path)
    return "" if data is None else os.fsdecode(data.split(b"\n", 1)[0])


def get(path, key):
    """key=value files (.graded, the build's stamp): the value of KEY, or nothing."""
    data = read_bytes(path)
    for line in records(data or b""):
        if line.startswith(os.fsencode(key) + b"="):
            return os.fsdecode(line[len(key) + 1:])
    return ""


def first_word(path):
    """`read -r word _ < FILE`'s word: the first line's first field; None where read fails (no file,
    or no newline ends the line)."""
    data = read_bytes(path)
    if data is None or b"\n" not in data:
        return None
    f = fields(data.split(b"\n", 1)[0])
    return os.fsdecode(f[0]) if f else ""


def status(rc):
    """An exit status as the shell sees it: a child killed by signal N is 128+N."""
    return 128 - rc if rc < 0 else rc


# A command gets the descriptors this program was given (make's jobserver, say), as from a shell;
# those opened here are close-on-exec unless made otherwise (the hand-in's lock).
def capture(argv, stderr=None, stdin=None):
    """$(command): its exit status and output, trailing newlines dropped; 127 where it is not found."""
    try:
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=stderr, stdin=stdin, close_fds=False)
    except OSError:
        return 127, ""
    return status(p.returncode), os.fsdecode(p.stdout.rstrip(b"\n"))


def call(argv, **kw):
    """A command's exit status; 127 where it is not found."""
    try:
        return status(subprocess.call(argv, close_fds=False, **kw))
    except OSError as e:
        if kw.get("stderr") is None:  # as the shell says it, where the command's errors go
            say(f"{argv[0]}: {e.strerror}", 2)
        return 127


def make_command():
    """MAKE (make passes its own), split into words as the shell split it."""
    return (os.environ.get("MAKE") or "make").split()


def now():
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def hostname():
    """The node's name: Slurm's, else the short host name."""
    return os.environ.get("SLURMD_NODENAME") or os.uname().nodename.split(".")[0]


def logical_cwd():
    """The shell's $PWD: the path the user came by, links and all, where it is this folder."""
    pwd_env = os.environ.get("PWD", "")
    try:
        if pwd_env.startswith("/") and os.path.samefile(pwd_env, "."):
            return pwd_env
    except OSError:
        pass
    return os.getcwd()


def physical(path):
    """$(cd PATH && pwd -P): '..' taken before links, as cd takes it, then every link resolved."""
    logical = os.path.normpath(os.path.join(logical_cwd(), path))
    return os.path.realpath(logical if os.path.isdir(logical) else path)


def sha256_hex(data):
    return hashlib.sha256(data if isinstance(data, bytes) else os.fsencode(data)).hexdigest()


def file_sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def lessons():
    """The lesson files the grading reads, (number, folder, kernel) each, in registry order, as the
    workbook reads lessons/registry: built first where it is not yet (grade_slurm.py may be the first
    command run in a fresh copy)."""
    if not os.access("build/workbook", os.X_OK):
        if call(make_command() + ["-s", "--no-print-directory", "build/workbook"], stdout=2) != 0:
            sys.exit(2)
    rc, rows = capture(["build/workbook", "lessons", "number", "folder", "kernel"])
    if rc != 0:
        sys.exit(2)
    out = []
    for row in rows.split("\n"):
        f = row.strip(" \t").split(None, 2) if row.strip(" \t") else []
        out.append(tuple((f + ["", "", ""])[:3]))
    return out


# Characters that are not seen as themselves: C0 and C1 controls (Cc), format characters (Cf: U+202E
# turns the text after it around, U+200B is not seen at all) and the line and paragraph separators
# (Zl, Zp). A name with one can pass for another on a terminal or in the gradebook.
UNSEEN = frozenset(("Cc", "Cf", "Zl", "Zp"))


def name_problem(name):
    """A hand-in folder's name that cannot be graded, as a sentence; "" when it can. Any UTF-8 name
    works (the grading runs under an ASCII alias, results go to OUT/students/NAME/); a control
    character or bytes that are not UTF-8 cannot be written in a gradebook row, a terminal line or a
    list of one name per line, and an invisible or reordering character makes a name look like
    another."""
    raw = os.fsencode(name)
    if any(c < 0x20 or c == 0x7f for c in raw):
        return "its name has a control character (a newline, a tab, ...): rename the folder"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "its name is not UTF-8: rename the folder"
    for ch in text:
        if unicodedata.category(ch) in UNSEEN:
            return (f"its name has U+{ord(ch):04X}, a control, invisible or reordering character that can make it"
                    " look like another name: rename the folder")
    return ""


def shown_name(name):
    """A name as printable ASCII, for a refused one: \\n, \\t, \\\\ and \\xNN for every other byte that
    is not printable ASCII (its letters too: the bytes are what identifies the folder)."""
    out = []
    for c in os.fsencode(name):
        if c == 0x0a:
            out.append("\\n")
        elif c == 0x09:
            out.append("\\t")
        elif c == 0x5c:
            out.append("\\\\")
        elif 0x20 <= c <= 0x7e:
            out.append(chr(c))
        else:
            out.append("\\x%02x" % c)
    return "".join(out)


def roster(handins):
    """The hand-ins of HANDINS in C order: ("student", NAME, "") for one to grade, ("refused", SHOWN,
    WHY) for a name that cannot be graded (name_problem, or an alias another name has too). A hand-in
    is a folder or a symbolic link (workbook intake refuses a link, and says so in its lessons'
    reports); hidden entries (.git) and plain files are left out, and said so on stderr. HANDINS
    that is itself a link is not gone into (find's own rule for where it starts)."""
    names = []
    if not os.path.islink(handins):
        try:
            names = os.listdir(handins)
        except OSError as e:
            say(f"{handins}: {e.strerror}", 2)
    out, owners = [], {}
    for name in sorted(names, key=os.fsencode):
        path = handins + "/" + name
        why = name_problem(name)
        shown = shown_name(name) if why else name
        if name.startswith("."):
            say(f"Left out: {handins}/{shown} (a hidden entry is not a hand-in).", 2)
        elif not os.path.islink(path) and not os.path.isdir(path):
            say(f"Left out: {handins}/{shown} (not a folder: a hand-in is a folder laid out like work/).", 2)
        elif why:
            out.append(("refused", shown, why))
        else:
            owners.setdefault(alias(name), []).append(name)
            out.append(("student", name, ""))
    # The alias's hash is short enough that a name can be made to share another's (2^40 tries): two
    # hand-ins would then share one stage copy and one lock. Every name of such a pair is refused, so
    # the one who made the collision gains nothing by sorting first.
    for i, (what, name, _) in enumerate(out):
        if what == "student" and len(owners[alias(name)]) > 1:
            other = next(n for n in owners[alias(name)] if n != name)
            out[i] = ("refused", name, f"its name's ASCII alias ({alias(name)}) is also {other}'s, so the two would"
                                       " share one copy and one lock: rename one of the folders")
    return out


def check_places(handins, out):
    """HANDINS and OUT apart, or why not (lines to print): OUT inside HANDINS would make its folders
    hand-ins, HANDINS inside OUT/students or OUT/.wb would be written over by the grading."""
    h, o = physical(handins), os.path.realpath(out)
    if (o + "/").startswith(h + "/"):
        return [f"The output folder {out} is inside HANDINS={handins}, where its folders would be taken for"
                " hand-ins: put it elsewhere."]
    if (h + "/").startswith(o + "/students/") or (h + "/").startswith(o + "/.wb/"):
        return [f"HANDINS={handins} is inside {out}/students or {out}/.wb, which grading writes: put the hand-ins"
                " elsewhere."]
    return None


SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")


def alias(name):
    """An ASCII name for a student's folders inside the workbook (make cannot take spaces): the
    name's first 24 bytes (each not in SAFE as _), - and 10 hex digits of a hash of the whole name
    (kept so: OUT folders graded before resume under it). Two names share one only if made to:
    roster refuses both."""
    raw = os.fsencode(name)
    safe = bytes(c if c in SAFE else 0x5f for c in raw)[:24].decode("ascii")
    return safe + "-" + sha256_hex(raw)[:10]


def readable_folder(folder):
    """Whether a folder (not a link) may be read and searched by the grading user."""
    eff = os.access in os.supports_effective_ids
    return os.access(folder, os.R_OK | os.X_OK, effective_ids=eff)


def intake(handins, name, stage):
    """Every hand-in is read through one door, `workbook intake` (checker/include/intake.h): it copies
    each lesson file of HANDINS/NAME into STAGE/FOLDER/ without following any link (NAME itself
    included), refuses links, FIFOs and sparse files unread (STAGE/FOLDER/.intake says copied, absent,
    refused or grader, with the sentence why), and prints the hash of the hand-in's lesson files. The
    grading reads that copy alone, so what was hashed is what was graded. STAGE is brought up to date
    (the intake rewrites only what changed, so make sees an unchanged file as unchanged), its hash in
    STAGE/.files; on failure, no .files and STAGE.error holds the sentence why (intake's exit 3: the
    grader's side; 2: misused). Returns the exit status."""
    end = ["--"] if name.startswith("--") else []  # a name that starts with -- is no option of intake's
    try:
        for p in (stage + "/.files", stage + ".error"):
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        os.makedirs(os.path.dirname(stage), exist_ok=True)
    except OSError as e:
        say(f"intake: {e.filename}: {e.strerror}", 2)
        return 3
    # A folder the grading user may not read is the grader's to fix, not the student's 0 (intake
    # would refuse it as the student's).
    folder = handins + "/" + name
    if not os.path.islink(folder) and os.path.isdir(folder) and not readable_folder(folder):
        try:
            user = pwd.getpwuid(os.geteuid()).pw_name
        except KeyError:
            user = ""
        write_bytes(stage + ".error",
                    f"the grading user ({user}) may not read {folder}: let it, then run the same command again\n")
        return 3
    try:
        with open(stage + ".intake-log", "wb") as log:
            rc, digest = capture(["build/workbook", "intake", "--root", handins] + end + [name, stage], stderr=log)
    except OSError:
        rc, digest = 1, ""
    if rc != 0 or not re.fullmatch(r"[0-9a-f]{16}", digest):
        said = bytes(c for c in (read_bytes(stage + ".intake-log") or b"") if c >= 0x20)[-300:]
        write_bytes(stage + ".error", b"its files could not be taken in (workbook intake, exit %d): %s\n" % (rc, said))
        return rc or 3
    return 0 if write_bytes(stage + "/.files", digest + "\n") else 1


def files_hash(handins, name):
    """The hash of the lesson files HANDINS/NAME holds now (what intake would record), or ""."""
    end = ["--"] if name.startswith("--") else []
    folder = handins + "/" + name
    if not os.path.islink(folder) and os.path.isdir(folder) and not readable_folder(folder):
        return ""
    rc, digest = capture(["build/workbook", "intake", "--root", handins] + end + [name, "--hash"],
                         stderr=subprocess.DEVNULL)
    return digest if rc == 0 and re.fullmatch(r"[0-9a-f]{16}", digest) else ""


def lessons_in(stage, rows):
    """The lessons a stage holds (their numbers): those whose .intake says copied or refused (a
    refusal is graded too: the student's 0, with the reason in the lesson's report)."""
    return [number for number, folder, _ in rows
            if first_word(f"{stage}/{folder}/.intake") in ("copied", "refused")]


def shared_targets(kind, numbers, rows):
    """The shared check programs of a judge ("emulator" or "gpu") for some lessons: what every
    grading uses and none may build for itself."""
    ext, runner = ("ptx", "build/common/ptx-runner") if kind == "emulator" else ("cubin", "build/common/gpu-runner")
    out = ["build/workbook", runner]
    for number, folder, kernel in rows:
        if number not in numbers:
            continue
        out += [f"build/common/{folder}/{f}" for f in ("judge", "thresholds", f"baseline.{ext}")]
        if os.path.isfile(f"solutions/{folder}/{kernel}.cu"):
            out.append(f"build/common/{folder}/solution.{ext}")
    return out


def csv_row(cells):
    """A gradebook row (RFC 4180): every cell quoted, a quote inside doubled; a cell that starts
    with =, +, -, @, a tab or a CR gets a ' first, so that no spreadsheet evaluates it (a student
    named =HYPERLINK(...) is text)."""
    out = []
    for cell in cells:
        if cell[:1] in ("-", "=", "+", "@", "\t", "\r"):
            cell = "'" + cell
        out.append('"' + cell.replace('"', '""') + '"')
    return os.fsencode(",".join(out) + "\n")


def stage_root(out):
    """Where the student's copies, make grade's output and Slurm's logs for OUT go, inside the
    workbook (a path make can take, on the file system the nodes share): one folder per OUT."""
    return "build/grade-stage/" + sha256_hex(physical(out))[:12]
