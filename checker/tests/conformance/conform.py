#!/usr/bin/env python3
"""The conformance suite's judge (checker/tests/conformance/README.md): the GPU's outputs against the
interpreter's, bit for bit, form by form.

    conform.py compare DIR            on a GPU machine, after both sides ran: every form's verdict,
                                      the first differing cases in full (DIR/report.txt)
    conform.py record DIR RECORD      the GPU's outputs of DIR into RECORD (a digest a form, and one
                                      for each 64 cases), with the GPU, its driver and the date
    conform.py replay DIR RECORD      any machine: the interpreter's outputs of DIR against RECORD;
                                      exit 1 when a form the interpreter runs differs from the GPU's
    conform.py table DIR RECORD       the table of docs/emulator.md, by instruction
"""
import datetime
import hashlib
import os
import subprocess
import sys

CHUNK = 64  # cases a chunk's digest covers


def read_forms(d):
    forms = []
    with open(os.path.join(d, "forms.tsv")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            fid, group, name, cases, ins, outs, in_off, out_off = line.rstrip("\n").split("\t")
            forms.append({"id": fid, "group": group, "name": name, "cases": int(cases), "ins": int(ins),
                          "outs": int(outs), "in_off": int(in_off), "out_off": int(out_off)})
    return forms


def read_status(d, side):
    status = {}
    path = os.path.join(d, side + ".tsv")
    with open(path) as f:
        for line in f:
            fid, st, why = (line.rstrip("\n").split("\t") + [""])[:3]
            status[fid] = (st, why)
    return status


def outputs(d, side, form):
    with open(os.path.join(d, side + ".bin"), "rb") as f:
        f.seek(form["out_off"])
        return f.read(form["cases"] * form["outs"])


def digests(data, form):
    size = CHUNK * form["outs"]
    chunks = [hashlib.sha256(data[i:i + size]).hexdigest()[:8] for i in range(0, len(data), size)]
    return hashlib.sha256(data).hexdigest(), chunks


def case_text(d, form, i, data):
    with open(os.path.join(d, "inputs.bin"), "rb") as f:
        f.seek(form["in_off"] + i * form["ins"])
        slot = f.read(form["ins"])
    words = lambda b: " ".join("%016x" % int.from_bytes(b[k:k + 8], "little") for k in range(0, len(b), 8))
    return "inputs %s -> %s" % (words(slot), words(data[i * form["outs"]:(i + 1) * form["outs"]]))


def compare(d):
    forms = read_forms(d)
    gpu, emu = read_status(d, "gpu"), read_status(d, "emu")
    counts = {"exact": 0, "differs": 0, "refused by the interpreter": 0, "not on the GPU": 0}
    with open(os.path.join(d, "report.txt"), "w") as rep:
        for form in forms:
            g, e = gpu[form["id"]], emu[form["id"]]
            if g[0] != "ran":
                verdict = "not on the GPU"
                rep.write("%s: the GPU did not run it (%s: %s)\n" % (form["name"], g[0], g[1][:300]))
            elif e[0] != "ran":
                verdict = "refused by the interpreter"
                rep.write("%s: refused by the interpreter (%s)\n" % (form["name"], e[1][:300]))
            else:
                gb, eb = outputs(d, "gpu", form), outputs(d, "emu", form)
                if gb == eb:
                    verdict = "exact"
                else:
                    verdict = "differs"
                    n = form["outs"]
                    bad = [i for i in range(form["cases"]) if gb[i * n:(i + 1) * n] != eb[i * n:(i + 1) * n]]
                    rep.write("%s: %d of %d cases differ\n" % (form["name"], len(bad), form["cases"]))
                    for i in bad[:6]:
                        rep.write("  case %d: GPU %s\n" % (i, case_text(d, form, i, gb)))
                        rep.write("  %s  interpreter %s\n" % (" " * len(str(i)), case_text(d, form, i, eb)))
            counts[verdict] += 1
    print("conformance: %d forms: %s (the differences: %s)" % (
        len(forms), ", ".join("%d %s" % (v, k) for k, v in counts.items()), os.path.join(d, "report.txt")))
    return 1 if counts["differs"] else 0


def nvidia_smi(query):
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=" + query, "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=30).stdout
        return out.splitlines()[0].strip() if out.strip() else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def record(d, path):
    forms = read_forms(d)
    gpu = read_status(d, "gpu")
    about = open(os.path.join(d, "gpu.txt")).read().strip()
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as out:
        out.write("# The conformance suite's record of a GPU's outputs: make conformance wrote it, make test\n")
        out.write("# replays it against the interpreter (checker/tests/conformance/README.md).\n")
        out.write("# gpu: %s\n# driver: %s\n# date: %s\n" % (about, nvidia_smi("driver_version"),
                                                             datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC")))
        out.write("# command: make conformance (on the GPU machine; docs/gpu-runs.md)\n")
        out.write("# form\tcases\tgpu\tsha256 of the outputs\tsha256[:8] of each %d cases\n" % CHUNK)
        for form in forms:
            st = gpu[form["id"]][0]
            digest, chunks = digests(outputs(d, "gpu", form), form) if st == "ran" else ("-", [])
            out.write("%s\t%d\t%s\t%s\t%s\n" % (form["name"], form["cases"], st, digest, ",".join(chunks) or "-"))
    print("conformance: the GPU's outputs of %d forms recorded in %s" % (len(forms), path))


def read_record(path):
    rec, meta = {}, {}
    if not os.path.exists(path):
        return rec, meta
    with open(path) as f:
        for line in f:
            if line.startswith("# ") and ": " in line and not line.startswith("# form"):
                k, v = line[2:].rstrip("\n").split(": ", 1)
                meta[k] = v
                continue
            if line.startswith("#") or not line.strip():
                continue
            name, cases, st, digest, chunks = line.rstrip("\n").split("\t")
            rec[name] = {"cases": int(cases), "gpu": st, "sha": digest, "chunks": chunks.split(",")}
    return rec, meta


def verdicts(d, path):
    """Each form's verdict against the record: exact, differs (with why), refused, not on the GPU,
    or pending (no record of it)."""
    forms = read_forms(d)
    emu = read_status(d, "emu")
    rec, meta = read_record(path)
    out = []
    for form in forms:
        r, e = rec.get(form["name"]), emu[form["id"]]
        if e[0] == "failed":
            out.append((form, "fails", "the interpreter failed while it ran the form: " + e[1][:300]))
        elif e[0] != "ran":
            out.append((form, "refused", e[1]))
        elif r is None:
            out.append((form, "pending", "not yet run on a GPU"))
        elif r["gpu"] != "ran":
            out.append((form, "not on the GPU", "the GPU's assembler refused it"))
        elif r["cases"] != form["cases"]:
            out.append((form, "differs", "the record holds %d cases where the form has %d: recorded from another "
                        "version of forms.py; run make conformance on a GPU" % (r["cases"], form["cases"])))
        else:
            data = outputs(d, "emu", form)
            digest, chunks = digests(data, form)
            if digest == r["sha"]:
                out.append((form, "exact", ""))
            else:
                bad = [i for i, (a, b) in enumerate(zip(chunks, r["chunks"])) if a != b]
                first = bad[0] * CHUNK if bad else 0
                out.append((form, "differs", "the interpreter's bits differ from the GPU's in cases %s (of %d); "
                            "case %d, the interpreter's: %s" % (
                                ", ".join("%d-%d" % (b * CHUNK, b * CHUNK + CHUNK - 1) for b in bad[:4]),
                                form["cases"], first, case_text(d, form, first, data))))
    return out, meta


def known_differences(path):
    """The forms a record's list (RECORD.known beside it) names as differing still: the interpreter's
    debt, each to be fixed or refused by the PTX reader; a listed form that has become exact must
    leave the list."""
    known = os.path.splitext(path)[0] + ".known"
    if not os.path.exists(known):
        return set()
    with open(known) as f:
        return {line.rstrip("\n") for line in f if line.strip() and not line.startswith("#")}


def replay(d, path):
    results, meta = verdicts(d, path)
    known = known_differences(path)
    tally = {}
    for form, v, why in results:
        if v == "differs" and form["name"] in known:
            v = "differs, listed as known"
        elif form["name"] in known:
            print("conformance: %s: listed in %s.known as differing, but %s: take it off the list" % (
                form["name"], os.path.splitext(os.path.basename(path))[0], v))
            v = "listed, not differing"
        tally[v] = tally.get(v, 0) + 1
        if v in ("differs", "fails"):
            print("conformance: %s: %s" % (form["name"], why))
    gpu = meta.get("gpu", "no GPU yet")
    print("conformance: %d forms against %s (%s, %s): %s" % (
        len(results), os.path.basename(path), gpu, meta.get("date", "never recorded"),
        ", ".join("%d %s" % (n, v) for v, n in sorted(tally.items()))))
    return 1 if tally.get("differs") or tally.get("fails") or tally.get("listed, not differing") else 0


def table(d, path):
    results, meta = verdicts(d, path)
    groups = {}
    for form, v, _ in results:
        g = groups.setdefault(form["group"], {"forms": 0, "cases": 0})
        g["forms"] += 1
        g["cases"] += form["cases"]
        g[v] = g.get(v, 0) + 1
    cols = ["exact", "differs", "refused", "not on the GPU", "pending"]
    print("| instruction | forms | cases | " + " | ".join(cols) + " |")
    print("|---|---|---|" + "---|" * len(cols))
    for name in sorted(groups):
        g = groups[name]
        print("| `%s` | %d | %d | %s |" % (name, g["forms"], g["cases"], " | ".join(str(g.get(c, 0)) for c in cols)))
    print("\nGPU: %s; driver %s; recorded %s." % (meta.get("gpu", "none yet"), meta.get("driver", "-"),
                                                  meta.get("date", "never")))


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "compare":
        return compare(a[1])
    if len(a) == 3 and a[0] in ("record", "replay", "table"):
        return {"record": record, "replay": replay, "table": table}[a[0]](a[1], a[2]) or 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
