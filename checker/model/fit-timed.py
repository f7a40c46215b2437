#!/usr/bin/env python3
"""How far a time model made of counts can go (issue 46): the counts of each kernel of the
calibration set and of its baseline, turned into a predicted time per launch, and the predicted
speed-up (the baseline's predicted time over the kernel's) set against the one the GPU judge
measured in the same set. Two sources of counts:
  --emu: the emulator's at its counting size (checker/bench/speed-set.sh EMU=1 keeps its records);
         only the ratios carry over; the terms are the judge's own model's (time_model.c, through
         `build/workbook time-terms`), the one make check predicts with;
  NCU:   Nsight Compute's at the timed size (speed-set.sh NCU=1 with WB_NCU_EXTRA's metrics, a
         folder of raw CSVs, or the table --ncu-table makes of them, committed beside the
         calibration table); with --emu-dir, the emulator's bytes in flight and occupancy beside.
The model and its parameters are the answer to "what must the emulator count, and how well".

The model, per launch, in seconds: the busiest of the GPU's resources, each its work over its
rate, plus a fixed cost per launch:
    t = max(dram_bytes / B_dram, l2_bytes / B_l2, wavefronts / R_shared, warp_insts / R_issue,
            fma_insts / R_fma, mma_insts / R_tensor, latency) + t0
    (from the emulator's counts: l1_sectors / R_l1 too, every global sector passing through an
    SM's L1, and as L2's bytes the loads' sectors each block reads for the first time, the rest
    hits in L1: global_ld.block_sectors);
    latency = loads' bytes x load latency / (bytes in flight a thread x resident threads x SMs),
              Little's law, from the emulator's bytes in flight (Nsight Compute has no such count);
    t0 (a launch's fixed cost) only at the timed size: at the counting size only ratios hold.
The rates start at the H200's measured or published figures (checker/model/gpu_h200.c, the file
the judge is built with) and are scaled by one factor each, fitted to the set (least log error of
the speed-ups); a factor far from 1 says the counter does not mean what the model takes it to.
Without --fit, --emu predicts with that file's factors; with it, the fitted ones are printed as the
file writes them.

    Usage: checker/model/fit-timed.py CALIBRATION.tsv EMU_DIR --emu [--fit] [--cv]
           checker/model/fit-timed.py CALIBRATION.tsv NCU_DIR|NCU.tsv [--emu-dir EMU_DIR] [--fit] [--cv]
           checker/model/fit-timed.py --ncu-table NCU_DIR > NCU.tsv   (the CSVs' first size, the
           metrics the model reads, a row per kernel and side)
    --fit: the factors fitted to the set; --cv: each lesson's error with factors fitted to the others;
    --phases: the blocks' own latency, wave after wave, as one more resource (Nsight Compute's counts)
           checker/model/fit-timed.py --compare NCU.tsv EMU_TIMED_DIR   (the emulator's counts at the
           timed size, from EMU=1 SAMPLE=N checker/bench/speed-set.sh, against Nsight Compute's)
           checker/model/fit-timed.py CALIBRATION.tsv --rules build/speed-set/emu/rows.tsv   (the
           emulator's speed verdicts, its rules as they are, against the GPU's: the kernels that differ;
           --gates build/speed-set/gate/rows.tsv: the GPU's with its Nsight Compute gate, as make grade)
"""
import csv, glob, math, os, re, statistics, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the workbook's top

EMU = "--emu" in sys.argv  # the emulator's counts at its counting size, not Nsight Compute's

def gpu_figures(path):
    """The GPU's figures and fitted factors from its file, the one the judge is built with
    (time_model.h): {figure: value}, and {term: factor}."""
    text = open(path).read()
    figures = {k: float(v) for k, v in re.findall(r"^\s*\.(\w+) = ([0-9.e+-]+),", text, re.M)}
    factors = {k.lower(): float(v) for k, v in re.findall(r"\[TIME_(\w+)\] = ([0-9.e+-]+)", text)}
    return figures, factors


# The H200: its file's figures, and those only the Nsight Compute path's phases use (fitted to the
# calibration set's absolute times at the timed size, 2026-12-05: a load's latency under load,
# 2.06x the one alone; a block's fixed cost on its SM; the clocks a warp's instruction takes in its
# own dependent chain, 3.7).
GPU, FACTORS = gpu_figures(os.path.join(ROOT, "checker/model/gpu_h200.c"))
GPU.update({"loaded_latency_s": 714e-9, "block_s": 424e-9, "warp_insn_s": 1.85e-9,
            "launch_s": GPU.get("launch_s", 3e-6)})
PHASES = "--phases" in sys.argv


def per_sm(n, per_clock):
    """Seconds for n of something an SM does per_clock of a clock, all SMs at once."""
    return n / (GPU["sms"] * per_clock * GPU["clock_hz"])


def percentile(sorted_values, q):
    return sorted_values[max(0, math.ceil(q * len(sorted_values)) - 1)]


def read_profile(path):
    """The rows of an ncu --csv --page raw file (the judge's Nsight Compute gate, kept by
    speed-set.sh NCU=1): at the first size, the baseline's launch and then the student's.
    {side: {metric: float}}."""
    rows = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    if len(lines) < 4:
        return rows
    reader = csv.reader(lines)
    header = next(reader)
    next(reader)  # units
    for side, r in zip(("baseline", "student"), reader):
        vals = {}
        for k, v in zip(header, r):
            try:
                vals[k] = float(v.replace(",", ""))
            except ValueError:
                pass
        rows[side] = vals
    return rows


# The metrics the model reads from Nsight Compute (the gate's and WB_NCU_EXTRA's).
NCU_MODEL_METRICS = ["gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors.sum",
                     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                     "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum", "smsp__inst_executed.sum",
                     "smsp__inst_executed_pipe_fma.sum", "smsp__inst_executed_pipe_alu.sum",
                     "smsp__inst_executed_pipe_lsu.sum", "smsp__inst_executed_pipe_tensor.sum",
                     "launch__grid_size", "launch__thread_count", "launch__occupancy_limit_registers",
                     "launch__occupancy_limit_shared_mem", "launch__occupancy_limit_warps",
                     "launch__occupancy_limit_blocks"]


def work(m):
    """The resources' work of one launch, in seconds at the nominal rates; the latency term
    from the emulator's bytes in flight and resident threads where merged in (emu_inflight,
    emu_resident_threads)."""
    g = GPU
    get = lambda k: m.get(k, 0.0)
    inflight = get("emu_inflight")
    return {
        "dram": (get("dram__bytes_read.sum") + get("dram__bytes_write.sum")) / g["dram_bytes_s"],
        "l2": get("lts__t_sectors.sum") * 32 / g["l2_bytes_s"],
        "shared": per_sm(get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
                         + get("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
                         + get("sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"),
                         g["shared_wavefronts_clk"]),
        "issue": per_sm(get("smsp__inst_executed.sum"), g["issue_clk"]),
        "fma": per_sm(get("smsp__inst_executed_pipe_fma.sum"), g["fma_clk"]),
        "tensor": per_sm(get("smsp__inst_executed_pipe_tensor.sum"), g["hmma_clk"]),
        "latency": (get("dram__bytes_read.sum") * g["load_latency_s"]
                    / (inflight * m.get("emu_resident_threads", 2048) * g["sms"]) if inflight > 0 else 0.0),
        **({"phases": phases(m)} if PHASES else {}),
    }


def phases(m):
    """The latency a block's own chain costs, wave after wave (--phases): an SM runs the grid in
    waves of the blocks it holds at once; each block waits R times for its loads (the bytes a
    thread loads over the bytes it has in flight each time it waits, the emulator's count) and
    issues its warps' instructions one after another."""
    g = GPU
    get = lambda k: m.get(k, 0.0)
    threads = get("launch__thread_count")
    limits = [get(k) for k in ("launch__occupancy_limit_registers", "launch__occupancy_limit_shared_mem",
                               "launch__occupancy_limit_warps", "launch__occupancy_limit_blocks") if get(k) > 0]
    if not threads or not limits:
        return 0.0
    waves = max(1.0, get("launch__grid_size") / (g["sms"] * min(limits)))
    loaded = get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") * 32 / threads
    inflight = get("emu_inflight")
    trips = loaded / inflight if inflight > 0 else (1.0 if loaded > 0 else 0.0)
    per_warp = get("smsp__inst_executed.sum") / (threads / 32)
    return waves * (trips * g["loaded_latency_s"] + g["block_s"] + per_warp * g["warp_insn_s"])


def read_ncu_table(path):
    """--ncu-table's output: {(kind, name): {side: {metric: float}}}."""
    out = {}
    with open(path) as f:
        header = None
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            if header is None:
                header = c
                continue
            rec = dict(zip(header, c))
            out.setdefault((rec["kind"], rec["name"]), {})[rec["side"]] = {
                k: float(v) for k, v in rec.items() if k in NCU_MODEL_METRICS and v != ""}
    return out


def ncu_table(folder):
    """A row per kernel and side of each raw CSV's first size, the model's metrics alone."""
    print("kind\tname\tside\t" + "\t".join(NCU_MODEL_METRICS))
    for path in sorted(glob.glob(os.path.join(folder, "*.csv"))):
        kind, name = os.path.basename(path)[:-4].split("-", 1)
        for side, m in sorted(read_profile(path).items()):
            print(f"{kind}\t{name}\t{side}\t" + "\t".join(f"{m[k]:.0f}" if k in m else "" for k in NCU_MODEL_METRICS))


def read_record(path):
    """Of the emulator's counting case (a check record), for --emu-dir: each side's bytes in flight
    a loading thread keeps ("inflight"; none where no thread loads) and the threads an SM holds
    at once. {side: {name: float}}."""
    out = {"student": {}, "baseline": {}}
    try:
        lines = [l.split() for l in open(path) if l.startswith("count ")]
    except OSError:
        return {}
    for _, role, key, value in (l for l in lines if len(l) == 4):
        if role in out and key in ("least_burst", "resident_threads") and float(value) >= 0:
            out[role]["inflight" if key == "least_burst" else key] = float(value)
    return out


def min_speedup(lesson):
    """The lesson's own speed threshold (lessons/NN_topic/thresholds), the GPU judge's."""
    for path in glob.glob(os.path.join(ROOT, f"lessons/{int(lesson):02d}_*/thresholds")):
        for line in open(path):
            f = line.split()
            if len(f) == 2 and f[0] == "min_speedup":
                return float(f[1])
    return None


def emu_terms(paths):
    """The time model's terms of each record's launches, from the judge's own model
    (`workbook time-terms`, time_model.c, built first so that its rates are gpu_h200.c's as this
    script reads them): {path: {side: {term: seconds at the nominal rates}}}. A record the
    workbook cannot read is said and left out."""
    import subprocess
    subprocess.run([os.environ.get("MAKE", "make"), "-s", "--no-print-directory", "-C", ROOT, "build/workbook"], check=True)
    out = {}
    for i in range(0, len(paths), 200):
        done = subprocess.run([os.path.join(ROOT, "build/workbook"), "time-terms"] + paths[i:i + 200],
                              capture_output=True, text=True)
        sys.stderr.write(done.stderr)
        lines = done.stdout.splitlines()
        keys = lines[0].split("\t")[2:] if lines else []
        for line in lines[1:]:
            f = line.split("\t")
            out.setdefault(f[0], {})[f[1]] = dict(zip(keys, map(float, f[2:])))
    return out


def predict(w, scale):
    parts = {k: v * scale.get(k, 1.0) for k, v in w.items()}
    worst = max(parts, key=parts.get)
    launch = 0.0 if EMU else GPU["launch_s"] * scale.get("launch", 1.0)
    return parts[worst] + launch, worst


def predicted_speedup(row, scale):
    """The baseline's predicted time over the kernel's, and what bounds the kernel's."""
    ts, worst = predict(row[5], scale)
    tb, _ = predict(row[6], scale)
    return tb / ts, worst


def option(name):
    """The word after --name on the command line, or None."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv[:-1] else None


def load(calibration, counts):
    """(kind, name, lesson, measured speed-up, verdict, work of student, work of baseline, measured ms)."""
    out, seen = [], set()
    table = read_ncu_table(counts) if not EMU and os.path.isfile(counts) else None
    emu_dir = option("--emu-dir")
    terms = emu_terms(sorted(glob.glob(os.path.join(counts, "*.result")))) if EMU else {}
    with open(calibration) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            if len(c) < 9 or (c[0], c[1]) in seen:
                continue
            try:
                speedup, ms, base_ms = float(c[5]), float(c[6]), float(c[8])
            except ValueError:
                continue
            path = os.path.join(counts, f"{c[0]}-{c[1]}." + ("result" if EMU else "csv"))
            if table is not None:
                prof = table.get((c[0], c[1]), {})
            elif speedup <= 0 or not os.path.exists(path):
                continue
            else:
                prof = terms.get(path, {}) if EMU else read_profile(path)
            if speedup <= 0 or "student" not in prof or "baseline" not in prof:
                continue
            if emu_dir:  # the emulator's bytes in flight and occupancy beside Nsight Compute's counts
                emu = read_record(os.path.join(emu_dir, f"{c[0]}-{c[1]}.result"))
                for side in prof:
                    for k in ("inflight", "resident_threads"):
                        if k in emu.get(side, {}):
                            prof[side]["emu_" + k] = emu[side][k]
            seen.add((c[0], c[1]))
            w = (lambda m: m) if EMU else work
            out.append((c[0], c[1], c[2], speedup, c[4], w(prof["student"]), w(prof["baseline"]), ms, base_ms))
    return out


def errors(rows, scale):
    return [abs(math.log(predicted_speedup(r, scale)[0] / r[3])) for r in rows]


def fit(rows, start=None):
    """One factor per resource, by coordinate search over powers of 2^(1/4): least median log error,
    from 1 each or from the factors `start` (the search is greedy: from the GPU file's factors it
    can only find ones as good or better on these rows; each lesson's held-out fit starts from 1,
    so that what the others' fit learned of it is not in its start)."""
    scale = {k: (start or {}).get(k, 1.0) for k in list(rows[0][5]) + ([] if EMU else ["launch"])}
    best = statistics.median(errors(rows, scale))
    for _ in range(6):
        for k in scale:
            for step in (2 ** 0.25, 2 ** -0.25):
                while True:
                    trial = dict(scale)
                    trial[k] *= step
                    e = statistics.median(errors(rows, trial))
                    if e + 1e-12 < best:
                        scale, best = trial, e
                    else:
                        break
    return scale


# The emulator's counts at the timed size (a sample of each launch's blocks, scaled by the
# blocks it stands for) against Nsight Compute's of the same launch: (record key, metrics summed).
COMPARED = [("global_ld.wavefronts", ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]),
            ("global_st.wavefronts", ["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
            ("shared_ld.wavefronts", ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"]),
            ("shared_st.wavefronts", ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                                      "sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum"]),
            ("issued.tensor", ["smsp__inst_executed_pipe_tensor.sum"]),
            ("issued", ["smsp__inst_executed.sum"])]


def compare(ncu_path, emu_dir):
    """Per kernel and side, each count of COMPARED: the emulator's (sampled, scaled) over Nsight
    Compute's; then per count, the median ratio and how many lie within 2% of it."""
    ncu = read_ncu_table(ncu_path)
    ratios = {k: [] for k, _ in COMPARED}
    print("kind\tname\tside\tblocks_run\tblocks_total\t" + "\t".join(k for k, _ in COMPARED))
    for (kind, name), sides in sorted(ncu.items()):
        path = os.path.join(emu_dir, f"{kind}-{name}.result")
        counts = {}
        for line in open(path) if os.path.exists(path) else []:
            f = line.split()
            if len(f) == 4 and f[0] == "count":
                counts.setdefault(f[1], {})[f[2]] = float(f[3])
        for side, m in sorted(sides.items()):
            c = counts.get(side)
            if not c or not c.get("blocks_run"):
                continue
            scale = c["blocks_total"] / c["blocks_run"]
            cells = []
            for key, metrics in COMPARED:
                emu = (sum(v for k, v in c.items() if k.startswith("issued.")) if key == "issued" else c.get(key, 0.0))
                gpu = sum(m.get(x, 0.0) for x in metrics)
                if gpu == 0 and emu == 0:
                    cells.append("0=0")
                    continue
                if key == "issued.tensor" and emu == 0:  # Hopper's tensor pipe runs more than mma
                    cells.append("no-mma")
                    continue
                r = emu * scale / gpu if gpu else float("inf")
                ratios[key].append(r)
                cells.append(f"{r:.3f}")
            print(f"{kind}\t{name}\t{side}\t{c['blocks_run']:.0f}\t{c['blocks_total']:.0f}\t" + "\t".join(cells))
    for key, rs in ratios.items():
        finite = sorted(r for r in rs if math.isfinite(r))
        if not finite:
            continue
        med = statistics.median(finite)
        near = sum(abs(r - 1) <= 0.02 for r in finite)
        print(f"# {key}: {len(rs)} launches with a count, the emulator's over Nsight Compute's: median {med:.3f}, "
              f"within 2% of 1 for {near}, from {finite[0]:.3f} to {finite[-1]:.3f}"
              + (f"; {len(rs) - len(finite)} where Nsight Compute counted none" if len(rs) > len(finite) else ""),
              file=sys.stderr)


def rules(calibration, emu_rows, gate_rows=None):
    """The emulator's speed case as it is (its rules on counts, no time model) against the GPU
    judge's timed speed case, kernel by kernel: the rows of EMU=1 checker/bench/speed-set.sh (kind
    name lesson verdict) beside the calibration table's, over the kernels the GPU timed (their
    output right at the timed size in every run). With gate_rows (GATE=1 speed-set.sh's rows), the
    GPU judge's speed verdict as make grade makes it: the timing, and the Nsight Compute gate, whose
    failure leaves the speed case's points unearned (a kernel with no gate row is left out)."""
    gpu = {}
    for line in open(calibration):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#") or len(f) < 6:
            continue
        gpu.setdefault((f[0], f[1], f[2]), []).append((f[4], f[5]))  # (a name may stand in two lessons)
    gates = {}
    for line in open(gate_rows) if gate_rows else []:
        f = line.rstrip("\n").split("\t")
        if len(f) >= 4 and f[3] in ("passed", "failed"):
            gates[(f[0], f[1], f[2])] = f[3]
    agree, differ, wrong = 0, [], []
    for line in open(emu_rows):
        f = line.rstrip("\n").split("\t")
        runs = gpu.get((f[0], f[1], f[2])) if len(f) >= 4 else None
        if not runs or any(sp in ("", "-", "0") for _, sp in runs):
            continue
        if f[3] == "wrong":  # refused as wrong before any speed rule: no speed verdict
            wrong.append(f[1])
            continue
        if f[3] not in ("passed", "failed"):
            continue
        verdicts = {v for v, _ in runs}
        gpu_verdict = verdicts.pop() if len(verdicts) == 1 else "mixed"
        if gate_rows:
            gate = gates.get((f[0], f[1], f[2]))
            if gate is None:
                continue
            gpu_verdict = "failed" if gate == "failed" else gpu_verdict
        if gpu_verdict == f[3]:
            agree += 1
        else:
            differ.append(f"{f[0]}\t{f[1]}\t{f[2]}\temulator {f[3]}\tGPU {gpu_verdict}\t"
                          + "/".join(sp for _, sp in runs))
    print("\n".join(differ), flush=True)
    print(f"# the emulator's speed case and the GPU's{' (its timing and its Nsight Compute gate)' if gate_rows else ''}: "
          f"the same verdict for {agree} of {agree + len(differ)} kernels the GPU timed"
          + (f"; left out, {len(wrong)} the emulator found wrong in the same run, which has no speed verdict then: "
             + ", ".join(sorted(wrong)) if wrong else ""), file=sys.stderr)


def main():
    if option("--rules"):
        return rules(sys.argv[1], option("--rules"), option("--gates"))
    if option("--ncu-table"):
        return ncu_table(option("--ncu-table"))
    if option("--compare"):
        return compare(option("--compare"), sys.argv[-1])
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    # A lesson's baseline timed as the student's file is predicted at 1 by construction: no test of
    # the model, and a 0 that would make its error look smaller. Left out of the fit and the errors.
    rows = [r for r in load(sys.argv[1], sys.argv[2]) if r[0] != "baseline"]
    if not rows:
        sys.exit("fit-timed: no kernel has both its timing and a profile of its and the baseline's launch")
    # Without --fit: the factors of the GPU's file, which the judge predicts with (its terms are
    # the emulator's; Nsight Compute's path starts from none).
    scale = fit(rows, FACTORS if EMU else None) if "--fit" in sys.argv else (dict(FACTORS) if EMU else {})
    if "--cv" in sys.argv:
        # leave one lesson out: its kernels predicted with factors fitted to the other lessons'
        held, by_lesson = [], {}
        for lesson in sorted({r[2] for r in rows}, key=int):
            rest = [r for r in rows if r[2] != lesson]
            mine = sorted(math.exp(x) - 1 for x in errors([r for r in rows if r[2] == lesson], fit(rest)))
            held += mine
            by_lesson[int(lesson)] = (statistics.median(mine), percentile(mine, 0.9), len(mine))
        e = sorted(held)
        print(f"# leave one lesson out: median error {statistics.median(e):.1%}, "
              f"90th percentile {percentile(e, 0.9):.1%}", file=sys.stderr)
        print("# .held_out_median = %.3f, .held_out_p90 = %.3f, .kernels = %d," % (
              statistics.median(e), percentile(e, 0.9), len(rows)), file=sys.stderr)
        print("# .lesson_error = {" + ", ".join(f"[{n}] = {{{m:.3f}, {p:.3f}, {k}}}" for n, (m, p, k)
                                                in sorted(by_lesson.items())) + "},", file=sys.stderr)
    print("kind\tname\tlesson\tmeasured_speedup\tpredicted_speedup\terror\tbound_by\tmeasured_ms\tpredicted_ms")
    for r in rows:
        pred, worst = predicted_speedup(r, scale)
        ts, _ = predict(r[5], scale)
        print(f"{r[0]}\t{r[1]}\t{r[2]}\t{r[3]:.3f}\t{pred:.3f}\t{pred / r[3] - 1:+.1%}\t{worst}\t{r[7]:.4f}\t{ts * 1e3:.4f}")
    agree = judged = 0
    for r in rows:
        need = min_speedup(r[2])
        if need is None:
            continue
        judged += 1
        agree += (predicted_speedup(r, scale)[0] >= need) == (r[3] >= need)
    print(f"# the speed-up threshold's verdict, predicted and measured: the same for {agree} of {judged} kernels",
          file=sys.stderr)
    e = sorted(math.exp(x) - 1 for x in errors(rows, scale))
    print(f"# {len(rows)} kernels; median error of the predicted speed-up {statistics.median(e):.1%}, "
          f"90th percentile {percentile(e, 0.9):.1%}; factors: "
          + ", ".join(f"{k} {v:.2f}" for k, v in sorted(scale.items())), file=sys.stderr)
    if EMU and "--fit" in sys.argv:  # as the GPU's file (gpu_h200.c) writes them
        print("# .factor = {" + ", ".join(f"[TIME_{k.upper()}] = {scale[k]:.2f}" for k in FACTORS) + "}",
              file=sys.stderr)
    if not EMU:  # at the timed size the time itself can be set against the speed case's
        t = sorted(abs(predict(r[5], scale)[0] * 1e3 / r[7] - 1) for r in rows)
        print(f"# median error of the predicted time of a launch {statistics.median(t):.1%}", file=sys.stderr)


if __name__ == "__main__":
    main()
