#!/usr/bin/env python3
"""The test of the sealed compile (build/tools/sealed-compile, from checker/compile/), and make test's step for
it: every attack that once worked on the grader's nvcc (an #include of /etc/passwd or of the solution, a symlink
to the solution, a constexpr loop, a macro explosion, a huge table), each refused or stopped with its sentence and
exit status, and a look into the box itself (nothing of the grader's machine visible, the compiler nobody); and
the result cache (WB_SEALED_CACHE): a repeat is a hit, any change a miss, a damaged entry compiled again,
refusals still refused, and a hit starts no process. Also prints what a sealed compile costs, per lesson
solution, and what a hit costs.

Usage: checker/tests/steps/sealed-compile-test.py [-v]   (from anywhere; as root or as any user; ~2 min)
The last line, "N passed, M failed", is the step's report; the lines before it are printed where something
failed, and with -v as they come. Needs nvcc, bwrap, unshare, the lesson solutions (solutions/*/*.cu) and the
program built (make builds it here where it is missing or older than its sources; a user who cannot write
build/ needs it built first). WB_SEALED_PROGRAM: another build of it to test (one with sanitizers, say), used
as it is.
"""
import collections, glob, os, re, shutil, signal, subprocess, sys, tempfile, time, traceback

ROOT = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(__file__)), "../../.."))
SC = os.environ.get("WB_SEALED_PROGRAM") or ROOT + "/build/tools/sealed-compile"
SOL = ROOT + "/solutions/01_naive_matmul/matmul_naive.cu"
K = "__global__ void k(float *x) { x[0] = 1; }\n"
DEVNULL, STDOUT = subprocess.DEVNULL, subprocess.STDOUT
VERBOSE = sys.argv[1:] == ["-v"]
said, passed, failed = [], 0, 0


def say(line):
    if VERBOSE:
        print(line, flush=True)
    else:
        said.append(line)


def check(good, ok_text, bad_text):
    global passed, failed
    if good:
        passed += 1
        say("  ok    " + ok_text)
    else:
        failed += 1
        say("  FAIL  " + bad_text)
    return bool(good)


def run(argv, env=None, err=STDOUT, **kw):
    """argv's exit status and output (stdout and stderr, as $(...) keeps it: no trailing newlines). The file
    descriptors this program was given (make's jobserver) pass on, as a shell's do."""
    try:
        p = subprocess.run(argv, env={**os.environ, **(env or {})}, stdin=DEVNULL, stdout=subprocess.PIPE,
                           stderr=err, close_fds=False, **kw)
    except OSError as e:
        return 127, str(e)
    return p.returncode if p.returncode >= 0 else 128 - p.returncode, p.stdout.decode(errors="replace").rstrip("\n")


def sealed(*args):
    return [SC, *args]


def side(argv, **kw):
    """A command whose output says something only where it fails: shown, and True where it exits 0."""
    rc, out = run(argv, **kw)
    if out:
        say(out)
    return rc == 0


def uncached(*args):
    return side(sealed(*args), env={"WB_SEALED_CACHE": ""})


def expect(name, want, pattern, argv, env=None):
    """argv exits with want, and a line of its output matches pattern."""
    rc, out = run(argv, env)
    if not check(rc == want and re.search(pattern, out, re.M), name,
                 f"{name}: exit {rc} (expected {want} and /{pattern}/); it said:"):
        say("\n".join(" " * 10 + line for line in out.encode()[:1500].decode(errors="replace").split("\n")))


def raw(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return None


def text(path):
    return (raw(path) or b"").decode(errors="replace")


def put(path, content):
    with open(path, "wb") as f:
        f.write(content.encode() if isinstance(content, str) else content)


def same(a, b):
    return raw(a) is not None and raw(a) == raw(b)


def attempt(step, *args):
    """step(*args), True where it worked: a file the program did not make is left to the checks that follow."""
    try:
        step(*args)
        return True
    except OSError:
        return False


def ms():
    return int(time.monotonic() * 1000)


def procs_with(arg):
    """The pids of the processes whose command line is "sleep ARG"."""
    return [f.split("/")[2] for f in sorted(glob.glob("/proc/[0-9]*/cmdline"))
            if b" ".join((raw(f) or b"").split(b"\0")[:-1]) == b"sleep %d" % arg]


def nodebugstr(ptx):
    """ptx's lines but its .debug_str section."""
    lines, skip = [], False
    for line in ptx.split("\n"):
        if skip:
            skip = not re.match(r"\s*}", line)
        elif re.match(r"\s*\.section\s*\.debug_str", line):
            skip = True
        else:
            lines.append(line)
    return lines


def entries():
    try:
        return sum(n.startswith("result-") and ".tmp." not in n for n in os.listdir(CACHE))
    except OSError:
        return 0


def last_trace():
    return (text(TRACE).splitlines() or [""])[-1]


Run = collections.namedtuple("Run", "rc out took how")


def sc_run(*args, env=None):
    """A sealed compile: its status, output, time in ms, and whether the cache answered ("hit"), nvcc ran
    ("compiled") or ptxas alone ("assembled"; WB_SEALED_TRACE): the verdicts rest on that, never on a time,
    which a busy machine stretches."""
    put(TRACE, "")
    t0 = ms()
    rc, out = run(sealed(*args), env)
    return Run(rc, out, ms() - t0, last_trace())


def sc_best(*args):
    """sc_run three times: the fastest time; the first's status and output unless a later run said otherwise
    (then the status is "differs"); "hit" only if all three were."""
    runs = [sc_run(*args) for _ in range(3)]
    rc = runs[0].rc if all(r[:2] == runs[0][:2] for r in runs) else "differs"
    how = next((r.how for r in reversed(runs[1:]) if r.how != "hit"), runs[0].how)
    return Run(rc, runs[0].out, min(r.took for r in runs), how)


def hit(name, dest, miss, *args):
    """Three more compiles into dest, each answered by the cache, each saying what the miss said, with its
    status (and for a compile, dest the bytes of dest.first)."""
    r = sc_best(*args)
    check(r.rc == miss.rc and r.out == miss.out and r.how == "hit" and (miss.rc != 0 or same(dest, dest + ".first")),
          f"{name}: a hit, {r.took} ms (the miss: {miss.took} ms), the same text, exit {miss.rc}"
          + (", OUT byte-identical" if miss.rc == 0 else ""),
          f"{name}: {r.how or 'neither hit nor compiled'} in {r.took} ms, exit {r.rc} (the miss: {miss.rc}), "
          f"said: {r.out}")


def solutions():
    # The same PTX byte for byte, but for .debug_str: the mangled names of internal functions
    # (_INTERNAL_<hash of the file's path>_<its name>) name /box/kernel.cu. Three kinds of kernel (a plain loop,
    # shuffles, register tiles with vector loads): every solution is compiled sealed by build-all and graded by
    # both judges, and each compile here costs a second of CPU.
    for f in [f for n in ("01", "07", "08") for f in sorted(glob.glob(f"{ROOT}/solutions/{n}_*/*.cu"))]:
        name, rel = os.path.basename(f)[:-3], os.path.relpath(f, ROOT)
        t0 = ms()
        rc, out = run(sealed("ptx", rel, f"{T}/{name}.ptx"), cwd=ROOT)
        t1 = ms()
        side([NVCC, "-ptx", "-lineinfo", "-arch=sm_90", "-o", f"{T}/{name}.plain.ptx", rel], cwd=ROOT)
        t2 = ms()
        ptx = text(f"{T}/{name}.ptx")
        check(rc == 0 and not out and re.search(rf"^\.visible \.entry _Z[0-9]+{name}", ptx, re.M)
              and nodebugstr(ptx) == nodebugstr(text(f"{T}/{name}.plain.ptx")),
              f"{rel}: .entry {name}, the unsealed ptx (sealed {t1 - t0} ms, unsealed {t2 - t1} ms)",
              f"{rel}: exit {rc}: {out}")
    expect("a cubin (ELF) for sm_90", 0, "^$",
           sealed("cubin", f"{ROOT}/solutions/08_sgemm/sgemm_blocked.cu", "s.cubin", "--", "-arch=sm_90"))
    check((raw("s.cubin") or b"")[:4] == b"\x7fELF", "the cubin is an ELF file", "the cubin is not an ELF file")
    expect("ptx for another arch (-arch=sm_75)", 0, "^$", sealed("ptx", SOL, "s75.ptx", "--", "-arch=sm_75"))
    check(re.search(r"^\.target sm_75", text("s75.ptx"), re.M), "its .target is sm_75",
          "the -arch=sm_75 ptx has no .target sm_75")
    expect("a cubin without -arch is the caller's mistake", 4, "needs the GPU", sealed("cubin", SOL, "x.cubin"))
    expect("a cubin older than its instructions (lesson 10 for sm_75): the GPU it needs, and EMU=1", 1,
           r"needs a GPU of compute capability 8\.0 or newer .* this build is for sm_75 .*make check EMU=1",
           sealed("cubin", f"{ROOT}/solutions/10_tensor_cores/hgemm_swizzled.cu", "old.cubin", "--", "-arch=sm_75"))
    check(glob.glob(CACHE + "/baseline-*.deps"), "the empty file's list is cached in WB_SEALED_CACHE",
          f"no cached list in {CACHE}")


def errors():
    put("work/syntax.cu", "int a = 1\n" + K)
    put("work/syntax.ptx", "stale\n")
    expect("a syntax error: exit 1, work/syntax.cu:2", 1, r"^work/syntax\.cu:2: error",
           sealed("ptx", "work/syntax.cu", "work/syntax.ptx"))
    check(not os.path.exists("work/syntax.ptx"), "a failed compile leaves no stale OUT",
          "a stale OUT survived a failed compile")
    put("work/warn.cu", "__global__ void k(float *x) { int unused; x[0] = 1; }\n")
    put("work/const.cu", "__constant__ float t[32];\n__global__ void k(float *x) { t[threadIdx.x] = 1; x[0] = t[0]; }\n")
    put("work/smid.cu", '__global__ void k(float *x)\n{ unsigned s; asm("mov.u32 %0, %%smid;" : "=r"(s)); x[0] = s; }\n')
    for name, want, pattern, args in [
            ("a warning is shown as work/warn.cu:1 and the file compiles", 0, r"^work/warn\.cu:1: warning",
             ("ptx", "work/warn.cu", "o.ptx")),
            ("a store to __constant__ memory (nvcc drops it) is an error on its line", 1,
             r"^work/const\.cu:2: error: this stores to __constant__ memory", ("ptx", "work/const.cu", "o.ptx")),
            ("a read of %smid (a result that depends on where it runs) is an error on its line, for a cubin too", 1,
             r"^work/smid\.cu:2: error: reads %smid: lesson files may not read clocks or SM ids",
             ("cubin", "work/smid.cu", "o.cubin", "--", "-arch=sm_90"))]:
        expect(name, want, pattern, sealed(*args))
    put("work/chatty.cu", "".join(f"#warning padding the compiler output to more than 64 KiB, line {i}\n"
                                  for i in range(1, 3001)) + K)
    rc, out = run(sealed("ptx", "work/chatty.cu", "o.ptx"))
    size = len(out.encode())
    check(rc == 0 and size <= 66000 and "more bytes of compiler output not shown" in out,
          f"compiler output is cut at 64 KiB ({size} bytes shown)", f"compiler output not cut: {size} bytes")


def includes():
    put("work/passwd.cu", '#include "/etc/passwd"\n' + K)
    put("work/relative.cu", f'\n#include "{os.path.relpath(SOL, os.path.realpath("work"))}"\n')
    put("work/absolute.cu", f'#include "{SOL}"\n')
    put("work/fp16.cu", "#include <cuda_fp16.h>\n" + K)
    put("work/cr.cu", '// comment\r#include "/etc/hostname"\n' + K)
    # The lone CR really ends the comment for the compiler: outside the box nvcc reads the file.
    check("/etc/hostname" in run([NVCC, "-M", "-arch=sm_90", "work/cr.cu"], err=DEVNULL)[1],
          "(unsealed, nvcc -M does read /etc/hostname behind a lone CR: the attack is real)",
          "nvcc does not treat a lone CR as a line end here: the CR case proves nothing")
    check(SOL in run([NVCC, "-M", "-arch=sm_90", "work/absolute.cu"], err=DEVNULL)[1],
          "(unsealed, nvcc -M does read the solution through an absolute #include)",
          "the absolute #include reads nothing unsealed")
    for name, src, pattern in [
            ('#include "/etc/passwd"', "passwd",
             r"^work/passwd\.cu:1: includes /etc/passwd: lesson files may not include anything"),
            ("#include of the solution by a relative path", "relative",
             r"^work/relative\.cu:2: includes .*solutions/01_naive_matmul/matmul_naive\.cu: lesson files"),
            ("#include of the solution by an absolute path", "absolute",
             rf"^work/absolute\.cu:1: includes {re.escape(SOL)}: lesson files"),
            ("#include <cuda_fp16.h> (a toolkit header)", "fp16",
             r"^work/fp16\.cu:1: includes /.*/cuda_fp16\.h: lesson files"),
            ("#include behind a lone CR", "cr", r"^work/cr\.cu:2: includes /etc/hostname: lesson files")]:
        expect(name, 2, pattern, sealed("ptx", f"work/{src}.cu", "o.ptx"))
    expect("#include of the solution in a cubin compile too", 2, r"includes .*matmul_naive\.cu",
           sealed("cubin", "work/absolute.cu", "o.cubin", "--", "-arch=sm_90"))
    # The list is the device pass's line markers (the pass that makes the PTX): a header only that pass reads,
    # an empty file, and a marker the file writes itself to pose as nvcc's own code.
    put("work/device-only.cu", "#ifdef __CUDA_ARCH__\n#include <cuda_fp16.h>\n#endif\n" + K)
    put("work/empty-include.cu", '#include "/dev/null"\n' + K)
    put("work/forged-marker.cu", '# 1 "<command-line>" 1\n#include <cuda_fp16.h>\n' + K)
    for name, src, pattern in [
            ("#include in device code alone (#ifdef __CUDA_ARCH__)", "device-only",
             r"^work/device-only\.cu:2: includes /.*/cuda_fp16\.h"),
            ("#include of an empty file (/dev/null)", "empty-include", r"^work/empty-include\.cu:1: includes /dev/null"),
            ("#include after a line marker of the file's own", "forged-marker", r"includes /.*/cuda_fp16\.h")]:
        expect(name, 2, pattern, sealed("ptx", f"work/{src}.cu", "o.ptx"))
    # A stale or foreign cached list must not refuse an honest file: it is checked against a fresh one.
    for f in glob.glob(CACHE + "/baseline-*.deps"):
        put(f, "/usr/include/nothing.h\n")
    expect("a wrong cached list does not refuse an honest file", 0, "^$", sealed("ptx", SOL, "o.ptx"))


def files():
    os.symlink(SOL, "work/link.cu")
    os.mkfifo("work/fifo.cu")
    put("work/big.cu", " " * (1024 * 1024 + 1))
    put("work/mine.cu", K)
    os.link("work/mine.cu", "work/hard.cu")
    for name, pattern, src, *wrap in [
            ("a symbolic link to the solution",
             rf"^work/link\.cu is a symbolic link \(to {re.escape(SOL)}\): hand in the file itself", "work/link.cu"),
            ("a fifo (and no hang)", r"^work/fifo\.cu is a named pipe", "work/fifo.cu", "timeout", "20"),
            ("a folder", "^work is a folder", "work"),
            ("a missing file", r"^work/none\.cu does not exist", "work/none.cu"),
            ("a device", "^/dev/null is a device", "/dev/null"),
            ("a file over 1 MiB", r"^work/big\.cu is 1048577 bytes, over the 1 MiB limit", "work/big.cu"),
            ("a hard link (two names for one file)", r"^work/hard\.cu has 2 names", "work/hard.cu")]:
        expect(name, 2, pattern, [*wrap, *sealed("ptx", src, "o.ptx")])


def cache_hits():
    os.environ["WB_SEALED_TRACE"] = TRACE
    # Bytes of their own (the PTX stage's entries serve any path: the solution's is there already).
    put("work/c.cu", raw(SOL) + b"// the cache's own copy\n")
    n = entries()
    miss = sc_run("ptx", "work/c.cu", "c.ptx")
    check(miss.rc == 0 and not miss.out and entries() == n + 1 and miss.how == "compiled",
          f"a first compile is a miss, stored ({miss.took} ms)",
          f"a first compile: exit {miss.rc}, {entries()} entries (before: {n}): {miss.out}")
    attempt(os.rename, "c.ptx", "c.ptx.first")
    hit("the same file again (another OUT)", "c.ptx", miss, "ptx", "work/c.cu", "c.ptx")
    # A hit is this one process: no box, no compiler, no tool started (the shell script it replaced started
    # about 30). Counted in a pid namespace of its own, where the shell is pid 1 and the compile pid 2: the last
    # pid given out there is 2 unless the compile started a process. bash's read: dash reads a byte at a time,
    # and /proc/sys gives a read at an offset nothing.
    put(TRACE, "")
    last = run(["unshare", "--user", "--pid", "--mount", "--fork", "--mount-proc", "bash", "-c",
                '"$0" ptx work/c.cu c.alone.ptx > /dev/null 2>&1 && read -r last < /proc/sys/kernel/ns_last_pid && '
                'echo "$last"', SC])[1]
    how = last_trace()
    check(last == "2" and how == "hit" and same("c.alone.ptx", "c.ptx.first"),
          "a hit starts no process (alone in a pid namespace, the last pid there is its own, 2)",
          f"a hit in a pid namespace of its own: {how or 'neither hit nor compiled'}, the last pid there '{last}' "
          "(2: none started)")
    check(uncached("ptx", "work/c.cu", "c0.ptx") and same("c0.ptx", "c.ptx"),
          "the hit's ptx is that of a compile without the cache", "the hit's ptx differs from an uncached compile's")
    attempt(os.remove, "c.ptx")
    umask = os.umask(0o027)
    made = side(sealed("ptx", "work/c.cu", "c.ptx"))
    os.umask(umask)
    mode = f"{os.stat('c.ptx').st_mode & 0o7777:o}" if os.path.exists("c.ptx") else "(no c.ptx)"
    check(made and mode == "640", "a hit's OUT is made with the caller's umask (027: 640)",
          f"a hit's OUT has mode {mode} under umask 027")
    # The text is made at replay, from the stored log: it names SRC as this call spells it.
    run(sealed("ptx", "work/warn.cu", "o.ptx"))
    warn = os.path.realpath("work/warn.cu")
    r = sc_best("ptx", warn, "o.ptx")
    check(r.rc == 0 and r.how == "hit" and re.search(f"^{re.escape(warn)}:1: warning", r.out, re.M),
          f"a hit names SRC as this call spells it (an absolute path: {r.took} ms)",
          f"warn.cu by its absolute path: exit {r.rc}, {r.took} ms: {r.out}")
    put("work/v.cu", "__global__ void k(int *x) { x[0] = 7; }\n")
    side(sealed("ptx", "work/v.cu", "v7.ptx"))
    put("work/v.cu", "__global__ void k(int *x) { x[0] = 8; }\n")  # one byte, the same size
    n = entries()
    r = sc_run("ptx", "work/v.cu", "v8.ptx")
    uncached("ptx", "work/v.cu", "v8.fresh.ptx")
    check(r.rc == 0 and entries() == n + 1 and "%r1, 8;" in text("v8.ptx") and same("v8.ptx", "v8.fresh.ptx")
          and r.how == "compiled", f"a one-byte change to the source is a miss ({r.took} ms), its ptx new",
          f"a one-byte change: exit {r.rc}, {r.took} ms, entries {n} -> {entries()}")


def cache_stages():
    n = entries()
    miss = sc_run("ptx", "work/c.cu", "c75.ptx", "--", "-arch=sm_75")
    check(miss.rc == 0 and entries() == n + 1 and re.search(r"^\.target sm_75", text("c75.ptx"), re.M)
          and miss.how == "compiled", f"another -arch is a miss ({miss.took} ms)",
          f"another -arch: exit {miss.rc}, {miss.took} ms, entries {n} -> {entries()}")
    attempt(os.rename, "c75.ptx", "c75.ptx.first")
    hit("another -arch again", "c75.ptx", miss, "ptx", "work/c.cu", "c75.ptx", "--", "-arch=sm_75")
    n = entries()
    # A cubin's first step is a ptx call's (the same flags): the PTX cached above serves it.
    miss = sc_run("cubin", "work/c.cu", "c.cubin", "--", "-arch=sm_90")
    check(miss.rc == 0 and entries() == n + 1 and attempt(os.rename, "c.cubin", "c.cubin.first")
          and miss.how == "assembled",
          f"a cubin of a file compiled to PTX before: ptxas alone, stored as its cubin ({miss.took} ms)",
          f"a cubin after its PTX: {miss.how}, exit {miss.rc}, entries {n} -> {entries()}: {miss.out}")
    hit("the cubin again", "c.cubin", miss, "cubin", "work/c.cu", "c.cubin", "--", "-arch=sm_90")
    # A file's cubin first (the GPU judge's build): stored as its PTX and its cubin, and its PTX (the
    # emulator's) then a hit.
    put("work/cf.cu", raw(SOL) + b"// a cubin first\n")
    n = entries()
    r = sc_run("cubin", "work/cf.cu", "cf.cubin", "--", "-arch=sm_90")
    check(r.rc == 0 and entries() == n + 2 and r.how == "compiled",
          f"a cubin of a new file: a miss, stored as its PTX and its cubin ({r.took} ms)",
          f"a cubin of a new file: {r.how}, exit {r.rc}, entries {n} -> {entries()}: {r.out}")
    r = sc_run("ptx", "work/cf.cu", "cf.ptx")
    uncached("ptx", "work/cf.cu", "cf.fresh.ptx")
    check(r.rc == 0 and r.how == "hit" and same("cf.ptx", "cf.fresh.ptx"),
          f"then its PTX: a hit, that of a compile without the cache ({r.took} ms)",
          f"the PTX after a cubin: {r.how}, exit {r.rc}: {r.out}")
    check(uncached("cubin", "work/c.cu", "c0.cubin", "--", "-arch=sm_90") and same("c0.cubin", "c.cubin"),
          "the hit's cubin is that of a compile without the cache", "the hit's cubin differs from an uncached compile's")
    # The same bytes at another path: the PTX stage serves it, with the new path in .file; a cubin there costs
    # ptxas alone, and is the cubin an uncached compile makes at that path.
    os.mkdir("work/elsewhere")
    shutil.copy("work/c.cu", "work/elsewhere/c.cu")
    r = sc_run("ptx", "work/elsewhere/c.cu", "ce.ptx")
    uncached("ptx", "work/elsewhere/c.cu", "ce.fresh.ptx")
    check(r.rc == 0 and r.how == "hit" and "elsewhere/c.cu" in text("ce.ptx") and same("ce.ptx", "ce.fresh.ptx"),
          f"the same file at another path: a hit, naming its own path ({r.took} ms)",
          f"another path: {r.how}, exit {r.rc}: {r.out}")
    n = entries()
    r = sc_run("cubin", "work/elsewhere/c.cu", "ce.cubin", "--", "-arch=sm_90")
    uncached("cubin", "work/elsewhere/c.cu", "ce.fresh.cubin", "--", "-arch=sm_90")
    check(r.rc == 0 and r.how == "assembled" and entries() == n + 1 and same("ce.cubin", "ce.fresh.cubin"),
          f"its cubin: ptxas alone on the cached PTX, as an uncached compile makes it ({r.took} ms)",
          f"a cubin at another path: {r.how}, exit {r.rc}, entries {n} -> {entries()}: {r.out}")


def cache_repairs():
    put("work/e.cu", "int a = 1\n" + K + "// the cache test\n")
    n = entries()
    miss = sc_run("ptx", "work/e.cu", "e.ptx")
    check(miss.rc == 1 and re.search(r"^work/e\.cu:[0-9]*: error", miss.out, re.M) and entries() == n + 1,
          "a compile error (exit 1, on a line of SRC) is stored",
          f"a compile error: exit {miss.rc}, entries {n} -> {entries()}: {miss.out}")
    put("e.ptx", "stale\n")
    hit("the compile error again", "e.ptx", miss, "ptx", "work/e.cu", "e.ptx")
    check(not os.path.exists("e.ptx"), "a replayed compile error leaves no OUT",
          "a stale OUT survived a replayed compile error")
    # A corrupt entry is compiled again, and what it holds is never delivered.
    shutil.copy(SOL, "work/d.cu")
    side(sealed("ptx", "work/d.cu", "d.ptx"))
    entry = max(glob.glob(CACHE + "/result-*"), key=os.path.getmtime, default=None)  # the newest
    uncached("ptx", "work/d.cu", "d.fresh.ptx")
    for what, damage in [("an entry with a byte changed", lambda f: (f.seek(-40, os.SEEK_END), f.write(b"#"))),
                         ("a truncated entry", lambda f: f.truncate(max(0, f.seek(0, os.SEEK_END) - 100)))]:
        if entry:
            with open(entry, "r+b") as f:
                damage(f)
        r = sc_run("ptx", "work/d.cu", "d.ptx")
        check(r.rc == 0 and r.how == "compiled" and same("d.ptx", "d.fresh.ptx"),
              f"{what} is compiled again ({r.took} ms), OUT right",
              f"{what}: {r.how}, exit {r.rc}, {r.took} ms, d.ptx {'as' if same('d.ptx', 'd.fresh.ptx') else 'unlike'} "
              "d.fresh.ptx")
    r = sc_best("ptx", "work/d.cu", "d.ptx")
    check(r.rc == 0 and r.how == "hit" and same("d.ptx", "d.fresh.ptx"), f"and stored again whole: a hit ({r.took} ms)",
          f"after a repair: exit {r.rc}, {r.took} ms")
    # The same bytes under the same path, so the same key: refused all the same (step 1 runs first).
    put("work/r.cu", K)
    if side(sealed("ptx", "work/r.cu", "o.ptx")) and attempt(os.rename, "work/r.cu", "work/r-target.cu"):
        attempt(os.symlink, "r-target.cu", "work/r.cu")
    expect("a symbolic link where a stored file was (the same bytes)", 2, r"^work/r\.cu is a symbolic link",
           sealed("ptx", "work/r.cu", "o.ptx"))
    if attempt(os.remove, "work/r.cu") and attempt(os.rename, "work/r-target.cu", "work/r.cu"):
        attempt(os.link, "work/r.cu", "work/r2.cu")
    expect("a second name for a stored file", 2, r"^work/r\.cu has 2 names", sealed("ptx", "work/r.cu", "o.ptx"))
    attempt(os.remove, "work/r2.cu")
    r = sc_best("ptx", "work/r.cu", "o.ptx")
    check(r.rc == 0 and r.how == "hit", f"(its entry was there all along: a hit once it is a file of its own, {r.took} ms)",
          f"r.cu: exit {r.rc}, {r.took} ms")
    n = entries()
    for call in ("a second call: refused again", "a third call"):
        expect(f'#include "/etc/passwd", {call}', 2, r"^work/passwd\.cu:1: includes /etc/passwd",
               sealed("ptx", "work/passwd.cu", "o.ptx"))
    check(entries() == n, "a refused file leaves no entry", f"a refusal stored an entry ({n} -> {entries()})")


def cache_shared():
    # make -j, or hand-ins graded at once: one file compiled by three at the same time.
    shutil.copy(SOL, "work/p.cu")
    compiles = []
    for i in (1, 2, 3):
        with open(f"p{i}.log", "wb") as log:
            compiles.append(subprocess.Popen(sealed("ptx", "work/p.cu", f"p{i}.ptx"), stdin=DEVNULL, stdout=log,
                                             stderr=STDOUT, close_fds=False))
    rcs = " ".join(str(c.wait()) for c in compiles)
    logs = "".join(text(f"p{i}.log") for i in (1, 2, 3)).rstrip("\n")
    temps = [f for _, dirs, names in os.walk(CACHE) for f in dirs + names if ".tmp." in f]  # (find -name: both)
    check(rcs == "0 0 0" and same("p1.ptx", "p2.ptx") and same("p1.ptx", "p3.ptx") and not logs and not temps,
          "three compiles of one file at once: all right, no temp file left", f"three at once: exits {rcs}, {logs}")
    r = sc_best("ptx", "work/p.cu", "p4.ptx")
    check(r.rc == 0 and r.how == "hit" and same("p1.ptx", "p4.ptx"), f"and then a hit ({r.took} ms)",
          f"after three at once: exit {r.rc}, {r.took} ms")
    # Bounded: unused for 7 days, or past 2000 entries, the least recently used go (at a store).
    now = time.time()
    for fake, age in [("old", 8 * 86400)] + [(f"{i:04d}", 3600) for i in range(1, 2001)]:
        if attempt(put, f"{CACHE}/result-fake-{fake}", ""):
            os.utime(f"{CACHE}/result-fake-{fake}", (now - age, now - age))
    put("work/b.cu", K.rstrip("\n") + " // bounded\n")
    side(sealed("ptx", "work/b.cu", "o.ptx"))
    r = sc_best("ptx", "work/c.cu", "c.ptx")
    check(not os.path.exists(CACHE + "/result-fake-old") and entries() == 2000
          and not os.path.exists(CACHE + "/result-fake-0001") and r.rc == 0 and r.how == "hit",
          f"7 days unused: dropped; over 2000: the least recently used dropped (c.cu still a hit, {r.took} ms)",
          f"bounds: {entries()} entries, {len(glob.glob(CACHE + '/*fake*'))} fakes, c.cu: exit {r.rc}, {r.took} ms")
    for f in glob.glob(CACHE + "/result-fake-*"):
        os.remove(f)
    expect("a cache folder the box would show is refused", 4,
           r"WB_SEALED_CACHE \(/usr/share/wb-sealed-cache\) lies where the compiler",
           sealed("ptx", "work/c.cu", "o.ptx"), {"WB_SEALED_CACHE": "/usr/share/wb-sealed-cache"})
    expect("a cache folder that cannot be made is no error", 0, "^$", sealed("ptx", "work/c.cu", "o.ptx"),
           {"WB_SEALED_CACHE": "/dev/null/cache"})


def limits():
    put("work/burn.cu", """\
// Each instantiation spends ~0.1 s of constexpr evaluation (just under the front end's own
// step limit); 2^15 of them keep cicc busy for about an hour.
constexpr unsigned long long spin(unsigned long long n, unsigned long long s) {
    for (unsigned long long i = 0; i < n; ++i) s += i ^ (s >> 3);
    return s;
}
template <int D, unsigned M> struct Burn {
    static_assert(spin(300000, M) != 1, "");
    static constexpr unsigned v = Burn<D - 1, 2 * M>::v + Burn<D - 1, 2 * M + 1>::v;
};
template <unsigned M> struct Burn<0, M> { static constexpr unsigned v = 1; };
static_assert(Burn<14, 1>::v != 0, "");
__global__ void k(unsigned *x) { x[0] = 1; }
""")
    put("work/templates.cu", """\
// 2^30 distinct instantiations: memory grows by ~100 MB a second.
template <int N, unsigned M> struct E { static constexpr unsigned v = E<N - 1, 2 * M>::v + E<N - 1, 2 * M + 1>::v; };
template <unsigned M> struct E<0, M> { static constexpr unsigned v = 1; };
static_assert(E<30, 0>::v > 0, "");
__global__ void k(unsigned *x) { x[0] = 1; }
""")
    put("work/macros.cu", "// A macro argument is expanded in memory before it is substituted: 2^40 tokens.\n"
        f"#define D(x) x x\nstatic const int bomb[] = {{ {'D(' * 40}1,{')' * 40} }};\n"
        "__global__ void k(int *x) { x[0] = bomb[0]; }\n")
    put("work/table.cu", """\
// 16 MiB of zeros before one non-zero byte: the PTX spells out all of them (~48 MB).
struct Table { char pad[1 << 24]; char last; };
__constant__ Table table = { {}, 1 };
__global__ void k(char *x) { x[0] = table.last; }
""")
    for name, pattern, src, env in [
            ("a constexpr computation without end: the CPU limit",
             r"^work/burn\.cu: the compiler used up its 2 s of CPU time", "work/burn.cu", {"WB_SEALED_CPU_S": "2"}),
            ("a template explosion: the memory limit",
             r"^work/templates\.cu: the compiler ran out of its 512 MiB of memory", "work/templates.cu",
             {"WB_SEALED_MEM_MB": "512"}),
            ("a preprocessor explosion: the memory limit",
             r"^work/macros\.cu: the compiler ran out of its 512 MiB of memory", "work/macros.cu",
             {"WB_SEALED_MEM_MB": "512"}),
            ("a huge __constant__ table: the file-size limit",
             r"^work/table\.cu: the compiler tried to write a file over the 4 MiB limit", "work/table.cu",
             {"WB_SEALED_FSIZE_MB": "4"}),
            ("too few processes for nvcc: named, not taken for a compile error", "could not start a process", SOL,
             {"WB_SEALED_NPROC": "4"})]:
        t0 = ms()
        expect(name, 3, pattern, sealed("ptx", src, "o.ptx"), env)
        say(f"        (stopped after {ms() - t0} ms)")
    t0 = ms()
    expect("the wall-clock backstop stops the box", 3, "wall-clock time and was stopped with everything it started",
           sealed("ptx", SOL, "o.ptx"),
           {"WB_SEALED_WALL_S": "2", "WB_SEALED_DEBUG_CMD": "sleep 271828 & exec sleep 271829"})
    took = ms() - t0
    time.sleep(0.5)
    left = procs_with(271828) + procs_with(271829)
    check(not left and took < 15000, f"nothing of the box survives it (stopped after {took} ms)",
          f"after the wall-clock stop ({took} ms), these survive: {' '.join(left)}")


def inside():
    def box(cmd):
        return run(sealed("ptx", SOL, "o.ptx"), {"WB_SEALED_DEBUG_CMD": cmd})[1]
    # /etc may hold links made again on the way to the toolkit (/etc/alternatives/cuda), nothing else.
    lines = box(f'ls -A / | tr "\\n" " "; echo; for d in /work /root /home /run /var /mnt /opt {ROOT} {CACHE}; do '
                'ls -d $d 2>/dev/null; done; find /etc ! -type d ! -type l 2>/dev/null | tr "\\n" " "; echo; '
                "echo $(ls -A /box) / $(ls -A /box/keep)").split("\n") + ["", ""]
    # (a box that printed nothing would hide nothing: / must show its /usr)
    check(not lines[1] and "usr" in lines[0].split(), "no /work /root /home /run /var /mnt /opt, no project tree, "
          f"no cache, no file in /etc (/ holds: {lines[0]})", f"visible in the box: {lines[1] or '(/ holds: ' + lines[0] + ')'}")
    check(lines[2] == "keep kernel.cu /", "/box holds the copy alone, and an empty folder for what nvcc keeps",
          "/box holds: " + "\n".join(lines[2:]).rstrip("\n"))
    out = box(f"cat /etc/passwd {SOL} 2>&1 | head -c 300; echo; touch /usr/x /tmp/x 2>&1")
    check("passwd: No such file" in out and f"{SOL}: No such file" in out and "root:" not in out,
          "/etc/passwd and the solution cannot be read", f"readable in the box: {out}")
    check("Read-only file system" in out, "/usr is read-only, /tmp writable", f"writes in the box: {out}")
    out = box('tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')
    check(out == "lo", "no network (interfaces: lo)", f"network interfaces in the box: {out}")
    out = box('id -u; id -g; grep -E "^Cap(Inh|Prm|Eff|Bnd|Amb):" /proc/self/status | tr -s "\\t " " "').split("\n")
    check(out[:2] == ["65534", "65534"] and sum(line.endswith(" 0000000000000000") for line in out) == 5,
          "uid and gid 65534, every capability set empty (CapEff 0)", "in the box: " + "\n".join(out))
    out = box('grep -E "^Max (cpu time|file size|address space|processes|core file size)" /proc/self/limits | tr -s " "')
    check(all(limit in out for limit in ("Max cpu time 60 65 seconds", "Max file size 16777216 16777216",
                                         "Max address space 4294967296 4294967296", "Max processes 256 256",
                                         "Max core file size 0 0")),
          "limits in the box: CPU 60 s (+5 hard), 16 MiB files, 4 GiB, 256 processes, no core", f"limits in the box: {out}")
    # Who the compiler is outside the box, seen from here; and SIGTERM to the sealed compile ends the box.
    compile = subprocess.Popen(sealed("ptx", SOL, "o.ptx"), stdin=DEVNULL, stdout=DEVNULL, stderr=DEVNULL,
                               close_fds=False, env={**os.environ, "WB_SEALED_DEBUG_CMD": "exec sleep 314159", "TMPDIR": T})
    for _ in range(50):
        pids = procs_with(314159)
        if pids:
            break
        time.sleep(0.1)
    status = text(f"/proc/{pids[0] if pids else 0}/status").split("\n")
    uid = next((line.split()[1] for line in status if line.startswith("Uid:")), "?")
    if os.getuid() == 0:
        check(uid == "65534", "run by root, the compiler is uid 65534 outside the box too",
              f"run by root, the compiler is uid '{uid}' outside the box (unprivileged user namespaces off?)")
    else:
        check(uid == str(os.getuid()), f"the compiler is our own uid {uid} outside the box (no capabilities)",
              f"outside uid '{uid}'")
    compile.terminate()
    compile.wait()
    time.sleep(0.5)
    left = procs_with(314159) + glob.glob(T + "/wb-sealed.*")
    check(not left, "SIGTERM to the sealed compile ends the box and removes its folder", f"after SIGTERM: {' '.join(left)}")


def without_bwrap():
    os.mkdir(T + "/nobwrap")
    put(T + "/nobwrap/bwrap", '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n')
    os.chmod(T + "/nobwrap/bwrap", 0o755)
    put("work/fresh.cu", b"// not compiled before\n" + raw(SOL))
    nobwrap = {"PATH": f"{T}/nobwrap:{os.environ.get('PATH', '')}"}
    unsealed = {**nobwrap, "WB_UNSEALED_OK": "1"}
    for name, want, pattern, src, env in [
            # A file compiled before: its result, made in the box, is the cache's, and no box is made for it.
            ("a cached result is served without a box (a sealed compile made it)", 0, "^$", SOL, nobwrap),
            ("a bwrap that may not make namespaces: exit 4, what to allow", 4,
             "cannot make its box here .*allow unprivileged user namespaces", "work/fresh.cu", nobwrap),
            ("WB_UNSEALED_OK=1: compiled with limits, and says it is not sealed", 0, "NOT sealed", "work/fresh.cu",
             unsealed),
            ("an unsealed result is not kept: compiled again, not sealed", 0, "NOT sealed", "work/fresh.cu", unsealed),
            ('WB_UNSEALED_OK=1 still refuses #include "/etc/passwd"', 2, r"^work/passwd\.cu:1: includes /etc/passwd",
             "work/passwd.cu", unsealed),
            ("WB_UNSEALED_OK=1 still stops a constexpr computation", 3, "used up its 2 s of CPU time", "work/burn.cu",
             {**unsealed, "WB_SEALED_CPU_S": "2"})]:
        expect(name, want, pattern, sealed("ptx", src, "o.ptx"), env)


SECTIONS = [("lesson solutions compile, as they would unsealed", solutions),
            ("compile errors and warnings, as the student's file:line", errors),
            ("#include is refused by the preprocessor's own list of the files it read", includes),
            ("SRC must be a regular file of its own", files),
            ("the result cache (WB_SEALED_CACHE)", cache_hits, cache_stages, cache_repairs, cache_shared),
            ("limits, each named", limits),
            ("inside the box", inside),
            ("without bubblewrap", without_bwrap)]


def main():
    global NVCC, T, CACHE, TRACE
    make = (os.environ.get("MAKE") or "make").split()
    target = ["--no-print-directory", "build/tools/sealed-compile"]
    if not (os.environ.get("WB_SEALED_PROGRAM") or run([*make, "-sq", *target], err=DEVNULL, cwd=ROOT)[0] == 0
            or side([*make, "-s", *target], cwd=ROOT)) or not os.access(SC, os.X_OK):
        return check(False, "", f"cannot build {SC} (make build/tools/sealed-compile)")
    NVCC = os.environ["NVCC"] = os.environ.get("NVCC") or shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    for var in ("WB_SEALED_CPU_S WB_SEALED_MEM_MB WB_SEALED_FSIZE_MB WB_SEALED_WALL_S WB_SEALED_NPROC WB_UNSEALED_OK "
                "WB_SEALED_DEBUG_CMD").split():
        os.environ.pop(var, None)
    T = tempfile.mkdtemp(prefix="wb-sealed-test.", dir=os.environ.get("TMPDIR") or "/tmp")
    try:
        CACHE = os.environ["WB_SEALED_CACHE"] = T + "/cache"
        TRACE = T + "/trace"
        os.chdir(T)
        os.mkdir("work")
        say(f"sealed-compile test, as uid {os.getuid()}, in {T}")
        if not os.path.isfile(SOL):
            return check(False, "", f"no lesson solutions under {ROOT}/solutions")
        for title, *parts in SECTIONS:
            say("-- " + title)
            for part in parts:
                part()
    finally:
        shutil.rmtree(T, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:] not in ([], ["-v"]):
        sys.exit(__doc__.split("\n\n")[1])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the temporary folder goes all the same
    try:
        main()
    except Exception:  # the test's own failure: counted, and the last line still said
        check(False, "", "the test stopped: " + traceback.format_exc())
    if failed and not VERBOSE:
        print("\n".join(said))
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)
