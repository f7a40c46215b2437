#!/usr/bin/env python3
# `workbook lessons`, the Makefile's and the scripts' reader of lessons/registry. On a handout's
# registry (below: lessons left out, baselines of other families) every field and option prints
# what the awk reader it replaced printed, and --make and --subset what make and make handout
# need; on the real registry its options agree with each other and with build/lessons.mk; bad
# input is refused in one sentence, with exit status 2.
#   Usage: checker/tests/steps/lessons-test.py   (after make build/workbook)
import atexit, shutil, signal, subprocess, sys, tempfile

sys.stdout.reconfigure(line_buffering=True, errors='surrogateescape')
wb = 'build/workbook'
fields = 'number folder kernel family baseline points student_lines baseline_family'.split()
T = tempfile.mkdtemp(prefix='wb-lessons-', dir='/tmp')
atexit.register(shutil.rmtree, T, True)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # make test stops a step so: T goes too
handout = f'{T}/handout-registry'
HANDOUT = '''\
# A handout's registry, as `make handout HANDOUT_LESSONS='2 6 8'` writes it: lessons left out,
# their baselines moved to checker/baselines/.
#
# number folder            kernel              family         baseline                                          points student_lines
2        02_tiled_matmul   matmul_tiled        matmul         checker/baselines/matmul_naive.cu                 25     9
6        06_coarsening     transpose_coarsened transpose_32x8 transpose:checker/baselines/transpose_swizzled.cu 25     8
8        08_sgemm          sgemm_blocked       matmul_128     matmul:checker/baselines/matmul_tiled.cu          30     16
'''

def text(b): return b.decode(errors='surrogateescape')
def lines(s): return s.removesuffix('\n').split('\n') if s else []  # as grep -c '' counts them
def cat(path):  # a file's text as $(cat PATH) gives it
    try:
        with open(path, errors='surrogateescape') as f: return f.read().rstrip('\n')
    except OSError as e: print(f'cat: {path}: {e.strerror}', file=sys.stderr); return ''

verdicts = []
def same(what, want, *args):  # workbook lessons ARGS prints WANT and exits 0
    p = subprocess.run([wb, 'lessons', *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    got = text(p.stdout).rstrip('\n')
    verdicts.append(p.returncode == 0 and got == want)
    if verdicts[-1]: return
    print(f'  FAILED: {what} (workbook lessons {" ".join(args)}: exit {p.returncode}):')
    for name, s in (('want', want), ('got', got)):
        with open(f'{T}/{name}', 'w', errors='surrogateescape') as f: f.write(s + '\n')
    d = subprocess.run(['diff', f'{T}/want', f'{T}/got'], stdout=subprocess.PIPE).stdout
    print(''.join(f'    {line}\n' for line in lines(text(d))), end='')

def refused(what, want, *args):  # exit 2, nothing on stdout, one line on stderr holding WANT
    p = subprocess.run([wb, 'lessons', *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = text(p.stdout), text(p.stderr)
    verdicts.append(p.returncode == 2 and not out and len(lines(err)) == 1 and want in err)
    if verdicts[-1]: return
    print(f'  FAILED: {what} (workbook lessons {" ".join(args)}: exit {p.returncode}, said:)')
    print(''.join(f'    | {line}\n' for line in lines(out) + lines(err)), end='')

with open(handout, 'w') as f: f.write(HANDOUT)
# A handout's registry, against the awk reader's output: each lesson's fields, in the order of
# fields.
rows = [r.split() for r in (
    '2 02_tiled_matmul matmul_tiled matmul checker/baselines/matmul_naive.cu 25 9 matmul',
    '6 06_coarsening transpose_coarsened transpose_32x8 checker/baselines/transpose_swizzled.cu 25 8 transpose',
    '8 08_sgemm sgemm_blocked matmul_128 checker/baselines/matmul_tiled.cu 30 16 matmul')]
same('every field, by name', '\n'.join(map(' '.join, rows)), '--registry', handout, *fields)
same('fields in any order, again', '25 2 25\n25 6 25\n30 8 30', '--registry', handout, 'points', 'number', 'points')
same('one lesson', '06_coarsening transpose checker/baselines/transpose_swizzled.cu',
     '--registry', handout, '--lesson', '6', 'folder', 'baseline_family', 'baseline')
same('the points added up', '80', '--registry', handout, '--sum', 'points')
same('the numbers added up', '16', '--registry', handout, '--sum', 'number')
# make's variables: each of those fields as lessonN_FIELD := VALUE.
same("make's variables", '\n'.join([f"# {handout} as make's variables (workbook lessons --make)",
                                    'LESSONS := 2 6 8', 'TOTAL_POINTS := 80']
                                   + [f'lesson{r[0]}_{k} := {v}' for r in rows for k, v in zip(fields[1:], r[1:])]),
     '--registry', handout, '--make')
header = [line for line in HANDOUT.split('\n') if line.startswith('#')]
same('a subset: the header kept, a baseline moved, its family kept', '\n'.join(header + [
    '6        06_coarsening     transpose_coarsened transpose_32x8 transpose:checker/baselines/transpose_swizzled.cu 25     8',
    '8        08_sgemm          sgemm_blocked       matmul_128     matmul:checker/baselines/matmul_tiled_copy.cu     30     16']),
     '--registry', handout, '--subset', '8=checker/baselines/matmul_tiled_copy.cu', '6')
same('every lesson: the registry as it is', HANDOUT.rstrip('\n'), '--registry', handout, '--subset', '8', '6', '2')

# The real registry (or a handout's, in one): each option agrees with the others, and make reads
# what --make says.
every = text(subprocess.run([wb, 'lessons', *fields], stdout=subprocess.PIPE).stdout).rstrip('\n')
points = [r.split()[5] for r in every.split('\n') if len(r.split()) > 5]
same('the sum of the points', str(sum(int(p) for p in points if p.isdigit())), '--sum', 'points')
for row in every.split('\n'):
    n, _, rest = row.strip().partition(' ')
    same(f'lesson {n} alone', f'{n} {rest.strip()}', '--lesson', n, *fields)
same('build/lessons.mk up to date', cat('build/lessons.mk'), '--make')

# Bad input: (what, the sentence, the arguments).
with open(f'{T}/bad-family', 'w') as f: f.write('1 01_a k nosuch a.cu 5 4\n')
with open(f'{T}/dollar', 'w') as f: f.write('1 01_a k matmul a$b.cu 5 4\n')
for what, want, *args in [
        ('an unknown field', "There is no field 'nope' in a lesson of lessons/registry", 'number', 'nope'),
        ('an unknown lesson', "There is no lesson '4': the lessons are 2, 6, 8",
         '--registry', handout, '--lesson', '4', 'folder'),
        ('a lesson that is no number', "There is no lesson 'x'", '--lesson', 'x', 'folder'),
        ('a registry that does not parse', f"{T}/bad-family line 1: unknown family 'nosuch'",
         '--registry', f'{T}/bad-family', 'number'),
        ('a registry that is not there', f'cannot read {T}/none', '--registry', f'{T}/none', 'number'),
        ('a sum of names', "--sum adds up number or points, not a lesson's folder", '--sum', 'folder'),
        ('a name make cannot take', "lesson 1's baseline 'a$b.cu' has a character make cannot take",
         '--registry', f'{T}/dollar', '--make'),
        ('a new baseline that is no .cu file', "baseline 'a.c' should be a .cu file", '--subset', '1=a.c'),
        ('a subset of no lesson', "There is no lesson '99'", '--subset', '1', '99'),
        ('no field', 'usage: workbook lessons', '--lesson', '1'),
        ('an unknown option', 'usage: workbook lessons', '--sums', 'points')]:
    refused(what, want, *args)
if all(verdicts): print(f'lessons: workbook lessons passed {len(verdicts)} checks')
sys.exit(0 if all(verdicts) else 1)
