/* The PTX interpreter's whole-warp paths (ptx_engine.h): the common instructions run column by
 * column when all 32 lanes are on, and the tensor cores' ldmatrix and mma.sync, which need them all. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_engine.h"

/* ---- a warp with all 32 lanes on: whole columns at once ----
 * Registers are stored [reg][thread], so one register of a warp's 32 lanes is 32 adjacent
 * slots: the common instructions (address arithmetic, float math, comparisons, conversions)
 * run as loops over columns, the type's switch taken once per instruction instead of once per
 * lane. The results are the general path's, bit for bit. */

/* Operand o of warp w's 32 lanes: a register's own column, or buf filled with its values. */
static inline const uint64_t *column(const struct ptx_operand *o, int ty, int first, uint64_t *buf)
{
    if (o->kind == K_REG && !o->neg)
        return reg(o->reg, first);
    if (o->kind == K_IMM || o->kind == K_FIMM || o->kind == K_SYM) { /* the same in every lane */
        uint64_t v = val(o, ty, first);
        for (int l = 0; l < 32; l++)
            buf[l] = v;
        return buf;
    }
    for (int l = 0; l < 32; l++)
        buf[l] = val(o, ty, first + l);
    return buf;
}

/* d = v extended by type ty (put() for a column). */
static inline void put_column(uint64_t *d, const uint64_t *v, int ty)
{
    switch (ty) {
    case T_B32: case T_U32: case T_F32:
        for (int l = 0; l < 32; l++)
            d[l] = v[l] & 0xffffffffu;
        break;
    case T_S32:
        for (int l = 0; l < 32; l++)
            d[l] = (uint64_t)(int64_t)(int32_t)v[l];
        break;
    case T_B64: case T_U64: case T_S64: case T_F64:
        for (int l = 0; l < 32; l++)
            d[l] = v[l];
        break;
    default:
        for (int l = 0; l < 32; l++)
            d[l] = extend(v[l], ty);
    }
}

/* r = a OP b for 32 lanes of 4- or 8-byte integers: add, sub, mul (the low half), and, or, xor,
 * shl, shr. */
static inline void int_binary_columns(const struct ptx_insn *in, int bytes, const uint64_t *a, const uint64_t *b,
                                      uint64_t *r)
{
    uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
    if (in->op == OP_SHR && ptx_type_signed(in->type)) {
        for (int l = 0; l < 32; l++)
            r[l] = ptx_int_binary(OP_SHR, in->flags, in->type, a[l], b[l]);
        return;
    }
    if (in->op == OP_SHR) { /* .u and .b: zeros shifted in, nothing left past the width */
        for (int l = 0; l < 32; l++) {
            uint64_t n = b[l] & 0xffffffffu;
            r[l] = n >= (uint64_t)(8 * bytes) ? 0 : (a[l] & mask) >> n;
        }
        return;
    }
    /* the switch outside the loops: one taken per instruction, not per lane */
#define LANES(expr) for (int l = 0; l < 32; l++) r[l] = (expr); break
    switch (in->op) {
    case OP_ADD: LANES((a[l] + b[l]) & mask);
    case OP_SUB: LANES((a[l] - b[l]) & mask);
    case OP_MUL: LANES((a[l] * b[l]) & mask);
    case OP_AND: LANES(a[l] & b[l] & mask);
    case OP_OR: LANES((a[l] | b[l]) & mask);
    case OP_XOR: LANES((a[l] ^ b[l]) & mask);
    default: LANES((b[l] & 0xffffffffu) >= (uint64_t)(8 * bytes) ? 0 : (a[l] << (b[l] & 0xffffffffu)) & mask);
    }
#undef LANES
}

/* selp of 32 lanes, as exec_select: the mark of the operand chosen (and of the choice), not of
 * the one dropped. 0 where the general path must run it. */
static int select_columns(const struct ptx_insn *in, int w)
{
    const struct ptx_operand *o = in->o;
    int first = w * 32;
    if (o[1].kind == K_VEC || o[2].kind == K_VEC)
        return 0;
    uint64_t ba[32], bb[32], bc[32], r[32];
    const uint64_t *a = column(&o[1], in->type, first, ba), *b = column(&o[2], in->type, first, bb),
                   *c = column(&o[3], T_PRED, first, bc);
    uint32_t m1 = o[1].kind == K_REG ? *mark(o[1].reg, w) : 0, m2 = o[2].kind == K_REG ? *mark(o[2].reg, w) : 0,
             mp = o[3].kind == K_REG ? *mark(o[3].reg, w) : 0, mk = 0;
    for (int l = 0; l < 32; l++) {
        int pick = (int)(c[l] & 1);
        r[l] = pick ? a[l] : b[l];
        mk |= ((pick ? m1 : m2) | mp) & (1u << l);
    }
    put_column(reg(o[0].reg, first), r, in->type);
    set_marks(o[0].reg, w, ~0u, mk);
    return 1;
}

/* Instruction in for all 32 lanes of warp w, when it is one of the common plain ones; 0 when
 * it is not (the general path runs it). */
int ptx_whole_warp(const struct ptx_insn *in, int w)
{
    const struct ptx_operand *o = in->o;
    int ty = in->type, first = w * 32, bytes = ptx_type_bytes(ty);
    if (in->nops < 2 || o[0].kind != K_REG || o[0].reg < 0 || (in->flags & F_SAT))
        return 0;
    uint64_t ba[32], bb[32], bc[32], r[32];
    const uint64_t *a, *b, *c;
    switch (in->op) {
    case OP_MOV: case OP_CVT:
        if (o[1].kind == K_VEC)
            return 0;
        a = column(&o[1], in->op == OP_CVT ? in->type2 : ty, first, ba);
        if (in->op == OP_CVT)
            for (int l = 0; l < 32; l++)
                r[l] = ptx_convert(in, a[l]);
        put_column(reg(o[0].reg, first), in->op == OP_CVT ? r : a, ty);
        break;
    case OP_ADD: case OP_SUB: case OP_MUL: case OP_AND: case OP_OR: case OP_XOR: case OP_SHL: case OP_SHR:
        if (ty == T_F32 && !in->flags && in->rnd <= R_RN &&
            (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL)) { /* the plain forms: nearest, no .ftz */
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
            uint64_t *d = reg(o[0].reg, first);
            for (int l = 0; l < 32; l++) {
                float x = as_f(a[l]), y = as_f(b[l]);
                d[l] = gpu_nan(of_f(in->op == OP_ADD ? x + y : in->op == OP_SUB ? x - y : x * y), T_F32);
            }
            break;
        }
        if (is_f(ty) || ty == T_PRED || (bytes != 4 && bytes != 8) || (in->flags & F_HI))
            return 0;
        if (in->flags & F_WIDE) { /* mul.wide.s32/u32: the 64-bit product */
            if (in->op != OP_MUL || bytes != 4)
                return 0;
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
            uint64_t *d = reg(o[0].reg, first);
            if (ty == T_S32)
                for (int l = 0; l < 32; l++)
                    d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int64_t)(int32_t)b[l]);
            else
                for (int l = 0; l < 32; l++)
                    d[l] = (a[l] & 0xffffffffu) * (b[l] & 0xffffffffu);
            break;
        }
        a = column(&o[1], ty, first, ba);
        b = column(&o[2], in->op == OP_SHL || in->op == OP_SHR ? T_U32 : ty, first, bb);
        int_binary_columns(in, bytes, a, b, r);
        put_column(reg(o[0].reg, first), r, ty);
        break;
    case OP_FMA: case OP_MAD:
        if (ty == T_F32 && !in->flags && in->rnd <= R_RN) {
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb), c = column(&o[3], ty, first, bc);
            uint64_t *d = reg(o[0].reg, first);
            for (int l = 0; l < 32; l++)
                d[l] = gpu_nan(of_f(fmaf(as_f(a[l]), as_f(b[l]), as_f(c[l]))), T_F32);
            break;
        }
        if (in->op != OP_MAD || is_f(ty) || bytes != 4 || (in->flags & F_HI))
            return 0;
        if (in->flags & F_WIDE) { /* mad.wide.s32/u32: a 64-bit product plus a 64-bit addend */
            a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
            c = column(&o[3], ty == T_S32 ? T_S64 : T_U64, first, bc);
            uint64_t *d = reg(o[0].reg, first);
            if (ty == T_S32)
                for (int l = 0; l < 32; l++)
                    d[l] = (uint64_t)((int64_t)(int32_t)a[l] * (int64_t)(int32_t)b[l]) + c[l];
            else
                for (int l = 0; l < 32; l++)
                    d[l] = (a[l] & 0xffffffffu) * (b[l] & 0xffffffffu) + c[l];
            break;
        }
        a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb), c = column(&o[3], ty, first, bc);
        for (int l = 0; l < 32; l++)
            r[l] = ((a[l] * b[l]) & 0xffffffffu) + c[l];
        put_column(reg(o[0].reg, first), r, ty);
        break;
    case OP_SETP:
        if (in->boolop || ty == T_PRED || (in->flags & F_FTZ))
            return 0;
        a = column(&o[1], ty, first, ba), b = column(&o[2], ty, first, bb);
        for (int l = 0; l < 32; l++)
            r[l] = (uint64_t)ptx_compare(in->cmp, ty, a[l], b[l]);
        memcpy(reg(o[0].reg, first), r, sizeof r);
        break;
    case OP_SELP:
        return select_columns(in, w);
    default:
        return 0;
    }
    set_marks(o[0].reg, w, ~0u, marks_of(in, 1, w, ~0u));
    return 1;
}

/* ---- the tensor cores: ldmatrix and mma.sync (PTX ISA, "Warp-level matrix instructions") ----
 * Each runs for the 32 lanes of a full warp at once: ptx_step() runs it so when they are all there,
 * ptx_resolve() when they came apart and have all arrived. */

/* The registers of a vector operand (or of a lone register). */
static int regs_of(const struct ptx_operand *o, int *r)
{
    if (o->kind == K_VEC) {
        for (int e = 0; e < o->nvec; e++)
            r[e] = o->vec[e];
        return o->nvec;
    }
    r[0] = o->kind == K_REG ? o->reg : -1;
    return 1;
}

/* ldmatrix.sync.aligned.m8n8.xN{.trans}.shared.b16 {d...}, [a]: N 8x8 matrices of 16-bit
 * elements, matrix j's eight rows of 16 bytes at the addresses of lanes 8j .. 8j+7. Lane L gets
 * in d[j] row L/4's elements 2(L%4) and 2(L%4)+1 (with .trans, column L/4's); the low half first.
 * Priced as one shared load of 16 bytes a lane: each matrix is one phase of 8 rows, so rows
 * whose 16 bytes fall in the same banks conflict (a row-major tile with 128-byte rows: 8-way). */
int ptx_ldmatrix(const struct ptx_insn *in, int i, int w)
{
    int first = w * 32, nmat = in->vec, dst[4];
    if (regs_of(&in->o[0], dst) != nmat)
        return ptx_fail(EMU_BAD_LAUNCH, "%s: %d matrices into %d registers", in->text, nmat, in->o[0].nvec);
    uint16_t row[32][8];
    int marked[32][8], land;
    for (int l = 0; l < 8 * nmat; l++) {
        int t = first + l;
        uint64_t at = address_of(&in->o[1], t);
        char who[40], where[160];
        if (in->o[1].reg >= 0 && (*mark(in->o[1].reg, w) >> l & 1))
            ptx_value_used(i, t, "uses as an address");
        if (at % 16)
            return ptx_fail(EMU_MISALIGNED,
                        "block (%u,%u): %s gives %s (%s) a row at shared byte %llu, not a multiple of 16: each "
                        "lane's row of 8 halves must be 16-byte aligned",
                        blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), in->text,
                        ptx_where(i, where, sizeof where), (unsigned long long)at);
        if (ptx_load(i, t, S_SHARED, at, 2, 8, row[l], marked[l], &land) != 0)
            return EMU_OUT_OF_BOUNDS; /* (as ld's: locate said which) */
    }
    ptx_price_warp(i, 0, 0);
    for (int j = 0; j < nmat; j++) {
        uint32_t mk = 0;
        for (int l = 0; l < 32; l++) {
            int r0 = 8 * j + l / 4, c0 = 2 * (l % 4), lo_r = r0, lo_c = c0, hi_r = r0, hi_c = c0 + 1;
            if (in->flags & F_TRANS) /* element (2(L%4) + h, L/4) */
                lo_r = 8 * j + c0, hi_r = 8 * j + c0 + 1, lo_c = hi_c = l / 4;
            if (dst[j] >= 0)
                *reg(dst[j], first + l) = (uint64_t)row[lo_r][lo_c] | (uint64_t)row[hi_r][hi_c] << 16;
            if (marked[lo_r][lo_c] || marked[hi_r][hi_c])
                mk |= 1u << l;
        }
        if (dst[j] >= 0)
            set_marks(dst[j], w, ~0u, mk);
    }
    return 0;
}

/* mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {d0..d3}, {a0..a3}, {b0, b1}, {c0..c3}:
 * D (16x8) = A (16x16) B (16x8) + C, the fragments spread over the warp as the PTX ISA lays
 * them out (g = lane / 4, q = lane % 4): A's halves a0..a7 at rows g (a0, a1, a4, a5) or g + 8,
 * columns 2q + (i & 1), 8 more for a4..a7; B's b0..b3 at rows 2q + (i & 1), 8 more for b2, b3,
 * column g; C and D's four at rows g (c0, c1) or g + 8, columns 2q + (i & 1). Each element
 * summed as the tensor cores sum it (ptx_tensor_dot16). */
int ptx_mma(const struct ptx_insn *in, int w)
{
    int first = w * 32, d[4], a[4], b[4], c[4];
    if (regs_of(&in->o[0], d) != 4 || regs_of(&in->o[1], a) != 4 || regs_of(&in->o[2], b) != 2 ||
        regs_of(&in->o[3], c) != 4)
        return ptx_fail(EMU_BAD_LAUNCH, "%s: the operands are not {4}, {4}, {2}, {4} registers", in->text);
    float A[16][16], B[16][8], C[16][8];
    uint8_t mA[16][16] = {{0}}, mB[16][8] = {{0}}, mC[16][8] = {{0}};
    for (int l = 0; l < 32; l++) {
        int t = first + l, g = l / 4, q = l % 4;
        for (int e = 0; e < 8; e++) {
            int r = a[e / 2], m = e < 2 || (e >= 4 && e < 6) ? g : g + 8, k = 2 * q + (e & 1) + (e >= 4 ? 8 : 0);
            uint32_t bits = r >= 0 ? (uint32_t)*reg(r, t) : 0;
            A[m][k] = half_to_float((uint16_t)(bits >> (16 * (e & 1))));
            mA[m][k] = r >= 0 && (*mark(r, w) >> l & 1);
        }
        for (int e = 0; e < 4; e++) {
            int r = b[e / 2], k = 2 * q + (e & 1) + (e >= 2 ? 8 : 0);
            uint32_t bits = r >= 0 ? (uint32_t)*reg(r, t) : 0;
            B[k][g] = half_to_float((uint16_t)(bits >> (16 * (e & 1))));
            mB[k][g] = r >= 0 && (*mark(r, w) >> l & 1);
            int m = e < 2 ? g : g + 8, n = 2 * q + (e & 1);
            C[m][n] = c[e] >= 0 ? as_f(*reg(c[e], t)) : 0.0f;
            mC[m][n] = c[e] >= 0 && (*mark(c[e], w) >> l & 1);
        }
    }
    uint32_t mk[4] = {0}, D[16][8];
    ptx_tensor_mma(A, B, C, D); /* every input read above before any output is written */
    int row_marked[16] = {0}, column_marked[8] = {0};
    for (int k = 0; k < 16; k++) {
        for (int m = 0; m < 16; m++)
            row_marked[m] |= mA[m][k];
        for (int n = 0; n < 8; n++)
            column_marked[n] |= mB[k][n];
    }
    for (int l = 0; l < 32; l++) {
        int t = first + l, g = l / 4, q = l % 4;
        for (int e = 0; e < 4; e++) {
            int m = e < 2 ? g : g + 8, n = 2 * q + (e & 1), marked = mC[m][n] | row_marked[m] | column_marked[n];
            if (d[e] >= 0)
                *reg(d[e], t) = D[m][n];
            mk[e] |= (uint32_t)marked << l;
        }
    }
    for (int e = 0; e < 4; e++)
        if (d[e] >= 0)
            set_marks(d[e], w, ~0u, mk[e]);
    emu_trace_mma();
    return 0;
}

