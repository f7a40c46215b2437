#!/usr/bin/env python3
# make grade-all tried on generated hand-ins, in the emulator (EMU=1): N students (default 6),
# each lesson of LESSONS (default "3 4 5", the quick ones) a solution, a stub, a wrong kernel or
# missing, by a fixed rule; the gradebook must give every student the points of exactly their
# solutions. Then it is run again (nothing may be graded twice), and once more after one hand-in
# changed (only that one is graded again), and through the Slurm scripts with a stand-in for sbatch.
# Then a class of hand-ins made to break the gradebook and the grading (issue 44), in folders
# with spaces: students named gradebook.csv, gradebook.csv.tmp, =HYPERLINK("x"), with a space,
# in UTF-8, with a newline, with a tab; a kernel that prints the words of the grader's own
# failures; a student folder that is a link to solutions/, one whose lesson folder is one; a
# grading the grader spoiled (its grader-faults). Each must get what it earns: its points, a 0,
# "not graded" for the grader's fault alone, or its name refused while the rest are graded.
#   Usage: checker/tests/steps/grade-all-test.py [N] [LESSONS]   (GENERATE_ONLY=1: only make them)
# No name goes through a shell.
import csv, difflib, fcntl, hashlib, os, re, shutil, signal, subprocess, sys, time

sys.stdout.reconfigure(line_buffering=True, errors='surrogateescape')
os.environ['EMU'] = '1'  # the emulator: the same verdicts on any machine, however busy
os.environ['MAKE'] = MAKE = os.environ.get('MAKE') or 'make'
make, quiet = MAKE.split(), ['-s', '--no-print-directory']
n = int(sys.argv[1]) if len(sys.argv) > 1 else 6
want_lessons = (sys.argv[2] if len(sys.argv) > 2 else '3 4 5').split()
d, cwd = 'build/grade-all-test', os.getcwd()
shutil.rmtree(d, ignore_errors=True)  # its links are removed, never followed
os.makedirs(f'{d}/handins')

def words(*cmd): return subprocess.run(cmd, stdout=subprocess.PIPE, text=True).stdout.split()
def lesson(l): return words('build/workbook', 'lessons', '--lesson', l, 'folder', 'kernel', 'points')
def read(path):
    with open(path, encoding='utf-8', errors='surrogateescape') as f: return f.read()
def write(path, text, mode='w'):
    with open(path, mode) as f: f.write(text)
def copy(src, dst): os.makedirs(os.path.dirname(dst), exist_ok=True); shutil.copy(src, dst)
def count(log, text): return sum(text in line for line in read(log).splitlines())  # grep -c

# A wrong kernel per lesson that both judges reject whatever the timing (docs/mutants.md), and
# the points it still earns, the same whichever judge grades it (check_record.h): ab_swapped is
# right at 1x1 (one correctness case); transposed_dims is too, but its stray writes at other sizes
# void the lesson (compute-sanitizer on a GPU, the emulator's own checks); unpadded is right but
# slow where being right earns nothing (lesson 3's kernel is right already); padded_not_swizzled is
# fast but breaks lesson 5's shared-memory rule.
wrong = {'1': ('last_row_unwritten', 0), '2': ('ab_swapped', 2), '3': ('transposed_dims', 0),
         '4': ('unpadded', 0), '5': ('padded_not_swizzled', 0)}
lessons_all, out_of = words('build/workbook', 'lessons', 'number'), words('build/workbook', 'lessons', '--sum', 'points')
expected = [['student'] + [f'lesson{l}' for l in lessons_all] + ['total', 'out_of']]
for i in range(1, n + 1):
    student, got = f'student{i:0{len(str(n))}}', {}  # numbered as seq -w numbers them
    os.makedirs(f'{d}/handins/{student}')
    for l in want_lessons:
        folder, kernel, points = lesson(l)
        f = f'{folder}/{kernel}.cu'
        case = int(hashlib.sha256(f'{student} lesson {l}'.encode()).hexdigest()[:6], 16) % 4
        if case == 0: copy(f'solutions/{f}', f'{d}/handins/{student}/{f}'); got[l] = int(points)
        elif case == 1: copy(f'exercises/{f}', f'{d}/handins/{student}/{f}')
        elif case == 2:
            subprocess.run(['build/workbook', 'mutate', f'checker/mutants/{wrong[l][0]}.mutant',
                            f'{d}/handins/{student}'], stdout=subprocess.DEVNULL)
            got[l] = wrong[l][1]
        # case 3: not handed in
    expected.append([student] + [str(got.get(l, 0)) for l in lessons_all] + [str(sum(got.values()))] + out_of)
expected = [','.join(r) + '\n' for r in expected]
write(f'{d}/expected.csv', ''.join(expected))

# GENERATE_ONLY=1: the hand-ins and expected.csv alone (for a run on a GPU machine).
if os.environ.get('GENERATE_ONLY'):
    print(f'{n} hand-ins in {d}/handins, the expected gradebook in {d}/expected.csv')
    sys.exit(0)
failed = False
def show(path, mark):
    try: print(''.join(f'{mark}{line}\n' for line in read(path).splitlines()), end='')
    except OSError as e: print(f'{mark}{path}: {e.strerror}')
def verdict(good, ok, wrong, log=None, problems=(), book=None):
    """Prints ok, or wrong with the problems found, the run's log and the gradebook: a failure."""
    global failed
    if good: return print(f'  ok: {ok}')
    print(f'  {wrong}')
    for p in problems: print(f'    ! {p}')
    if log: show(log, '    | ')
    if book: show(book, '    > ')
    failed = True
def run(log, *cmd, env=None):  # CMD's exit status, its output in LOG
    with open(log, 'w') as f: return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env).returncode
def grade_all(log): run(log, *make, *quiet, 'grade-all', f'HANDINS={d}/handins', f'GRADEBOOK_DIR={d}/grades')
# The gradebook read as CSV (every cell is quoted): the points columns (student .. out_of) must
# be the expected ones (else the difference is shown, unless quiet), and every row graded; the
# columns after them say how (status, judge, build, files).
def same(path, quiet=False):
    try:
        with open(path, encoding='utf-8', newline='') as f: book = list(csv.reader(f))
    except OSError: book = []
    made = [','.join(r[:len(lessons_all) + 3]) + '\n' for r in book]
    if made != expected:
        if not quiet: print(''.join(difflib.unified_diff(expected, made, f'{d}/expected.csv', path)), end='')
        return False
    return len(book) > 1 and all(r[-4] == 'graded' for r in book[1:])

t0 = time.time()
grade_all(f'{d}/run1.log')
print(f'  first run: {int(time.time() - t0)} s for {n} hand-ins')
verdict(same(f'{d}/grades/gradebook.csv'), 'the gradebook gives each student the points of their solutions',
        'WRONG GRADEBOOK (above: expected, then made); the run said:', f'{d}/run1.log')
grade_all(f'{d}/run2.log')
again = count(f'{d}/run2.log', 'unchanged since it was graded')
verdict(again == n, 'a second run grades nothing again', f'RESUME BROKEN: {again} of {n} hand-ins kept on a second run',
        f'{d}/run2.log')
# A note beside the lesson files changes nothing; a changed lesson file is graded again.
write(f'{d}/handins/{min(os.listdir(f"{d}/handins"))}/note.txt', 'a note\n')
changed = min(f'{top}/{f}' for top, _, files in os.walk(f'{d}/handins') for f in files if f.endswith('.cu'))
write(changed, '// changed\n', 'a')
grade_all(f'{d}/run3.log')
verdict(count(f'{d}/run3.log', 'unchanged since it was graded') == n - 1 and same(f'{d}/grades/gradebook.csv', quiet=True),
        'after one hand-in changed, only it is graded again', 'RESUME BROKEN after a change:', f'{d}/run3.log')

def stand_in(name, body):  # a make that does more: a Python script in d
    path = f'{cwd}/{d}/{name}'
    write(path, f'#!{sys.executable}\nimport fnmatch, os, subprocess, sys\n{body}')
    os.chmod(path, 0o755)
    return path
real_make = shutil.which(make[0])
# A process of a grading that outlives it (one a kill did not reach: cluster-test met a bwrap
# left so) holds none of the grading's locks: the changed hand-in graded again by a make that
# leaves a sleeper behind, with every descriptor make was given; it must not hold the build lock
# (else every later build waits). MAKE: a MAKE from the environment would stand for make's own name.
write(changed, '// changed again\n', 'a')
pidfile = f'{cwd}/{d}/lingering.pid'
lingering = stand_in('lingering-make.py', f'''if 'grade' in sys.argv[1:]:
    with open({pidfile!r}, 'w') as f: print(subprocess.Popen(['sleep', '300'], close_fds=False).pid, file=f)
os.execv({real_make!r}, sys.argv)\n''')
run(f'{d}/run4.log', lingering, *quiet, 'grade-all', f'HANDINS={d}/handins', f'GRADEBOOK_DIR={d}/grades',
    env=dict(os.environ, MAKE=lingering))
sleeper = read(pidfile).strip() if os.path.isfile(pidfile) else ''
if not sleeper: print(f'  LINGERING TEST BROKEN: no grading ran through {lingering}'); failed = True
else:
    with open(os.open('build/.grade-shared.lock', os.O_RDONLY | os.O_CREAT, 0o666)) as lock:  # flock -n -x
        try: fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB); free = True
        except BlockingIOError: free = False
    verdict(free, 'a process a grading left behind holds none of its locks',
            'A PROCESS A GRADING LEFT BEHIND HOLDS THE BUILD LOCK (every later build would wait for it)')
    try: os.kill(int(sleeper), signal.SIGTERM)
    except (ValueError, OSError): pass
# The same class through the Slurm scripts, with a stand-in for sbatch that runs the array's
# tasks here: the same gradebook.
def slurm(log, handins, grades):
    run(log, 'checker/course/grade_slurm.py', handins, grades, env=dict(
        os.environ, SBATCH='checker/tests/fake-sbatch.sh', SINFO='true', SQUEUE='true', SCANCEL='true'))
slurm(f'{d}/slurm.log', f'{d}/handins', f'{d}/slurm-grades')
verdict(same(f'{d}/slurm-grades/gradebook.csv'),
        'through grade_slurm.py (an array task per hand-in, then the gradebook), the same gradebook',
        'SLURM SCRIPTS BROKEN:', f'{d}/slurm.log')

# ---- a class made to break the gradebook and the grading (issue 44) -------------------------
# HANDINS and GRADEBOOK_DIR with spaces, given to make as they are. Lesson 3 alone (quick).
odd, oddout = f'{cwd}/{d}/hand ins', f'{cwd}/{d}/grades odd'
folder3, kernel3, points3 = lesson('3')
lesson3 = f'{folder3}/{kernel3}.cu'
def handin(name, src): copy(src, f'{odd}/{name}/{lesson3}')
# Each name, as its row writes it, and what it must get: POINTS (graded), "not graded: REGEX"
# or "refused: REGEX".
odd_want = {}
for name in ('gradebook.csv', 'gradebook.csv.tmp', '=HYPERLINK("x")', 'Zoë Brontë', 'faulty'):
    handin(name, f'solutions/{lesson3}'); odd_want[name] = points3
handin('with space', f'exercises/{lesson3}'); odd_want['with space'] = '0'
# The words of the grader's own failures, printed by the kernel into its lesson's report: its 0.
printer, kernel, done = [], False, False
for line in read(f'exercises/{lesson3}').splitlines(keepends=True):
    printer.append(line)
    kernel = kernel or line.startswith('__global__')
    if kernel and line.startswith('{') and not done:
        printer.append('    if (blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0)\n        printf('
                       r'"no kernel image is available for execution on the device\ncould not be compiled here\n");'
                       '\n')
        done = True
write(f'{d}/printer.cu', ''.join(printer))
if not done: print('  TEST BROKEN: could not make the printing kernel'); failed = True
handin('printer', f'{d}/printer.cu'); odd_want['printer'] = '0'
# Links to solutions/: the student folder itself, and a lesson folder. Refused unread: a 0.
os.symlink(f'{cwd}/solutions', f'{odd}/linked'); odd_want['linked'] = '0'
os.makedirs(f'{odd}/lesson-linked')
os.symlink(f'{cwd}/solutions/{folder3}', f'{odd}/lesson-linked/{folder3}'); odd_want['lesson-linked'] = '0'
# Names no gradebook row can hold: refused, the rest graded.
handin('new\nline', f'solutions/{lesson3}'); odd_want[r'new\nline'] = 'refused: control character'
handin('tab\there', f'solutions/{lesson3}'); odd_want[r'tab\there'] = 'refused: control character'
# "faulty": its make grade ends with a line in its grader-faults, as make grade writes one for a
# lesson the grader could not grade (a make in between adds it): not graded, whatever its points.
faulty_make = stand_in('faulty-make.py', f'''rc = subprocess.call([{real_make!r}] + sys.argv[1:])
for a in sys.argv[1:]:
    if fnmatch.fnmatchcase(a, 'GRADE_DIR=*/faulty-*'):
        with open(a[len('GRADE_DIR='):] + '/grader-faults', 'a') as f: print('3 the judge found no GPU (a stand-in)', file=f)
sys.exit(rc if rc >= 0 else 128 - rc)\n''')
odd_want['faulty'] = 'not graded: lesson 3: the judge found no GPU'

# The odd class's gradebook against odd_want: each row's lesson 3 and total, its status; every
# cell quoted, none a spreadsheet would evaluate. What is wrong, a line each.
def check_odd(path):
    try: raw = read(path)
    except OSError as e: return [f'{path}: {e.strerror}']
    cell = r'"(?:[^"]|"")*"'
    problems = [f'a row not quoted cell by cell: {line!r}' for line in raw.splitlines()
                if not re.fullmatch(f'{cell}(?:,{cell})*', line)]
    head, *book = list(csv.reader(raw.splitlines())) or [[]]
    col = {h: i for i, h in enumerate(head)}
    problems += [f'{r[0]}: a cell a spreadsheet would evaluate: {r}' for r in book
                 if any(c[:1] in ('=', '+', '-', '@', '\t', '\r') for c in r)]
    got = {r[0][1:] if r[0].startswith("'") else r[0]: r for r in book}
    for name, w in odd_want.items():
        if (r := got.get(name)) is None: problems.append(f'{name}: no row; the rows are {sorted(got)}'); continue
        status, l3, total = r[col['status']], r[col['lesson3']], r[col['total']]
        if w.isdigit():
            if (status, l3, total) != ('graded', w, w):
                problems.append(f'{name}: expected {w} points, graded; got lesson 3 {l3!r}, total {total!r}, {status!r}')
        elif not status.startswith(w.split(': ')[0] + ': ') or not re.search(w.split(': ', 1)[1], status) or total:
            problems.append(f'{name}: expected {w!r}; got total {total!r}, {status!r}')
    if len(book) != len(odd_want): problems.append(f'{len(book)} rows for {len(odd_want)} hand-ins')
    if '=HYPERLINK("x")' in odd_want and not got.get('=HYPERLINK("x")', [''])[0].startswith("'="):
        problems.append('=HYPERLINK("x") is not written as text (a quote first)')
    return problems

t0 = time.time()
rc = run(f'{d}/odd1.log', faulty_make, *quiet, 'grade-all', 'EMU=1', f'HANDINS={odd}', f'GRADEBOOK_DIR={oddout}',
         env=dict(os.environ, MAKE=faulty_make))
problems = check_odd(f'{oddout}/gradebook.csv')
try: book_mode = f'{os.stat(f"{oddout}/gradebook.csv").st_mode & 0o7777:o}'
except OSError as e: book_mode = e.strerror
umask = os.umask(0); os.umask(umask)
umask_mode = f'{0o666 & ~umask:o}'
try: leftovers = [f for f in os.listdir(f'{oddout}/.wb') if f.startswith('gradebook')]  # temporary files
except OSError: leftovers = []
linked = f'{oddout}/students/lesson-linked/summary.txt'
verdict(not problems and rc != 0 and '1 not graded, 2 refused for their' in read(f'{d}/odd1.log') and not leftovers
        and book_mode == umask_mode and os.path.isfile(f'{oddout}/students/gradebook.csv/summary.txt')
        and os.path.isfile(linked) and re.search(r'^3 .*refused', read(linked), re.M),
        f'''{int(time.time() - t0)} s: students named gradebook.csv, gradebook.csv.tmp, =HYPERLINK("x"), with
      spaces and in UTF-8 graded into OUT/students/ (HANDINS and OUT with spaces), every cell quoted,
      formulas as text; names with a newline or a tab refused, the rest graded, exit {rc}; a kernel printing
      the grader's words and links to solutions/ get their 0, graded; grader-faults alone makes "not graded"''',
        f"ODD NAMES BROKEN (exit {rc}; the gradebook's mode {book_mode}, umask's {umask_mode}):", f'{d}/odd1.log',
        problems, f'{oddout}/gradebook.csv')
# Run again without the fault: only that student is graded again, and now graded.
odd_want['faulty'] = points3
rc = run(f'{d}/odd2.log', *make, *quiet, 'grade-all', 'EMU=1', f'HANDINS={odd}', f'GRADEBOOK_DIR={oddout}')
problems = check_odd(f'{oddout}/gradebook.csv')
verdict(not problems and rc != 0 and count(f'{d}/odd2.log', 'unchanged since it was graded') == 8
        and '0 not graded, 2 refused' in read(f'{d}/odd2.log'),
        f'run again, the student the grader failed is graded (and only it), the names still refused (exit {rc})',
        f"ODD NAMES' RERUN BROKEN (exit {rc}):", f'{d}/odd2.log', problems)
# Through the Slurm scripts, refused names do not stop the class either (a part of it, for time).
odd_slurm = f'{cwd}/{d}/hand ins slurm'
for name in os.listdir(odd):
    if name == 'Zoë Brontë' or '\n' in name or '\t' in name: shutil.copytree(f'{odd}/{name}', f'{odd_slurm}/{name}')
odd_want = {'Zoë Brontë': points3, r'new\nline': 'refused: control character', r'tab\there': 'refused: control character'}
slurm(f'{d}/odd-slurm.log', odd_slurm, f'{oddout} slurm')
problems, log = check_odd(f'{oddout} slurm/gradebook.csv'), read(f'{d}/odd-slurm.log')
verdict(not problems and 'Submitted: 1 of 1' in log and sum(l.startswith('Refused') for l in log.splitlines()) == 2,
        'through grade_slurm.py the names refused are said at submission, the rest graded',
        'ODD NAMES THROUGH SLURM BROKEN:', f'{d}/odd-slurm.log', problems)
# An output folder inside HANDINS would make its folders hand-ins: refused, nothing made.
p = subprocess.run(['checker/course/grade_all.py', odd, f'{odd}/grades'], stdout=subprocess.PIPE,
                   stderr=subprocess.STDOUT, text=True, errors='surrogateescape')
verdict(p.returncode == 2 and not os.path.exists(f'{odd}/grades') and 'inside HANDINS' in p.stdout,
        'an output folder inside HANDINS is refused before anything is made',
        f'OUTPUT INSIDE HANDINS NOT REFUSED (exit {p.returncode}): {p.stdout.rstrip()}')

# ---- names that pass for others, and two names with one alias --------------------------------
# A name with a character that hides or reorders text (U+202E, U+200B, a C1 control) is refused as
# one with a newline is. Two names with one ASCII alias would share one stage copy and one lock:
# both are refused, the rest graded. A real pair takes 2^40 tries to make, so here grade_all.py
# runs with grade_lib.alias giving every name that starts "twin" one hash (its format kept).
names, namesout = f'{cwd}/{d}/hand ins names', f'{cwd}/{d}/grades names'
for name in ('plain', 'twin a', 'twin_a', 'bob\u202egpj.cu', 'zero\u200bwidth', 'c1\u0085control'):
    copy(f'solutions/{lesson3}', f'{names}/{name}/{lesson3}')
forced = """import sys
sys.dont_write_bytecode = True
sys.path.insert(0, 'checker/course')
import grade_lib
alias = grade_lib.alias
grade_lib.alias = lambda name: alias(name)[:-10] + 'c0111de000' if name.startswith('twin') else alias(name)
import grade_all
sys.exit(grade_all.main(sys.argv[1:]))
"""
rc = run(f'{d}/names.log', sys.executable, '-c', forced, names, namesout)
odd_want = {'plain': points3,
            'twin a': r'refused: ASCII alias \(twin_a-c0111de000\) is also twin_a\'s',
            'twin_a': r'refused: ASCII alias \(twin_a-c0111de000\) is also twin a\'s',
            r'bob\xe2\x80\xaegpj.cu': r'refused: U\+202E, a control, invisible or reordering character',
            r'zero\xe2\x80\x8bwidth': r'refused: U\+200B, a control, invisible or reordering character',
            r'c1\xc2\x85control': r'refused: U\+0085, a control, invisible or reordering character'}
problems, log = check_odd(f'{namesout}/gradebook.csv'), read(f'{d}/names.log')
try: stages = os.listdir(f'{namesout}/.wb/locks')
except OSError: stages = []
verdict(not problems and rc == 1 and '1 graded, 0 not graded, 5 refused for their' in log
        and sum(l.startswith('Refused: ') for l in log.splitlines()) == 5
        and [s.rsplit('-', 1)[0] for s in stages] == ['plain'],
        'names with U+202E, U+200B or a C1 control refused; two names with one alias both refused (no shared copy'
        ' or lock), the rest graded', f'NAMES THAT PASS FOR OTHERS NOT REFUSED (exit {rc}):', f'{d}/names.log',
        problems, f'{namesout}/gradebook.csv')

if not failed: print(f'grade-all: {n} hand-ins, gradebook as expected, resumable; every odd hand-in as it must be')
sys.exit(failed)
