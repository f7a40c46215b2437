#!/usr/bin/env python3
"""The conformance suite's forms (issue 45; checker/tests/conformance/README.md): one small PTX kernel
per instruction form the interpreter may meet, and the inputs each runs on, the same on every
machine (a fixed generator, no library's random numbers).

    forms.py OUTDIR      writes OUTDIR/forms.tsv (one line a form), OUTDIR/ptx/NNNN.ptx (its kernel,
                         a module of its own) and OUTDIR/inputs.bin (every form's cases, one after
                         another)

A kernel runs one case per thread (a warp's 32 cases together for the warp-wide forms): it loads
the case's operands from its input slot, runs the instruction under test, and stores what it
wrote (a predicate as 0 or 1) in its output slot, every unwritten byte of which is zero. The GPU
(conform_gpu.cu) and the interpreter (conform_emu.c) run the same kernel on the same bytes; the
outputs are compared bit for bit (conform.py)."""
import os
import struct
import sys

# ---- the inputs: edge values of each kind of operand, then random bits ---------------------------

MASK = (1 << 64) - 1


class Bits:
    """splitmix64: the same numbers from the same seed, in any Python, on any machine."""

    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x):
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# Each kind: its width in bits and its edge values (as bits).
F32_EDGES = [0x00000000, 0x80000000, f32(1), f32(-1), f32(0.5), f32(1.5), f32(2.5), f32(-2.5), f32(3),
             0x00000001, 0x007FFFFF, 0x80000001, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
             0x7FC00000, 0x7FC12345, 0x7F800001, 0xFFC00000, 0x3F800001, 0x4B000000, 0x4B800001, 0x4F000000,
             0xCF000000, 0x4F800000, 0x5F000000, f32(0.1), f32(1 / 3), f32(-0.75), 0x33800000, 0x3F7FFFFF]
F64_EDGES = [0, 1 << 63, f64(1), f64(-1), f64(0.5), f64(1.5), f64(2.5), f64(-2.5), f64(3), 1, 0x000FFFFFFFFFFFFF,
             (1 << 63) | 1, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF, 0x7FF0000000000000,
             0xFFF0000000000000, 0x7FF8000000000000, 0x7FF8000012345678, 0x7FF0000000000001, 0xFFF8000000000000,
             0x3FF0000000000001, 0x4330000000000000, 0x43E0000000000000, 0xC3E0000000000000, 0x41E0000000000000,
             0xC1E0000000000000, 0x41F0000000000000, f64(0.1), f64(1 / 3), 0x36A0000000000000, 0x3810000000000000,
             0x47EFFFFFE0000000, 0x47EFFFFFF0000000, 0x3690000000000001]


def int_edges(w):
    top = 1 << (w - 1)
    m = (1 << w) - 1
    vals = [0, 1, 2, 3, m, m - 1, top, top - 1, top + 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65,
            0x55555555 & m, 0xAAAAAAAA & m, 0xFF & m, 0x100 & m, 0xFFFF & m, 0x10000 & m, 0x12345678 & m,
            (0xFFFF0000 & m), 0x7F, 0x80]
    if w == 64:
        vals += [0xFFFFFFFF, 0x100000000, 0x123456789ABCDEF0, 0x8000000000000001]
    out = []
    for v in vals:
        if v & m not in out:
            out.append(v & m)
    return out


# Halves for mma: small integers and fractions whose sums are exact, then any finite half.
def half_edges():
    return [0x0000, 0x8000, 0x3C00, 0xBC00, 0x3800, 0x4000, 0x4200, 0x3555, 0x7BFF, 0x0001, 0x0400, 0xC400]


KINDS = {
    "i8": (8, int_edges(8)), "i16": (16, int_edges(16)), "i32": (32, int_edges(32)), "i64": (64, int_edges(64)),
    "f32": (32, F32_EDGES), "f64": (64, F64_EDGES), "f16": (16, half_edges()),
    # Any half, NaNs (quiet, signalling, each sign, payloads) and infinities among them.
    "h16": (16, half_edges() + [0x7C00, 0xFC00, 0x7C01, 0xFC01, 0x7E00, 0xFE00, 0x7FFF, 0x7D55, 0x7E01]),
    # A word an atomic starts from: any but one whose first 4 bytes are all ones, which the tracer
    # takes for an output never written (poison.h's POISON_BITS).
    "w32": (32, [v for v in int_edges(32) if v != 0xFFFFFFFF]),
    "w64": (64, [v for v in int_edges(64) if v & 0xFFFFFFFF != 0xFFFFFFFF]),
    "wf32": (32, F32_EDGES),
    "wf64": (64, [v for v in F64_EDGES if v & 0xFFFFFFFF != 0xFFFFFFFF]),
    "pred": (32, [0, 1]), "shift": (32, [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 255, 256, 0xFFFFFFFF]),
    "lane": (32, [0, 1, 2, 3, 4, 7, 8, 15, 16, 17, 30, 31, 32, 33, 63]),
    "lane16": (32, [0, 1, 2, 3, 4, 7, 8, 15]),
    "clamp": (32, [0x1F, 0x0, 0x1, 0x7, 0xF, 0x101F, 0x181F, 0x1C1F, 0x1E1F, 0x1F00, 0x1F1F]),
    "prmt": (32, [0x3210, 0x7654, 0x0123, 0x4567, 0x1111, 0x8888, 0xCCCC, 0xFFFF, 0x5140, 0x7531]),
    "bfpos": (32, [0, 1, 4, 8, 15, 16, 31, 32, 33, 63, 64, 255, 256]),
}


def value(kind, bits, edge_bias=True):
    w, edges = KINDS[kind]
    r = bits.next()
    if edge_bias and r & 1:
        return edges[(r >> 1) % len(edges)]
    v = bits.next() & ((1 << w) - 1)
    if kind == "f16":  # a finite half (no NaN, no infinity), any magnitude
        v &= 0xFFFF
        if (v >> 10) & 0x1F == 0x1F:
            v &= ~0x7C00 & 0xFFFF
    if kind in ("f32", "wf32") and r & 2:  # an ordinary number, not only random bits
        v = (v & 0x807FFFFF) | ((0x70 + (r >> 8) % 30) << 23)
    if kind in ("f64", "wf64") and r & 2:
        v = (v & 0x800FFFFFFFFFFFFF) | ((0x3F0 + (r >> 8) % 40) << 52)
    if kind[0] == "w" and v & 0xFFFFFFFF == 0xFFFFFFFF:
        v ^= 1
    if kind == "lane16":
        v &= 15
    if kind in ("shift", "lane", "bfpos"):
        v &= 0x7F if r & 4 else (1 << w) - 1
    return v


def cases(kinds, count, seed):
    """count tuples of operands: first every combination of edge values (while they fit), then
    random ones."""
    bits = Bits(seed)
    out = []
    edges = [KINDS[k][1] for k in kinds]
    total = 1
    for e in edges:
        total *= len(e)
    if kinds and total <= count // 2:
        idx = [0] * len(kinds)
        for _ in range(total):
            out.append(tuple(edges[i][idx[i]] for i in range(len(kinds))))
            for i in reversed(range(len(kinds))):
                idx[i] += 1
                if idx[i] < len(edges[i]):
                    break
                idx[i] = 0
    while len(out) < count:
        out.append(tuple(value(k, bits) for k in kinds))
    return out


# ---- the kernels ----------------------------------------------------------------------------------

HEADER = ".version 8.0\n.target sm_90\n.address_size 64\n\n"
REGS = """\t.reg .pred %p<8>;
\t.reg .b16 %h<16>;
\t.reg .b32 %r<48>;
\t.reg .b64 %rd<32>;
"""
# Where a case's bytes are: %rd10 its input slot, %rd11 its output slot, %r5 its number, %r6 its lane.
PROLOGUE = """\tld.param.u64 %rd1, [pin];
\tld.param.u64 %rd2, [pout];
\tld.param.u32 %r1, [pn];
\tmov.u32 %r2, %ctaid.x;
\tmov.u32 %r3, %ntid.x;
\tmov.u32 %r4, %tid.x;
\tmad.lo.s32 %r5, %r2, %r3, %r4;
\tand.b32 %r6, %r4, 31;
\tsetp.ge.u32 %p7, %r5, %r1;
\t@%p7 bra DONE;
\tcvta.to.global.u64 %rd3, %rd1;
\tcvta.to.global.u64 %rd4, %rd2;
\tmul.wide.u32 %rd5, %r5, {ins};
\tadd.s64 %rd10, %rd3, %rd5;
\tmul.wide.u32 %rd6, %r5, {outs};
\tadd.s64 %rd11, %rd4, %rd6;
"""

# Registers of each width for the operands a, b, c, e and the results d, q.
REG = {
    16: {"a": "%h1", "b": "%h2", "c": "%h3", "e": "%h4", "d": "%h5", "q": "%h6"},
    32: {"a": "%r21", "b": "%r22", "c": "%r23", "e": "%r24", "d": "%r25", "q": "%r26"},
    64: {"a": "%rd21", "b": "%rd22", "c": "%rd23", "e": "%rd24", "d": "%rd25", "q": "%rd26"},
}


def width_of(kind):
    return 16 if kind == "i8" else KINDS[kind][0]


class Form:
    """One instruction form: its text as written (opcode and modifiers), the kinds of its
    operands, and the PTX body that runs it on a case."""

    def __init__(self, name, body, kinds, count=512, ins=32, outs=16, group="", threads=None):
        self.name, self.body, self.kinds, self.count = name, body, kinds, count
        self.ins, self.outs, self.group = ins, outs, group or name.split(".")[0]
        self.threads = threads  # the cases a launch holds, when it is not count

    def kernel(self):
        return (HEADER + ".visible .entry conform(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{\n" + REGS +
                (".shared .align 16 .b8 tile[4096];\n" if "tile" in self.body else "") +
                PROLOGUE.format(ins=self.ins, outs=self.outs) + self.body + "DONE:\n\tret;\n}\n")


def loads(kinds):
    """Loads of the operands a, b, c, e (slot k at byte 8k), each into a register of its width."""
    text = ""
    for k, kind in enumerate(kinds):
        w = width_of(kind)
        reg = REG[w]["abce"[k]]
        text += "\tld.global.b%d %s, [%%rd10+%d];\n" % (w, reg, 8 * k)
    return text


def store(reg, w, at=0):
    return "\tst.global.b%d [%%rd11+%d], %s;\n" % (w, at, reg)


def scalar(op, kinds, dw, count=None, operands=None):
    """op d, a[, b[, c[, e]]] with d of width dw."""
    ops = operands or ", ".join([REG[dw]["d"]] + [REG[width_of(k)]["abce"[i]] for i, k in enumerate(kinds)])
    body = loads(kinds) + "\t%s %s;\n" % (op, ops) + store(REG[dw]["d"], dw)
    n = count or (1024 if len(kinds) >= 2 else 256)
    return Form(op, body, kinds, n)


def pred_result(op, kinds, operands_after):
    """An instruction whose destination is a predicate (or two): stored as 0 or 1."""
    body = loads(kinds) + "\t%s %s;\n" % (op, operands_after)
    body += "\tselp.u32 %r30, 1, 0, %p1;\n" + store("%r30", 32)
    if "%p2" in operands_after.split(",")[0]:
        body += "\tselp.u32 %r31, 1, 0, %p2;\n" + store("%r31", 32, 8)
    return body


def forms():
    out = []
    ints = {16: ["u16", "s16"], 32: ["u32", "s32"], 64: ["u64", "s64"]}
    ik = {16: "i16", 32: "i32", 64: "i64"}

    # Integer arithmetic.
    for w, tys in ints.items():
        k = ik[w]
        for t in tys:
            for op in ["add", "sub", "min", "max", "div", "rem", "mul.lo", "mul.hi"]:
                out.append(scalar("%s.%s" % (op, t), [k, k], w))
            out.append(scalar("mad.lo.%s" % t, [k, k, k], w))
            out.append(scalar("mad.hi.%s" % t, [k, k, k], w))
            out.append(scalar("shr.%s" % t, [k, "shift"], w))
            if w < 64:
                out.append(scalar("mul.wide.%s" % t, [k, k], 2 * w))
                f = scalar("mad.wide.%s" % t, [k, k, ik[2 * w]], 2 * w)
                out.append(f)
        for op in ["and", "or", "xor"]:
            out.append(scalar("%s.b%d" % (op, w), [k, k], w))
        for op in ["not", "cnot"]:
            out.append(scalar("%s.b%d" % (op, w), [k], w))
        out.append(scalar("shl.b%d" % w, [k, "shift"], w))
        out.append(scalar("shr.b%d" % w, [k, "shift"], w))
        out.append(scalar("neg.s%d" % w, [k], w))
        out.append(scalar("abs.s%d" % w, [k], w))
    out.append(scalar("add.sat.s32", ["i32", "i32"], 32))
    out.append(scalar("sub.sat.s32", ["i32", "i32"], 32))
    out.append(scalar("mad.hi.sat.s32", ["i32", "i32", "i32"], 32))
    out.append(scalar("add.cc.u32", ["i32", "i32"], 32))
    for t in ["u32", "s32"]:
        out.append(scalar("mul24.lo.%s" % t, ["i32", "i32"], 32))
        out.append(scalar("mul24.hi.%s" % t, ["i32", "i32"], 32))
        out.append(scalar("mad24.lo.%s" % t, ["i32", "i32", "i32"], 32))
        out.append(scalar("sad.%s" % t, ["i32", "i32", "i32"], 32))
        out.append(scalar("bfe.%s" % t, ["i32", "bfpos", "bfpos"], 32))
    for t in ["u16", "s16", "u64", "s64"]:
        out.append(scalar("sad.%s" % t, [ik[int(t[1:])]] * 3, int(t[1:])))
    for t in ["u64", "s64"]:
        out.append(scalar("bfe.%s" % t, ["i64", "bfpos", "bfpos"], 64))
    out.append(scalar("bfi.b32", ["i32", "i32", "bfpos", "bfpos"], 32))
    out.append(scalar("bfi.b64", ["i64", "i64", "bfpos", "bfpos"], 64))
    for w in (32, 64):
        k = ik[w]
        out.append(scalar("popc.b%d" % w, [k], 32, operands="%r25, " + REG[w]["a"]))
        out.append(scalar("clz.b%d" % w, [k], 32, operands="%r25, " + REG[w]["a"]))
        out.append(scalar("brev.b%d" % w, [k], w))
        for t in ("u", "s"):
            out.append(scalar("bfind.%s%d" % (t, w), [k], 32, operands="%r25, " + REG[w]["a"]))
            out.append(scalar("bfind.shiftamt.%s%d" % (t, w), [k], 32, operands="%r25, " + REG[w]["a"]))
    for mode in ["", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"]:
        out.append(scalar("prmt.b32%s" % mode, ["i32", "i32", "prmt"], 32))
    out.append(scalar("dp4a.u32.u32", ["i32", "i32", "i32"], 32))
    out.append(scalar("dp4a.s32.s32", ["i32", "i32", "i32"], 32))
    out.append(scalar("dp4a.s32.u32", ["i32", "i32", "i32"], 32))

    # Float arithmetic: every rounding, .ftz and .sat the instruction takes.
    for t, k, w in (("f32", "f32", 32), ("f64", "f64", 64)):
        rnds = ["", ".rn", ".rz", ".rm", ".rp"]
        mods = ["", ".ftz", ".sat", ".ftz.sat"] if t == "f32" else [""]
        for op in ["add", "sub", "mul"]:
            for r in rnds:
                for m in mods:
                    out.append(scalar("%s%s%s.%s" % (op, r, m, t), [k, k], w))
        for r in rnds[1:]:
            for m in mods:
                out.append(scalar("fma%s%s.%s" % (r, m, t), [k, k, k], w))
                out.append(scalar("mad%s%s.%s" % (r, m, t), [k, k, k], w))
            for m in (["", ".ftz"] if t == "f32" else [""]):
                out.append(scalar("div%s%s.%s" % (r, m, t), [k, k], w))
                out.append(scalar("rcp%s%s.%s" % (r, m, t), [k], w))
                out.append(scalar("sqrt%s%s.%s" % (r, m, t), [k], w))
        for m in (["", ".ftz"] if t == "f32" else [""]):
            for op in ["min", "max"]:
                out.append(scalar("%s%s.%s" % (op, m, t), [k, k], w))
            for op in ["neg", "abs"]:
                out.append(scalar("%s%s.%s" % (op, m, t), [k], w))
        if t == "f32":
            for op in ["min", "max"]:
                out.append(scalar("%s.NaN.f32" % op, [k, k], w))
        out.append(scalar("copysign.%s" % t, [k, k], w))
        for test in ["finite", "infinite", "number", "notanumber", "normal", "subnormal"]:
            out.append(Form("testp.%s.%s" % (test, t),
                            pred_result("testp.%s.%s" % (test, t), [k], "%%p1, %s" % REG[w]["a"]), [k], 256))

    # Comparisons: setp (one and two predicates, combined with a third), set, selp.
    cmp_int = ["eq", "ne", "lt", "le", "gt", "ge"]
    cmp_uns = ["lo", "ls", "hi", "hs"]
    cmp_flt = ["eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"]
    for t, k, w, cmps in (("s16", "i16", 16, cmp_int), ("u16", "i16", 16, cmp_int + cmp_uns),
                          ("s32", "i32", 32, cmp_int), ("u32", "i32", 32, cmp_int + cmp_uns),
                          ("s64", "i64", 64, cmp_int), ("u64", "i64", 64, cmp_int + cmp_uns),
                          ("b32", "i32", 32, ["eq", "ne"]), ("f32", "f32", 32, cmp_flt),
                          ("f64", "f64", 64, cmp_flt)):
        a, b = REG[w]["a"], REG[w]["b"]
        for c in cmps:
            name = "setp.%s.%s" % (c, t)
            out.append(Form(name, pred_result(name, [k, k], "%%p1, %s, %s" % (a, b)), [k, k], 1024))
        if t in ("s32", "f32"):
            name = "setp.lt.%s" % t
            out.append(Form(name + " p|q", pred_result(name, [k, k], "%%p1|%%p2, %s, %s" % (a, b)), [k, k], 1024))
            for bop in ["and", "or", "xor"]:
                name = "setp.ge.%s.%s" % (bop, t)
                body = loads([k, k, "pred"]) + "\tsetp.ne.u32 %p3, %r23, 0;\n"
                body += pred_result(name, [], "%%p1|%%p2, %s, %s, !%%p3" % (a, b))
                out.append(Form(name, body, [k, k, "pred"], 1024))
            for dt in ["u32", "s32", "f32"]:
                name = "set.gt.%s.%s" % (dt, t)
                out.append(scalar(name, [k, k], 32))
        if t == "f32":
            name = "setp.lt.ftz.f32"
            out.append(Form(name, pred_result(name, [k, k], "%%p1, %s, %s" % (a, b)), [k, k], 1024))
    for t, k, w in (("b16", "i16", 16), ("b32", "i32", 32), ("b64", "i64", 64), ("f32", "f32", 32), ("f64", "f64", 64)):
        body = loads([k, k, "pred"]) + "\tsetp.ne.u32 %p3, %r23, 0;\n"
        body += "\tselp.%s %s, %s, %s, %%p3;\n" % (t, REG[w]["d"], REG[w]["a"], REG[w]["b"]) + store(REG[w]["d"], w)
        out.append(Form("selp.%s" % t, body, [k, k, "pred"], 256))

    # Conversions: every pair of types, with the roundings and modifiers each takes.
    itys = ["u8", "s8", "u16", "s16", "u32", "s32", "u64", "s64"]
    ftys = ["f16", "f32", "f64"]
    kind_of = {"u8": "i8", "s8": "i8", "u16": "i16", "s16": "i16", "u32": "i32", "s32": "i32", "u64": "i64",
               "s64": "i64", "f16": "f16", "f32": "f32", "f64": "f64"}
    wid = {"u8": 16, "s8": 16, "u16": 16, "s16": 16, "u32": 32, "s32": 32, "u64": 64, "s64": 64, "f16": 16,
           "f32": 32, "f64": 64}
    for dt in itys + ftys:
        for st in itys + ftys:
            if dt in itys and st in itys:
                dw, sw = int(dt[1:]), int(st[1:])
                contained = (dt[0] == st[0] and dw >= sw) or (dt[0] == "s" and st[0] == "u" and dw > sw)
                variants = [""] if contained else ["", ".sat"]  # ptxas refuses a .sat that cannot saturate
            elif dt in ftys and st in itys:
                variants = [".rn", ".rz", ".rm", ".rp"] + ([".rn.sat"] if dt != "f16" else [])
            elif dt in itys:
                variants = [".rni", ".rzi", ".rmi", ".rpi"] + ([".rni.ftz", ".rzi.sat"] if st == "f32" else [])
            elif dt == st:
                variants = [".rni", ".rzi", ".rmi", ".rpi"] + ([".rni.ftz", ".sat", ".ftz.sat"] if dt == "f32" else [])
            elif ftys.index(dt) < ftys.index(st):  # narrowing
                variants = [".rn", ".rz", ".rm", ".rp"] + ([".rn.ftz", ".rn.sat"] if dt == "f32" else [])
            else:  # widening
                variants = [""] + ([".ftz", ".sat"] if st == "f32" else [])
            for v in variants:
                name = "cvt%s.%s.%s" % (v, dt, st)
                out.append(Form(name, loads([kind_of[st]]) + "\t%s %s, %s;\n" % (name, REG[wid[dt]]["d"],
                                                                               REG[wid[st]]["a"]) +
                                store(REG[wid[dt]]["d"], wid[dt]), [kind_of[st]], 256))
    out.append(Form("mov.b32", loads(["i32"]) + "\tmov.b32 %r25, %r21;\n" + store("%r25", 32), ["i32"], 64))
    out.append(Form("mov.b64 {lo,hi}", loads(["i64"]) + "\tmov.b64 {%r25, %r26}, %rd21;\n" + store("%r25", 32) +
                    store("%r26", 32, 8), ["i64"], 64))
    out.append(Form("mov.b64 from {lo,hi}", loads(["i32", "i32"]) + "\tmov.b64 %rd25, {%r21, %r22};\n" +
                    store("%rd25", 64), ["i32", "i32"], 64))
    out.append(Form("mov.b32 {h,h}", loads(["i32"]) + "\tmov.b32 {%h5, %h6}, %r21;\n" + store("%h5", 16) +
                    store("%h6", 16, 8), ["i32"], 64))

    out += warp_forms() + memory_forms() + space_forms() + tensor_forms() + later_forms()
    return [f for f in out if f]


def later_forms():
    """Forms added after the first records, last: a form's cases are drawn from a seed of its place
    in the list, so one added before others would change their cases. 2026-12-07 (an adversarial
    review of the interpreter): float literals as ptxas takes them (0f's 32 bits and 0d's 64 as
    they are in a bit-size instruction, the value in one of its own float type, a signalling NaN
    kept, converted in the other), .sat on conversions to and from halves, shf (the funnel
    shift nvcc makes of a rotate), and halves' NaNs and infinities widened."""
    out = []
    for name, dw, kinds, ops in [
            ("xor.b32 with 0f80000000", 32, ["i32"], "%r25, %r21, 0f80000000"),
            ("and.b32 with 0f7FFFFFFF", 32, ["i32"], "%r25, %r21, 0f7FFFFFFF"),
            ("mov.b32 of 0f7F800001", 32, [], "%r25, 0f7F800001"),
            ("mov.f32 of 0f7F800001", 32, [], "%r25, 0f7F800001"),
            ("add.rn.f32 with 0f3F800000", 32, ["f32"], "%r25, %r21, 0f3F800000"),
            ("xor.b64 with 0d8000000000000000", 64, ["i64"], "%rd25, %rd21, 0d8000000000000000"),
            ("mov.b64 of 0d7FF0000000000001", 64, [], "%rd25, 0d7FF0000000000001"),
            ("add.rn.f64 with 0f3FC00000", 64, ["f64"], "%rd25, %rd21, 0f3FC00000"),
            ("add.rn.f32 with 0d3FF8000000000000", 32, ["f32"], "%r25, %r21, 0d3FF8000000000000")]:
        body = loads(kinds) + "\t%s %s;\n" % (name.split(" ")[0], ops) + store(REG[dw]["d"], dw)
        out.append(Form(name, body, kinds, 256 if kinds else 32, group="literals"))
    for name, dw, sw, kind in [("cvt.rn.sat.f16.f32", 16, 32, "f32"), ("cvt.rn.sat.f16.f64", 16, 64, "f64"),
                               ("cvt.sat.f32.f16", 32, 16, "f16"), ("cvt.sat.f64.f16", 64, 16, "f16")]:
        body = loads([kind]) + "\t%s %s, %s;\n" % (name, REG[dw]["d"], REG[sw]["a"]) + store(REG[dw]["d"], dw)
        out.append(Form(name, body, [kind], 256))
    for name in ("shf.l.wrap.b32", "shf.l.clamp.b32", "shf.r.wrap.b32", "shf.r.clamp.b32"):  # a C rotate is one
        out.append(scalar(name, ["i32", "i32", "i32"], 32))
    # 2026-12-07, evening: a half NaN or infinity widened (the halves above are finite: what the GPU
    # makes of a NaN's payload was not recorded).
    for name, dw in [("cvt.f32.f16", 32), ("cvt.f64.f16", 64)]:
        body = loads(["h16"]) + "\t%s %s, %s;\n" % (name, REG[dw]["d"], REG[16]["a"]) + store(REG[dw]["d"], dw)
        out.append(Form(name + " of any half", body, ["h16"], 256))
    return out


def warp_forms():
    """Shuffles, votes, matches and reductions of a warp, with the whole warp and with part of it
    (lanes outside the mask do not take part: their slots stay zero)."""
    out = []
    for mask in (0xFFFFFFFF, 0x0000FFFF, 0x55555555):
        # A lane outside the mask, or one that left, is a shuffle's source of no defined value: shuffles
        # with the whole warp alone.
        guard = "" if mask == 0xFFFFFFFF else ("\tshr.u32 %%r40, %d, %%r6;\n\tand.b32 %%r40, %%r40, 1;\n"
                                               "\tsetp.eq.u32 %%p6, %%r40, 0;\n\t@%%p6 bra DONE;\n" % mask)
        m = "0x%08x" % mask
        for mode in (["up", "down", "bfly", "idx"] if mask == 0xFFFFFFFF else []):
            name = "shfl.sync.%s.b32" % mode
            body = loads(["i32", "lane", "clamp"]) + guard
            body += "\t%s %%r25|%%p1, %%r21, %%r22, %%r23, %s;\n" % (name, m)
            body += "\tselp.u32 %r30, 1, 0, %p1;\n" + store("%r25", 32) + store("%r30", 32, 8)
            out.append(Form("%s mask %s" % (name, m), body, ["i32", "lane", "clamp"], 512, group="shfl"))
        for mode in ["all", "any", "uni"]:
            name = "vote.sync.%s.pred" % mode
            body = loads(["pred"]) + guard + "\tsetp.ne.u32 %p3, %r21, 0;\n"
            body += "\t%s %%p1, %%p3, %s;\n\tselp.u32 %%r30, 1, 0, %%p1;\n" % (name, m) + store("%r30", 32)
            out.append(Form("%s mask %s" % (name, m), body, ["pred"], 512, group="vote"))
        if mask == 0x0000FFFF:  # the low half-warp among itself: sources and clamp inside the mask
            for mode in ["up", "down", "bfly", "idx"]:
                name = "shfl.sync.%s.b32" % mode
                body = loads(["i32", "lane16"]) + guard
                body += "\t%s %%r25|%%p1, %%r21, %%r22, 15, %s;\n" % (name, m)
                body += "\tselp.u32 %r30, 1, 0, %p1;\n" + store("%r25", 32) + store("%r30", 32, 8)
                out.append(Form("%s mask %s clamp 15" % (name, m), body, ["i32", "lane16"], 512, group="shfl"))
        body = loads(["pred"]) + guard + "\tsetp.ne.u32 %p3, %r21, 0;\n"
        body += "\tvote.sync.ballot.b32 %%r25, %%p3, %s;\n" % m + store("%r25", 32)
        out.append(Form("vote.sync.ballot.b32 mask %s" % m, body, ["pred"], 512, group="vote"))
        for w in (32, 64):
            k = "i%d" % w
            for mode in ["any", "all"]:
                name = "match.sync.%s.b%d" % (mode, w)
                # a few distinct values, so lanes match: the operand's low 2 bits
                body = loads([k]) + guard + "\tand.b%d %s, %s, 3;\n" % (w, REG[w]["a"], REG[w]["a"])
                dst = "%r25" if mode == "any" else "%r25|%p1"
                body += "\t%s %s, %s, %s;\n" % (name, dst, REG[w]["a"], m) + store("%r25", 32)
                if mode == "all":
                    body += "\tselp.u32 %r30, 1, 0, %p1;\n" + store("%r30", 32, 8)
                out.append(Form("%s mask %s" % (name, m), body, [k], 512, group="match"))
        for op, t in [("add", "u32"), ("add", "s32"), ("min", "u32"), ("min", "s32"), ("max", "u32"),
                      ("max", "s32"), ("and", "b32"), ("or", "b32"), ("xor", "b32")]:
            name = "redux.sync.%s.%s" % (op, t)
            body = loads(["i32"]) + guard + "\t%s %%r25, %%r21, %s;\n" % (name, m) + store("%r25", 32)
            out.append(Form("%s mask %s" % (name, m), body, ["i32"], 512, group="redux"))
        body = guard + "\tactivemask.b32 %r25;\n" + store("%r25", 32)
        out.append(Form("activemask.b32 mask %s" % m, body, [], 128, group="activemask"))
    return out


def memory_forms():
    """Atomics on a word of the thread's own (its old value and the word after), on global and on
    shared memory; integer atomics of a whole block on one word; vector loads and stores."""
    out = []
    for space in ("global", "shared"):
        for op, types in [("add", ["u32", "s32", "u64", "f32", "f64"]), ("min", ["u32", "s32", "u64", "s64"]),
                          ("max", ["u32", "s32", "u64", "s64"]), ("inc", ["u32"]), ("dec", ["u32"]),
                          ("exch", ["b32", "b64"]), ("and", ["b32", "b64"]), ("or", ["b32", "b64"]),
                          ("xor", ["b32", "b64"]), ("cas", ["b32", "b64"])]:
            for t in types:
                w = int(t[1:])
                k = ("wf%d" if t[0] == "f" else "w%d") % w
                kinds = [k, k, k] if op == "cas" else [k, k]
                r = REG[w]
                if space == "global":
                    where = "%rd11+8"
                    setup = store(r["a"], w, 8)
                    back = ""
                else:  # the thread's word in the block's shared tile
                    setup = ("\tmul.wide.u32 %%rd12, %%r4, 8;\n\tmov.u64 %%rd13, tile;\n\tadd.s64 %%rd14, %%rd13, %%rd12;\n"
                             "\tst.shared.b%d [%%rd14], %s;\n" % (w, r["a"]))
                    where = "%rd14"
                    back = "\tld.shared.b%d %s, [%%rd14];\n" % (w, r["q"]) + store(r["q"], w, 8)
                operands = "%s, [%s], %s" % (r["d"], where, r["b"]) + (", %s" % r["c"] if op == "cas" else "")
                name = "atom.%s.%s.%s" % (space, op, t)
                body = loads(kinds) + setup + "\t%s %s;\n" % (name, operands) + store(r["d"], w) + back
                out.append(Form(name, body, kinds, 512, group="atom"))
    # A block's threads on one word each of the block, in an order the hardware picks: forms whose
    # result does not depend on it (inc wraps at its operand, so every thread gives the same one).
    for op, t in [("add", "u32"), ("min", "s32"), ("max", "u32"), ("or", "b32"), ("inc", "u32")]:
        name = "red.shared.%s.%s" % (op, t)
        body = loads(["i32"]) + "\tmov.u32 %r40, tile;\n\tsetp.eq.u32 %p5, %r4, 0;\n\t@%p5 st.shared.u32 [%r40], 0;\n\tbar.sync 0;\n"
        if op == "inc":
            body += "\tmov.u32 %r21, 100;\n"
        body += "\t%s [%%r40], %%r21;\n\tbar.sync 0;\n\tld.shared.u32 %%r25, [%%r40];\n" % name + store("%r25", 32)
        out.append(Form(name + (" (block, one bound)" if op == "inc" else " (block)"), body, ["i32"], 512, group="red"))
    # Vector loads and stores of global and shared memory.
    for vec, t, w in (("v2", "f32", 32), ("v4", "b32", 32), ("v2", "f64", 64), ("v2", "b16", 16), ("v4", "b16", 16)):
        n = int(vec[1])
        regs = "{" + ", ".join(REG[w]["abce"[i]] for i in range(n)) + "}"
        body = "\tld.global.%s.%s %s, [%%rd10];\n" % (vec, t, regs)
        body += "\tst.global.%s.%s [%%rd11], %s;\n" % (vec, t, regs)
        out.append(Form("ld.global.%s.%s" % (vec, t), body, ["i64"] * 4, 64, ins=32, outs=32, group="ld"))
    body = ("\tmov.u32 %r40, tile;\n\tshl.b32 %r41, %r4, 4;\n\tadd.u32 %r42, %r40, %r41;\n"
            "\tld.global.v4.b32 {%r21, %r22, %r23, %r24}, [%rd10];\n\tst.shared.v4.b32 [%r42], {%r21, %r22, %r23, %r24};\n"
            "\tbar.sync 0;\n\txor.b32 %r43, %r41, 16;\n\tadd.u32 %r44, %r40, %r43;\n"
            "\tld.shared.v4.b32 {%r21, %r22, %r23, %r24}, [%r44];\n\tst.global.v4.b32 [%rd11], {%r21, %r22, %r23, %r24};\n")
    out.append(Form("ld.shared.v4.b32 (a neighbour's)", body, ["i64"] * 4, 256, ins=32, outs=16, group="ld"))
    return out


def space_forms():
    """Special registers, barriers that reduce, and the state spaces a kernel reaches through
    generic addresses (cvta), local arrays and constants."""
    out = []
    for sreg in ["%tid.x", "%ntid.x", "%ctaid.x", "%nctaid.x", "%laneid", "%lanemask_eq", "%lanemask_lt",
                 "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%nsmid"]:
        body = "\tmov.u32 %%r25, %s;\n" % sreg + store("%r25", 32)
        out.append(Form("mov.u32 " + sreg, body, [], 256, group="special registers"))
    for red, dst in (("popc.u32", "%r25"), ("and.pred", "%p1"), ("or.pred", "%p1")):
        name = "bar.red.%s" % red
        body = loads(["pred"]) + "\tsetp.ne.u32 %p3, %r21, 0;\n"
        body += "\t%s %s, 0, %%p3;\n" % (name, dst)
        body += (store("%r25", 32) if dst == "%r25" else "\tselp.u32 %r30, 1, 0, %p1;\n" + store("%r30", 32))
        out.append(Form(name, body, ["pred"], 512, group="bar.red"))
    # A shared word through a generic address and back (cvta both ways).
    body = loads(["i64"]) + ("\tmov.u32 %r40, tile;\n\tshl.b32 %r41, %r4, 3;\n\tadd.u32 %r42, %r40, %r41;\n"
            "\tcvt.u64.u32 %rd12, %r42;\n\tcvta.shared.u64 %rd13, %rd12;\n\tst.b64 [%rd13], %rd21;\n"
            "\tcvta.to.shared.u64 %rd14, %rd13;\n\tld.shared.b64 %rd25, [%rd14];\n" + store("%rd25", 64) +
            "\tsub.s64 %rd15, %rd14, %rd12;\n" + store("%rd15", 64, 8))
    out.append(Form("cvta.shared.u64 and cvta.to.shared.u64", body, ["i64"], 256, group="cvta"))
    # A local array, written and read back at another index.
    body = loads(["i64", "i64"]) + ("\t.local .align 8 .b8 slots[64];\n\tmov.u64 %rd12, slots;\n\tst.local.b64 [%rd12], %rd21;\n"
            "\tst.local.b64 [%rd12+8], %rd22;\n\tld.local.b64 %rd25, [%rd12+8];\n\tld.local.b64 %rd26, [%rd12];\n" +
            store("%rd25", 64) + store("%rd26", 64, 8))
    out.append(Form("ld.local.b64 and st.local.b64", body, ["i64", "i64"], 256, group="ld"))
    return out


def tensor_forms():
    """ldmatrix (x1, x2, x4, .trans) and mma.m16n8k16 with halves, a warp's cases together."""
    out = []
    # A warp writes 32 rows of 8 halves (16 bytes, from its lanes' inputs) into the tile, then each
    # lane names a row (its input's last word, 0-31), and ldmatrix hands out the matrices.
    for n in (1, 2, 4):
        for trans in ("", ".trans"):
            regs = ", ".join("%%r%d" % (25 + i) for i in range(n))
            body = ("\tshr.u32 %r40, %r4, 5;\n\tshl.b32 %r40, %r40, 9;\n\tmov.u32 %r41, tile;\n\tadd.u32 %r41, %r41, %r40;\n"
                    "\tshl.b32 %r42, %r6, 4;\n\tadd.u32 %r43, %r41, %r42;\n"
                    "\tld.global.v4.b32 {%r21, %r22, %r23, %r24}, [%rd10];\n\tst.shared.v4.b32 [%r43], {%r21, %r22, %r23, %r24};\n"
                    "\tld.global.u32 %r44, [%rd10+16];\n\tand.b32 %r44, %r44, 31;\n\tshl.b32 %r44, %r44, 4;\n"
                    "\tadd.u32 %r45, %r41, %r44;\n\tbar.sync 0;\n")
            name = "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16" % (n, trans)
            body += "\t%s {%s}, [%%r45];\n" % (name, regs)
            for i in range(n):
                body += store("%%r%d" % (25 + i), 32, 4 * i)
            out.append(Form(name, body, ["i64", "i64", "i32"], 256, ins=32, outs=16, group="ldmatrix"))
    # mma: each lane's A (4 registers of two halves), B (2), C (4 floats): slots of 8 bytes.
    name = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    body = ("\tld.global.v4.b32 {%r21, %r22, %r23, %r24}, [%rd10];\n\tld.global.v2.b32 {%r27, %r28}, [%rd10+16];\n"
            "\tld.global.v4.b32 {%r31, %r32, %r33, %r34}, [%rd10+32];\n"
            "\tNAME {%r35, %r36, %r37, %r38}, {%r21, %r22, %r23, %r24}, {%r27, %r28}, "
            "{%r31, %r32, %r33, %r34};\n").replace("NAME", name)
    body += "\tst.global.v4.b32 [%rd11], {%r35, %r36, %r37, %r38};\n"
    out.append(Form(name, body, ["mma"], 512, ins=48, outs=16, group="mma"))
    # cp.async of 4, 8 and 16 bytes (.ca, .cg), with a source size that fills the rest with zeros.
    for size, cache, src in ((4, "ca", None), (8, "ca", None), (16, "ca", None), (16, "cg", None), (16, "cg", 8),
                             (16, "ca", 0), (8, "ca", 4)):
        name = "cp.async.%s.shared.global" % cache
        sizes = "%d" % size + (", %d" % src if src is not None else "")
        body = ("\tmov.u32 %r40, tile;\n\tshl.b32 %r41, %r4, 4;\n\tadd.u32 %r42, %r40, %r41;\n"
                "\tst.shared.v4.b32 [%r42], {%r4, %r4, %r4, %r4};\n"
                "\tNAME [%r42], [%rd10], SIZES;\n\tcp.async.commit_group;\n\tcp.async.wait_group 0;\n\tbar.sync 0;\n"
                "\tld.shared.v4.b32 {%r21, %r22, %r23, %r24}, [%r42];\n"
                "\tst.global.v4.b32 [%rd11], {%r21, %r22, %r23, %r24};\n").replace("NAME", name).replace("SIZES", sizes)
        label = "%s %d%s" % (name, size, " src %d" % src if src is not None else "")
        out.append(Form(label, body, ["i64", "i64"], 256, ins=32, outs=16, group="cp.async"))
    return out


def mma_case(bits):
    """One lane's operands of mma: 8 halves of A, 4 of B, 4 floats of C (48 bytes)."""
    halves = [value("f16", bits) for _ in range(12)]
    if bits.next() & 1:  # small values, whose products and sums are exact in fp32
        halves = [h if (h & 0x7C00) <= 0x4800 else (h & 0x83FF) | 0x3C00 for h in halves]
    words = [halves[2 * i] | halves[2 * i + 1] << 16 for i in range(6)]
    floats = [value("f32", bits) if bits.next() & 3 else 0 for _ in range(4)]
    return struct.pack("<6I8x4I", *words, *floats)


def case_bytes(form, seed):
    if form.kinds == ["mma"]:
        bits = Bits(seed)
        return b"".join(mma_case(bits) for _ in range(form.count))
    data = bytearray()
    for c in cases(form.kinds, form.count, seed):
        slot = bytearray(form.ins)
        for i, v in enumerate(c):
            struct.pack_into("<Q", slot, 8 * i, v & MASK)
        data += slot
    return bytes(data)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: forms.py OUTDIR")
    outdir = sys.argv[1]
    os.makedirs(os.path.join(outdir, "ptx"), exist_ok=True)
    all_forms = forms()
    names = set()
    with open(os.path.join(outdir, "forms.tsv"), "w") as tsv, open(os.path.join(outdir, "inputs.bin"), "wb") as inp:
        tsv.write("# id\tgroup\tform\tcases\tin_bytes\tout_bytes\tin_offset\tout_offset\n")
        in_off = out_off = 0
        for i, f in enumerate(all_forms):
            assert f.name not in names, "two forms named " + f.name
            names.add(f.name)
            data = case_bytes(f, 0x5EED0000 + i)
            assert len(data) == f.count * f.ins
            inp.write(data)
            with open(os.path.join(outdir, "ptx", "%04d.ptx" % i), "w") as p:
                p.write(f.kernel())
            tsv.write("%04d\t%s\t%s\t%d\t%d\t%d\t%d\t%d\n" % (i, f.group, f.name, f.count, f.ins, f.outs, in_off,
                                                              out_off))
            in_off += len(data)
            out_off += f.count * f.outs
    # Every kernel in one module, named by its id, for one run of ptxas (conformance-test): a form the
    # assembler refuses could never be recorded on a GPU.
    with open(os.path.join(outdir, "all.ptx"), "w") as allp:
        allp.write(HEADER)
        for i, f in enumerate(all_forms):
            allp.write(f.kernel()[len(HEADER):].replace(".entry conform(", ".entry conform_%04d(" % i, 1))
    print("forms.py: %d forms, %d bytes of inputs" % (len(all_forms), in_off))


if __name__ == "__main__":
    main()
