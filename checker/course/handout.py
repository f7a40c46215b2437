#!/usr/bin/env python3
# make handout: the workbook as a tarball for students, without solutions/, the wrong kernels
# of checker/mutants/ and the workbook's own tests. The checker in it still grades: it compares
# with the baseline kernel and a CPU reference (the judge is built without a
# solution). A baseline that is an earlier lesson's solution (lesson 2's is lesson 1's kernel,
# lessons 4-5's is lesson 3's) has to travel with it: it is copied to checker/baselines/ and
# named in the tarball's HANDOUT file and here, so an instructor knows what students can see.
#
# Usage: checker/course/handout.py OUT.tar.gz [LESSON...]   (no lessons: all of them; after make
# build/workbook, which make handout builds first)
# No name goes through a shell; a tracked link is copied as the file it names, as cp does.
import atexit, os, re, shutil, signal, subprocess, sys, tarfile, tempfile, time

sys.stdout.reconfigure(line_buffering=True, errors='surrogateescape')
if len(sys.argv) < 2: sys.exit('usage: checker/course/handout.py OUT.tar.gz [LESSON...]')
out = sys.argv[1]
want = f" {' '.join(sys.argv[2:]) or 'all'} "
top = 'shared-memory-workbook'
# Never in a handout: the solutions, the wrong kernels, the attacks, the tests, CI.
secret = ('solutions/', 'checker/mutants/', 'checker/redteam/', 'checker/tests/', '.ci/')

def fail(why): print(why, file=sys.stderr); sys.exit(1)
def git(*args, check=False):  # git's output as text; `check`: its failure ends the handout
    p = subprocess.run(['git', *args], stdout=subprocess.PIPE)
    if check and p.returncode: sys.exit(p.returncode)
    return p.stdout.decode(errors='surrogateescape')
def workbook(*args, stdout=subprocess.PIPE):
    p = subprocess.run(['build/workbook', 'lessons', *args], stdout=stdout)
    if p.returncode: sys.exit(1)
    return (p.stdout or b'').decode(errors='surrogateescape')
def cp(src, dst):  # as cp: a new file gets SRC's mode less the umask; one there keeps its own
    fd = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, os.stat(src).st_mode & 0o777)
    with open(src, 'rb') as i, open(fd, 'wb') as o: shutil.copyfileobj(i, o)
def mkdirs(d):  # as cp --parents: each folder made with its own folder's mode, less the umask
    if d and not os.path.isdir(f'{dest}/{d}'):
        mkdirs(os.path.dirname(d))
        os.mkdir(f'{dest}/{d}', os.stat(d).st_mode & 0o7777)

if not os.path.isdir('solutions'): fail('There is no solutions/ here: this copy is a handout already.')
if subprocess.run(['git', 'rev-parse', '--git-dir'], capture_output=True).returncode:
    fail('make handout packs the files git tracks, and this is not a git checkout.')
if git('status', '--porcelain', '--', 'lessons', 'exercises', 'checker', 'Makefile'):
    print('Note: lessons/, exercises/, checker/ or the Makefile have uncommitted changes; they are packed as they are '
          'now.')

stage = tempfile.mkdtemp()
atexit.register(shutil.rmtree, stage, True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the stage goes then too
dest = f'{stage}/{top}'
os.makedirs(dest)
# What git tracks, as it is now; never a file git does not track (an instructor's grade logs,
# notes, hand-ins lying in the tree): those are named and left out.
untracked = [f for f in git('ls-files', '--others', '--exclude-standard').split('\n')[:-1] if not f.startswith(secret)]
if untracked:
    print('Left out, because git does not track them (git add what students should get):')
    print(''.join(f'  {f}\n' for f in untracked[:20]), end='')
for f in git('ls-files', '-z', '--cached', check=True).split('\0')[:-1]:
    if f.startswith(secret) or not os.path.isfile(f): continue
    mkdirs(os.path.dirname(f))
    cp(f, f'{dest}/{f}')

# The students' README instead of the authors' (which speaks of solutions/, mutants, make test).
cp('checker/tools/handout-README.md', f'{dest}/README.md')

# The registry of the handed-out lessons, baselines moved out of solutions/: written by the
# workbook, which is told each lesson kept ("N", or "N=PATH" for one whose baseline moved).
exposed, kept = [], []
registry = f'{dest}/lessons/registry'
for row in workbook('number', 'folder', 'baseline').rstrip('\n').split('\n'):
    number, folder, baseline = (row.split(None, 2) + ['', ''])[:3]
    if want != ' all ' and f' {number} ' not in want:
        for gone in (f'{dest}/lessons/{folder}', f'{dest}/exercises/{folder}'): shutil.rmtree(gone, ignore_errors=True)
        continue
    # The hints are kept out of the lesson's text, in hints.md beside it (make hint shows them): a
    # handout without them would have a make hint with nothing to show.
    hints = f'{dest}/lessons/{folder}/hints.md'
    if not (os.path.exists(hints) and os.path.getsize(hints)):
        fail(f'lessons/{folder}/hints.md is not in the handout: git does not track it (git add it).')
    if not baseline.startswith('solutions/'):
        kept.append(number)
        continue
    copy = f'checker/baselines/{os.path.basename(baseline)}'
    cp(baseline, f'{dest}/{copy}')
    exposed.append(f"lesson {number}'s baseline {copy} is {baseline}")
    # The stubs and texts name it where it now is (a stub's comment may wrap the path after a '/').
    at, file = (os.fsencode(p) for p in os.path.split(baseline))
    moved = re.compile(re.escape(at + b'/') + rb'(\n[ \t]*\*[ \t]*)?' + re.escape(file))
    for where, _, names in [w for root in ('exercises', 'lessons') for w in os.walk(f'{dest}/{root}')]:
        for path in (f'{where}/{n}' for n in names if n.endswith(('.cu', '.md'))):
            if not os.path.isfile(path) or os.path.islink(path): continue
            with open(path, 'rb') as f: text = f.read()
            if (new := moved.sub(lambda m: b'checker/baselines/' + (m[1] or b'') + file, text)) != text:
                with open(path, 'wb') as f: f.write(new)
    kept.append(f'{number}={copy}')
if not kept: fail(f"No lesson of '{want[1:]}' is in lessons/registry.")
with open(registry, 'wb') as f: workbook('--subset', *kept, stdout=f)

commit = git('rev-parse', '--short', 'HEAD').rstrip('\n')
numbers = subprocess.run(['build/workbook', 'lessons', '--registry', registry, 'number'], stdout=subprocess.PIPE).stdout
about = [f"A handout of the shared-memory workbook, made {time.strftime('%Y-%m-%d', time.gmtime())} from commit {commit}.",
         f"Lessons: {numbers.decode(errors='surrogateescape').removesuffix(chr(10)).replace(chr(10), ' ')} (solutions/ "
         "and the checker's wrong kernels are not included).",
         'Checks compare with the baseline kernel and a CPU reference instead of the solution.']
if exposed: about += ['Earlier solutions included as baselines (students can read them):'] + [f'  {e}' for e in exposed]
with open(f'{dest}/HANDOUT', 'w', errors='surrogateescape') as f: f.write(''.join(line + '\n' for line in about))

os.makedirs(os.path.dirname(out) or '.', exist_ok=True)
if rc := subprocess.run(['tar', '-C', stage, '--sort=name', '--owner=0', '--group=0', '--numeric-owner',
                         f"--mtime=@{git('log', '-1', '--format=%ct').rstrip(chr(10))}", '-czf', out, top]).returncode:
    sys.exit(rc)
print(''.join(line + '\n' for line in about), end='')
with tarfile.open(out) as t: files = sum(not m.isdir() for m in t)
print(f'Written: {out} ({(os.stat(out).st_blocks + 1) // 2} KiB, {files} files).')
