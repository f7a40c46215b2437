/* The PTX interpreter's engine (ptx_exec.h): running a launch. Its other rooms, which share
 * ptx_engine.h, run an instruction (ptx_insn.c), a whole warp at once (ptx_warp.c) and memory
 * (ptx_memory.c).
 *
 * Scheduling. Blocks run one after another. In a block, each warp runs in lockstep: of its
 * lanes that can go on, those at the lowest instruction index execute it together (nvcc lays
 * out structured code so that a branch's paths come before the point where they meet, so this
 * reconverges where an immediate post-dominator stack would). A lane stops at bar.sync (until
 * every thread of the block has arrived), at a warp's collective operation (until every lane
 * its mask names has arrived at one) or at its end. A block's warps run one after another up to
 * each barrier, in the order the schedule gives (emu_set_schedule: forward, backward or drawn from
 * the seed), so that a missing barrier gives wrong results under some order rather than by luck.
 *
 * Values. A read of shared memory that no thread of the block has written is not an error in
 * itself (compilers load speculatively): the value is marked, the mark follows it through
 * registers and shared memory, and it is an error where it reaches global memory, an address or
 * a branch.
 *
 * Memory (ptx_memory.c). Every shared and global access goes through the emulator's tracer, which
 * checks it before it happens, finds races between barriers and prices each warp instruction in
 * banks and sectors (bank_model.h). Instruction i is the tracer's code address i + 1. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx_engine.h"

struct emu_uint3 blockIdx, blockDim, gridDim;
struct ptx_engine X;

const char *ptx_where(int insn, char *buf, size_t len)
{
    if (!X.k || insn < 0 || insn >= X.k->ninsns) {
        snprintf(buf, len, "?");
        return buf;
    }
    const struct ptx_insn *in = &X.k->insns[insn];
    const char *file = in->file == 1 && X.L->source ? X.L->source
                       : in->file >= 1 && in->file <= PTX_MAX_FILES && X.L->m->files[in->file] ? X.L->m->files[in->file]
                                                                                                : "?";
    if (in->line && in->call_line)
        snprintf(buf, len, "%s:%d:%d, called at line %d", file, in->line, in->col, in->call_line);
    else if (in->line)
        snprintf(buf, len, "%s:%d:%d", file, in->line, in->col);
    else
        snprintf(buf, len, "%s (instruction %d: %s)", file, insn, in->text);
    return buf;
}

/* ---- the runtime interface the tracer and emu_job.c expect (emu.h) ---- */
static void (*fatal_handler)(const char *sentence);

void emu_set_fatal_handler(void (*handler)(const char *sentence))
{
    fatal_handler = handler;
}

const char *emu_error(void)
{
    return X.error;
}

const char *emu_where(uintptr_t pc, char *buf, size_t len)
{
    return ptx_where((int)pc - 1, buf, len);
}

const char *emu_line_where(uintptr_t pc, char *buf, size_t len)
{
    ptx_where((int)pc - 1, buf, len);
    int i = (int)pc - 1;
    if (X.touches && i >= 0 && i < X.k->ninsns && X.touches[i])
        snprintf(buf + strlen(buf), len - strlen(buf), " (%s)", X.touches[i]);
    return buf;
}

/* The shared array at offset off of the block's shared memory, by its name in the source (nvcc
 * names a kernel's array _ZZ<kernel>E<length><name>), or NULL. */
const char *ptx_shared_array(size_t off)
{
    const struct ptx_module *m = X.L->m;
    for (int v = X.k->first_var; v < X.k->first_var + X.k->nvars; v++) {
        const struct ptx_var *var = &m->vars[v];
        if (var->space != S_SHARED || off < var->offset || off >= var->offset + var->bytes)
            continue;
        const char *e = strrchr(var->name, 'E'), *name = var->name;
        if (e && e[1] >= '0' && e[1] <= '9') {
            name = e + 1;
            while (*name >= '0' && *name <= '9')
                name++;
        }
        return name;
    }
    return NULL;
}


size_t emu_shared_array_start(size_t off)
{
    for (int v = X.k ? X.k->first_var : 0; X.k && v < X.k->first_var + X.k->nvars; v++) {
        const struct ptx_var *var = &X.L->m->vars[v];
        if (var->space == S_SHARED && off >= var->offset && off < var->offset + var->bytes)
            return var->offset;
    }
    return off;
}

void emu_stop_at_bad_access(void)
{
    if (!fatal_handler)
        return;
    emu_report_bad_access(X.error, sizeof X.error);
    fatal_handler(X.error);
    abort();
}

const char *ptx_thread_name(int t, char *buf, size_t len)
{
    unsigned bx = blockDim.x ? blockDim.x : 1;
    snprintf(buf, len, "thread (%u,%u)", (unsigned)t % bx, (unsigned)t / bx);
    return buf;
}

void emu_wild_access(uintptr_t pc, const void *addr, int is_write)
{
    char where[160], who[40];
    snprintf(X.error, sizeof X.error,
             "block (%u,%u): %s %s memory it was not given, at %p (%s): nowhere near its inputs, its output, its "
             "shared memory or its own variables. A kernel may touch only those; the run was stopped",
             blockIdx.x, blockIdx.y, ptx_thread_name(X.running_thread, who, sizeof who), is_write ? "writes" : "reads",
             addr, emu_where(pc, where, sizeof where));
    if (fatal_handler)
        fatal_handler(X.error);
    abort();
}

void emu_describe_spin(uintptr_t pc, char *buf, size_t len)
{
    char where[160], who[40];
    (void)pc;
    snprintf(buf, len, "%s of block (%u,%u) was running %s when it was stopped",
             ptx_thread_name(X.running_thread, who, sizeof who), blockIdx.x, blockIdx.y,
             ptx_where(X.running_insn, where, sizeof where));
}

/* ---- errors ---- */
int ptx_fail(int kind, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(X.error, sizeof X.error, fmt, ap);
    va_end(ap);
    return kind;
}

/* A marked value used where it matters: the first such use, kept for the block's end. */
void ptx_value_used(int insn, int t, const char *what)
{
    struct emu_bad_access first;
    if (X.value_error || emu_trace_bad_access(&first)) /* the first error is the one reported */
        return;
    char where[160], who[40];
    X.value_error = 1;
    if (!X.shared_marks) {
        snprintf(X.value_sentence, sizeof X.value_sentence,
                 "block (%u,%u): %s %s a value computed from a variable that was never given one (%s): on a GPU "
                 "it holds whatever an earlier kernel or warp left in that register. Give it its value first "
                 "(`float acc = 0.0f;`, not `float acc;`)",
                 blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), what, ptx_where(insn, where, sizeof where));
        return;
    }
    /* (the block's first such read: a value's own read is not tracked, so the words say which) */
    char at[150], read_at[sizeof at + 64] = ""; /* (room for the words and the whole place) */
    if (X.unset_read && strcmp(ptx_where(X.unset_read - 1, at, sizeof at), ptx_where(insn, where, sizeof where))) {
        /* in the same file as the use: its line alone (the sentence must fit its 600 bytes) */
        size_t file = 0;
        while (where[file] && !(where[file] == ':' && where[file + 1] >= '0' && where[file + 1] <= '9'))
            file++;
        int same = where[file] && strncmp(at, where, file + 1) == 0;
        snprintf(read_at, sizeof read_at, "; the block first read unwritten shared memory at %s%s",
                 same ? "line " : "", same ? at + file + 1 : at);
    }
    int n = snprintf(X.value_sentence, sizeof X.value_sentence,
                     "block (%u,%u): %s %s a value it read from shared memory that no thread of the block has "
                     "written (%s%s): ",
                     blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), what,
                     ptx_where(insn, where, sizeof where), read_at);
    n = n < 0 ? 0 : n >= (int)sizeof X.value_sentence ? (int)sizeof X.value_sentence - 1 : n;
    if (X.unlanded)
        snprintf(X.value_sentence + n, sizeof X.value_sentence - (size_t)n,
                 "a cp.async (%s) copies there, but its copy had not landed: a cp.async.wait_group (or wait_all) "
                 "for its group, then a barrier, must come before the read",
                 ptx_where(X.unlanded - 1, where, sizeof where));
    else if (X.proxy_stamp)
        snprintf(X.value_sentence + n, sizeof X.value_sentence - (size_t)n,
                 "a stage read before its tensor copy was issued or had landed (a wait on its mbarrier's other "
                 "phase, the wrong parity?), or a tile element nobody loaded");
    else
        snprintf(X.value_sentence + n, sizeof X.value_sentence - (size_t)n,
                 "a tile element nobody loaded, an index outside the loaded part, or a read that maps indices "
                 "differently from the write");
}

/* An unwritten shared byte at off was read by instruction insn: the first such read, and the
 * cp.async, if any, whose copy was to write it. */
void ptx_note_unlanded(int insn, size_t off)
{
    if (!X.unset_read)
        X.unset_read = insn + 1;
    for (int t = 0; X.copies_pending && t < X.threads && !X.unlanded; t++)
        for (int k = 0; k < X.ncopies[t]; k++) {
            const struct pending_copy *c = &X.copies[t][k];
            if (off >= c->dst && off < (size_t)c->dst + c->bytes) {
                X.unlanded = c->insn + 1;
                break;
            }
        }
}

/* ---- one warp ---- */

/* The lanes of warp w that are READY at the lowest instruction: their mask, and that index;
 * *all: whether they are all the warp's READY lanes (the warp has not diverged). */
static uint32_t next_group(int w, int *pc, int *all)
{
    int first = w * 32, lanes = X.threads - first < 32 ? X.threads - first : 32, lo = -1, others = 0;
    uint32_t m = 0;
    for (int l = 0; l < lanes; l++) {
        int t = first + l;
        if (X.state[t] != READY)
            continue;
        if (lo < 0 || X.pc[t] < lo) {
            others += m != 0;
            lo = X.pc[t];
            m = 1u << l;
        } else if (X.pc[t] == lo)
            m |= 1u << l;
        else
            others = 1;
    }
    *pc = lo;
    *all = !others;
    return m;
}


static const char *op_name(const struct ptx_insn *in)
{
    switch (in->op) {
    case OP_BAR_WARP: return "__syncwarp";
    case OP_SHFL:
        return in->sub == SHFL_UP ? "__shfl_up_sync" : in->sub == SHFL_DOWN ? "__shfl_down_sync"
               : in->sub == SHFL_BFLY ? "__shfl_xor_sync" : "__shfl_sync";
    case OP_VOTE:
        return in->sub == VOTE_BALLOT ? "__ballot_sync" : in->sub == VOTE_ALL ? "__all_sync"
               : in->sub == VOTE_ANY ? "__any_sync" : "__uni_sync";
    case OP_MATCH: return in->sub == MATCH_ALL ? "__match_all_sync" : "__match_any_sync";
    case OP_REDUX: return "__reduce_*_sync";
    default: return in->text;
    }
}

/* The mask operand of a warp operation (its last). */
static uint32_t op_mask(const struct ptx_insn *in, int t)
{
    if (in->op == OP_LDMATRIX || in->op == OP_MMA || in->op == OP_WGMMA) /* .sync.aligned: the whole warp */
        return ~0u;
    return (uint32_t)val(&in->o[in->nops - 1], T_B32, t);
}

/* Lane l's shfl.sync of warp w, from the values in_val of the lanes of mask (value_marks: those
 * marked): 0, or an EMU_* code with X.error set. */
static int complete_shfl(const struct ptx_insn *in, int w, uint32_t l, uint32_t mask, const uint64_t *in_val,
                         uint32_t value_marks)
{
    const struct ptx_operand *o = in->o;
    int t = w * 32 + (int)l;
    char who[40], where[160];
    /* shfl.sync.MODE.b32 d[|p], a, b, c, mask: c packs the segment mask and the clamp */
    /* b's low 5 bits, the lane or the offset (the H200 ignores the rest: conformance record) */
    uint32_t b = (uint32_t)val(&o[2], T_U32, t) & 0x1f, c = (uint32_t)val(&o[3], T_U32, t);
    int lane = (int)l, max = (int)(c & 0x1f), seg = (int)((c >> 8) & 0x1f);
    int minl = lane & seg, maxl = minl | (max & ~seg), src = lane, ok;
    switch (in->sub) {
    case SHFL_UP: src = lane - (int)b; ok = src >= maxl; break;
    case SHFL_DOWN: src = lane + (int)b; ok = src <= maxl; break;
    case SHFL_BFLY: src = lane ^ (int)b; ok = src <= maxl; break;
    default: src = minl | ((int)b & ~seg); ok = src <= maxl; break;
    }
    if (!ok)
        src = lane;
    if (src < 0 || src > 31)
        src = lane, ok = 0;
    if (ok && !(mask >> src & 1)) {
        return ptx_fail(EMU_WARP_MISMATCH,
                    "block (%u,%u): %s reads lane %d with %s (%s), but lane %d is not in the mask 0x%08x: a "
                    "value from a lane that does not take part is undefined on a GPU",
                    blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), src, op_name(in),
                    ptx_where(X.pc[t], where, sizeof where), src, op_mask(in, t));
    }
    int dst = o[0].kind == K_VEC ? o[0].vec[0] : o[0].reg;
    put(dst, t, in_val[src], in->type);
    set_marks(dst, w, 1u << l, (value_marks >> src) & 1 ? 1u << l : 0);
    if (o[0].kind == K_VEC && o[0].vec[1] >= 0) {
        put(o[0].vec[1], t, (uint64_t)ok, T_PRED);
        set_marks(o[0].vec[1], w, 1u << l, 0);
    }
    return 0;
}

/* redux.sync's result over the lanes of m, from their values in_val. */
static int64_t redux(const struct ptx_insn *in, uint32_t m, const uint64_t *in_val)
{
    int s = ptx_type_signed(in->type);
    int64_t acc = 0;
    int started = 0;
    FOR_LANES(m, k) {
        int64_t v = s ? (int64_t)(int32_t)in_val[k] : (int64_t)(uint32_t)in_val[k];
        if (!started)
            acc = v, started = 1;
        else if (in->sub == ATOM_ADD) acc += v;
        else if (in->sub == ATOM_MIN) acc = v < acc ? v : acc;
        else if (in->sub == ATOM_MAX) acc = v > acc ? v : acc;
        else if (in->sub == ATOM_AND) acc &= v;
        else if (in->sub == ATOM_OR) acc |= v;
        else acc ^= v;
    }
    return acc;
}

/* Completes the warp operation the lanes of `mask` (all waiting) meet at. */
static int complete(int w, uint32_t mask)
{
    int first = w * 32;
    uint32_t value_marks = 0;
    int at = X.pc[first + __builtin_ctz(mask)];
    const struct ptx_insn *warp_in = &X.k->insns[at];
    if (warp_in->op == OP_LDMATRIX || warp_in->op == OP_MMA || warp_in->op == OP_WGMMA) { /* lanes that came
                                                                                             apart, together again */
        int rc = ptx_full_warp(warp_in, at, w);
        if (rc)
            return X.warp_kind = rc, -1;
        FOR_LANES(mask, l) {
            X.state[first + (int)l] = READY;
            X.pc[first + (int)l]++;
        }
        return 0;
    }
    /* values read before any lane's result is written */
    uint64_t in_val[32];
    FOR_LANES(mask, l) {
        const struct ptx_insn *in = &X.k->insns[X.pc[first + (int)l]];
        in_val[l] = in->op == OP_BAR_WARP ? 0 : val(&in->o[1], in->op == OP_VOTE ? T_PRED : in->type, first + (int)l);
        if (in->op != OP_BAR_WARP && in->o[1].kind == K_REG)
            value_marks |= *mark(in->o[1].reg, w) & (1u << l);
    }
    uint32_t ballot = 0;
    FOR_LANES(mask, l)
        if (in_val[l] & 1)
            ballot |= 1u << l;
    FOR_LANES(mask, l) {
        int t = first + (int)l;
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        const struct ptx_operand *o = in->o;
        switch (in->op) {
        case OP_SHFL: {
            int rc = complete_shfl(in, w, l, mask, in_val, value_marks);
            if (rc)
                return rc;
            break;
        }
        case OP_VOTE: {
            uint32_t m = op_mask(in, t) & mask;
            uint64_t r = in->sub == VOTE_BALLOT ? (ballot & m)
                         : in->sub == VOTE_ALL   ? ((ballot & m) == m)
                         : in->sub == VOTE_ANY   ? ((ballot & m) != 0)
                                                 : ((ballot & m) == 0 || (ballot & m) == m);
            put(o[0].reg, t, r, in->sub == VOTE_BALLOT ? T_B32 : T_PRED);
            set_marks(o[0].reg, w, 1u << l, value_marks & m ? 1u << l : 0);
            break;
        }
        case OP_MATCH: { /* match.any d, match.all d|p */
            uint32_t same = 0, m = op_mask(in, t) & mask;
            int dst = o[0].kind == K_VEC ? o[0].vec[0] : o[0].reg;
            FOR_LANES(m, k)
                if (in_val[k] == in_val[l])
                    same |= 1u << k;
            put(dst, t, in->sub == MATCH_ANY ? same : same == m ? m : 0, T_B32);
            set_marks(dst, w, 1u << l, value_marks & m ? 1u << l : 0);
            if (o[0].kind == K_VEC) {
                put(o[0].vec[1], t, (uint64_t)(same == m), T_PRED);
                set_marks(o[0].vec[1], w, 1u << l, value_marks & m ? 1u << l : 0);
            }
            break;
        }
        case OP_REDUX: {
            uint32_t m = op_mask(in, t) & mask;
            put(o[0].reg, t, (uint64_t)redux(in, m, in_val), in->type);
            set_marks(o[0].reg, w, 1u << l, value_marks & m ? 1u << l : 0);
            break;
        }
        default: /* __syncwarp */
            break;
        }
    }
    FOR_LANES(mask, l) {
        int t = first + (int)l;
        X.state[t] = READY;
        X.pc[t]++;
        X.epoch[t]++;
    }
    return 0;
}

/* A lane an mbarrier holds back (a wait not done, an arrival with products in flight): it comes
 * to the warp's operation in a later round. */
static int held_back(int t)
{
    return X.state[t] == AT_MBARRIER || X.state[t] == YIELDED;
}

/* Completes every warp operation of warp w whose lanes have all arrived, when none of its lanes
 * can go on. A lane a mask names that returned, waits at a barrier or at another operation can
 * never arrive: an error (one an mbarrier holds back comes later). Returns how many completed, or
 * -1 with X.error set. */
int ptx_resolve(int w)
{
    int first = w * 32, lanes = X.threads - first < 32 ? X.threads - first : 32, completed = 0;
    int apart_lane = -1, apart_other = -1; /* the first two lanes found at different operations */
    char who[40], other[40], where[160], there[160];
    for (int l = 0; l < lanes; l++) {
        int t = first + l;
        if (X.state[t] != AT_WARP)
            continue;
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        uint32_t mask = op_mask(in, t);
        /* who and where: formatted only for a failure's sentence (this loop runs at every warp operation) */
#define NAME_THIS() (ptx_where(X.pc[t], where, sizeof where), ptx_thread_name(t, who, sizeof who))
        if (in->op == OP_LDMATRIX || in->op == OP_MMA || in->op == OP_WGMMA) { /* every lane of a full warp */
            int coming = 0; /* a lane an operation completed above goes on, and may come here */
            for (int k = 0; k < lanes; k++)
                coming |= X.state[first + k] == READY || held_back(first + k);
            for (int k = 0; k < 32 && !coming; k++) {
                int u = first + k;
                if (k < lanes && X.state[u] == AT_WARP && X.pc[u] == X.pc[t])
                    continue;
                char why[300];
                NAME_THIS();
                if (k >= lanes)
                    snprintf(why, sizeof why, "the warp has only %d threads (the block has %d)", lanes, X.threads);
                else
                    snprintf(why, sizeof why, "lane %d, %s, %s%s", k, ptx_thread_name(u, other, sizeof other),
                             X.state[u] == EXITED ? "has returned" : X.state[u] == AT_BARRIER ? "waits at __syncthreads() in "
                             : "waits at another warp operation in ",
                             X.state[u] == EXITED ? "" : ptx_where(X.pc[u], there, sizeof there));
                ptx_fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): %s runs %s (%s), a warp instruction (.sync.aligned) that every lane of a full "
                     "warp must reach, but %s",
                     blockIdx.x, blockIdx.y, who, in->text, where, why);
                return -1;
            }
            if (coming)
                continue;
            if (complete(w, ~0u))
                return -1;
            completed++;
            continue;
        }
        const struct ptx_operand *mo = &in->o[in->nops - 1];
        if (mo->kind == K_REG && (*mark(mo->reg, w) >> l & 1))
            ptx_value_used(X.pc[t], t, "uses as a warp mask");
        if (!(mask >> l & 1)) {
            NAME_THIS();
            ptx_fail(EMU_WARP_MISMATCH,
                 "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, which leaves out its own lane %d: every "
                 "lane that calls it must be in the mask",
                 blockIdx.x, blockIdx.y, who, op_name(in), where, mask, l);
            return -1;
        }
        if (lanes < 32 && (mask >> lanes) != 0) {
            NAME_THIS();
            ptx_fail(EMU_WARP_MISMATCH,
                 "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, which names lane %d, but its warp has only "
                 "%d threads (the block has %d)",
                 blockIdx.x, blockIdx.y, who, op_name(in), where, mask, lanes + __builtin_ctz(mask >> lanes), lanes,
                 X.threads);
            return -1;
        }
        int coming = 0;
        for (int k = 0; k < 32 && !coming; k++) {
            if (!(mask >> k & 1) || k == l)
                continue;
            int u = first + k;
            const struct ptx_insn *g = &X.k->insns[X.pc[u] < X.k->ninsns ? X.pc[u] : 0];
            if (X.state[u] == AT_WARP && g->op == in->op && op_mask(g, u) == mask)
                continue;
            /* held back, or freed by an operation of part of the warp completed above: it may still come */
            if (held_back(u) || X.state[u] == READY) {
                coming = 1;
                break;
            }
            NAME_THIS();
            ptx_thread_name(u, other, sizeof other);
            if (X.state[u] == EXITED)
                ptx_fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, but lane %d, %s, has returned: a lane "
                     "the mask names must call it too (an early `return`, or a mask wider than the lanes that get "
                     "there?)",
                     blockIdx.x, blockIdx.y, who, op_name(in), where, mask, k, other);
            else if (X.state[u] == AT_BARRIER)
                ptx_fail(EMU_WARP_MISMATCH,
                     "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, but lane %d, %s, waits at "
                     "__syncthreads() in %s: a lane the mask names must call it too",
                     blockIdx.x, blockIdx.y, who, op_name(in), where, mask, k, other,
                     ptx_where(X.pc[u], there, sizeof there));
            else { /* at another operation, which may complete on its own: a mismatch only if none does */
                if (apart_lane < 0)
                    apart_lane = l, apart_other = k;
                coming = 1;
                break;
            }
            return -1;
        }
        if (coming)
            continue;
        if (complete(w, mask))
            return -1;
        completed++;
    }
    if (completed || apart_lane < 0)
        return completed;
    int t = first + apart_lane, u = first + apart_other;
    const struct ptx_insn *in = &X.k->insns[X.pc[t]], *g = &X.k->insns[X.pc[u]];
    NAME_THIS();
    ptx_thread_name(u, other, sizeof other);
    ptx_fail(EMU_WARP_MISMATCH,
             "block (%u,%u): lanes %d and %d of a warp meet at different warp operations: %s calls %s (%s) with the "
             "mask 0x%08x, %s calls %s (%s) with the mask 0x%08x; the lanes of a mask must all call the same one",
             blockIdx.x, blockIdx.y, apart_lane, apart_other, who, op_name(in), where, op_mask(in, t), other,
             op_name(g), ptx_where(X.pc[u], there, sizeof there), op_mask(g, u));
    return -1;
#undef NAME_THIS
}

/* In the drawn order the block's slow warp, after each atomic (`atom` or `red`), waits while
 * the others go on, until they can go no further or for this many passes of them (each takes them
 * to their next such atomic): a warp that takes a ticket, then publishes, finds its publication
 * read before it by the warp the last ticket names; others spinning on a lock it holds are let
 * through. */
#define SLOW_HOLD 64

/* Runs warp w until none of its lanes can go on (or, in the drawn order, it stops at an atomic). */
static int run_warp(int w)
{
    if (w == X.slow_warp && X.slow_hold > 0)
        return 0;
    for (;;) {
        int pc, all;
        uint32_t active = next_group(w, &pc, &all);
        while (active) {
            if (pc >= X.k->ninsns) { /* ran off the end: as a return */
                FOR_LANES(active, l)
                    X.state[w * 32 + (int)l] = EXITED;
                active = next_group(w, &pc, &all);
                continue;
            }
            X.running_thread = w * 32 + __builtin_ctz(active);
            const struct ptx_insn *in = &X.k->insns[pc];
            if ((in->op == OP_ATOM || in->op == OP_RED) && X.slow_warp >= 0 && (X.atom_resumed[w] ^= 1)) {
                X.preempted = 1; /* the others run to theirs first: a read-then-CAS without its loop loses */
                return 0;
            }
            int rc = ptx_step(w, pc, active);
            if (rc)
                return rc;
            X.pass_steps++;
            if ((in->op == OP_ATOM || in->op == OP_RED) && w == X.slow_warp) {
                X.slow_hold = SLOW_HOLD, X.preempted = 1; /* the others go on past theirs */
                return 0;
            }
            /* A warp that has not diverged stays together through any instruction that neither
             * stops its lanes nor splits them: no need to look for the next group. */
            int target = in->op == OP_BRA ? X.pc[w * 32 + __builtin_ctz(active)] : pc + 1;
            if (all && in->op != OP_RET && in->op != OP_EXIT && in->op != OP_BAR && in->op != OP_BAR_WARP &&
                in->op != OP_SHFL && in->op != OP_VOTE && in->op != OP_MATCH && in->op != OP_REDUX &&
                in->op != OP_LDMATRIX && in->op != OP_MMA && in->op != OP_WGMMA && in->op != OP_MBARRIER) {
                int together = 1;
                if (in->op == OP_BRA)
                    FOR_LANES(active, l)
                        together &= X.pc[w * 32 + (int)l] == target;
                if (together) {
                    pc = target;
                    continue;
                }
            }
            active = next_group(w, &pc, &all);
        }
        int n = ptx_resolve(w);
        if (n < 0) {
            int kind = X.warp_kind ? X.warp_kind : EMU_WARP_MISMATCH;
            X.warp_kind = 0;
            return kind;
        }
        if (n == 0)
            return 0;
    }
}

/* Every thread at a barrier waits at the same one (by its source line: the compiler may copy a
 * barrier), and none has returned; else the sentence. */
static int check_barrier(void)
{
    int waiting = 0, exited = 0, other = 0, pc = -1, other_pc = -1, id = -1;
    for (int t = 0; t < X.threads; t++) {
        if (X.state[t] == EXITED) {
            exited++;
            continue;
        }
        if (id >= 0 && X.state[t] == AT_BARRIER && X.named_id[t] != id) {
            char a[160], b[160], who[40];
            return ptx_fail(EMU_BARRIER_DIVERGENCE,
                            "block (%u,%u): %s waits at barrier %d (%s) while other threads wait at barrier %d (%s), "
                            "each for the whole block: neither completes until every thread reaches the same one",
                            blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), X.named_id[t],
                            ptx_where(X.pc[t], a, sizeof a), id, ptx_where(pc, b, sizeof b));
        }
        if (id < 0 && X.state[t] == AT_BARRIER)
            id = X.named_id[t];
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        if (pc < 0 || X.pc[t] == pc ||
            (in->line && in->line == X.k->insns[pc].line && in->col == X.k->insns[pc].col)) {
            if (pc < 0)
                pc = X.pc[t];
            waiting++;
        } else {
            other_pc = X.pc[t];
            other++;
        }
    }
    if (waiting == 0 || (exited == 0 && other == 0))
        return 0;
    char a[160], b[160];
    ptx_where(pc, a, sizeof a);
    if (other)
        return ptx_fail(EMU_BARRIER_DIVERGENCE,
                    "block (%u,%u): %d threads wait at __syncthreads() in %s while %d wait at the one in %s: every "
                    "thread of a block must reach the same barriers",
                    blockIdx.x, blockIdx.y, waiting, a, other, ptx_where(other_pc, b, sizeof b));
    return ptx_fail(EMU_BARRIER_DIVERGENCE,
                "block (%u,%u): %d thread%s wait%s at __syncthreads() in %s while %d ha%s returned without reaching "
                "it: an early `return` before a barrier, or a barrier inside an `if` that only some threads enter? "
                "Threads outside the matrix must still reach it",
                blockIdx.x, blockIdx.y, waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "", a, exited,
                exited == 1 ? "s" : "ve");
}

/* No thread can go on and some wait at a barrier for some of the block's warps: the sentence. */
static int stuck_at_named(void)
{
    for (int t = 0; t < X.threads; t++)
        if (X.state[t] == AT_NAMED) {
            int id = X.named_id[t], exited = 0, elsewhere = 0;
            for (int u = 0; u < X.threads; u++)
                if (X.state[u] == EXITED)
                    exited++;
                else if (X.state[u] != AT_NAMED || X.named_id[u] != id)
                    elsewhere++;
            char who[40], where[160];
            return ptx_fail(EMU_BARRIER_DIVERGENCE,
                            "block (%u,%u): %s waits at barrier %d for %u threads (%s), which never completes: %u "
                            "arrived, %d threads have returned and %d wait elsewhere, and none can go on. A count "
                            "larger than the warps that reach it, or an early `return` before it?",
                            blockIdx.x, blockIdx.y, ptx_thread_name(t, who, sizeof who), id, X.named[id].count,
                            ptx_where(X.pc[t], where, sizeof where), X.named[id].arrived, exited, elsewhere);
        }
    return 0;
}

/* The order of a block's warps between two barriers (emu_set_schedule): forward, backward, or
 * drawn anew at every barrier from the seed and the block, so that a race between warps that
 * the race check cannot see (atomics beside plain accesses are seen; an order of float atomics
 * is not a race) shows as another output. The grid's blocks run in the same kind of order
 * (forward, backward, or drawn from the seed): a GPU runs them in no order it promises, so a
 * kernel whose block reads what another block wrote is a race between blocks. */
static struct {
    int order;
    uint64_t seed;
} S;

void emu_set_schedule(int order, uint64_t seed)
{
    S.order = order;
    S.seed = seed;
}

int ptx_schedule_order(void)
{
    return S.order;
}

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* In the drawn order, the block's slow warpgroup: the next one in each next block (the first drawn
 * from the seed), so that in a grid of as many blocks as the block has warpgroups each is slow in
 * one block, whatever the seed. A coin per wait let a race between warpgroups pass under some
 * seeds. -1 in the other orders. */
int ptx_schedule_slow_warpgroup(void)
{
    if (S.order != 2)
        return -1;
    uint64_t block = ((uint64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x, seed = S.seed;
    return (int)((splitmix(&seed) + block) % (uint64_t)((X.warps + 3) / 4));
}

/* The warps' order up to the next barrier into w[]. */
static void next_order(int *w, uint64_t *rnd)
{
    for (int k = 0; k < X.warps; k++)
        w[k] = S.order == 1 ? X.warps - 1 - k : k;
    if (S.order == 2)
        for (int k = X.warps - 1; k > 0; k--) { /* Fisher-Yates */
            int j = (int)(splitmix(rnd) % (uint64_t)(k + 1)), t = w[k];
            w[k] = w[j], w[j] = t;
        }
}

static int run_block(void)
{
    int order[MAX_WARPS];
    uint64_t rnd = S.seed ^ ((((uint64_t)blockIdx.z << 16 ^ blockIdx.y) << 32 | blockIdx.x) * 0xD1B54A32D192ED03ull);
    uint32_t poison = SHARED_POISON_BITS;
    for (size_t p = 0; p + 4 <= X.shared_bytes; p += 4)
        memcpy(X.shared + p, &poison, 4);
    memset(X.shared_state, UNSET, X.shared_bytes);
    memset(X.local, 0, X.local_bytes * (size_t)X.threads);
    memset(X.local_state, UNSET, X.local_bytes * (size_t)X.threads);
    memset(X.regs, 0, (size_t)X.k->nregs * (size_t)X.threads * sizeof *X.regs);
    memset(X.marks, 0xFF, (size_t)X.k->nregs * (size_t)X.warps * sizeof *X.marks); /* nothing written */
    X.shared_marks = 0;
    memset(X.atom_resumed, 0, sizeof X.atom_resumed);
    X.slow_warp = -1, X.slow_hold = 0;
    if (S.order == 2 && X.warps > 1) { /* the next warp in each next block, the first drawn from the seed */
        uint64_t block = ((uint64_t)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x, seed = S.seed ^ 0x5A;
        X.slow_warp = (int)((splitmix(&seed) + block) % (uint64_t)X.warps);
    }
    for (int t = 0; t < X.threads; t++) {
        X.pc[t] = 0;
        X.state[t] = READY;
        X.epoch[t] = 0;
        X.issued[t] = X.done[t] = X.in_flight[t] = 0, X.nstored[t] = 0;
        X.ncopies[t] = 0, X.committed[t] = 0, X.copy_bytes[t] = 0; /* (copies never waited for are dropped) */
    }
    X.unlanded = 0, X.unset_read = 0, X.copies_pending = 0;
    memset(X.named, 0, sizeof X.named);
    ptx_async_block_start();
    if (X.counting)
        memset(X.dep, 0, (size_t)X.k->nregs * (size_t)X.threads * sizeof *X.dep);
    for (;;) {
        next_order(order, &rnd);
        do { /* again while a barrier for some warps releases them, or a warp was preempted at an
              * atomic: they go on in this round */
            X.named_progress = X.preempted = 0;
            X.pass_steps = 0;
            for (int k = 0; k < X.warps; k++) {
                int rc = run_warp(order[k]);
                if (rc)
                    return rc;
            }
            if (X.slow_hold > 0) /* held while the others go on; free once they cannot */
                X.slow_hold = X.pass_steps ? X.slow_hold - 1 : 0, X.preempted = 1;
        } while (X.named_progress || X.preempted);
        emu_trace_interval_end(X.threads, 32);
        /* threads at an mbarrier whose phase has completed go on, before any barrier is passed (the
         * race check's interval ends here too: what an mbarrier orders is no race to it); warps a
         * barrier for some warps released went on in the round (the do loop above) */
        int released = ptx_async_release();
        if (released < 0)
            return ptx_async_error();
        int waiting = 0;
        for (int t = 0; t < X.threads && !released; t++)
            waiting += X.state[t] == AT_BARRIER;
        int rc = released ? 0 : stuck_at_named();
        if (rc)
            return rc;
        rc = waiting ? check_barrier() : 0;
        if (rc)
            return rc;
        if (emu_report_race(X.error, sizeof X.error))
            return EMU_RACE;
        if (X.value_error) {
            snprintf(X.error, sizeof X.error, "%s", X.value_sentence);
            return EMU_UNSET_SHARED_READ;
        }
        int bad = emu_report_bad_access(X.error, sizeof X.error);
        if (bad)
            return bad;
        if (released)
            continue;
        if (!waiting)
            return 0;
        int count = 0, all = 1, any = 0, marked = 0;
        for (int t = 0; t < X.threads; t++)
            if (X.state[t] == AT_BARRIER) {
                count += X.vote[t];
                all &= X.vote[t];
                any |= X.vote[t];
                marked |= X.vote_marked[t];
            }
        for (int t = 0; t < X.threads; t++)
            if (X.state[t] == AT_BARRIER) {
                const struct ptx_insn *in = &X.k->insns[X.pc[t]];
                if (in->sub >= BAR_RED_POPC) {
                    uint64_t r = in->sub == BAR_RED_POPC ? (uint64_t)count : in->sub == BAR_RED_AND ? (uint64_t)all : (uint64_t)any;
                    put(in->o[0].reg, t, r, in->type == T_PRED ? T_PRED : T_U32);
                    /* one thread's vote from memory nobody wrote: every thread's answer so */
                    set_marks(in->o[0].reg, t / 32, 1u << (t % 32), marked ? 1u << (t % 32) : 0);
                }
                X.state[t] = READY;
                X.pc[t]++;
            }
        for (int id = 0; id < 16; id++) /* a barrier for some warps may meet other warps now */
            X.named[id].last = 0;
    }
}

/* Runs nrun of the grid's blocks (fewer than all): its four corners, where partial tiles lie,
 * then blocks drawn from the schedule's seed, none twice, in the order drawn; a sample of fewer
 * than four, drawn whole (a kernel cannot know which block is run). */
static int run_sample(const struct ptx_launch *L, size_t nrun)
{
    size_t nblocks = (size_t)L->grid[0] * L->grid[1] * L->grid[2], gx = L->grid[0], gy = L->grid[1];
    size_t *ids = malloc(nrun * sizeof *ids);
    if (!ids)
        return ptx_fail(EMU_OUT_OF_MEMORY, "out of memory for the sample of the grid's blocks");
    size_t corners[4] = {0, gx - 1, (gy - 1) * gx, gy * gx - 1}, n = 0;
    uint64_t rnd = S.seed ^ 0x5A3B1E5ull;
    for (int c = 0; n < nrun; c++) {
        size_t id = c < 4 && nrun >= 4 ? corners[c] : (size_t)(splitmix(&rnd) % (uint64_t)nblocks);
        size_t k = 0;
        while (k < n && ids[k] != id)
            k++;
        if (k == n)
            ids[n++] = id;
    }
    int rc = 0;
    for (size_t k = 0; k < nrun && rc == 0; k++) {
        size_t id = ids[k];
        blockIdx = (struct emu_uint3){(unsigned)(id % gx), (unsigned)(id / gx % gy), (unsigned)(id / gx / gy)};
        emu_trace_block((long)id);
        rc = run_block();
    }
    free(ids);
    return rc;
}

/* A launch the GPU would refuse before the kernel runs, said as it fails there: EMU_BAD_LAUNCH
 * with X.error set, else 0. */
static int refused_launch(const struct ptx_launch *L, unsigned threads)
{
    if (threads == 0 || threads > MAX_THREADS || !L->grid[0] || !L->grid[1] || !L->grid[2])
        return ptx_fail(EMU_BAD_LAUNCH, "invalid launch configuration");
    unsigned most = 1;
    const unsigned *req = X.k->reqntid;
    for (int d = 0; d < 3 && X.k->maxntid[d]; d++)
        most *= X.k->maxntid[d];
    if (X.k->maxntid[0] && threads > most)
        return ptx_fail(EMU_BAD_LAUNCH, "it promises blocks of at most %u threads (__launch_bounds__(%u) or .maxntid), "
                    "but the lesson launches blocks of %u: on a GPU the launch fails and the kernel never runs. Make "
                    "the first number at least %u, or leave __launch_bounds__ out",
                    most, most, threads, threads);
    if (req[0] && (req[0] != L->block[0] || (req[1] ? req[1] : 1) != L->block[1] || (req[2] ? req[2] : 1) != L->block[2]))
        return ptx_fail(EMU_BAD_LAUNCH, "it requires blocks of %u x %u x %u threads (.reqntid), but the lesson launches "
                    "%u x %u x %u: on a GPU the launch fails and the kernel never runs", req[0], req[1] ? req[1] : 1, req[2] ? req[2] : 1,
                    L->block[0], L->block[1], L->block[2]);
    /* The SM's register file (occupancy.h): a launch past it fails on the GPU before the kernel runs. */
    if (L->registers > 0 && occupancy_sm90((int)threads, L->registers, 0).blocks == 0)
        return ptx_fail(EMU_BAD_LAUNCH, "it cannot start with %u threads per block: it needs too many registers per "
                    "thread (%d, as ptxas compiled it for the GPU; %d of a block's 65536 where %u x %u threads "
                    "launch). On a GPU the launch fails (too many resources requested for launch) and the kernel "
                    "never runs. Keep fewer values live at once (a smaller array in registers), or give the "
                    "compiler the block's size with __launch_bounds__(%u)",
                    threads, L->registers, occupancy_block_registers((int)threads, L->registers), L->block[0],
                    L->block[1] * L->block[2], threads);
    if (X.k->shared_bytes > 48 * 1024)
        return ptx_fail(EMU_BAD_LAUNCH, "your kernel declares %zu bytes of static shared memory; a block may declare at "
                                    "most 49152 bytes statically (48 KB), on a GPU as here", X.k->shared_bytes);
    /* (a kernel that declares no extern __shared__ array has the bytes all the same, unused, as on a GPU) */
    if (L->dynamic_shared > PTX_MAX_SHARED || X.dynamic_offset + L->dynamic_shared > PTX_MAX_SHARED)
        return ptx_fail(EMU_BAD_LAUNCH, "a block of %zu bytes of shared memory (%zu of them extern __shared__): an "
                        "H200's block may have at most %d", X.dynamic_offset + L->dynamic_shared, L->dynamic_shared,
                        PTX_MAX_SHARED);
    if (X.k->local_bytes > 64 * 1024)
        return ptx_fail(EMU_BAD_LAUNCH, "the kernel's local arrays take %zu bytes per thread, more than the "
                                    "interpreter gives (64 KiB)", X.k->local_bytes);
    return 0;
}

/* A launch's arrays, kept from one launch to the next and grown where a launch needs more: each
 * launch's fresh megabytes (lesson 11's 288 threads' registers, its 200 KiB of shared memory) had
 * their pages faulted in again, a fifth of lesson 11's check in the emulator. 4096-aligned (the
 * shared window's alignment, and more than any other needs). */
struct kept_array {
    void *p;
    size_t bytes;
};
static struct {
    struct kept_array touches, dep, regs, marks, shared, shared_state, proxy_stamp, local, local_state;
} kept;

#ifndef __has_feature /* (clang's; gcc says __SANITIZE_ADDRESS__) */
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define EXACT_ARRAYS 1 /* under AddressSanitizer each launch's arrays their own size: an overrun shows */
#else
#define EXACT_ARRAYS 0
#endif

static void *launch_array(struct kept_array *a, size_t bytes)
{
    if (bytes <= a->bytes && !EXACT_ARRAYS)
        return a->p;
    free(a->p);
    a->bytes = EXACT_ARRAYS ? bytes : (bytes + 4095) / 4096 * 4096;
    if (posix_memalign(&a->p, 4096, a->bytes) != 0)
        a->p = NULL, a->bytes = 0;
    return a->p;
}

int ptx_run(const struct ptx_launch *L)
{
    memset(X.error, 0, sizeof X.error);
    X.launch = *L;
    X.L = L = &X.launch;
    X.k = L->k;
    X.value_error = 0;
    X.unlanded = 0;
    X.unset_read = 0;
    unsigned threads = L->block[0] * L->block[1] * L->block[2];
    size_t align = X.L->m->dynamic_align; /* extern __shared__ memory starts after the kernel's own */
    X.dynamic_offset = align ? (X.k->shared_bytes + align - 1) / align * align : X.k->shared_bytes;
    int refused = refused_launch(L, threads);
    if (refused)
        return refused;
    X.threads = (int)threads;
    X.warps = (int)((threads + 31) / 32);
    X.counting = emu_trace_counting();
    X.shared_bytes = L->dynamic_shared ? X.dynamic_offset + L->dynamic_shared : X.k->shared_bytes;
    X.local_bytes = (X.k->local_bytes + 15) / 16 * 16;
    int wgmma = 0;
    for (int i = 0; i < X.k->ninsns && !wgmma; i++)
        wgmma = X.k->insns[i].op == OP_WGMMA;
    /* Each block clears what it uses (run_block, ptx_async_block_start); touches alone is the launch's. */
    X.touches = X.counting ? launch_array(&kept.touches, ((size_t)X.k->ninsns + 1) * sizeof *X.touches) : NULL;
    if (X.touches)
        memset(X.touches, 0, ((size_t)X.k->ninsns + 1) * sizeof *X.touches);
    X.dep = X.counting ? launch_array(&kept.dep, ((size_t)X.k->nregs * threads + 1) * sizeof *X.dep) : NULL;
    X.regs = launch_array(&kept.regs, ((size_t)X.k->nregs * threads + 1) * sizeof *X.regs);
    X.marks = launch_array(&kept.marks, ((size_t)X.k->nregs * (size_t)X.warps + 1) * sizeof *X.marks);
    /* a window aligned as a GPU's: a kernel may align its own tiles in it by their address */
    X.shared = launch_array(&kept.shared, X.shared_bytes + 1);
    X.shared_state = launch_array(&kept.shared_state, X.shared_bytes + 1);
    X.proxy_stamp = wgmma ? launch_array(&kept.proxy_stamp, (X.shared_bytes / 16 + 1) * sizeof *X.proxy_stamp) : NULL;
    X.local = launch_array(&kept.local, X.local_bytes * threads + 64);
    X.local_state = launch_array(&kept.local_state, X.local_bytes * threads + 64);
    if (!X.regs || !X.marks || !X.shared || !X.shared_state || !X.local || !X.local_state || (X.counting && !X.dep) ||
        (X.counting && !X.touches) || (wgmma && !X.proxy_stamp))
        return ptx_fail(EMU_OUT_OF_MEMORY, "out of memory for the block's registers");
    blockDim = (struct emu_uint3){L->block[0], L->block[1], L->block[2]};
    gridDim = (struct emu_uint3){L->grid[0], L->grid[1], L->grid[2]};
    size_t nblocks = (size_t)L->grid[0] * L->grid[1] * L->grid[2];
    size_t nrun = L->sample && L->sample < nblocks ? L->sample : nblocks;
    emu_trace_threads((uint64_t)threads * nrun);
    emu_trace_set_shared((const char *)X.shared, (const char *)X.shared + X.shared_bytes);
    const void *readable[] = {X.L->m->const_data, X.L->m->string_data};
    const size_t bytes[] = {X.L->m->const_bytes, X.L->m->string_bytes};
    emu_trace_set_readable(readable, bytes, 2);
    int nb;
    const struct emu_buffer *b = emu_buffers(&nb);
    X.ninputs = 0; /* the inputs a plain read may skip the tracer for: not one made page by page */
    for (int i = 0; i < nb && X.ninputs < 4; i++)
        if (b[i].read_only && !b[i].lazy_seed) {
            X.inputs[X.ninputs].begin = (const unsigned char *)b[i].begin;
            X.inputs[X.ninputs++].end = (const unsigned char *)b[i].end;
        }
    emu_trace_reset_races();
    emu_trace_launch_begin();
    if (nrun < nblocks)
        return run_sample(L, nrun);
    uint32_t *drawn = S.order == 2 ? malloc(nblocks * sizeof *drawn) : NULL;
    if (S.order == 2 && !drawn)
        return ptx_fail(EMU_OUT_OF_MEMORY, "out of memory for the order of the grid's blocks");
    if (drawn) {
        uint64_t rnd = S.seed ^ 0xB10C5EEDull;
        for (size_t k = 0; k < nblocks; k++)
            drawn[k] = (uint32_t)k;
        for (size_t k = nblocks - 1; k > 0; k--) { /* Fisher-Yates */
            size_t j = (size_t)(splitmix(&rnd) % (uint64_t)(k + 1));
            uint32_t t = drawn[k];
            drawn[k] = drawn[j], drawn[j] = t;
        }
    }
    int rc = 0;
    for (size_t k = 0; k < nblocks && rc == 0; k++) {
        size_t id = S.order == 1 ? nblocks - 1 - k : drawn ? drawn[k] : k;
        blockIdx = (struct emu_uint3){(unsigned)(id % L->grid[0]), (unsigned)(id / L->grid[0] % L->grid[1]),
                                      (unsigned)(id / L->grid[0] / L->grid[1])};
        emu_trace_block((long)id);
        rc = run_block();
    }
    free(drawn);
    return rc;
}

