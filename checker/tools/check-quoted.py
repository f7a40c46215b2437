#!/usr/bin/env python3
"""Checks that a report (a check's output, or make grade's lesson-N.log) quotes what a kernel printed
as checker/include/quote.h says: no byte in it that a terminal acts on (C0 controls but tab and
newline, DEL, C1), nothing that is not UTF-8, and every line holding one of the PHRASEs (text the
kernel printed) behind the fence, "  | " (after make grade's "# "), as a terminal would show the
line: a carriage return starts it again. Prints why and exits 1 where it does not.
Usage: check-quoted.py REPORT [PHRASE...]"""
import re
import sys

FENCED = re.compile(rb"^(# )?  \| ")
ACTS = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def main():
    path, phrases = sys.argv[1], [p.encode() for p in sys.argv[2:]]
    with open(path, "rb") as f:
        report = f.read()
    why = []
    acts = ACTS.search(report)
    if acts:
        why.append(f"byte {acts.start()} ({acts.group()!r}) is one a terminal acts on")
    try:
        report.decode("utf-8")
    except UnicodeDecodeError as e:
        why.append(f"byte {e.start} is not UTF-8")
    shown = re.split(rb"[\r\n]", report)
    for line in shown:
        if any(p in line for p in phrases) and not FENCED.match(line):
            why.append(f"the kernel's line {line!r} is not behind the fence")
            break
    if phrases and not any(FENCED.match(line) for line in shown):
        why.append("no line of it is fenced: what the kernel printed was not shown")
    if why:
        print(f"{path}: " + "; ".join(why))
        sys.exit(1)


main()
