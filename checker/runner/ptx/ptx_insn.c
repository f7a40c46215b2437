/* The PTX interpreter's instructions (ptx_engine.h): ptx_step guards an instruction, counts it, and
 * hands it to its class's handler from one table by opcode. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_engine.h"

/* The unit that runs an instruction (enum issue_kind, counts.h). */
static int issue_kind(const struct ptx_insn *in)
{
    int sp = in->space == S_GENERIC || in->space == S_NONE ? S_GLOBAL : in->space;
    switch (in->op) {
    case OP_LD: case OP_ST: case OP_ATOM: case OP_RED:
        return sp == S_SHARED ? ISSUE_SHARED : sp == S_LOCAL ? ISSUE_LOCAL
               : sp == S_PARAM || sp == S_CONST ? ISSUE_INTEGER : ISSUE_GLOBAL;
    case OP_LDMATRIX:
        return ISSUE_SHARED;
    case OP_CP_ASYNC:
        return in->sub == CP_COPY ? ISSUE_GLOBAL : ISSUE_CONTROL;
    case OP_MMA:
        return ISSUE_TENSOR;
    case OP_WGMMA:
        return in->sub == WG_MMA ? ISSUE_TENSOR : ISSUE_CONTROL;
    case OP_BULK_TENSOR:
        return ISSUE_GLOBAL;
    case OP_MBARRIER:
        return ISSUE_SHARED;
    case OP_SHFL: case OP_VOTE: case OP_MATCH: case OP_REDUX: case OP_ACTIVEMASK:
        return ISSUE_WARP;
    case OP_RCP: case OP_SQRT: case OP_RSQRT: case OP_EX2: case OP_LG2: case OP_SIN: case OP_COS: case OP_TANH:
        return ISSUE_SPECIAL;
    case OP_BRA: case OP_RET: case OP_EXIT: case OP_BAR: case OP_BAR_WARP: case OP_MEMBAR: case OP_CALL:
    case OP_NANOSLEEP: case OP_TRAP: case OP_PMEVENT:
        return ISSUE_CONTROL;
    case OP_CVT: /* an integer's width alone changed is a move; a float on either side, a conversion */
        return ptx_type_float(in->type) || ptx_type_float(in->type2) ? ISSUE_CONVERT : ISSUE_INTEGER;
    case OP_MOV: case OP_CVTA: case OP_SELP:
        return ISSUE_INTEGER;
    default:
        return in->type == T_F64 ? ISSUE_DOUBLE : is_f(in->type) ? ISSUE_FLOAT : ISSUE_INTEGER;
    }
}

/* The lanes of *exec whose address, operand addr, holds a marked value: the first is said, and all
 * are left out of *exec (they access nothing). Returns them. */
static uint32_t marked_addresses(int insn, int w, const struct ptx_operand *addr, uint32_t *exec)
{
    uint32_t am = addr->reg >= 0 ? *mark(addr->reg, w) & *exec : 0;
    if (am) {
        ptx_value_used(insn, w * 32 + __builtin_ctz(am), "uses as an address");
        *exec &= ~am;
    }
    return am;
}

/* cvta's address a in thread t: to a space, the generic pointer into its offset; from one, the
 * offset into a pointer (the global space's are the same). */
static uint64_t cvta(const struct ptx_insn *in, int t, uint64_t a)
{
    unsigned char *base = in->space == S_SHARED ? X.shared
                          : in->space == S_LOCAL ? local_of(t)
                          : in->space == S_CONST ? X.L->m->const_data
                          : in->space == S_PARAM ? (unsigned char *)X.L->params /* a tensor map's (ptx_async.c) */
                                                 : NULL;
    if (!base)
        return a;
    return (in->flags & F_TO) ? a - (uint64_t)(uintptr_t)base : a + (uint64_t)(uintptr_t)base;
}

/* bar.sync a{, b} (and bar.red's a, b): barrier a of 16, for b threads counted by warps (32 for
 * each that arrives; b absent: the block's). A barrier for the whole block waits for every thread
 * (AT_BARRIER, released by the scheduler: ptx_exec.c). One for some of the block's warps (bar.sync
 * only) completes when its count of threads has arrived, whole warps at a time (named_arrival). */
static int barrier_operands(const struct ptx_insn *in, int i, int w, uint32_t exec, int *id_out, uint32_t *count_out)
{
    int red = in->sub >= BAR_RED_POPC, counted = in->nops == (red ? 4 : 2), whole = X.warps * 32;
    char who[40], where[160];
    int first = 1;
    FOR_LANES(exec, l) {
        int t = w * 32 + (int)l;
        uint64_t id = val(&in->o[red], T_U32, t) & 0xffffffffu;
        uint64_t count = counted ? val(&in->o[red + 1], T_U32, t) & 0xffffffffu : (uint64_t)whole;
#define SAY(...) (ptx_thread_name(t, who, sizeof who), ptx_where(i, where, sizeof where), ptx_fail(__VA_ARGS__))
        if (id > 15)
            return SAY(EMU_BAD_LAUNCH, "block (%u,%u): %s waits at barrier %llu (%s): a block has barriers 0 to 15",
                       blockIdx.x, blockIdx.y, who, (unsigned long long)id, where);
        if (count != (uint64_t)whole && (red || count == 0 || count % 32 || count > (uint64_t)whole))
            return SAY(EMU_BAD_LAUNCH,
                       "block (%u,%u): %s waits at barrier %llu for %llu threads (%s), where the block has %d in %d "
                       "warps: %s", blockIdx.x, blockIdx.y, who, (unsigned long long)id, (unsigned long long)count,
                       where, X.threads, X.warps,
                       red ? "a bar.red for some of a block's warps is not something the emulator runs; use "
                             "__syncthreads_count(), _and() or _or()"
                           : count > (uint64_t)whole ? "more than arrive, so it never completes"
                                                     : "a barrier counts whole warps, a multiple of 32 from 32 up");
        if (first) {
            *id_out = (int)id, *count_out = (uint32_t)count, first = 0;
        } else if ((int)id != *id_out || (uint32_t)count != *count_out)
            return SAY(EMU_BAD_LAUNCH, "block (%u,%u): %s waits at barrier %llu for %llu threads (%s), where another lane "
                       "of its warp names barrier %d for %u: a warp's lanes must name one barrier and one count",
                       blockIdx.x, blockIdx.y, who, (unsigned long long)id, (unsigned long long)count, where,
                       *id_out, *count_out);
#undef SAY
    }
    return 0;
}

/* Warp w's lanes exec arrive at barrier id for count threads (fewer than the block's). */
static int named_arrival(int i, int w, uint32_t exec, int id, uint32_t count)
{
    char who[40], where[160];
    uint32_t lanes = 0;
    for (int l = 0; l < 32 && w * 32 + l < X.threads; l++)
        if (X.state[w * 32 + l] != EXITED)
            lanes |= 1u << l;
    ptx_thread_name(w * 32 + __builtin_ctz(exec), who, sizeof who);
    if (exec != lanes)
        return ptx_fail(EMU_BARRIER_DIVERGENCE, "block (%u,%u): %s waits at barrier %d for %u threads (%s) with "
                        "lanes 0x%08x of its warp, not all of its lanes that have not returned (0x%08x): a barrier "
                        "counts whole warps, so its warp must reach it together", blockIdx.x, blockIdx.y, who, id,
                        count, ptx_where(i, where, sizeof where), exec, lanes);
    if (X.named[id].count && X.named[id].count != count)
        return ptx_fail(EMU_BARRIER_DIVERGENCE, "block (%u,%u): %s waits at barrier %d for %u threads (%s), where "
                        "warps already wait at it for %u: every warp must name the same count", blockIdx.x,
                        blockIdx.y, who, id, count, ptx_where(i, where, sizeof where), X.named[id].count);
    X.named[id].count = count;
    X.named[id].arrived += 32;
    X.named[id].warps |= 1u << w;
    FOR_LANES(exec, l) {
        X.state[w * 32 + (int)l] = AT_NAMED;
        X.named_id[w * 32 + (int)l] = (uint8_t)id;
        emu_trace_barrier();
    }
    if (X.named[id].arrived < count)
        return 0;
    /* Complete: its warps go on in this round, ordered among themselves alone (the race check's
     * phase of a set of warps), even where they are all the warps left (the others that returned
     * may still be running on a GPU). Until the next barrier of the whole block, a barrier must
     * complete with the same warps each time, and a set must keep to itself until the round ends. */
    uint32_t warps = X.named[id].warps, last = X.named[id].last;
    X.named[id].count = X.named[id].arrived = X.named[id].warps = 0;
    if (last && last != warps && count > 32) /* (a warp alone meets no other, whichever it is) */
        return ptx_fail(EMU_RACE, "block (%u,%u): %s completes barrier %d (%s) with warps 0x%08x, where warps 0x%08x "
                        "completed it before, with no barrier of the whole block between: on a GPU its first %u "
                        "threads to arrive complete it, whichever warps they are, so which warps meet there depends "
                        "on timing (a race). Give each set of warps a barrier of its own", blockIdx.x, blockIdx.y,
                        who, id, ptx_where(i, where, sizeof where), warps, last, count);
    X.named[id].last = warps;
    for (int v = 0; v < X.warps; v++)
        if ((warps >> v & 1) && emu_trace_named_set(v) && emu_trace_named_set(v) != warps)
            return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s completes barrier %d (%s) with warps 0x%08x, where "
                            "warp %d met warps 0x%08x at a barrier since the last barrier of the whole block: the "
                            "emulator's race check orders warps by barriers for some of them only where each set "
                            "of warps keeps to itself; use __syncthreads() between the two", blockIdx.x, blockIdx.y,
                            who, id, ptx_where(i, where, sizeof where), warps, v, emu_trace_named_set(v));
    for (int t = 0; t < X.threads; t++)
        if (X.state[t] == AT_NAMED && X.named_id[t] == id) {
            X.state[t] = READY;
            X.pc[t]++;
            X.epoch[t]++; /* (orders its warp's lanes, as a warp operation does) */
        }
    emu_trace_named_phase(warps, X.threads);
    X.named_progress = 1;
    return 0;
}

/* What step does with an instruction, by its class: each handler runs in's effect for the lanes
 * in exec (those of active whose guard holds). It returns 0 when every active lane goes on to the
 * next instruction, PC_MOVED when it has moved or parked the lanes itself (a branch, an exit, a
 * barrier, a warp-wide instruction waiting for its warp), else an EMU_* code. */
struct step {
    const struct ptx_insn *in;
    int i, w;
    uint32_t active, exec;
};
enum { PC_MOVED = -1 };
/* A handler's names for its step, those the cases of step's one switch used to share (each
 * handler uses some). */
#define STEP_NAMES(s)                                                                                             \
    const struct ptx_insn *const in __attribute__((unused)) = (s)->in;                                            \
    const struct ptx_operand *const o __attribute__((unused)) = (s)->in->o;                                       \
    const int i __attribute__((unused)) = (s)->i, w __attribute__((unused)) = (s)->w,                             \
              first __attribute__((unused)) = (s)->w * 32, ty __attribute__((unused)) = (s)->in->type;            \
    const uint32_t active __attribute__((unused)) = (s)->active;                                                  \
    uint32_t exec __attribute__((unused)) = (s)->exec; /* (a load, store or atomic narrows it to the lanes set) */ \
    char who[40] __attribute__((unused)), where[160] __attribute__((unused))

static int exec_mov(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    if (o[0].kind == K_VEC) { /* unpack: mov.b64 {a,b}, x */
        int parts = o[0].nvec, bits = width(ty) / parts;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t v = val(&o[1], ty, t);
            for (int e = 0; e < parts; e++)
                if (o[0].vec[e] >= 0)
                    *reg(o[0].vec[e], t) = bits == 64 ? v : (v >> (e * bits)) & ((1ull << bits) - 1);
        }
        for (int e = 0; e < parts; e++)
            if (o[0].vec[e] >= 0)
                set_marks(o[0].vec[e], w, exec, mk);
        return 0;
    }
    if (o[1].kind == K_VEC) { /* pack: mov.b64 x, {a,b} */
        int parts = o[1].nvec, bits = width(ty) / parts;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t v = 0;
            for (int e = 0; e < parts; e++)
                if (o[1].vec[e] >= 0)
                    v |= (*reg(o[1].vec[e], t) & (bits == 64 ? ~0ull : (1ull << bits) - 1)) << (e * bits);
            put(o[0].reg, first + (int)l, v, ty);
        }
        set_marks(o[0].reg, w, exec, mk);
        return 0;
    }
    FOR_LANES(exec, l)
        put(o[0].reg, first + (int)l, val(&o[1], ty, first + (int)l), ty);
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

/* one value per lane, converted: an address (cvta) or a number */
static int exec_convert(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        if (in->op == OP_CVTA)
            put(o[0].reg, t, cvta(in, t, val(&o[1], T_U64, t)), ty == T_U32 ? T_U32 : T_U64);
        else
            put(o[0].reg, t, ptx_convert(in, val(&o[1], in->type2, t)), ty);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_load(const struct step *s)
{
    STEP_NAMES(s);
    int size = ptx_type_bytes(ty), n = in->vec;
    uint32_t am = marked_addresses(i, w, &o[1], &exec);
    if (!am && ((in->space == S_SHARED && ptx_load_shared(in, i, w, exec)) ||
                (in->space == S_GLOBAL && ptx_load_inputs(in, w, exec))))
        return 0;
    uint32_t marked[4] = {0};
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = address_of(&o[1], t);
        unsigned char buf[32] = {0};
        int mk[4], land;
        if (ptx_load(i, t, in->space, a, size, n, buf, mk, &land))
            return EMU_OUT_OF_BOUNDS;
        if (X.counting && land == IN_GLOBAL)
            ptx_issue_load(t, o, size * n);
        for (int e = 0; e < n; e++)
            marked[e] |= (uint32_t)mk[e] << l;
        for (int e = 0; e < n; e++) {
            uint64_t v = 0;
            memcpy(&v, buf + e * size, (size_t)size);
            int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
            if (r >= 0) /* a narrow load widens into its register by its own type */
                *reg(r, t) = ptx_type_signed(ty) ? extend(v, ty) : v;
        }
    }
    for (int e = 0; e < n; e++) {
        int r = o[0].kind == K_VEC ? o[0].vec[e] : o[0].reg;
        if (r >= 0)
            set_marks(r, w, exec | am, marked[e] | am);
    }
    ptx_price_warp(i, 0, 0);
    return 0;
}

static int exec_store(const struct step *s)
{
    STEP_NAMES(s);
    int size = ptx_type_bytes(ty), n = in->vec;
    uint32_t am = marked_addresses(i, w, &o[0], &exec);
    uint32_t vm = marks_of(in, 1, w, exec);
    if (in->space == S_SHARED && !am && ptx_store_shared(in, i, w, exec, vm))
        return 0;
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = address_of(&o[0], t);
        unsigned char buf[32];
        for (int e = 0; e < n; e++) {
            uint64_t v = o[1].kind == K_VEC ? (o[1].vec[e] >= 0 ? *reg(o[1].vec[e], t) : 0) : val(&o[1], ty, t);
            memcpy(buf + e * size, &v, (size_t)size);
        }
        if (ptx_store(i, t, in->space, a, size * n, buf, (vm >> l) & 1, &o[1]))
            return EMU_OUT_OF_BOUNDS;
    }
    ptx_price_warp(i, 1, 0);
    return 0;
}

static int exec_binary(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    /* The address arithmetic of every kernel, done without the general path: 32- and 64-bit
     * add, sub, and, or, xor, shl and mul.lo. */
    int bytes = ptx_type_bytes(ty);
    if (!is_f(ty) && ty != T_PRED && (bytes == 4 || bytes == 8) && !(in->flags & (F_WIDE | F_HI | F_SAT)) &&
        (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_AND || in->op == OP_OR || in->op == OP_XOR ||
         in->op == OP_SHL || in->op == OP_MUL)) {
        uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], in->op == OP_SHL ? T_U32 : ty, t), r;
            switch (in->op) {
            case OP_ADD: r = a + b; break;
            case OP_SUB: r = a - b; break;
            case OP_AND: r = a & b; break;
            case OP_OR: r = a | b; break;
            case OP_XOR: r = a ^ b; break;
            case OP_MUL: r = a * b; break;
            default: r = (b & 0xffffffffu) >= (uint64_t)(8 * bytes) ? 0 : a << (b & 0xffffffffu);
            }
            r &= mask;
            *reg(o[0].reg, t) = ptx_type_signed(ty) && bytes == 4 ? (uint64_t)(int64_t)(int32_t)r : r;
        }
        set_marks(o[0].reg, w, exec, mk);
        return 0;
    }
    int dty = (in->flags & F_WIDE) ? (ty == T_S32 ? T_S64 : ty == T_U32 ? T_U64 : ty == T_S16 ? T_S32 : T_U32) : ty;
    if (ty == T_PRED) {
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t) & 1, b = val(&o[2], ty, t) & 1;
            put(o[0].reg, t, in->op == OP_AND ? (a & b) : in->op == OP_OR ? (a | b) : (a ^ b), T_PRED);
        }
    } else if (is_f(ty)) {
        uint64_t sign = ty == T_F32 ? 0x80000000u : 0x8000000000000000ull;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t);
            if (in->op == OP_COPYSIGN) { /* bits moved, never a value: a signalling NaN stays one */
                put(o[0].reg, t, (b & ~sign) | (a & sign), ty);
                continue;
            }
            uint64_t r = gpu_nan(fput(ptx_float_binary(in, fval(a, ty), fval(b, ty)), ty), ty);
            if (in->op == OP_ADD || in->op == OP_SUB || in->op == OP_MUL)
                r = nan_operand(ty, r, b, a, a);
            put(o[0].reg, t, r, ty);
        }
    } else {
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            int sty = in->op == OP_SHL || in->op == OP_SHR ? T_U32 : ty;
            uint64_t b = val(&o[2], sty, t);
            if (in->op == OP_MUL24) {
                put(o[0].reg, t, ptx_mul24(val(&o[1], ty, t), b, ty, in->flags & F_HI), ty);
                continue;
            }
            put(o[0].reg, t, ptx_int_binary(in->op, in->flags, ty, val(&o[1], ty, t), b), dty);
        }
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_fused(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    if (is_f(ty)) {
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t), c = val(&o[3], ty, t);
            uint64_t r = gpu_nan(fput(ptx_float_fma(in, fval(a, ty), fval(b, ty), fval(c, ty)), ty), ty);
            put(o[0].reg, t, nan_operand(ty, r, b, c, a), ty);
        }
    } else {
        int dty = (in->flags & F_WIDE) ? (ty == T_S32 ? T_S64 : ty == T_U32 ? T_U64 : ty == T_S16 ? T_S32 : T_U32) : ty;
        FOR_LANES(exec, l) {
            int t = first + (int)l;
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t);
            uint64_t p = in->op == OP_MAD24 ? ptx_mul24(a, b, ty, in->flags & F_HI) : ptx_int_binary(OP_MUL, in->flags, ty, a, b);
            if (in->flags & F_SAT) /* mad.hi.sat.s32: the high half plus c, clamped to s32 */
                p = ptx_int_binary(OP_ADD, F_SAT, T_S32, p, val(&o[3], dty, t)), put(o[0].reg, t, p, dty);
            else
                put(o[0].reg, t, p + val(&o[3], dty, t), dty);
        }
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

/* (the .approx functions, rsqrt, ex2 and the like, are refused when the PTX is read) */
static int exec_unary(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = val(&o[1], ty, t), r = 0;
        if (is_f(ty)) {
            double x = ptx_flush(in, fval(a, ty)), y;
            int f32 = ty == T_F32, fop = in->op == OP_RCP ? FOP_RCP : FOP_SQRT;
            if (in->op == OP_RCP || in->op == OP_SQRT)
                y = ptx_directed(in->rnd) ? ptx_fop(fop, in->rnd, f32, x, 0, 0)
                    : in->op == OP_RCP    ? (f32 ? (double)(1.0f / (float)x) : 1.0 / x)
                    : f32                 ? (double)sqrtf((float)x)
                                          : sqrt(x);
            else
                y = x;
            if (f32 && (in->flags & F_FTZ))
                a = fput(x, ty); /* flushed (else the bits as they are: a NaN's payload kept) */
            if (in->op == OP_NEG || in->op == OP_ABS) /* the sign bit only; a NaN keeps its sign */
                r = nan_bits(a, ty) ? gpu_nan(a, ty)
                    : in->op == OP_NEG ? a ^ (f32 ? 0x80000000u : 0x8000000000000000ull)
                                       : a & (f32 ? 0x7fffffffu : 0x7fffffffffffffffull);
            else
                r = gpu_nan(fput(ptx_flush(in, y), ty), ty);
        } else {
            int wd = width(ty);
            uint64_t x = extend(a, ty);
            switch (in->op) {
            case OP_NEG: r = (uint64_t)(-(int64_t)x); break;
            case OP_ABS: r = (int64_t)x < 0 ? (uint64_t)(-(int64_t)x) : x; break;
            case OP_NOT: r = ty == T_PRED ? !(x & 1) : ~x; break;
            case OP_CNOT: r = x == 0; break;
            case OP_POPC: r = (uint64_t)__builtin_popcountll(wd == 64 ? x : x & ((1ull << wd) - 1)); break;
            case OP_CLZ: {
                uint64_t y = wd == 64 ? x : x & ((1ull << wd) - 1);
                r = y ? (uint64_t)(__builtin_clzll(y) - (64 - wd)) : (uint64_t)wd;
                break;
            }
            case OP_BREV: {
                uint64_t y = 0;
                for (int b2 = 0; b2 < wd; b2++)
                    y |= ((x >> b2) & 1) << (wd - 1 - b2);
                r = y;
                break;
            }
            default: r = x;
            }
        }
        put(o[0].reg, t, r, in->op == OP_POPC || in->op == OP_CLZ ? T_U32 : ty);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_bits(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        int wd = width(ty);
        uint64_t r = 0;
        if (in->op == OP_BFE) {
            /* pos and len: 8 bits of each at 32 bits (the hardware's BFE), all 32 at 64 (the
             * H200's, conformance record) */
            uint64_t a = extend(val(&o[1], ty, t), ty), keep = wd == 64 ? 0xffffffffu : 0xff;
            uint64_t pos = val(&o[2], T_U32, t) & keep, len = val(&o[3], T_U32, t) & keep;
            uint64_t msb = pos + len - 1 < (uint64_t)wd ? pos + len - 1 : (uint64_t)wd - 1;
            uint64_t sbit = ptx_type_signed(ty) && len ? (a >> msb) & 1 : 0;
            for (uint64_t b2 = 0; b2 < (uint64_t)wd; b2++)
                r |= (b2 < len && pos + b2 < (uint64_t)wd ? (a >> (pos + b2)) & 1 : sbit) << b2;
        } else if (in->op == OP_BFI) {
            uint64_t a = val(&o[1], ty, t), b = val(&o[2], ty, t);
            uint64_t keep = wd == 64 ? 0xffffffffu : 0xff; /* as bfe's */
            uint64_t pos = val(&o[3], T_U32, t) & keep, len = val(&o[4], T_U32, t) & keep;
            r = b;
            for (uint64_t b2 = 0; b2 < len && pos + b2 < (uint64_t)wd; b2++)
                r = (r & ~(1ull << (pos + b2))) | (((a >> b2) & 1) << (pos + b2));
        } else if (in->op == OP_BFIND) {
            uint64_t a = extend(val(&o[1], ty, t), ty);
            if (ptx_type_signed(ty) && (int64_t)a < 0)
                a = ~a;
            if (wd < 64)
                a &= (1ull << wd) - 1;
            r = a ? (uint64_t)(63 - __builtin_clzll(a)) : 0xffffffffu;
            if ((in->flags & F_SHIFTAMT) && a) /* __ffs's way: the shift that brings that bit to the top */
                r = (uint64_t)(wd - 1) - r;
        } else if (in->op == OP_PRMT) {
            uint64_t a = val(&o[1], T_B32, t) & 0xffffffffu, b = val(&o[2], T_B32, t) & 0xffffffffu,
                     c = val(&o[3], T_B32, t);
            uint64_t bytes = a | (b << 32);
            for (int k2 = 0; k2 < 4; k2++) {
                unsigned sel = (unsigned)(c >> (4 * k2)) & 0xf;
                uint64_t byte = (bytes >> (8 * (sel & 7))) & 0xff;
                if (sel & 8)
                    byte = (byte & 0x80) ? 0xff : 0;
                r |= byte << (8 * k2);
            }
        } else if (in->op == OP_SHF) {
            /* a funnel shift: b (the high word) and a as 64 bits, shifted by c (mod 32, or at most
             * 32 with .clamp); shf.l keeps the high word, shf.r the low */
            uint64_t ab = (val(&o[2], T_B32, t) & 0xffffffffu) << 32 | (val(&o[1], T_B32, t) & 0xffffffffu);
            uint32_t c = (uint32_t)val(&o[3], T_U32, t), n = in->flags & F_CLAMP ? (c < 32 ? c : 32) : c & 31;
            r = in->sub == SHF_L ? (ab << n) >> 32 : (ab >> n) & 0xffffffffu;
        } else if (in->op == OP_SAD) {
            int64_t a = (int64_t)extend(val(&o[1], ty, t), ty), b = (int64_t)extend(val(&o[2], ty, t), ty);
            uint64_t ua = val(&o[1], ty, t), ub = val(&o[2], ty, t);
            r = (ptx_type_signed(ty) ? (uint64_t)(a > b ? a - b : b - a) : (ua > ub ? ua - ub : ub - ua)) +
                val(&o[3], ty, t);
        } else { /* testp.finite/... : not modelled beyond finite and nan */
            double x = fval(val(&o[1], ty, t), ty);
            r = isfinite(x);
        }
        put(o[0].reg, t, r, in->op == OP_TESTP ? T_PRED : in->op == OP_BFIND ? T_U32 : ty);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_compare(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t mk = marks_of(in, 1, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        /* set.CmpOp.dtype.stype compares stype's (type2); setp's type is the compared one */
        int cty = in->op == OP_SET ? in->type2 : ty;
        uint64_t x = val(&o[1], cty, t), y = val(&o[2], cty, t);
        if (cty == T_F32 && (in->flags & F_FTZ))
            x = of_f((float)ptx_ftz(as_f(x))), y = of_f((float)ptx_ftz(as_f(y)));
        int cmp = ptx_compare(in->cmp, cty, x, y), r = cmp, q = !cmp;
        if (in->boolop) { /* p = cmp BoolOp c, q = !cmp BoolOp c */
            int c = (int)(val(&o[3], T_PRED, t) & 1);
            r = in->boolop == B_AND ? r && c : in->boolop == B_OR ? r || c : r != c;
            q = in->boolop == B_AND ? q && c : in->boolop == B_OR ? q || c : q != c;
        }
        if (in->op == OP_SET) {
            put(o[0].reg, t, in->type == T_F32 ? (r ? of_f(1.0f) : 0) : (r ? 0xffffffffu : 0), T_B32);
            continue;
        }
        if (o[0].kind == K_VEC) {
            put(o[0].vec[0], t, (uint64_t)r, T_PRED);
            put(o[0].vec[1], t, (uint64_t)q, T_PRED);
        } else
            put(o[0].reg, t, (uint64_t)r, T_PRED);
    }
    if (o[0].kind == K_VEC) {
        set_marks(o[0].vec[0], w, exec, mk);
        set_marks(o[0].vec[1], w, exec, mk);
    } else
        set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_select(const struct step *s)
{
    STEP_NAMES(s);
    /* the mark of the operand chosen (and of the choice), not of the one dropped */
    uint32_t m1 = o[1].kind == K_REG ? *mark(o[1].reg, w) : 0, m2 = o[2].kind == K_REG ? *mark(o[2].reg, w) : 0,
             mp = o[3].kind == K_REG ? *mark(o[3].reg, w) : 0, mk = 0;
    FOR_LANES(exec, l) {
        int t = first + (int)l, pick = (int)(val(&o[3], T_PRED, t) & 1);
        put(o[0].reg, t, pick ? val(&o[1], ty, t) : val(&o[2], ty, t), ty);
        mk |= ((pick ? m1 : m2) | mp) & (1u << l);
    }
    set_marks(o[0].reg, w, exec, mk);
    return 0;
}

static int exec_branch(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        X.pc[first + (int)l] = o[0].reg;
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED;
}

static int exec_exit(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        X.state[first + (int)l] = EXITED;
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED;
}

static int exec_trap(const struct step *s)
{
    STEP_NAMES(s);
    if (exec)
        return ptx_fail(EMU_BAD_LAUNCH, "block (%u,%u): %s executes a trap (%s): an assert that failed?", blockIdx.x,
                    blockIdx.y, ptx_thread_name(first + __builtin_ctz(exec), who, sizeof who),
                    ptx_where(i, where, sizeof where));
    return 0;
}

/* membar, nanosleep, pmevent: nothing to model */
static int exec_nothing(const struct step *s)
{
    (void)s;
    return 0;
}

static int exec_barrier(const struct step *s)
{
    STEP_NAMES(s);
    int id = 0;
    uint32_t count = 0;
    int rc = barrier_operands(in, i, w, exec, &id, &count);
    if (rc)
        return rc;
    if (exec && count < (uint32_t)X.warps * 32) {
        FOR_LANES(active & ~exec, l)
            X.pc[first + (int)l]++;
        rc = named_arrival(i, w, exec, id, count);
        return rc ? rc : PC_MOVED;
    }
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        X.state[t] = AT_BARRIER;
        X.named_id[t] = (uint8_t)id;
        X.vote[t] = in->sub >= BAR_RED_POPC ? (int)(val(&o[in->nops - 1], T_PRED, t) & 1) : 0;
        X.vote_marked[t] = in->sub >= BAR_RED_POPC && (marks_of(in, in->nops - 1, w, 1u << l) != 0);
        emu_trace_barrier();
    }
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED; /* pc moves on when the barrier releases */
}

static int exec_warp_wide(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        X.state[first + (int)l] = AT_WARP;
    FOR_LANES(active & ~exec, l)
        X.pc[first + (int)l]++;
    return PC_MOVED; /* completed with the warp's other lanes (resolve) */
}

static int exec_activemask(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l)
        put(o[0].reg, first + (int)l, active, T_B32);
    set_marks(o[0].reg, w, exec, 0);
    return 0;
}

/* Whether instruction i lies in a loop: a branch after it goes back to it or before it. A
 * compare-and-swap or an exchange there is a step of a loop that tries again (a CAS loop, a spin
 * lock: warps on one word take turns, as in a float atomicAdd); one alone (electing a leader) is
 * not. */
static int in_loop(int i)
{
    for (int j = i; j < X.k->ninsns; j++)
        if (X.k->insns[j].op == OP_BRA && X.k->insns[j].o[0].reg <= i)
            return 1;
    return 0;
}

static int exec_atomic(const struct step *s)
{
    STEP_NAMES(s);
    int size = ptx_type_bytes(ty);
    int turn = (ty == T_F32 && in->sub == ATOM_ADD) || ((in->sub == ATOM_CAS || in->sub == ATOM_EXCH) && in_loop(i));
    const struct ptx_operand *addr = in->op == OP_ATOM ? &o[1] : &o[0];
    int vi = in->op == OP_ATOM ? 2 : 1;
    marked_addresses(i, w, addr, &exec);
    uint32_t vm = marks_of(in, vi, w, exec);
    FOR_LANES(exec, l) {
        int t = first + (int)l;
        uint64_t a = address_of(addr, t);
        size_t off;
        int land;
        unsigned char *p = ptx_locate(i, t, in->space, a, size, 1, &land, &off);
        if (!p)
            return EMU_OUT_OF_BOUNDS;
        ptx_trace_atomic(i, t, p, size, land, turn);
        uint64_t old = 0, v = val(&o[vi], ty, t), next;
        memcpy(&old, p, (size_t)size);
        if (is_f(ty)) {
            /* The H200's adds (conformance record): in global memory, f32 flushes subnormal
             * operands and result, and f64 with a NaN gives the operand's NaN, else the word's,
             * bits unchanged (a signalling NaN stays one); in shared memory, no flushing, and
             * the word's NaN, else the operand's, quieted */
            int add = in->sub == ATOM_ADD, ftz = add && ty == T_F32 && land == IN_GLOBAL;
            double x = ftz ? ptx_ftz(fval(old, ty)) : fval(old, ty), y = ftz ? ptx_ftz(fval(v, ty)) : fval(v, ty);
            double rr = add ? x + y : in->sub == ATOM_MIN ? fmin(x, y) : in->sub == ATOM_MAX ? fmax(x, y) : y;
            next = gpu_nan(fput(ftz ? ptx_ftz(rr) : rr, ty), ty);
            if (add && ty == T_F64 && land == IN_GLOBAL && (isnan(x) || isnan(y)))
                next = isnan(y) ? v : old;
            else if (add)
                next = nan_operand(ty, next, old, v, v);
        } else {
            uint64_t mask = size == 8 ? ~0ull : 0xffffffffu;
            int64_t so = (int64_t)extend(old, ty), sv = (int64_t)extend(v, ty);
            int s = ptx_type_signed(ty);
            switch (in->sub) {
            case ATOM_ADD: next = old + v; break;
            case ATOM_MIN: next = s ? (sv < so ? v : old) : ((v & mask) < (old & mask) ? v : old); break;
            case ATOM_MAX: next = s ? (sv > so ? v : old) : ((v & mask) > (old & mask) ? v : old); break;
            case ATOM_AND: next = old & v; break;
            case ATOM_OR: next = old | v; break;
            case ATOM_XOR: next = old ^ v; break;
            case ATOM_INC: next = (old & mask) >= (v & mask) ? 0 : old + 1; break;
            case ATOM_DEC: next = (old & mask) == 0 || (old & mask) > (v & mask) ? v : old - 1; break;
            case ATOM_CAS: next = (old & mask) == (v & mask) ? val(&o[vi + 1], ty, t) : old; break;
            default: next = v;
            }
            next &= mask;
        }
        int was_marked = 0;
        if (off != (size_t)-1) {
            for (int b2 = 0; b2 < size; b2++)
                was_marked |= X.shared_state[off + (size_t)b2] != SET;
            /* an atomic on a word nobody wrote starts from garbage: the old value is marked (an
             * exchange's new value owes the old nothing: atomicExch may set a word first) */
            memset(X.shared_state + off, ((vm >> l) & 1) || (was_marked && in->sub != ATOM_EXCH) ? MARKED : SET,
                   (size_t)size);
            ptx_generic_wrote(t, off, (size_t)size);
        } else if ((vm >> l) & 1)
            ptx_value_used(i, t, "adds into global memory");
        memcpy(p, &next, (size_t)size);
        if (in->op == OP_ATOM) {
            put(o[0].reg, t, old, ty);
            if (was_marked)
                *mark(o[0].reg, w) |= 1u << l;
            else
                *mark(o[0].reg, w) &= ~(1u << l);
        }
    }
    ptx_price_warp(i, 1, 1);
    return 0;
}

static int exec_cp_async(const struct step *s)
{
    STEP_NAMES(s);
    int rc = ptx_cp_async(in, i, w, exec);
    if (rc)
        return rc;
    return 0;
}

static int exec_tensor(const struct step *s)
{
    STEP_NAMES(s);
    /* The whole warp here together: at once; else its lanes meet as at a shuffle (resolve),
     * the warp's 32 lanes for a mask. */
    if (exec != ~0u || X.threads - first < 32) {
        FOR_LANES(exec, l)
            X.state[first + (int)l] = AT_WARP;
        FOR_LANES(active & ~exec, l)
            X.pc[first + (int)l]++;
        return PC_MOVED;
    }
    return ptx_full_warp(in, i, w);
}

int ptx_full_warp(const struct ptx_insn *in, int i, int w)
{
    return in->op == OP_LDMATRIX ? ptx_ldmatrix(in, i, w) : in->op == OP_MMA ? ptx_mma(in, w) : ptx_wgmma(in, i, w);
}

/* mbarrier's: lanes whose wait goes on stay at it (AT_MBARRIER) until its phase completes. */
static int exec_mbarrier(const struct step *s)
{
    STEP_NAMES(s);
    uint32_t blocked;
    int rc = ptx_mbarrier(in, i, w, exec, &blocked);
    if (rc)
        return rc;
    FOR_LANES(s->active & ~blocked, l)
        X.pc[first + (int)l]++;
    return PC_MOVED;
}

static int exec_bulk_tensor(const struct step *s)
{
    STEP_NAMES(s);
    return ptx_bulk_tensor(in, i, w, exec);
}

/* membar and fence: nothing to order in a block that runs one warp at a time (the race check is
 * told, for its sentence), but the proxy fences let the async proxy see the ordinary stores and
 * mbarrier inits before them (ptx_async.c). */
static int exec_fence(const struct step *s)
{
    int sub = s->in->sub;
    if (sub != FENCE_PROXY_ASYNC && sub != FENCE_MBAR_INIT) {
        emu_trace_fence();
        return 0;
    }
    FOR_LANES(s->exec, l) {
        X.init_fences[s->w * 32 + (int)l]++;
        if (sub == FENCE_PROXY_ASYNC)
            X.proxy_fences[s->w * 32 + (int)l]++;
    }
    return 0;
}

static int exec_call(const struct step *s)
{
    STEP_NAMES(s);
    FOR_LANES(exec, l) {
        int rc = ptx_print(i, first + (int)l);
        if (rc)
            return rc;
    }
    return 0;
}

static int (*const handlers[])(const struct step *) = {
    [OP_MOV] = exec_mov,
    [OP_CVTA] = exec_convert,
    [OP_CVT] = exec_convert,
    [OP_LD] = exec_load,
    [OP_ST] = exec_store,
    [OP_ADD] = exec_binary,
    [OP_SUB] = exec_binary,
    [OP_MUL] = exec_binary,
    [OP_DIV] = exec_binary,
    [OP_REM] = exec_binary,
    [OP_MIN] = exec_binary,
    [OP_MAX] = exec_binary,
    [OP_AND] = exec_binary,
    [OP_OR] = exec_binary,
    [OP_XOR] = exec_binary,
    [OP_SHL] = exec_binary,
    [OP_SHR] = exec_binary,
    [OP_COPYSIGN] = exec_binary,
    [OP_MUL24] = exec_binary,
    [OP_MAD] = exec_fused,
    [OP_FMA] = exec_fused,
    [OP_MAD24] = exec_fused,
    [OP_NEG] = exec_unary,
    [OP_ABS] = exec_unary,
    [OP_NOT] = exec_unary,
    [OP_CNOT] = exec_unary,
    [OP_RCP] = exec_unary,
    [OP_SQRT] = exec_unary,
    [OP_POPC] = exec_unary,
    [OP_CLZ] = exec_unary,
    [OP_BREV] = exec_unary,
    [OP_BFE] = exec_bits,
    [OP_BFI] = exec_bits,
    [OP_BFIND] = exec_bits,
    [OP_SHF] = exec_bits,
    [OP_PRMT] = exec_bits,
    [OP_SAD] = exec_bits,
    [OP_TESTP] = exec_bits,
    [OP_SETP] = exec_compare,
    [OP_SET] = exec_compare,
    [OP_SELP] = exec_select,
    [OP_BRA] = exec_branch,
    [OP_RET] = exec_exit,
    [OP_EXIT] = exec_exit,
    [OP_TRAP] = exec_trap,
    [OP_MEMBAR] = exec_fence,
    [OP_NANOSLEEP] = exec_nothing,
    [OP_PMEVENT] = exec_nothing,
    [OP_BAR] = exec_barrier,
    [OP_BAR_WARP] = exec_warp_wide,
    [OP_SHFL] = exec_warp_wide,
    [OP_VOTE] = exec_warp_wide,
    [OP_MATCH] = exec_warp_wide,
    [OP_REDUX] = exec_warp_wide,
    [OP_ACTIVEMASK] = exec_activemask,
    [OP_ATOM] = exec_atomic,
    [OP_RED] = exec_atomic,
    [OP_CP_ASYNC] = exec_cp_async,
    [OP_LDMATRIX] = exec_tensor,
    [OP_MMA] = exec_tensor,
    [OP_WGMMA] = exec_tensor,
    [OP_MBARRIER] = exec_mbarrier,
    [OP_BULK_TENSOR] = exec_bulk_tensor,
    [OP_CALL] = exec_call,
};

/* A guard whose value came from memory nobody wrote (lanes pm) decides whether the instruction
 * writes its result there: that result, written or kept, is marked so too. */
static void guard_marks(const struct ptx_insn *in, int w, uint32_t pm)
{
    const struct ptx_operand *d = &in->o[0];
    if (!pm || in->nops == 0 || in->op == OP_ST || in->op == OP_RED || in->op == OP_BRA || in->op == OP_BAR ||
        in->op == OP_BAR_WARP || in->op == OP_RET || in->op == OP_EXIT)
        return;
    if (d->kind == K_REG && d->reg >= 0)
        *mark(d->reg, w) |= pm;
    else if (d->kind == K_VEC)
        for (int e = 0; e < d->nvec; e++)
            if (d->vec[e] >= 0)
                *mark(d->vec[e], w) |= pm;
}

/* Executes instruction i for the lanes of `active` (all at i) of warp w: the guard, the counts,
 * then its class's handler. Returns 0, or an EMU_* code with X.error set. */
int ptx_step(int w, int i, uint32_t active)
{
    const struct ptx_insn *in = &X.k->insns[i];
    int first = w * 32;
    uint32_t exec = active, pm = 0;
    X.running_insn = i;
    if (in->pred >= 0) {
        uint32_t on = 0;
        FOR_LANES(active, l) {
            int t = first + (int)l;
            if (((*reg(in->pred, t) & 1) != 0) != in->pred_neg)
                on |= 1u << l;
        }
        exec = on;
        pm = *mark(in->pred, w) & active;
        if (pm && (in->op == OP_BRA || in->op == OP_ST || in->op == OP_ATOM || in->op == OP_RED || in->op == OP_RET ||
                   in->op == OP_EXIT))
            ptx_value_used(i, first + __builtin_ctz(pm), "decides a branch with");
    }
    if (X.counting) {
        ptx_follow_loads(in, i, w, active, exec);
        emu_trace_issue(issue_kind(in));
    }
    if ((in->op == OP_FMA || in->op == OP_MAD || in->op == OP_MUL) && is_f(in->type))
        emu_trace_core_multiplies((uint64_t)__builtin_popcount(exec));
    if (exec == ~0u && ptx_whole_warp(in, w)) {
        int *pc = &X.pc[first];
        for (int l = 0; l < 32; l++)
            pc[l]++;
        guard_marks(in, w, pm);
        return 0;
    }
    const struct step s = {in, i, w, active, exec};
    int (*handler)(const struct step *) = (size_t)in->op < sizeof handlers / sizeof *handlers ? handlers[in->op] : NULL;
    if (!handler) {
        char where[160];
        return ptx_fail(EMU_BAD_LAUNCH, "the instruction %s (%s) is not one the interpreter runs yet", in->text,
                    ptx_where(i, where, sizeof where));
    }
    int rc = handler(&s);
    if (rc)
        return rc == PC_MOVED ? 0 : rc;
    guard_marks(in, w, pm);
    FOR_LANES(active, l)
        X.pc[first + (int)l]++;
    return 0;
}


