#!/usr/bin/env python3
"""The table of docs/mutants.md from two runs of `make mutants`: the emulator's reports and the
GPU judge's (each run keeps build/mutants/NAME.log; copy one of them aside first). For each
mutant: lesson, name, what is wrong, and from each report the first line carrying one of the
diagnoses the .mutant file expects (or why there is none).

Usage: checker/tools/mutants-table.py EMU_LOG_DIR GPU_LOG_DIR > rows.md
"""
import pathlib
import re
import subprocess
import sys


def mutants():
    """(lesson, name, what, expected phrases) of each wrong kernel, from `workbook cases`, the one
    reader of the .mutant files (checker/commands/cases.c: its columns)."""
    out = subprocess.run(["build/workbook", "cases", "--fields", "lesson,name,what,expect", "mutants"], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        lesson, name, what, expect = line.split("\t")
        yield int(lesson), name, what, expect.split(" | ")


def said(log_dir, name, phrases):
    log = pathlib.Path(log_dir) / f"{name}.log"
    if not log.exists():
        return None
    lines = [l.strip() for l in log.read_text(errors="replace").splitlines()]
    for line in lines:
        if any(p in line for p in phrases) and not line.startswith("[ "):
            # A gate's verdict: the tool's own finding says more.
            for verdict, detail in GATE_DETAILS.items():
                if verdict in line:
                    line = next((l for l in lines if re.search(detail, l) and broken(l)), line)
            line = re.sub(r"[^\s(]*/(\w+\.cu)", r"\1", line)  # paths shortened to the file name
            return line if len(line) <= 200 else line[:197] + "..."
    return "rejected, but without the expected diagnosis"


def broken(line):
    """False for a rule's line whose measured value is within its limit ("0.294 of the
    baseline's; required: at most 0.35"): the finding is the rule that broke."""
    m = re.search(r": ([0-9.]+) of .*required: at most ([0-9]+(?:\.[0-9]+)?)", line)
    return not m or float(m.group(1)) > float(m.group(2))


GATE_DETAILS = {
    "compute-sanitizer found errors": r"Race reported|Invalid __|Barrier error",
    "Nsight Compute's counters break": r"^(Bank conflicts|Global memory sectors): .* required",
}


def main(emu_dir, gpu_dir):
    print("| lesson | mutant | what is wrong | the emulator's report | the GPU judge, gates on |")
    print("|---|---|---|---|---|")
    rows = []
    for lesson, name, what, phrases in mutants():
        emu = said(emu_dir, name, phrases) or "not run"
        gpu = said(gpu_dir, name, phrases)
        if gpu is None:
            gpu = "not run (`only: emulator`): no GPU tool sees it"
        rows.append((lesson, name, what, emu, gpu))
    for lesson, name, what, emu, gpu in sorted(rows):
        cell = lambda s: s.replace("|", "\\|")
        print(f"| {lesson} | `{name}` | {cell(what)} | {cell(emu)} | {cell(gpu)} |")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
