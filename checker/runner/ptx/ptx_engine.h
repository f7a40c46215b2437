/* The PTX interpreter's engine, as its rooms share it: the running launch's state (X), registers
 * and operands, and what each room gives the others. Internal to checker/runner/ptx/: the rest of
 * the runner calls ptx_exec.h.
 *   ptx_exec.c    the launch: blocks, warps and their order, barriers, warp-wide instructions
 *                 completed, the tracer's interface, errors and their sentences
 *   ptx_insn.c    an instruction: its guard, its counts, its class's handler
 *   ptx_warp.c    a warp with all lanes on: column by column, and the tensor cores
 *   ptx_memory.c  memory: where an access lands, loads, stores, cp.async, printf, bytes in flight
 *   ptx_async.c   Hopper's machinery: mbarriers, tensor copies, the proxy fence, wgmma */
#ifndef WB_PTX_ENGINE_H
#define WB_PTX_ENGINE_H
#include <stdint.h>

#include "poison.h"
#include "emu.h"
#include "half.h"
#include "occupancy.h"
#include "ptx_exec.h"
#include "ptx_float.h"
#include "ptx_values.h"

#define MAX_THREADS 1024
#define PTX_MAX_SHARED 232448 /* a block's shared memory on sm_90, static and dynamic: 227 KiB */
/* l: each lane of the mask m, lowest first. */
#define FOR_LANES(m, l)                                                                                           \
    for (uint32_t m_ = (m), l; m_ && ((l = (uint32_t)__builtin_ctz(m_)), 1); m_ &= m_ - 1)
#define MAX_WARPS (MAX_THREADS / 32)
#define MAX_COPIES 256 /* cp.async in flight per thread: a tile of 4-byte copies over few threads */
#define MAX_STORED 64 /* a thread's stores of values still on their way, kept until it waits */

/* The launch's coordinates, which the tracer's sentences read (emu_report.c). */
struct emu_uint3 {
    unsigned x, y, z;
};
extern struct emu_uint3 blockIdx, blockDim, gridDim;

/* AT_MBARRIER: at an mbarrier.try_wait whose phase has not completed (ptx_async.c), until it has;
 * YIELDED: past an arrival its warp made with products in flight, until the next round of warps;
 * AT_NAMED: at a barrier for some of the block's warps (bar.sync id, count) not yet complete. */
enum lane_state { READY, AT_BARRIER, AT_WARP, EXITED, AT_MBARRIER, YIELDED, AT_NAMED };

/* Shared memory's bytes: never written, written, written with a marked value. */
enum { UNSET = 0, SET = 1, MARKED = 2 };

struct ptx_engine {
    const struct ptx_launch *L; /* &launch: the last launch's, kept for naming its lines afterwards */
    struct ptx_launch launch;
    const struct ptx_kernel *k;
    int threads, warps;
    uint64_t *regs;   /* [reg][thread] */
    uint32_t *marks;  /* [reg][warp]: lanes whose value came from unwritten shared memory */
    int pc[MAX_THREADS];
    uint8_t state[MAX_THREADS];
    int epoch[MAX_THREADS]; /* warp operations each lane completed (the race check's order) */
    int vote[MAX_THREADS];  /* its predicate at a bar.red */
    uint8_t vote_marked[MAX_THREADS]; /* ... whose value came from memory nobody wrote */
    /* Barriers for some of the block's warps (bar.sync id, count): each id's count while in use (0:
     * not), the threads arrived (32 a warp) and their warps, and the warps that last completed it
     * since the last barrier of the whole block; the id a lane waits at (either kind); the set of
     * warps each warp met at one in this round (0: none); whether one completed in this pass. */
    struct {
        uint32_t count, arrived, warps, last;
    } named[16];
    uint8_t named_id[MAX_THREADS];
    int named_progress;
    /* In the drawn order a warp is preempted before each atomic, `atom` or `red` (ptx_exec.c):
     * whether it stopped there last (it goes on through that one), and whether one was this pass;
     * the block's slow warp (-1: none), held after each such atomic for slow_hold more passes of
     * the others; the instructions the warps ran in this pass. */
    uint8_t atom_resumed[MAX_WARPS];
    int preempted, slow_warp, slow_hold;
    uint64_t pass_steps;
    unsigned char *shared, *shared_state;
    size_t shared_bytes;
    size_t dynamic_offset; /* where the launch's extern __shared__ memory starts */
    unsigned char *local; /* [thread][local_bytes] */
    unsigned char *local_state; /* the same, a byte's UNSET, SET or MARKED, as shared_state's */
    size_t local_bytes;
    /* Bytes in flight, measured while counting. ptxas schedules a thread's loads together where
     * nothing stops it, whatever their order in the PTX: a load waits for the loads before it only
     * where its address, or a branch before it, depends on their values, or a loop's branch back
     * or a barrier lies between them. dep[reg][thread] is the newest load a value derives from;
     * loads after done[thread] are in flight, in_flight[thread] bytes of them. */
    int counting;
    uint32_t *dep;
    uint32_t issued[MAX_THREADS], done[MAX_THREADS], in_flight[MAX_THREADS];
    /* A thread's stores of values that derive from its loads in flight, until it next waits: a
     * load of those bytes by the same thread waits for them (ptxas keeps a load after a store to
     * the same bytes, and the store waits for its value), as a chain through memory that no
     * register shows. Past MAX_STORED of them, the oldest is forgotten (never a wait a GPU does not make). */
    struct stored_on_way {
        const unsigned char *p;
        uint32_t bytes;
    } stored[MAX_THREADS][MAX_STORED];
    uint8_t nstored[MAX_THREADS];
    const char **touches; /* [insn]: the buffer or shared array it touched, for the line table */
    struct {
        const unsigned char *begin, *end;
    } inputs[4]; /* the launch's read-only buffers */
    int ninputs;
    /* cp.async: each thread's copies not landed yet, in issue order, each with the number of
     * groups the thread had committed when it issued it (its group); and that number now */
    struct pending_copy {
        const unsigned char *src;
        uint32_t dst, group;
        uint8_t bytes, from_src; /* from_src: copied, the rest of bytes zeros (src-size) */
        int insn;
    } copies[MAX_THREADS][MAX_COPIES];
    uint16_t ncopies[MAX_THREADS];
    uint32_t committed[MAX_THREADS];
    uint32_t copy_bytes[MAX_THREADS]; /* the bytes of copies[t]: in flight, as loads' are */
    int unlanded; /* a cp.async whose words were read before they landed (insn + 1), for the sentence */
    int unset_read; /* the block's first read of a shared byte no thread had written (insn + 1): the
                     * sentence names it, where the value's use (a store, an address) may lie far below */
    int copies_pending;  /* in all threads' lists */
    int warp_kind; /* the error's kind when a warp instruction completed by resolve() failed */
    int running_insn;     /* where the running warp is (for a CPU-time stop) */
    int running_thread;
    /* the first value error (a marked value used): its sentence. A value is marked where it was read
     * from shared memory no thread had written, or from a register nothing had written (every
     * register starts the block marked: on a GPU it holds what an earlier warp left there);
     * shared_marks says whether the block has read such shared memory yet, which tells the two
     * apart where it has not. */
    int value_error, shared_marks;
    /* The async proxy (ptx_async.c): for each 16 bytes of shared memory, the thread whose ordinary
     * store last wrote there (high 32 bits) and the number of fence.proxy.async it must have run
     * before the tensor cores may read them (low 32; 0: nothing to wait for); each thread's fences
     * so far. NULL: the kernel has no wgmma. */
    uint64_t *proxy_stamp;
    uint32_t proxy_fences[MAX_THREADS];
    /* Each thread's fence.mbarrier_init and fence.proxy.async so far, never cleared: an mbarrier's
     * init (an ordinary write) reaches the copy engine only after one of them (ptx_async.c). */
    uint32_t init_fences[MAX_THREADS];
    char value_sentence[600];
    char error[600];
};
extern struct ptx_engine X;

/* Where an access lands: the tracer sees shared and global memory (as on a GPU, where local,
 * constant and parameter memory are not what the lessons count). */
enum land { IN_SHARED, IN_LOCAL, IN_CONST, IN_PARAM, IN_GLOBAL };

/* ---- registers and operands ---- */
static inline uint64_t *reg(int r, int t)
{
    return &X.regs[(size_t)r * (size_t)X.threads + (size_t)t];
}
static inline uint32_t *mark(int r, int w)
{
    return &X.marks[(size_t)r * (size_t)X.warps + (size_t)w];
}

static inline uint64_t special(int sr, int t)
{
    unsigned bx = blockDim.x, by = blockDim.y;
    unsigned x = (unsigned)t % bx, y = ((unsigned)t / bx) % by, z = (unsigned)t / (bx * by);
    int lane = t % 32;
    switch (sr) {
    case SR_TID_X: return x;
    case SR_TID_Y: return y;
    case SR_TID_Z: return z;
    case SR_NTID_X: return blockDim.x;
    case SR_NTID_Y: return blockDim.y;
    case SR_NTID_Z: return blockDim.z;
    case SR_CTAID_X: return blockIdx.x;
    case SR_CTAID_Y: return blockIdx.y;
    case SR_CTAID_Z: return blockIdx.z;
    case SR_NCTAID_X: return gridDim.x;
    case SR_NCTAID_Y: return gridDim.y;
    case SR_NCTAID_Z: return gridDim.z;
    case SR_LANEID: return (uint64_t)lane;
    case SR_WARPID: return (uint64_t)(t / 32);
    case SR_NWARPID: return (uint64_t)X.warps;
    case SR_NSMID: return PTX_NSMID;
    case SR_LANEMASK_EQ: return 1u << lane;
    case SR_LANEMASK_LT: return (1u << lane) - 1;
    case SR_LANEMASK_LE: return (uint32_t)((2ull << lane) - 1);
    case SR_LANEMASK_GT: return (uint32_t)~((2ull << lane) - 1);
    case SR_LANEMASK_GE: return (uint32_t)~((1u << lane) - 1);
    default: return 0; /* (the clocks and ids the parser refuses) */
    }
}

/* An address operand's value: a variable's place in its space, a parameter's in the block. */
static inline uint64_t sym_address(const struct ptx_operand *o)
{
    if (o->sym <= -2)
        return (uint64_t)X.k->params[-2 - o->sym].offset;
    const struct ptx_var *v = &X.L->m->vars[o->sym];
    if (v->space == S_GLOBAL) /* a string literal: its place in the runner's memory */
        return (uint64_t)(uintptr_t)(X.L->m->string_data + v->offset);
    if (v->dynamic)
        return (uint64_t)X.dynamic_offset;
    return (uint64_t)v->offset;
}

/* The address a memory operand ([reg+imm], [var+imm], [imm]) gives thread t. */
static inline uint64_t address_of(const struct ptx_operand *o, int t)
{
    return (o->reg >= 0 ? *reg(o->reg, t) : o->sym != -1 ? sym_address(o) : 0) + (uint64_t)o->imm;
}

/* The value of operand o for thread t, read as type ty. */
static inline uint64_t val(const struct ptx_operand *o, int ty, int t)
{
    switch (o->kind) {
    case K_REG: {
        uint64_t v = *reg(o->reg, t);
        return o->neg ? !(v & 1) : v;
    }
    case K_IMM:
        if (ty == T_F32)
            return of_f((float)o->imm);
        if (ty == T_F64)
            return of_d((double)o->imm);
        return (uint64_t)o->imm;
    case K_FIMM: /* a float literal's bits, as ptxas takes them (the conformance suite's record): 0f... as
                  * they are, also by an .f64 instruction (zero-extended: a tiny double, not the float's
                  * value); 0d... by an .f32 instruction as its value rounded to a float, by any other as
                  * they are (a .b32 xor with 0f80000000 flips a sign) */
        if (o->fbytes == 4)
            return (uint64_t)(uint32_t)o->imm;
        return ty == T_F32 ? of_f((float)as_d((uint64_t)o->imm)) : (uint64_t)o->imm;
    case K_SPECIAL:
        return special(o->reg, t);
    case K_SYM:
        return sym_address(o) + (uint64_t)o->imm;
    default:
        return 0;
    }
}

/* The marked lanes among `lanes` of the operands' registers. */
static inline uint32_t marks_of(const struct ptx_insn *in, int first, int w, uint32_t lanes)
{
    uint32_t m = 0;
    for (int i = first; i < in->nops; i++) {
        const struct ptx_operand *o = &in->o[i];
        if ((o->kind == K_REG || o->kind == K_MEM) && o->reg >= 0)
            m |= *mark(o->reg, w);
        else if (o->kind == K_VEC)
            for (int e = 0; e < o->nvec; e++)
                if (o->vec[e] >= 0)
                    m |= *mark(o->vec[e], w);
    }
    return m & lanes;
}

static inline void set_marks(int r, int w, uint32_t lanes, uint32_t marked)
{
    uint32_t *m = mark(r, w);
    *m = (*m & ~lanes) | (marked & lanes);
}

static inline void put(int r, int t, uint64_t v, int ty)
{
    *reg(r, t) = extend(v, ty);
}


static inline unsigned char *local_of(int t)
{
    return X.local + (size_t)t * X.local_bytes;
}

/* ---- what the rooms give each other ---- */
/* ptx_exec.c: names and errors */
const char *ptx_shared_array(size_t off);
const char *ptx_thread_name(int t, char *buf, size_t len);
int ptx_fail(int kind, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ptx_value_used(int insn, int t, const char *what);
void ptx_note_unlanded(int insn, size_t off);
int ptx_resolve(int w);
/* ptx_insn.c */
int ptx_step(int w, int i, uint32_t active);
/* ptx_warp.c */
int ptx_whole_warp(const struct ptx_insn *in, int w);
int ptx_ldmatrix(const struct ptx_insn *in, int i, int w);
int ptx_mma(const struct ptx_insn *in, int w);
/* ptx_memory.c */
unsigned char *ptx_locate(int insn, int t, int sp, uint64_t a, int size, int write, int *land, size_t *shared_off);
void ptx_trace_atomic(int insn, int t, void *p, int size, int land, int float_add);
void ptx_price_warp(int insn, int write, int atomic);
int ptx_load(int insn, int t, int sp, uint64_t a, int size, int n, void *dst, int *marked, int *landed);
int ptx_load_shared(const struct ptx_insn *in, int i, int w, uint32_t exec);
int ptx_load_inputs(const struct ptx_insn *in, int w, uint32_t exec);
int ptx_store_shared(const struct ptx_insn *in, int i, int w, uint32_t exec, uint32_t value_marks);
int ptx_store(int insn, int t, int sp, uint64_t a, int size, const void *src, int marked, const struct ptx_operand *value);
int ptx_print(int insn, int t);
void ptx_follow_loads(const struct ptx_insn *in, int i, int w, uint32_t active, uint32_t exec);
void ptx_issue_load(int t, const struct ptx_operand *d, int bytes);
int ptx_cp_async(const struct ptx_insn *in, int i, int w, uint32_t exec);
/* Hopper's asynchronous machinery (ptx_async.c). */
void ptx_async_block_start(void);
int ptx_mbarrier(const struct ptx_insn *in, int i, int w, uint32_t exec, uint32_t *blocked);
int ptx_async_release(void);
int ptx_async_error(void);
int ptx_bulk_tensor(const struct ptx_insn *in, int i, int w, uint32_t exec);
int ptx_wgmma(const struct ptx_insn *in, int i, int w);
/* ldmatrix, mma.sync or a wgmma instruction, for a whole warp together (ptx_insn.c). */
int ptx_full_warp(const struct ptx_insn *in, int i, int w);
/* The schedule's order of warps (emu_set_schedule): 0 forward, 1 backward, 2 drawn. */
int ptx_schedule_order(void);
/* The warpgroup that lags after its waits in the drawn order, -1 in the others (ptx_async.c). */
int ptx_schedule_slow_warpgroup(void);
/* Thread t's ordinary stores wrote shared bytes [off, off + n): the tensor cores see them after
 * its next proxy fence. */
static inline void ptx_generic_wrote(int t, size_t off, size_t n)
{
    if (X.proxy_stamp && n)
        for (size_t c = off / 16; c <= (off + n - 1) / 16; c++)
            X.proxy_stamp[c] = (uint64_t)t << 32 | (X.proxy_fences[t] + 1u);
}

#endif
