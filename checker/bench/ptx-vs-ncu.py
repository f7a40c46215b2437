#!/usr/bin/env python3
"""The PTX interpreter's counts against Nsight Compute's, lesson by lesson, as a Markdown table.

Usage: checker/bench/ptx-vs-ncu.py NCU_DIR
NCU_DIR holds checker/bench/ncu-counts.sh's CSVs from a GPU (one per lesson: the solution
twice, then the baseline, at the emulator's counting size); the interpreter's counts come from
running each lesson's check-emu here (ONLY='memory*'), after `make programs EMU=1 SRC=solutions`.
"""
import csv
import pathlib
import re
import subprocess
import sys

OPS = [  # (name, requests metric, wavefronts or sectors metric)
    ("global loads", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
    ("global stores", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
    ("shared loads", "smsp__inst_executed_op_shared_ld.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"),
    ("shared stores", "smsp__inst_executed_op_shared_st.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"),
]


def ncu_rows(path):
    """The profiled kernels' counters, in launch order: [(kernel, {metric: int})]."""
    lines = [l for l in path.read_text().splitlines() if l.startswith('"')]
    rows = list(csv.reader(lines))
    header, data = rows[0], rows[2:]  # rows[1]: units
    out = []
    for r in data:
        d = dict(zip(header, r))
        out.append((d["Kernel Name"], {m: int(float(d[m].replace(",", "") or 0)) for m in header if m.endswith(".sum")}))
    return out


def interpreter_rows(folder):
    """The table check-emu prints: {label: [gl req, gl sec, gs req, gs sec, sl req, sl wav, _, ss req, ss wav, _]}."""
    run = subprocess.run([f"build/solutions/{folder}/check-emu"], env={"ONLY": "memory*", "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True)
    rows = {}
    for line in run.stdout.splitlines():
        m = re.match(r"\s+(your kernel|reference solution|baseline)\s+([\d\s]+)$", line)
        if m and m.group(1) not in rows and len(m.group(2).split()) == 10:  # the traffic table's row
            rows[m.group(1)] = [int(x) for x in m.group(2).split()]
    return rows


def main(ncu_dir):
    print("| lesson, kernel | what | PTX interpreter | Nsight Compute | |")
    print("|---|---|---|---|---|")
    equal = differ = 0
    for csv_path in sorted(pathlib.Path(ncu_dir).glob("0*.csv")):
        folder = csv_path.stem
        ncu = ncu_rows(csv_path)
        mine = interpreter_rows(folder)
        for label, ncu_index in (("reference solution", 0), ("baseline", 2)):
            if label not in mine or ncu_index >= len(ncu):
                continue
            kernel, metrics = ncu[ncu_index]
            values = mine[label]
            pairs = [(values[0], values[1]), (values[2], values[3]), (values[4], values[5]), (values[7], values[8])]
            for (name, req_m, wav_m), (req, wav) in zip(OPS, pairs):
                theirs = (metrics.get(req_m, 0), metrics.get(wav_m, 0))
                if (req, wav) == (0, 0) and theirs == (0, 0):
                    continue
                same = (req, wav) == theirs
                equal += same
                differ += not same
                print(f"| {folder[:2].lstrip('0')} {label} `{kernel.split('(')[0]}` | {name} | {req:,} / {wav:,} "
                      f"| {theirs[0]:,} / {theirs[1]:,} | {'equal' if same else '**differs**'} |")
    print(f"\n{equal} counts equal, {differ} differ (requests / sectors or wavefronts).")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
