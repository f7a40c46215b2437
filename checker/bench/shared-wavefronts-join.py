#!/usr/bin/env python3
"""Joins checker/bench/shared-wavefronts.sh's output (patterns.csv, one row per launch, and
Nsight Compute's ncu.csv, one row per launch in the same order) into one table: width, op,
pattern, the 32 lanes' indices, and the measured instructions, wavefronts and bank conflicts
of the pattern's access. Usage: shared-wavefronts-join.py DIR > checker/tests/data/h200-shared-wavefronts.csv"""
import csv
import sys


def main(folder):
    with open(f"{folder}/patterns.csv") as f:
        patterns = list(csv.DictReader(f))
    with open(f"{folder}/ncu.csv") as f:
        rows = [r for r in csv.reader(line for line in f if line.startswith('"'))]
    header, launches = rows[0], rows[2:]  # the second row holds the units
    if len(launches) != len(patterns):
        sys.exit(f"{len(patterns)} patterns but {len(launches)} profiled launches")
    col = {name: i for i, name in enumerate(header)}

    def metric(row, what, op):
        return int(row[col[what.format(op=op)]].replace(",", ""))

    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["width", "op", "pattern", "indices", "instructions", "wavefronts", "conflicts"])
    for p, row in zip(patterns, launches):
        op = p["op"]
        insts = metric(row, "smsp__inst_executed_op_shared_{op}.sum", op)
        waves = metric(row, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum", op)
        conflicts = metric(row, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum", op)
        if op == "st" or p["width"] != "4":
            pass
        out.writerow([p["width"], op, p["pattern"], p["indices"], insts, waves, conflicts])


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/shared-wavefronts")
