#!/usr/bin/env python3
# make arrows-test: the rooms of checker/ include only what docs/architecture.md lets them, as the
# compiler itself reads each source file (`cc -MM`; `nvcc -M` for .cu files: every file it opens,
# transitively, header or not), not as a pattern match of #include lines. A runner only runs
# kernels and reports: it must not see the judge's comparison, gates, records or registry; the
# families and the bank model stand on the ground floor alone; the ground floor (checker/include/)
# includes nothing above it. Inside the judge, each file reads only the headers of the layers below
# its own (judge_layers).
import os, re, shutil, subprocess, sys

# room (its sources): the headers they may read: a folder ends in /, a name is checker/include/NAME
rules = {
    'checker/runner': 'checker/runner/ bank_model.h counts.h family.h gpu_job.h gpu_turn.h half.h isolate.h '
                      'lazy_input.h occupancy.h poison.h residues.h tensor_map.h tolerance.h',
    'checker/families': 'family.h reference.h residues.h tolerance.h',
    'checker/model': 'bank_model.h counts.h time_model.h',
    'checker/src': 'checker/include/',
    'checker/judge': 'checker/judge/ checker/include/',
    'checker/commands': 'checker/commands/ checker/include/',
    'checker/compile': 'checker/compile/ intake.h',
    'checker/include': 'checker/include/',
}
# The interpreter's engine header is its running rooms' own (docs/architecture.md): the rest of the
# runner calls ptx_exec.h.
engine = 'checker/runner/ptx/ptx_engine.h'
engine_rooms = {engine} | {f'checker/runner/ptx/ptx_{room}.c' for room in ('exec', 'insn', 'warp', 'memory', 'async')}
# Inside the judge, its own files stand in layers, the lowest first (docs/architecture.md): a file
# (its .c and its .h) may read only the headers of the files on the layers below its own, so
# that their calls go one way and none calls back up. A file on no layer is refused too: a new
# file of the judge is given its place here.
judge_layers = ['check_run quiet_cmocka',
                'gpu_share spawn',
                'ref_cache',
                'jobs',
                'judge tools',
                'counting',
                'main']

sys.stdout.reconfigure(line_buffering=True)
os.chdir(os.path.join(os.path.dirname(__file__) or '.', '../../..'))
cc = (os.environ.get('CC') or 'cc').split()
# (main.c, the judge built per lesson, is read as lesson 1's.)
inc = ('-Ichecker/include -Ichecker/runner -Ichecker/runner/emu -Ichecker/runner/ptx -Ichecker/judge '
       '-Ichecker/commands -DWB_LESSON=1 -DWB_HAVE_SOLUTION=1').split()
nvcc = os.environ.get('NVCC') or shutil.which('nvcc')


def deps(src):
    """Every file under checker/ that the compiler opens for SRC (itself left out), its path made plain
    (a "../judge/x.h" reached from checker/runner is checker/judge/x.h); a .cu file as nvcc reads it (its
    device and host passes), where there is one. None when the compiler failed."""
    if not src.endswith('.cu'): cmd = cc + ['-std=gnu11', '-MM', '-MG', '-x', 'c']
    elif nvcc: cmd = [nvcc, '-M']
    else: cmd = cc + ['-MM', '-MG', '-x', 'c++', '-D__CUDACC__']
    p = subprocess.run(cmd + inc + [src], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode: return None
    here = os.path.realpath('.')
    words = re.split(r'[ \\\n]', p.stdout.decode(errors='surrogateescape'))  # make's rule: x.o: x.c a.h \
    files = (os.path.relpath(os.path.realpath(w), here) for w in words if w and not w.endswith(':'))
    return [f for f in files if f.startswith('checker/') and f != src]


deps_of = {}  # deps(SRC), made once for each file (the judge's files are read twice below)
def load_deps(src):
    if src not in deps_of and (got := deps(src)) is not None: deps_of[src] = got
    return deps_of.get(src)


def sources(room, *ends):  # find ROOM -name '*.c' -o ..., sorted
    return sorted(os.path.join(top, n) for top, dirs, files in os.walk(room)
                  for n in dirs + files if n.endswith(ends))


verdicts = []
def report(bad, fine, wrong):  # one check's line, or what it found wrong
    verdicts.append(not bad)
    print(f'  {wrong} (docs/architecture.md):' if bad else f'  {fine}', *bad, sep='\n  ')


for room, allowed in rules.items():
    bad = []
    for src in sources(room, '.c', '.h', '.cu', '.cuh'):
        if (got := load_deps(src)) is None: bad.append(f'{src}: the compiler could not read it'); continue
        bad += [f'{src} reads {h}' for h in got if not any(
            h.startswith(a) if a.endswith('/') else h == 'checker/include/' + a for a in allowed.split())]
    report(bad, f'{room}: only what it may read', f'{room} READS WHAT IT MAY NOT')

report([f"{src} reads {engine}, the interpreter's running rooms' own"
        for src, got in deps_of.items() if src not in engine_rooms and engine in got],
       f"{engine}: read by the interpreter's running rooms alone",
       "THE ENGINE'S HEADER IS READ OUTSIDE ITS ROOMS")

layer_of = {name: (n, names) for n, names in enumerate(judge_layers, 1) for name in names.split()}
def name_of(path): return os.path.splitext(os.path.basename(path))[0]  # checker/judge/jobs.h: jobs
bad = []
for src in sources('checker/judge', '.c', '.h'):
    if name_of(src) not in layer_of:
        bad.append(f"{src} is on no layer of the judge's: give it its place in judge_layers ({sys.argv[0]})")
        continue
    own, names = layer_of[name_of(src)]
    if (got := load_deps(src)) is None: bad.append(f'{src}: the compiler could not read it'); continue
    for h in got:
        if not h.startswith('checker/judge/') or name_of(h) == name_of(src): continue
        if name_of(h) not in layer_of: bad.append(f"{src} reads {h}, which is on no layer of the judge's")
        elif (at := layer_of[name_of(h)])[0] >= own:
            bad.append(f'{src} (layer {own}: {names}) reads {h}, of layer {at[0]} ({at[1]}): a file of the'
                       ' judge may include only the headers of the layers below its own')
report(bad, 'checker/judge: each file reads only the layers below its own',
       'checker/judge READS A LAYER NOT BELOW ITS OWN')
print(f'arrows: {verdicts.count(True)} passed, {verdicts.count(False)} failed')
sys.exit(0 if all(verdicts) else 1)
