/* Hopper's asynchronous machinery, as the PTX ISA defines it: mbarriers (phases that complete when
 * the expected threads have arrived and the expected bytes have landed), the tensor memory
 * accelerator's copies (cp.async.bulk.tensor: a box of a tensor map into shared memory, swizzled as
 * the map says, completing bytes on an mbarrier), the proxy fence, and the warpgroup's matrix
 * product (wgmma.mma_async, reading A and B from shared memory through descriptors, retired by
 * wgmma.wait_group).
 *
 * Where a GPU leaves the time open, the interpreter takes the moment that shows a missing wait: in
 * the schedule drawn from the seed a copy lands when a thread waits for its mbarrier's phase (a
 * consumer that does not wait for it reads the stage before it); in the forward and backward ones
 * at once (a producer that overwrites a stage before its consumers are done shows there). A
 * product reads shared memory at its issue and finds it unchanged at its wait_group (the tensor
 * cores read it at some time between), and a warp that arrives at an mbarrier with products in
 * flight lets the other warps run first (a consumer that frees its stage before its products are
 * waited for shows in the backward schedule, the producer first). A wait for a phase that cannot
 * complete (every other thread waits or has returned) is said with what the mbarrier still
 * expects. docs/emulator.md says what each refusal is for. */
#include <stdio.h>
#include <string.h>

#include "ptx_engine.h"
#include "tensor_map.h"

#define MAX_MBARRIERS 64
#define MAX_BULK 256   /* copies in flight in a block */
#define MAX_WG_OPS 32  /* products in flight in a warp */

struct mbar {
    uint32_t off, expected, pending, phase;
    int64_t tx; /* bytes expected and not landed (negative: landed before they were expected) */
    uint32_t copied; /* 1 + the phase during which its latest copy was issued (0: none yet) */
    int init_thread;  /* who initialized it, and that thread's init fences then (X.init_fences) */
    uint32_t init_fences;
};
struct bulk {
    uint32_t dst, bar, bytes;
    uint32_t phase; /* its mbarrier's phase when it was issued: the one it completes */
    int bar_index;
    struct wb_tensor_map map;
    int32_t x, y;
    int insn;
};
struct wg_op {
    const struct ptx_insn *in;
    int insn, scale_d;
    uint64_t da, db;
    uint32_t group;         /* 0: not committed yet */
    const int *dreg;        /* its accumulators, nd of them */
    int nd;
    uint64_t read;          /* a hash of the shared bytes it read */
};
struct wg_warp {
    int nops;
    uint32_t groups; /* committed so far */
    uint32_t issued; /* products issued so far */
    struct wg_op ops[MAX_WG_OPS];
};
/* A warpgroup's products as its first warp to issue each gave them: the other three warps must give
 * the same (the k-th product of every warp of a warpgroup is one product). */
#define WG_SEEN 256
struct wg_seen {
    uint32_t seq; /* which product (+1; 0: none yet) */
    int insn, scale_d;
    uint64_t da, db;
};
static struct {
    struct mbar bar[MAX_MBARRIERS];
    int nbar;
    struct bulk bulk[MAX_BULK];
    int nbulk;
    struct wg_warp wg[MAX_WARPS];
    struct wg_seen seen[MAX_WARPS / 4][WG_SEEN];
    int timed_out[MAX_THREADS]; /* 1 + the try_wait that returned false once for the phase the thread waits
                                 * for: that instruction then waits (a loop around it); another is a new try */
    uint32_t waited[MAX_WARPS][MAX_MBARRIERS]; /* the phases of each mbarrier a warp has seen complete */
    /* m16n8k16s a warp issued while a copy on an mbarrier was ahead of it, credited as ahead once
     * the warp waits through that phase (a copy nobody waits for is no stage of the pipeline) */
    uint32_t pending[MAX_WARPS][MAX_MBARRIERS];
    uint32_t awaiting[MAX_WARPS][MAX_MBARRIERS]; /* ... waited through, until its products read the copy's bytes */
    uint8_t copy_bar[PTX_MAX_SHARED / 16 + 1]; /* 1 + the mbarrier of the copy that wrote the 16 bytes */
    uint32_t copy_phase[PTX_MAX_SHARED / 16 + 1]; /* ... and the phase it completed */
    /* Per 16 bytes of shared memory, the swizzle of the tensor copy that wrote them last, as a
     * descriptor's span: 16 (none), 32, 64, 128; 0: no copy (what an ordinary store wrote is the
     * proxy stamp's). A product's descriptor must name the same. */
    uint8_t copy_span[PTX_MAX_SHARED / 16 + 1];
    int copy_insn[PTX_MAX_SHARED / 16 + 1];
} A;

/* A block starts: no mbarrier, no copy or product in flight, no generic write waiting for a fence. */
void ptx_async_block_start(void)
{
    A.nbar = A.nbulk = 0;
    memset(A.timed_out, 0, sizeof A.timed_out);
    for (int w = 0; w < X.warps; w++)
        A.wg[w].nops = 0, A.wg[w].groups = 0, A.wg[w].issued = 0;
    if (!X.proxy_stamp) /* no wgmma in the kernel (every lesson before 11): nothing more to clear */
        return;
    memset(A.seen, 0, sizeof A.seen);
    memset(A.waited, 0, sizeof A.waited);
    memset(A.pending, 0, sizeof A.pending);
    memset(A.awaiting, 0, sizeof A.awaiting);
    memset(A.copy_bar, 0, (X.shared_bytes / 16 + 1) * sizeof *A.copy_bar);
    memset(A.copy_span, 0, (X.shared_bytes / 16 + 1) * sizeof *A.copy_span);
    memset(X.proxy_fences, 0, sizeof X.proxy_fences);
    memset(X.proxy_stamp, 0, (X.shared_bytes / 16 + 1) * sizeof *X.proxy_stamp);
}

static int last_kind; /* the last error's kind, for the callers of what returns NULL or -1 */

/* An mbarrier's 8 bytes while it lives (the interpreter keeps its state beside them): a store or a
 * copy over them changes them, which its next use finds. */
#define MBAR_BYTES "\x4d\x42\x41\x52\x80\x80\x80\x80"

static int fail_at(int kind, int i, int t, const char *what)
{
    char where[160], who[40];
    last_kind = kind;
    return ptx_fail(kind, "block (%u,%u): %s runs %s (%s): %s", blockIdx.x, blockIdx.y,
                    ptx_thread_name(t, who, sizeof who), X.k->insns[i].text, ptx_where(i, where, sizeof where), what);
}

/* ---- mbarriers ---- */

/* The mbarrier at operand o's shared address for thread t (made where create is set); NULL with
 * the error set. */
static struct mbar *bar_at(int i, int t, const struct ptx_operand *o, int create)
{
    if (o->reg >= 0 && (*mark(o->reg, t / 32) >> (t % 32) & 1))
        ptx_value_used(i, t, "uses as an mbarrier's address");
    uint64_t off = address_of(o, t);
    char why[200];
    if (off % 8 || off > X.shared_bytes || X.shared_bytes - off < 8) {
        snprintf(why, sizeof why, "an mbarrier is 8 bytes of shared memory at a multiple of 8, not at byte %lld of "
                 "the block's %zu", (long long)off, X.shared_bytes);
        fail_at(EMU_OUT_OF_BOUNDS, i, t, why);
        return NULL;
    }
    for (int b = 0; b < A.nbar; b++)
        if (A.bar[b].off == off) {
            if (!create && memcmp(X.shared + off, MBAR_BYTES, 8)) {
                snprintf(why, sizeof why, "the mbarrier at shared byte %llu was overwritten since its init (an "
                         "ordinary store, or a copy whose box covers it): its 8 bytes are the mbarrier's",
                         (unsigned long long)off);
                fail_at(EMU_RACE, i, t, why);
                return NULL;
            }
            return &A.bar[b];
        }
    if (!create) {
        snprintf(why, sizeof why, "no mbarrier was initialized at shared byte %llu: mbarrier.init it first (one "
                 "thread), then fence.mbarrier_init and __syncthreads()", (unsigned long long)off);
        fail_at(EMU_BAD_LAUNCH, i, t, why);
        return NULL;
    }
    if (A.nbar == MAX_MBARRIERS) {
        fail_at(EMU_BAD_LAUNCH, i, t, "more mbarriers than the interpreter keeps (64)");
        return NULL;
    }
    A.bar[A.nbar] = (struct mbar){.off = (uint32_t)off};
    return &A.bar[A.nbar++];
}

static void complete_if_done(struct mbar *b)
{
    if (b->pending == 0 && b->tx == 0)
        b->phase++, b->pending = b->expected;
}

/* The swizzle of a shared byte address: the 16-byte chunk's bits 4-6 (128-byte span), 4-5 (64) or
 * 4 (32) XORed with the address's bits 7-9, 7-8 or 7 (lesson 5's and 10's XOR, on the address). */
static uint32_t swizzled(uint32_t a, uint32_t span)
{
    uint32_t bits = span == 128 ? 0x70u : span == 64 ? 0x30u : span == 32 ? 0x10u : 0;
    return a ^ ((a >> 3) & bits);
}

/* The global bytes copy c reads, each row's run inside the tensor: checked and made as any read
 * of an input is (emu_trace.c: a lazily made input's pages come here), and counted as the
 * sectors they cover, a row's 16-byte pieces as the lanes of one request (up to 32). */
static void read_box(const struct bulk *c)
{
    const struct wb_tensor_map *m = &c->map;
    struct emu_lane_access lanes[32];
    int n = 0;
    for (uint32_t r = 0; r < m->box[1]; r++) {
        int64_t gy = (int64_t)c->y + r, x0 = c->x < 0 ? 0 : c->x, x1 = (int64_t)c->x + m->box[0];
        if (gy < 0 || (uint64_t)gy >= m->dims[1] || x0 >= (int64_t)m->dims[0])
            continue;
        if ((uint64_t)x1 > m->dims[0])
            x1 = (int64_t)m->dims[0];
        const char *row = (const char *)(uintptr_t)(m->base + (uint64_t)gy * m->row_bytes);
        if (x1 <= x0)
            continue;
        emu_trace_read_bytes(row + x0 * m->elem_bytes, (uint32_t)((x1 - x0) * m->elem_bytes), (uintptr_t)c->insn + 1);
        for (int64_t b = x0 * m->elem_bytes; b < x1 * m->elem_bytes; b += 16) {
            int64_t left = x1 * m->elem_bytes - b;
            lanes[n] = (struct emu_lane_access){(uintptr_t)(row + b), (uint32_t)(left < 16 ? left : 16), n};
            if (++n == 32)
                emu_trace_price((uintptr_t)c->insn + 1, GLOBAL_LD, 0, lanes, n), n = 0;
        }
    }
    if (n)
        emu_trace_price((uintptr_t)c->insn + 1, GLOBAL_LD, 0, lanes, n);
}

/* Copy c lands: the box, read from global memory (zeros outside the tensor), into shared memory
 * at the swizzled places; its bytes complete on its mbarrier. */
static void land_bulk(const struct bulk *c)
{
    const struct wb_tensor_map *m = &c->map;
    uint32_t e = m->elem_bytes;
    read_box(c);
    for (uint32_t r = 0; r < m->box[1]; r++)
        for (uint32_t k = 0; k < m->box[0]; k++) {
            int64_t gx = (int64_t)c->x + k, gy = (int64_t)c->y + r;
            uint32_t at = swizzled(c->dst + (r * m->box[0] + k) * e, m->swizzle);
            if (gx >= 0 && gy >= 0 && (uint64_t)gx < m->dims[0] && (uint64_t)gy < m->dims[1])
                memcpy(X.shared + at, (const unsigned char *)(uintptr_t)m->base + (uint64_t)gy * m->row_bytes +
                                          (uint64_t)gx * e, e);
            else
                memset(X.shared + at, 0, e);
            memset(X.shared_state + at, SET, e);
            if (X.proxy_stamp) {
                X.proxy_stamp[at / 16] = 0;
                A.copy_span[at / 16] = (uint8_t)(m->swizzle ? m->swizzle : 16);
                A.copy_insn[at / 16] = c->insn;
                A.copy_bar[at / 16] = (uint8_t)(1 + c->bar_index);
                A.copy_phase[at / 16] = c->phase;
            }
        }
    for (int b = 0; b < A.nbar; b++)
        if (A.bar[b].off == c->bar) {
            A.bar[b].tx -= c->bytes;
            complete_if_done(&A.bar[b]);
        }
}

/* Lands the oldest copy in flight that completes on mbarrier b; 0 where there is none. */
static int land_one_for(const struct mbar *b)
{
    for (int k = 0; k < A.nbulk; k++)
        if (A.bulk[k].bar == b->off) {
            struct bulk c = A.bulk[k];
            memmove(&A.bulk[k], &A.bulk[k + 1], (size_t)(A.nbulk - k - 1) * sizeof c);
            A.nbulk--;
            land_bulk(&c);
            return 1;
        }
    return 0;
}

/* Whether the phase of the given parity has completed (the PTX ISA's try_wait.parity), landing
 * the copies that complete on it one by one until it has: no more than the phase needs (a phase
 * that completes before all its copies land, its expect_tx short of their bytes, leaves the rest
 * in flight, as a GPU may). */
static int phase_done(struct mbar *b, uint32_t parity)
{
    while ((b->phase & 1) == parity)
        if (!land_one_for(b))
            return 0;
    return 1;
}

/* mbarrier.init / arrive / arrive.expect_tx / expect_tx / try_wait.parity for the lanes of exec;
 * *blocked: the lanes whose wait goes on (AT_MBARRIER). */
int ptx_mbarrier(const struct ptx_insn *in, int i, int w, uint32_t exec, uint32_t *blocked)
{
    const struct ptx_operand *o = in->o;
    int at = in->sub == MB_INIT || in->sub == MB_EXPECT_TX ? 0 : 1;
    int lag = in->sub == MB_TRY_WAIT && w / 4 == ptx_schedule_slow_warpgroup();
    *blocked = 0;
    FOR_LANES(exec, l) {
        int t = w * 32 + (int)l;
        struct mbar *b = bar_at(i, t, &o[at], in->sub == MB_INIT);
        if (!b)
            return last_kind;
        uint64_t n = in->sub == MB_ARRIVE ? 0 : val(&o[at + 1], T_U32, t) & 0xffffffffu;
        if (in->sub != MB_ARRIVE && o[at + 1].kind == K_REG && (*mark(o[at + 1].reg, w) >> l & 1))
            ptx_value_used(i, t, "gives an mbarrier");
        switch (in->sub) {
        case MB_INIT:
            if (n == 0 || n >= (1u << 20))
                return fail_at(EMU_BAD_LAUNCH, i, t, "an mbarrier's count of arrivals is from 1 to 2^20 - 1");
            *b = (struct mbar){.off = b->off, .expected = (uint32_t)n, .pending = (uint32_t)n, .init_thread = t,
                               .init_fences = X.init_fences[t]};
            memcpy(X.shared + b->off, MBAR_BYTES, 8); /* what a read of them finds: unwritten bytes */
            memset(X.shared_state + b->off, UNSET, 8);
            break;
        case MB_EXPECT_TX:
            b->tx += (int64_t)n;
            break;
        case MB_ARRIVE:
        case MB_ARRIVE_EXPECT:
            if (A.wg[w].nops) /* its products still read shared memory: others may run before they do */
                X.state[t] = YIELDED;
            b->tx += (int64_t)n;
            if (b->pending == 0)
                return fail_at(EMU_BAD_LAUNCH, i, t, "an arrival at an mbarrier whose arrivals are all in and whose "
                               "bytes have not landed: more threads arrive than it was initialized to count");
            b->pending--; /* (its state goes to the sink: the reader takes no other destination) */
            complete_if_done(b);
            break;
        case MB_TRY_WAIT: /* false once (its time limit, as on a GPU; nothing lands), then it waits */
            if ((b->phase & 1) != (uint32_t)(n & 1) || A.timed_out[t] != i + 1 || phase_done(b, (uint32_t)(n & 1))) {
                int done = (b->phase & 1) != (uint32_t)(n & 1);
                A.timed_out[t] = done ? 0 : i + 1;
                if (done && X.proxy_stamp) { /* (a kernel with wgmma) the phases this warp has waited through */
                    A.waited[w][b - A.bar] = b->phase;
                    A.awaiting[w][b - A.bar] += A.pending[w][b - A.bar];
                    A.pending[w][b - A.bar] = 0;
                    /* In the drawn order one warpgroup is slow after each wait for a copy: the
                     * others run first, so a stage refilled before every consumer is done with it
                     * shows. */
                    if (lag && b->copied)
                        X.state[t] = YIELDED;
                }
                put(o[0].reg, t, (uint64_t)done, T_PRED);
                set_marks(o[0].reg, w, 1u << l, 0);
            } else {
                X.state[t] = AT_MBARRIER;
                *blocked |= 1u << l;
            }
            break;
        default:
            break;
        }
    }
    return 0;
}

/* The kind of the error a call here returned -1 for. */
int ptx_async_error(void)
{
    return last_kind;
}

/* After a round of the block's warps: the threads whose phase has completed since go on, and those
 * that yielded (past an arrival their warp made with products in flight). Returns how many; where
 * none can and some wait, -1 and the error (the wait can never end). */
int ptx_async_release(void)
{
    int released = 0, waiting = 0, first = -1;
    for (int t = 0; t < X.threads; t++) {
        if (X.state[t] == YIELDED)
            X.state[t] = READY, released++;
        if (X.state[t] != AT_MBARRIER)
            continue;
        const struct ptx_insn *in = &X.k->insns[X.pc[t]];
        struct mbar *b = bar_at(X.pc[t], t, &in->o[1], 0);
        if (!b)
            return -1;
        if (phase_done(b, (uint32_t)(val(&in->o[2], T_U32, t) & 1)))
            X.state[t] = READY, released++;
        else if (waiting++ == 0)
            first = t;
    }
    if (released || !waiting)
        return released;
    const struct ptx_insn *in = &X.k->insns[X.pc[first]];
    struct mbar *b = bar_at(X.pc[first], first, &in->o[1], 0);
    char why[360];
    snprintf(why, sizeof why, "it waits for phase %u of the mbarrier at shared byte %u (parity %d), which never "
             "completes: it still expects %u arrival%s and %lld byte%s, and no thread of the block can go on (%d "
             "wait so). A wait on the wrong parity, a count at init that more or fewer threads reach, or an "
             "expect_tx that is not the bytes the copies bring?",
             b ? b->phase : 0, b ? b->off : 0, (int)(val(&in->o[2], T_U32, first) & 1), b ? b->pending : 0,
             b && b->pending == 1 ? "" : "s", b ? (long long)b->tx : 0, b && b->tx == 1 ? "" : "s", waiting);
    fail_at(EMU_BARRIER_DIVERGENCE, X.pc[first], first, why);
    return -1;
}

/* ---- the tensor memory accelerator ---- */

int ptx_bulk_tensor(const struct ptx_insn *in, int i, int w, uint32_t exec)
{
    const struct ptx_operand *o = in->o;
    FOR_LANES(exec, l) {
        int t = w * 32 + (int)l;
        for (int j = 0; j < 2; j++)
            if (o[j].reg >= 0 && (*mark(o[j].reg, w) >> l & 1))
                ptx_value_used(i, t, "uses as an address");
        for (int e = 0; e < o[1].nvec; e++)
            if (*mark(o[1].vec[e], w) >> l & 1)
                ptx_value_used(i, t, "uses as a tensor coordinate");
        uint64_t map_at = address_of(&o[1], t), params = (uint64_t)(uintptr_t)X.L->params;
        int p = -1;
        for (int k = 0; k < X.k->nparams && map_at >= params; k++)
            if (map_at - params == (uint64_t)X.k->params[k].offset && X.k->params[k].bytes == WB_TENSOR_MAP_BYTES)
                p = k;
        struct bulk c = {.insn = i};
        if (p < 0 || wb_tensor_map_get(X.L->params + X.k->params[p].offset, &c.map))
            return fail_at(EMU_BAD_LAUNCH, i, t, "its tensor map is not one the lesson gave: the operand must be "
                           "the address of one of the kernel's `const __grid_constant__ CUtensorMap` parameters");
        const struct wb_tensor_map *m = &c.map;
        c.bytes = m->box[0] * m->box[1] * m->elem_bytes;
        uint64_t dst = address_of(&o[0], t);
        c.dst = (uint32_t)dst;
        c.x = (int32_t)*reg(o[1].vec[0], t);
        c.y = (int32_t)*reg(o[1].vec[1], t);
        char why[600];
        if (dst % 128 || dst > X.shared_bytes || X.shared_bytes - dst < c.bytes) {
            snprintf(why, sizeof why, "its destination, shared byte %lld, must be a multiple of 128 with the box's %u "
                     "bytes after it inside the block's %zu", (long long)dst, c.bytes, X.shared_bytes);
            return fail_at(EMU_OUT_OF_BOUNDS, i, t, why);
        }
        if (((int64_t)c.x * m->elem_bytes) % 16) {
            snprintf(why, sizeof why, "the box's first column, x = %d, lies %lld bytes into a row, not at a multiple of "
                     "16: a GPU stops the kernel there (an illegal instruction)", c.x, (long long)c.x * m->elem_bytes);
            return fail_at(EMU_MISALIGNED, i, t, why);
        }
        if (m->swizzle && (m->box[0] * m->elem_bytes != m->swizzle || c.dst % (8 * m->swizzle)))
            return fail_at(EMU_BAD_LAUNCH, i, t, "a swizzled copy's destination must be aligned to the swizzle's "
                           "whole pattern (8 rows of its span: 1024 bytes for the 128-byte swizzle)");
        struct mbar *b = bar_at(i, t, &o[2], 0);
        if (!b)
            return last_kind;
        if (X.init_fences[b->init_thread] == b->init_fences) {
            char who[40];
            snprintf(why, sizeof why, "the copy counts its bytes on the mbarrier at shared byte %u, which %s "
                     "initialized and has run no fence since: mbarrier.init is an ordinary write, and the copy "
                     "engine (the async proxy) sees it only after that thread's fence.mbarrier_init.release.cluster "
                     "(or fence.proxy.async) and a barrier; without one the copy may count on a barrier that is not "
                     "there yet", b->off, ptx_thread_name(b->init_thread, who, sizeof who));
            return fail_at(EMU_RACE, i, t, why);
        }
        c.bar = b->off;
        c.phase = b->phase;
        c.bar_index = (int)(b - A.bar);
        b->copied = b->phase + 1;
        if (ptx_schedule_order() != 2) { /* forward and backward: at once, over what the stage held */
            land_bulk(&c);
            continue;
        }
        if (A.nbulk == MAX_BULK)
            return fail_at(EMU_BAD_LAUNCH, i, t, "more tensor copies in flight than the interpreter keeps (256)");
        A.bulk[A.nbulk++] = c;
    }
    return 0;
}

/* ---- wgmma ---- */

/* The shared byte of element (mn, k) of a 16-deep operand that descriptor d describes (the PTX
 * ISA's "matrix descriptor"): its start, leading and stride byte offsets, and its swizzle;
 * k-major (mn_major 0: a row of k per mn) or mn-major (a row of mn per k). Rows of span bytes
 * (16 unswizzled: the 8 x 16-byte core matrices) in groups of 8: k-major, the groups of 8 mn SBO
 * apart and the spans of k LBO apart; mn-major swizzled, the groups of 8 k SBO apart and the spans
 * of mn LBO apart; mn-major unswizzled, the other way round (CUTLASS's canonical layouts). */
static uint32_t element_at(uint64_t d, int mn_major, int mn, int k)
{
    static const uint32_t spans[4] = {16, 128, 64, 32};
    uint32_t start = (uint32_t)(d & 0x3FFF) << 4, lbo = (uint32_t)(d >> 16 & 0x3FFF) << 4,
             sbo = (uint32_t)(d >> 32 & 0x3FFF) << 4, span = spans[d >> 62];
    uint32_t row = mn_major ? (uint32_t)k : (uint32_t)mn, col = 2u * (uint32_t)(mn_major ? mn : k);
    uint32_t rows_apart = sbo, spans_apart = lbo;
    if (mn_major && span == 16)
        rows_apart = lbo, spans_apart = sbo;
    uint32_t a = start + row / 8 * rows_apart + col / span * spans_apart + row % 8 * span + col % span;
    return span == 16 ? a : swizzled(a, span);
}

/* A product reads a stage the copier refilled (landed: already; else on its way) after this warp
 * waited for the fill it means to read: an empty barrier that does not wait for every reader. */
static int refilled_before_read(const struct wg_op *op, int which, uint32_t a, int copy_insn, int landed, int t)
{
    char why[600], there[160];
    snprintf(why, sizeof why, "it reads %s at shared byte %u, which the tensor copy (%s) of the stage's next fill %s: "
             "this warp waited for the stage's last fill, but the copier refilled it before this warp's products "
             "read it. The stage's empty barrier must wait for every warp that reads the stage (its count at init, "
             "and an arrival from each after its products are waited for)", which ? "B" : "A", a,
             ptx_where(copy_insn, there, sizeof there), landed ? "has already copied over" : "is already copying over");
    return fail_at(EMU_RACE, op->insn, t, why);
}

/* Reads element (mn, k) as a float, its mark into *marked; -1 (the error set) where it lies outside
 * shared memory, in a copy not landed yet, or where ordinary stores wrote it without a fence. */
static int operand_half(const struct wg_op *op, int which, int mn, int k, float *v, int *marked, int t)
{
    uint64_t d = which ? op->db : op->da;
    int mn_major = (int)op->in->o[6 + which].imm;
    uint32_t a = element_at(d, mn_major, mn, k);
    char why[600];
    if ((uint64_t)a + 2 > X.shared_bytes) {
        snprintf(why, sizeof why, "%s's descriptor puts element (%d, %d) at shared byte %u, outside the block's %zu: "
                 "its start address, byte offsets or swizzle mode do not describe the tile", which ? "B" : "A", mn, k, a,
                 X.shared_bytes);
        return fail_at(EMU_OUT_OF_BOUNDS, op->insn, t, why);
    }
    for (int c = 0; c < A.nbulk; c++)
        if (a >= A.bulk[c].dst && a < A.bulk[c].dst + A.bulk[c].bytes) {
            char there[160];
            if (A.bulk[c].phase > 0 && A.waited[t / 32][A.bulk[c].bar_index] == A.bulk[c].phase)
                return refilled_before_read(op, which, a, A.bulk[c].insn, 0, t);
            snprintf(why, sizeof why, "it reads %s at shared byte %u, where the tensor copy (%s) has not landed: wait "
                     "on its mbarrier's phase before the product", which ? "B" : "A", a,
                     ptx_where(A.bulk[c].insn, there, sizeof there));
            return fail_at(EMU_RACE, op->insn, t, why);
        }
    uint64_t stamp = X.proxy_stamp ? X.proxy_stamp[a / 16] : 0;
    int by = A.copy_bar[a / 16] - 1, w = t / 32;
    /* Bytes a copy of a phase this warp has not waited for brought, where it waits on that mbarrier
     * (waited > 0: a consumer of it; a warp ordered by __syncthreads after another's wait is not
     * held to this): the stage was refilled before this warp's products read the fill it waited for. */
    if (!stamp && by >= 0 && A.waited[w][by] > 0 && A.copy_phase[a / 16] >= A.waited[w][by])
        return refilled_before_read(op, which, a, A.copy_insn[a / 16], 1, t);
    if (!stamp && by >= 0 && A.awaiting[w][by]) { /* products that ran while this copy was on its way */
        emu_trace_mma_ahead(A.awaiting[w][by]);
        A.awaiting[w][by] = 0;
    }
    static const uint32_t spans[4] = {16, 128, 64, 32};
    uint32_t span = spans[d >> 62], copied = stamp ? 0 : A.copy_span[a / 16];
    if (copied && copied != span) {
        char there[160];
        static const char *const named[] = {"no swizzle", "the 128-byte swizzle", "the 64-byte swizzle",
                                            "the 32-byte swizzle"};
        snprintf(why, sizeof why, "%s's descriptor names %s (mode %d in bits 62-63), but the tensor copy that wrote "
                 "the bytes it reads (%s) swizzled them %u bytes: the tensor cores would undo another XOR than the "
                 "copy made and read the tile's elements from the wrong places. The descriptor must name the copy's "
                 "swizzle (mode %d)", which ? "B" : "A", named[d >> 62], (int)(d >> 62),
                 ptx_where(A.copy_insn[a / 16], there, sizeof there), copied,
                 copied == 128 ? 1 : copied == 64 ? 2 : copied == 32 ? 3 : 0);
        return fail_at(EMU_BAD_LAUNCH, op->insn, t, why);
    }
    if (stamp && (uint32_t)stamp > X.proxy_fences[stamp >> 32]) {
        char who[40];
        snprintf(why, sizeof why, "it reads %s at shared byte %u, which %s wrote with an ordinary store and no "
                 "fence.proxy.async after it: the tensor cores read shared memory through the async proxy, which "
                 "sees a thread's writes only after that thread's fence (then a barrier)",
                 which ? "B" : "A", a, ptx_thread_name((int)(stamp >> 32), who, sizeof who));
        return fail_at(EMU_RACE, op->insn, t, why);
    }
    uint16_t h;
    memcpy(&h, X.shared + a, 2);
    *v = half_to_float(h);
    *marked = X.shared_state[a] != SET || X.shared_state[a + 1] != SET;
    if (X.shared_state[a] == UNSET || X.shared_state[a + 1] == UNSET) { /* (the sentence's first unwritten read) */
        X.shared_marks = 1;
        if (!X.unset_read)
            X.unset_read = op->insn + 1;
    }
    return 0;
}

/* Whether the 16 bytes at a (8 halves of descriptor d's operand: the swizzle moves 16-byte units
 * whole) call for none of operand_half's sentences for warp w: inside shared memory, no copy on its
 * way over them, the copy that wrote them (a fill this warp may read) swizzled as d says, and an
 * ordinary store to them fenced. Reads and changes nothing. */
static int chunk_plain(uint64_t d, uint32_t a, int w)
{
    static const uint32_t spans[4] = {16, 128, 64, 32};
    if ((uint64_t)a + 16 > X.shared_bytes)
        return 0;
    for (int c = 0; c < A.nbulk; c++)
        if (a < A.bulk[c].dst + A.bulk[c].bytes && a + 16 > A.bulk[c].dst)
            return 0;
    uint64_t stamp = X.proxy_stamp ? X.proxy_stamp[a / 16] : 0;
    if (stamp)
        return (uint32_t)stamp <= X.proxy_fences[stamp >> 32];
    int by = A.copy_bar[a / 16] - 1;
    if (by >= 0 && A.waited[w][by] > 0 && A.copy_phase[a / 16] >= A.waited[w][by])
        return 0;
    return !A.copy_span[a / 16] || A.copy_span[a / 16] == spans[d >> 62];
}

/* The element (mn, k) that starts chunk j of rows mn0.. of an operand, 8 halves on in memory:
 * along k (two chunks a row) where it is k-major, along mn (a chunk per 8 rows and k) where not. */
static void chunk_start(int mn_major, int mn0, int j, int *mn, int *k)
{
    *mn = mn_major ? mn0 + 8 * (j / 16) : mn0 + j / 2;
    *k = mn_major ? j % 16 : 8 * (j % 2);
}

/* Rows mn0 .. mn0 + rows - 1 (a multiple of 8) of operand which into v[mn - mn0][k], and whether
 * each has a marked element, read 16 bytes at a time: 1 where every chunk is plain (chunk_plain),
 * 0, having read nothing, where one is not (operand_half then reads them one by one, and the first
 * in its order that is wrong names the cause). */
static int operand_rows(const struct wg_op *op, int which, int mn0, int rows, float v[][16], int marked[], int t)
{
    uint64_t d = which ? op->db : op->da;
    int mn_major = (int)op->in->o[6 + which].imm, w = t / 32, chunks = 2 * rows;
    for (int j = 0; j < chunks; j++) {
        int mn, k;
        chunk_start(mn_major, mn0, j, &mn, &k);
        if (!chunk_plain(d, element_at(d, mn_major, mn, k), w))
            return 0;
    }
    for (int r = 0; r < rows; r++)
        marked[r] = 0;
    for (int j = 0; j < chunks; j++) {
        int mn, k;
        chunk_start(mn_major, mn0, j, &mn, &k);
        uint32_t a = element_at(d, mn_major, mn, k);
        int by = A.copy_bar[a / 16] - 1;
        if (!(X.proxy_stamp && X.proxy_stamp[a / 16]) && by >= 0 && A.awaiting[w][by]) { /* as operand_half */
            emu_trace_mma_ahead(A.awaiting[w][by]);
            A.awaiting[w][by] = 0;
        }
        for (int i = 0; i < 8; i++) {
            uint16_t h;
            memcpy(&h, X.shared + a + 2 * i, 2);
            const unsigned char *st = X.shared_state + a + 2 * i;
            int r = mn_major ? mn - mn0 + i : mn - mn0;
            v[r][mn_major ? k : k + i] = half_to_float(h);
            marked[r] |= st[0] != SET || st[1] != SET;
            if (st[0] == UNSET || st[1] == UNSET) {
                X.shared_marks = 1;
                if (!X.unset_read)
                    X.unset_read = op->insn + 1;
            }
        }
    }
    return 1;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    return (h ^ v) * 0x100000001b3ull;
}

/* A hash of the shared bytes warp w's part of the product reads (A's 16 rows, all of B), a chunk
 * of 8 halves at a time. */
static uint64_t operand_bytes(int w, const struct wg_op *op)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int which = 0; which < 2; which++) {
        uint64_t d = which ? op->db : op->da;
        int mn_major = (int)op->in->o[6 + which].imm, mn0 = which ? 0 : 16 * (w % 4),
            chunks = 2 * (which ? 8 * op->in->vec : 16);
        for (int j = 0; j < chunks; j++) {
            int mn, k;
            chunk_start(mn_major, mn0, j, &mn, &k);
            uint32_t a = element_at(d, mn_major, mn, k);
            uint64_t bytes[2] = {0, 0};
            for (int i = 0; i < 8; i++) /* (each half inside shared memory: a wrong descriptor's may not be) */
                if ((uint64_t)a + 2 * i + 2 <= X.shared_bytes)
                    memcpy((char *)bytes + 2 * i, X.shared + a + 2 * i, 2);
            h = mix(mix(mix(h, a), bytes[0]), bytes[1]);
        }
    }
    return h;
}

/* Rows mn0 .. mn0 + rows - 1 of operand which (A's 16 rows of m, or 8 of B's n), times its scale
 * (-1 or 1), made ready for the sums, and whether each has a marked element; -1 with the error set
 * where one is wrong. Element by element (where a chunk is not plain) A goes row by row and B k by
 * k, so that the first wrong element is the one the PTX ISA's order meets first. */
static int operand_ready(const struct wg_op *op, int which, int mn0, int rows, struct tensor_row *out, int marked[],
                         int t)
{
    float v[16][16], sign = op->in->o[4 + which].imm < 0 ? -1.0f : 1.0f;
    if (!operand_rows(op, which, mn0, rows, v, marked, t)) {
        for (int r = 0; r < rows; r++)
            marked[r] = 0;
        for (int i = 0; i < 16 * rows; i++) {
            int r = which ? i % rows : i / 16, k = which ? i / rows : i % 16, one = 0;
            if (operand_half(op, which, mn0 + r, k, &v[r][k], &one, t))
                return -1;
            marked[r] |= one;
        }
    }
    for (int r = 0; r < rows; r++) {
        for (int k = 0; k < 16; k++)
            v[r][k] *= sign;
        ptx_tensor_row(&out[r], v[r], 1);
    }
    return 0;
}

/* Warp w's part of a product, at its issue: its 16 rows of D (64 x N) = A (64 x 16) B (16 x N) +
 * D, eight columns at a time, each element summed as mma.sync's (ptx_tensor_dot_rows). D's registers
 * take the result at once: ptxas makes any instruction that reads or writes them wait for the
 * product first (its warnings C7517 and C7519 say where), so a kernel sees them so on a GPU too.
 * What it read in shared memory is kept (a hash), for its wait_group to find unchanged. */
static int issue(int w, struct wg_op *op)
{
    int n8 = op->in->vec, row0 = 16 * (w % 4), t0 = w * 32, ahead = -1;
    for (int b = 0; b < A.nbar && ahead < 0; b++) /* a copy on its way for a phase this warp has yet to wait for */
        if (A.bar[b].copied > 0 && A.bar[b].copied - 1 >= A.waited[w][b])
            ahead = b;
    int row_marked[16], column_marked[8];
    struct tensor_row ra[16], rb[8];
    if (operand_ready(op, 0, row0, 16, ra, row_marked, t0))
        return last_kind;
    for (int nb = 0; nb < n8; nb++) {
        float Cf[16][8];
        int mC[16][8];
        if (operand_ready(op, 1, 8 * nb, 8, rb, column_marked, t0))
            return last_kind;
        for (int l = 0; l < 32; l++)
            for (int e = 0; e < 4; e++) { /* register 4 nb + e: row l/4 (+8 for e >= 2), column 2 (l % 4) + e % 2 */
                int r = op->dreg[4 * nb + e], m = l / 4 + 8 * (e / 2), n = 2 * (l % 4) + e % 2;
                Cf[m][n] = op->scale_d ? as_f(*reg(r, t0 + l)) : 0.0f;
                mC[m][n] = op->scale_d && (*mark(r, w) >> l & 1);
            }
        for (int e = 0; e < 4; e++) { /* every C read above before any D is written */
            int r = op->dreg[4 * nb + e];
            uint32_t marks = 0;
            for (int l = 0; l < 32; l++) {
                int m = l / 4 + 8 * (e / 2), n = 2 * (l % 4) + e % 2;
                *reg(r, t0 + l) = ptx_tensor_dot_rows(&ra[m], &rb[n], Cf[m][n]);
                marks |= (uint32_t)(mC[m][n] | row_marked[m] | column_marked[n]) << l;
            }
            set_marks(r, w, ~0u, marks);
        }
        emu_trace_mma(); /* an m16n8k16's worth of the tensor cores' work */
        if (ahead >= 0)
            A.pending[w][ahead]++;
    }
    op->read = operand_bytes(w, op);
    return 0;
}

/* Product k of warp w waited for: the shared memory it read unchanged since its issue (a GPU's
 * tensor cores read it at some time between the two). */
static int retire(int w, int k)
{
    const struct wg_op *op = &A.wg[w].ops[k];
    if (operand_bytes(w, op) != op->read)
        return fail_at(EMU_RACE, op->insn, w * 32, "shared memory it reads changed between its issue and the "
                       "wgmma.wait_group that waits for it: a stage its product was still reading was copied or "
                       "stored over (free a stage only once its products are waited for; issue a product only once "
                       "its stage has landed)");
    return 0;
}

/* A uniform 64-bit operand of the warp (every lane the same); -1 with the error set where not. */
static int uniform(const struct ptx_insn *in, int i, int w, int j, const char *what, uint64_t *v)
{
    for (int l = 0; l < 32; l++) {
        int t = w * 32 + l;
        if (in->o[j].kind == K_REG && (*mark(in->o[j].reg, w) >> l & 1))
            ptx_value_used(i, t, what);
        uint64_t x = val(&in->o[j], in->o[j].kind == K_REG && X.k->regs[in->o[j].reg].type == T_PRED ? T_PRED : T_U64, t);
        if (in->o[j].kind == K_REG && X.k->regs[in->o[j].reg].type == T_PRED)
            x &= 1;
        if (l == 0)
            *v = x;
        else if (x != *v)
            return fail_at(EMU_WARP_MISMATCH, i, t, "its lanes give different descriptors or scale-d: every thread of "
                           "the warpgroup must give the same");
    }
    return 0;
}

/* wgmma.fence / mma_async / commit_group / wait_group for the whole warp w. */
int ptx_wgmma(const struct ptx_insn *in, int i, int w)
{
    int g = w / 4, t0 = w * 32;
    if (X.warps < 4 * g + 4 || X.threads < 128 * (g + 1)) {
        char why[200];
        snprintf(why, sizeof why, "wgmma runs on a warpgroup, four whole warps (threads 128g to 128g + 127), and "
                 "the block's %d threads leave warp %d's group short", X.threads, w);
        return fail_at(EMU_WARP_MISMATCH, i, t0, why);
    }
    struct wg_warp *s = &A.wg[w];
    switch (in->sub) {
    case WG_FENCE: /* (ptxas adds one where a product needs it: warning C7519) */
        return 0;
    case WG_COMMIT:
        s->groups++;
        for (int k = 0; k < s->nops; k++)
            if (s->ops[k].group == 0)
                s->ops[k].group = s->groups;
        return 0;
    case WG_WAIT: {
        uint32_t keep = (uint32_t)in->o[0].imm;
        int kept = 0, n = s->nops;
        for (int k = 0; k < n; k++) {
            const struct wg_op *op = &s->ops[k];
            if (op->group != 0 && op->group + keep <= s->groups) {
                int rc = retire(w, k);
                if (rc)
                    return rc;
            } else
                s->ops[kept++] = *op;
        }
        s->nops = kept;
        return 0;
    }
    default:
        break;
    }
    if (s->nops == MAX_WG_OPS)
        return fail_at(EMU_BAD_LAUNCH, i, t0, "more than 32 products in flight in one warp: wgmma.wait_group them");
    struct wg_op op = {.in = in, .insn = i};
    uint64_t scale = 1;
    if (uniform(in, i, w, 1, "uses as A's descriptor", &op.da) || uniform(in, i, w, 2, "uses as B's descriptor", &op.db) ||
        uniform(in, i, w, 3, "uses as scale-d", &scale))
        return EMU_WARP_MISMATCH;
    for (int j = 1; j <= 2; j++) {
        uint64_t d = j == 1 ? op.da : op.db;
        if (d >> 49 & 7)
            return fail_at(EMU_BAD_LAUNCH, i, t0, "a descriptor with a base offset (bits 49-51): the interpreter "
                           "runs tiles whose swizzle pattern starts at the tile (aligned to its 8 rows)");
    }
    op.scale_d = scale != 0;
    uint32_t seq = ++s->issued;
    struct wg_seen *seen = &A.seen[g][seq % WG_SEEN];
    if (seen->seq != seq)
        *seen = (struct wg_seen){seq, i, op.scale_d, op.da, op.db};
    else if (seen->insn != i || seen->da != op.da || seen->db != op.db || seen->scale_d != op.scale_d) {
        char why[300], there[160];
        snprintf(why, sizeof why, "the warps of its warpgroup give its product #%u different descriptors or scale-d "
                 "(another warp gave it at %s): all 128 threads of a warpgroup give one product the same operands",
                 seq, ptx_where(seen->insn, there, sizeof there));
        return fail_at(EMU_WARP_MISMATCH, i, t0, why);
    }
    const struct ptx_operand *d = &in->o[0];
    op.dreg = d->kind == K_BIGVEC ? &X.k->pool[d->reg] : d->vec;
    op.nd = d->nvec;
    int rc = issue(w, &op);
    if (rc)
        return rc;
    s->ops[s->nops++] = op;
    return 0;
}
