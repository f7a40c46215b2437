#!/usr/bin/env python3
# make sanitized-test: the emulator's runner built with AddressSanitizer and UndefinedBehaviorSanitizer
# (build/asan/ptx-runner, in its seccomp filter) runs every kernel the workbook's tests grade: each
# lesson's solution, stub and baseline, and every feature, wrong kernel and red-team attack that nvcc
# compiles, the lint skipped (the interpreter is what is under test), each past one tile (the lessons'
# own at their counting sizes too), run and counted (checker/tests/sanitize/run_sanitized.c). Any sanitizer
# report fails the step, shown with its stack named. First a canary: a heap overflow inside the
# sandbox must be reported with its line, or the step would pass with sanitizers that cannot speak.
import hashlib, os, re, shutil, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

sys.stdout.reconfigure(line_buffering=True, errors='surrogateescape')  # bytes shown as they came
make = (os.environ.get('MAKE') or 'make').split() + ['-s', '--no-print-directory']
wb = 'build/workbook'
d = 'build/asan/cases'
cores = len(os.sched_getaffinity(0))
if subprocess.run(make + ['build-all']).returncode or subprocess.run(make + [
        f'-j{cores}', 'build/asan/ptx-runner', 'build/asan/run-sanitized', 'build/asan/canary',
        'build/tools/sealed-compile']).returncode: sys.exit(1)

def lines(text): return text.removesuffix('\n').split('\n') if text else []
def run(*cmd, stdout=subprocess.PIPE, **kw):  # CMD's status as the shell says it (128+N: signal N), its output
    p = subprocess.run(cmd, stdout=stdout, **kw)
    rc = p.returncode if p.returncode >= 0 else 128 - p.returncode
    return rc, (p.stdout or b'').decode(errors='surrogateescape')
def read(path):
    with open(path, errors='surrogateescape') as f: return f.read()

# The sanitizers print stacks as (module+offset) inside the filter: each frame named here.
def name_frames(report):
    out = []
    for line in report:
        if m := re.fullmatch(r' *#[0-9]+ 0x[0-9a-f]+ +\((.+)\+(0x[0-9a-f]+)\)', line):
            try: where = run('addr2line', '-f', '-i', '-p', '-e', *m.groups(), stderr=subprocess.DEVNULL)[1]
            except OSError: where = ''
            line = f"{line}  {where.replace(chr(10), ' ')}"
        out.append(line)
    return out

rc, canary = run('build/asan/canary', stderr=subprocess.STDOUT)
at = 'canary.c:' + '\n'.join(str(i) for i, line in enumerate(lines(read('checker/tests/sanitize/canary.c')), 1)
                             if 'canary: one word past' in line)  # each line a pattern, as grep takes it
framed = name_frames(canary.rstrip('\n').split('\n'))
if rc != 86 or 'heap-buffer-overflow' not in canary or not any(re.search(p, f) for p in at.split('\n') for f in framed):
    print("the sanitizers' canary (checker/tests/sanitize/canary.c) was not reported as it must be",
          f'(exit {rc}, expected 86, a heap-buffer-overflow at {at}):')
    print('\n'.join(framed[:30]))
    sys.exit(1)
print(f'  canary: a heap overflow inside the sandbox reported (exit 86, at {at})')

# The kernels, one a line: NAME PTX KERNEL FAMILY SOURCE [count]. The lessons' PTX is build-all's, and
# runs at the counting size too (count); the cases' (mutants, attacks, features) past one tile alone.
shutil.rmtree(d, ignore_errors=True)
os.makedirs(d)
kernels = []
for row in lines(run(wb, 'lessons', 'number', 'folder', 'kernel', 'family', 'baseline', 'baseline_family')[1]):
    n, folder, kernel, family, baseline, base_family = (row.split(None, 5) + [''] * 6)[:6]
    kernels += [[f'solution-{n}', f'build/common/{folder}/solution.ptx', kernel, family,
                 f'solutions/{folder}/{kernel}.cu', 'count'],
                [f'stub-{n}', f'build/exercises/{folder}/student.ptx', kernel, family,
                 f'exercises/{folder}/{kernel}.cu', 'count'],
                [f'baseline-{n}', f'build/common/{folder}/baseline.ptx', os.path.basename(baseline).removesuffix('.cu'),
                 base_family, baseline, 'count']]

# Each case's file as its check makes it (an edit of a lesson file, or a feature's own file),
# compiled by the sealed compile (its cache makes a file compiled before cost ~10 ms). What it
# says: its line of the list, NOT COMPILED, or FAIL and why.
def one_case(kind='', name='', lesson='', src='', file='', *_):
    family = run(wb, 'lessons', '--lesson', lesson, 'family')[1].rstrip('\n')
    kernel = os.path.basename(file).removesuffix('.cu')
    if kind == 'feature' and not os.path.isfile(f"{src}/{file.removesuffix('.cu')}.mutant"):
        out = f'{src}/{file}'
    else:
        if kind == 'feature': src = f"{src}/{file.removesuffix('.cu')}.mutant"
        if run(wb, 'mutate', src, f'{d}/{name}')[0]: return f'FAIL cannot make {name} from {src}\n'
        out = f'{d}/{name}/{file}'
    with open(f'{d}/{name}.log', 'wb') as log:
        rc = run('build/tools/sealed-compile', 'ptx', out, f'{d}/{name}.ptx', stderr=subprocess.STDOUT, stdout=log,
                 env=dict(os.environ, WB_SEALED_CACHE=os.environ.get('WB_SEALED_CACHE', 'build/sealed-cache')))[0]
    if rc == 0: return '\t'.join((f'{kind}-{name}', f'{d}/{name}.ptx', kernel, family, out)) + '\n'
    if rc in (1, 2, 3): return f'NOT COMPILED {kind}-{name}\n'  # refused before the interpreter, as in a check
    return f'FAIL the sealed compile of {name}: exit {rc}\n' + read(f'{d}/{name}.log')

cases = run(wb, 'cases', '--fields', 'kind,name,lesson,source,file', 'features', 'mutants', 'redteam')[1]
with ThreadPoolExecutor(cores) as pool:
    said = list(pool.map(lambda line: one_case(*line.split()), filter(str.strip, lines(cases))))
with open(f'{d}/compiled', 'w', errors='surrogateescape') as f: f.write(''.join(said))
if failed := [s for s in said if s.startswith('FAIL')]:
    print(''.join('\n'.join(s.split('\n')[:21]) + '\n' for s in failed), end='')  # each with its log's start
    sys.exit(1)
kernels += [s.split('\t') for s in sorted(s.rstrip('\n') for s in said if '\t' in s)]
print(f"  {sum(s.startswith('NOT COMPILED') for s in said)} cases nvcc does not compile (refused before the"
      ' interpreter, as in a check)')

# A kernel once per (PTX, family): a baseline is often an earlier lesson's solution.
seen, unique = set(), []
for k in kernels:
    try:
        with open(k[1], 'rb') as f: ptx = hashlib.sha256(f.read()).digest()
    except OSError: ptx = k[1]  # kept: the driver says it is missing
    if (ptx, k[3]) not in seen: seen.add((ptx, k[3])); unique.append('\t'.join(k) + '\n')
with open(f'{d}/list', 'w') as f: f.write(''.join('\t'.join(k) + '\n' for k in kernels))
with open(f'{d}/list.unique', 'w') as f: f.write(''.join(unique))
# Two drivers side by side, every other kernel each (the first, third, ... to half 1, as awk's NR % 2).
def driver(half):
    with open(f'{d}/report.{half}', 'wb') as report:
        subprocess.run(['build/asan/run-sanitized', 'build/asan/ptx-runner'], stdout=report, stderr=subprocess.STDOUT,
                       input=''.join(unique[1 - half::2]).encode(errors='surrogateescape'))
    return lines(read(f'{d}/report.{half}'))
status, numbers = 0, []
for report in ThreadPoolExecutor(2).map(driver, (0, 1)):
    counts = [line for line in report if line.startswith('sanitized runner: ')]
    if not any(re.fullmatch(r'sanitized runner: .* 0 wrong', line) for line in counts): status = 1
    for line in name_frames([line for line in report if line not in counts]): print(line)
    numbers += re.findall(r'[0-9.]+', ' '.join(counts))
# The halves' counts added up: kernels, runs, CPU seconds, refused, failed, at the limit, wrong.
totals = [sum(float(n) for n in numbers[i::7]) for i in range(7)]
print('sanitized runner: %d kernels, %d runs in %.1f s of CPU (%d refused by the interpreter, %d failed '
      'its checks, %d stopped at the CPU limit), %d wrong' % tuple(totals))
sys.exit(status)
