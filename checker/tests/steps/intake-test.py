#!/usr/bin/env python3
# The intake (checker/include/intake.h) against hand-ins made to fool it, through the paths a
# grader uses: make check and make grade (the emulator's judge and the GPU judge's build, which
# share the intake's make step), and `workbook intake` as grade-all calls it, as root and, where
# we are root, as an unprivileged user. Each hostile hand-in must be refused with the sentence
# that names its cause, in under a second, and earn nothing; honest ones laid out as courses lay
# them out (a folder, flat, an archive) are graded.
# EMU= (set, empty) grades with the GPU judge where there is a GPU; the emulator otherwise.
# The hostile trees are only made and removed here, never walked through a link; no name goes
# through a shell.
import hashlib, io, json, os, re, shutil, stat, subprocess, sys, tarfile, time, zipfile
from functools import cache

sys.stdout.reconfigure(line_buffering=True, errors='surrogateescape')  # bytes shown as they came
make = (os.environ.get('MAKE') or 'make').split() + ['-s', '--no-print-directory']
emu = os.environ.get('EMU', '1')
wb = 'build/workbook'
L3 = '03_bank_conflicts/transpose_shared.cu'
if subprocess.run(make + [wb]).returncode: sys.exit(1)
d = os.getcwd() + '/build/intake-test'

def remove(p):  # rm -rf P: a link is removed, never followed (nor is one inside: rmtree)
    if os.path.isdir(p) and not os.path.islink(p): shutil.rmtree(p)
    elif os.path.lexists(p): os.unlink(p)

remove(d)
os.makedirs(d)
os.chmod(d, 0o755)

def run(*cmd, timeout=None, env=None):
    """CMD's status and its stdout and stderr together; `timeout` stops make and all it started."""
    p = subprocess.run((['timeout', str(timeout)] if timeout else []) + list(cmd), env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode(errors='surrogateescape')

def read(path):  # a file's text as $(cat PATH 2>&1) gives it
    try:
        with open(path, errors='surrogateescape') as f: return f.read().rstrip('\n')
    except OSError as e: return f'cat: {path}: {e.strerror}'
def grep(pattern, text):  # the first match on a line, as grep -m1 -oE gives it; None where none
    return next((m.group(0) for line in text.split('\n') if (m := re.search(pattern, line))), None)
@cache
def sol(lesson):
    fk = subprocess.run([wb, 'lessons', '--lesson', str(lesson), 'folder', 'kernel'], stdout=subprocess.PIPE)
    return f'{os.getcwd()}/solutions/' + fk.stdout.decode().rstrip('\n').replace(' ', '/') + '.cu'
def lesson3(name):  # lesson 3's file in hand-in NAME, its folder made
    os.makedirs(f'{d}/{name}/03_bank_conflicts', exist_ok=True)
    return f'{d}/{name}/{L3}'

verdicts = []
def ok(what): verdicts.append(True); print(f'  ok: {what}')
def bad(what, out=''):  # what went wrong, and the first 30 lines of what was said
    verdicts.append(False)
    print(f'  WRONG: {what}')
    if out := out.rstrip('\n'): print('\n'.join(f'    | {line}' for line in out.split('\n')[:30]))

# refused NAME LESSONS SENTENCE-REGEX: make check of hand-in d/NAME gives every lesson of
# LESSONS "refused" and 0 points within 1 s (20 s as a hang guard: a busy machine's time is no
# verdict), says SENTENCE, and shows nothing of what a link points at (/etc/passwd's "root:").
def refused(name, lessons, want):
    t0 = time.monotonic()
    rc, out = run(*make, 'check', f'EMU={emu}', f'LESSON={lessons}', f'SRC={d}/{name}', timeout=20)
    t = int((time.monotonic() - t0) * 1000)
    if rc == 124: return bad(f'{name}: make check hung (killed after 20 s)', out)
    if (not all(grep(rf'^{l} [^ ]+ +refused \(see above\) +0/', out) for l in lessons.split())
            or not grep(want, out) or 'root:' in out):
        bad(f'{name}: not refused as it must be (lessons {lessons}, sentence /{want}/)', out)
    elif rc == 0: bad(f'{name}: refused, but make check exited 0', out)
    else: ok(f'{name}: refused in {t} ms ({grep(want, out)})')

# ---- hostile folders ----------------------------------------------------------------------
os.makedirs(f'{d}/links-to-solutions')
for l in (1, 3, 4, 5):
    s = os.path.dirname(sol(l))
    os.symlink(s, f'{d}/links-to-solutions/{os.path.basename(s)}')
refused('links-to-solutions', '1 3 4 5', r'is a symbolic link \(links are never followed')
os.symlink(sol(3), lesson3('file-links'))
os.makedirs(f'{d}/file-links/01_naive_matmul')
os.symlink('/etc/passwd', f'{d}/file-links/01_naive_matmul/matmul_naive.cu')
refused('file-links', '1 3', '03_bank_conflicts/transpose_shared.cu is a symbolic link')
os.mkfifo(lesson3('fifo'))
refused('fifo', '3', r'is a named pipe \(FIFO\), not a file')
with open(lesson3('sparse'), 'wb') as f: f.truncate(2 << 30)
refused('sparse', '3', 'is 2147483648 bytes, over the 1024 KiB a lesson file may have')
# (A second name for a copy: one for the solution itself would make the sealed compile refuse it.)
# A case whose tree cannot be made is left out, with the reason on stderr.
try: os.link(shutil.copy(sol(3), f'{d}/someone-elses.cu'), lesson3('hard-link'))
except OSError as e: print(e, file=sys.stderr)
else: refused('hard-link', '3', r'has 2 names \(a hard link\)')
shutil.copy(sol(3), lesson3('both'))
shutil.copy(sol(3), f'{d}/both/')
refused('both', '3', 'has both 03_bank_conflicts/transpose_shared.cu and transpose_shared.cu')
if os.geteuid() == 0:  # a device node needs root to make; the intake must not open it
    try: os.mknod(lesson3('device'), stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as e: print(e, file=sys.stderr)
    else: refused('device', '3', 'is a character device, not a file')

# The GPU judge's build reads the same copy: its step refuses the links too (no GPU needed).
check = f"build/{f'{d}/links-to-solutions'.replace('/', '_')}/03_bank_conflicts/check"
rc, out = run(*make, f'SRC={d}/links-to-solutions', check, timeout=20)
if rc != 0 and 'is a symbolic link' in out and not os.path.exists(check):
    ok("the GPU judge's build stops at the intake too")
else: bad("the GPU judge's build of a linked hand-in was not stopped by the intake", out)

# make grade: the links hand-in scores 0, and results.json says why.
remove(f'{d}/grade-links')
run(*make, 'grade', f'EMU={emu}', f'SRC={d}/links-to-solutions', f'GRADE_DIR={d}/grade-links',
    'GRADE_LESSONS=1 3 4 5')
try:
    results = read(f'{d}/grade-links/results.json')
    zero = json.loads(results)['score'] == 0 and 'symbolic link' in results
except Exception: zero = False  # no file, or not results.json's form
if zero: ok('make grade of links: score 0, the sentence in results.json')
else: bad('make grade of a hand-in of links did not score 0 with its sentence',
          read(f'{d}/grade-links/summary.txt'))

# ---- archives, made as an attacker would (python's tarfile and zipfile write any name) ----------
# (They need a workbook built with libarchive, as make test's machines have it: .ci/run.)
class Zeros(io.RawIOBase):
    def __init__(self, n): self.n = n
    def readinto(self, b):
        k = min(len(b), self.n); b[:k] = b'\0' * k; self.n -= k; return k

def tar(name, entries, mode='w:gz'):
    with tarfile.open(f'{d}/{name}', mode) as t:
        for path, kind, data in entries:
            i = tarfile.TarInfo(path)
            if kind == 'file': i.size = len(data); t.addfile(i, io.BytesIO(data))
            elif kind == 'link': i.type = tarfile.SYMTYPE; i.linkname = data; t.addfile(i)
            elif kind == 'big':  # 200 MiB of zeros: a few hundred KiB once compressed
                i.size = data; t.addfile(i, Zeros(data))

try:
    with open(sol(3), 'rb') as f: s = f.read()
    tar('honest.tar.gz', [('mine/' + L3, 'file', s)])
    tar('link.tar.gz', [(L3, 'link', sol(3))])
    tar('dotdot.tar', [('../' + L3, 'file', s)], 'w')
    tar('absolute.tar', [('/tmp/transpose_shared.cu', 'file', s), ('transpose_shared.cu', 'file', s)], 'w')
    tar('escape.tar', [('x\x1b[2J\nScore: 245/245\n[  PASSED  ] 9/x', 'link', 'y')], 'w')
    tar('bomb.tar.gz', [('filler', 'big', 200 * 1024 * 1024), ('transpose_shared.cu', 'file', s)])
    with zipfile.ZipFile(f'{d}/flat.zip', 'w', zipfile.ZIP_DEFLATED) as z:
        z.writestr('transpose_shared.cu', s)
    with zipfile.ZipFile(f'{d}/many.zip', 'w') as z:
        for k in range(5000): z.writestr(f'f{k}', b'')
except Exception as e: bad('could not make the archives', repr(e))
refused('link.tar.gz', '3', 'has a symbolic link')
refused('dotdot.tar', '3', r'has a path with `\.\.`')
refused('absolute.tar', '3', 'has an absolute path')
refused('escape.tar', '3',
        r'has a symbolic link \(links are never followed.*\(x\?\[2J\?Score: 245/245\?\[  PASSED  \] 9/x\)')
if '\x1b' in run(*make, 'check', f'EMU={emu}', 'LESSON=3', f'SRC={d}/escape.tar', timeout=20)[1]:
    bad("escape.tar: an escape sequence from an archive's entry name reached the report")
else: ok("escape.tar: the entry name's control characters shown as ?, no escape sequence in the report")
refused('bomb.tar.gz', '3', 'more than 4096 entries or 64 MiB unpacked')
refused('many.zip', '3', 'more than 4096 entries or 64 MiB unpacked')

# ---- honest hand-ins, as courses lay them out --------------------------------------------
def graded(src, want, what):
    out = run(*make, 'check', f'EMU={emu}', 'LESSON=3', f'SRC={src}', timeout=300)[1]
    if grep(r'^3 [^ ]+ +passed +20/20', out) and want in out:
        ok(f"{what} graded, named {want} ({grep(r'^Judge: [^(,]*', out) or ''})")
    else: bad(f'{what} not graded as it must be', out)

os.makedirs(f'{d}/flat')
shutil.copy(sol(3), f'{d}/flat/')
graded(f'{d}/flat', f'{d}/flat/transpose_shared.cu', "a flat folder (Gradescope's layout)")
graded(f'{d}/honest.tar.gz', f'{d}/honest.tar.gz:mine/{L3}', 'a tar.gz with a top folder')
graded(f'{d}/flat.zip', f'{d}/flat.zip:transpose_shared.cu', 'a flat zip')

# ---- grade-all's door: one name inside HANDINS, as root and as an unprivileged user ---------
os.makedirs(f'{d}/handins/real/03_bank_conflicts')
shutil.copy(sol(3), f'{d}/handins/real/03_bank_conflicts/')
os.symlink(os.getcwd() + '/solutions', f'{d}/handins/linked')
os.mkfifo(f'{d}/handins/fifo')
# chmod -R a+rX: read for all, search for folders and what some user may run; links left alone.
for p in [d] + [os.path.join(top, n) for top, dirs, files in os.walk(d) for n in dirs + files]:
    m = os.lstat(p).st_mode
    if not stat.S_ISLNK(m):
        os.chmod(p, stat.S_IMODE(m) | 0o444 | (0o111 if stat.S_ISDIR(m) or m & 0o111 else 0))
with open(sol(3), 'rb') as f: copied = 'copied ' + hashlib.sha256(f.read()).hexdigest()
for who in ['root'] + (['nobody'] if os.geteuid() == 0 and shutil.which('setpriv') else []):
    as_who = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] if who == 'nobody' else []
    def intake(*args, env=None): return run(*as_who, wb, 'intake', *args, env=env)[1]
    stage = f'{d}/stage-{who}'
    remove(stage)
    os.makedirs(stage)
    try: shutil.chown(stage, who)
    except (LookupError, OSError): pass
    for name in 'linked', 'fifo': intake('--root', f'{d}/handins', name, f'{stage}/{name}')
    intake('--root', f'{d}/handins', 'real', f'{stage}/real', '3')
    l, f, r = (read(f'{stage}/{name}/03_bank_conflicts/.intake') for name in ('linked', 'fifo', 'real'))
    # The stage read again (make grade of grade-all's copy): the refusal stands, in the same words.
    again = intake('--need', f'{stage}/linked', f'{stage}/again', '3')
    if (l.startswith(f'refused In {d}/handins, linked is a symbolic link') and r == copied
            and f.startswith(f'refused In {d}/handins, fifo is a named pipe')
            and 'linked is a symbolic link' in again):
        ok(f'as {who}: a student folder that is a link or a FIFO is refused, a real one copied, '
           'a stage keeps its refusal')
    else: bad(f"as {who}: grade-all's door", f'linked: {l}\nfifo: {f}\nreal: {r}\nagain: {again}')
    # The walk without openat2 (older kernels, seccomp filters that refuse it) refuses the same.
    w = intake('--need', f'{d}/file-links', f'{stage}/walk', '3', env=dict(os.environ, WB_INTAKE_WALK='1'))
    if f'{L3} is a symbolic link' in w: ok(f'as {who}, without openat2: the same refusal')
    else: bad(f'as {who}, without openat2', w)

print(f'intake-test: {verdicts.count(True)} passed, {verdicts.count(False)} failed')
sys.exit(0 if all(verdicts) else 1)
