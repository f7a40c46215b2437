/* The emulator's scheduler: every CUDA thread of a block is a fiber with its own stack; each
 * runs until it reaches __syncthreads(), a warp's collective operation (__syncwarp, a shuffle,
 * a vote) or its end. When none can go on, the warps' collective operations whose lanes have
 * all arrived complete, and their lanes go on; when only barriers are left, the barrier is
 * checked (every thread must wait at the same one) and all are released. Blocks run one after
 * another, so each block's __shared__ arrays are the same static memory, poisoned before it
 * starts. Threads run in order up to each barrier, so a missing barrier gives wrong results
 * every time rather than by luck. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "compare.h"
#include "emu.h"
#include "emu_warp.h"
#include "gpu_job.h"

/* Mirrors of cuda_emu.h's types. */
struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
};
struct uint3 threadIdx, blockIdx;
struct dim3 blockDim, gridDim;

#define STACK_BYTES (64 * 1024)
#define MAX_THREADS 1024

enum fiber_state { READY, AT_BARRIER, AT_WARP, EXITED };

struct fiber {
    void *sp;
    enum fiber_state state;
    uintptr_t barrier_pc; /* where it waits (a barrier or a warp operation) */
    struct uint3 idx;
    int vote;             /* its predicate at a __syncthreads_count/and/or */
    /* At a warp's collective operation: which, with what, and then its result. */
    int op, arg, width;
    unsigned mask;
    unsigned long long value, result;
    int epoch;            /* warp operations it has completed in this block (the race check's order) */
};

static struct {
    struct fiber fibers[MAX_THREADS];
    char *stacks;
    void *scheduler_sp;
    int current;
    void (*body)(void *);
    void *ctx;
    int votes[3];         /* the last counting barrier's count, and, or */
    long long clock;
    const char *constants, *constants_end; /* this launch's __constant__ data */
    char error[600];
} rt;

/* ---- context switch (x86-64 System V) ----
 * emu_switch(save, to): pushes the callee-saved registers and the SSE/x87 control words,
 * stores the stack pointer in *save, loads `to` and pops the same from there. */
void emu_switch(void **save, void *to);
void emu_fiber_start(void);
__asm__(".text\n"
        ".globl emu_switch\n.type emu_switch,@function\n"
        "emu_switch:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  ret\n"
        ".size emu_switch, .-emu_switch\n"
        /* A new fiber 'returns' here with a 16-byte aligned stack. */
        ".globl emu_fiber_start\n.type emu_fiber_start,@function\n"
        "emu_fiber_start:\n  call emu_fiber_main\n  ud2\n"
        ".size emu_fiber_start, .-emu_fiber_start\n");

static void set_coordinates(int t)
{
    threadIdx.x = rt.fibers[t].idx.x;
    threadIdx.y = rt.fibers[t].idx.y;
    threadIdx.z = rt.fibers[t].idx.z;
}

void emu_fiber_main(void);
void emu_fiber_main(void)
{
    rt.body(rt.ctx);
    rt.fibers[rt.current].state = EXITED;
    emu_switch(&rt.fibers[rt.current].sp, rt.scheduler_sp);
    abort(); /* an exited fiber is never resumed */
}

static void wait_at_barrier(uintptr_t pc)
{
    struct fiber *f = &rt.fibers[rt.current];
    emu_trace_barrier();
    f->state = AT_BARRIER;
    f->barrier_pc = pc;
    emu_switch(&f->sp, rt.scheduler_sp);
}

void emu_syncthreads(void)
{
    wait_at_barrier((uintptr_t)__builtin_return_address(0));
}

int emu_syncthreads_vote(int vote, int predicate)
{
    rt.fibers[rt.current].vote = predicate;
    wait_at_barrier((uintptr_t)__builtin_return_address(0));
    return vote >= 0 && vote < 3 ? rt.votes[vote] : 0;
}

unsigned long long emu_warp_collective(int op, unsigned mask, unsigned long long value, int arg, int width)
{
    struct fiber *f = &rt.fibers[rt.current];
    f->state = AT_WARP;
    f->barrier_pc = (uintptr_t)__builtin_return_address(0);
    f->op = op;
    f->mask = mask;
    f->value = value;
    f->arg = arg;
    f->width = width;
    emu_switch(&f->sp, rt.scheduler_sp);
    return f->result;
}

/* The lanes of the running thread's warp that have not returned (the GPU's answer is the lanes
 * executing together, which the emulator, running one thread at a time, cannot tell apart). */
unsigned emu_activemask(void)
{
    unsigned threads = blockDim.x * blockDim.y * blockDim.z, first = (unsigned)rt.current & ~31u, mask = 0;
    for (unsigned l = 0; l < 32 && first + l < threads; l++)
        if (rt.fibers[first + l].state != EXITED)
            mask |= 1u << l;
    return mask;
}

long long emu_clock64(void)
{
    return ++rt.clock;
}

/* One atomic read-modify-write, done here (untraced) after the tracer has checked the address
 * and recorded it; no other thread runs in between. */
unsigned long long emu_atomic_rmw(void *address, int op, int type, unsigned long long value, unsigned long long compare)
{
    int wide = type == EMU_I64 || type == EMU_U64 || type == EMU_F64;
    emu_trace_atomic_access(address, wide ? 8 : 4, (uintptr_t)__builtin_return_address(0));
    unsigned long long old = 0, next;
    memcpy(&old, address, wide ? 8 : 4);
    if (type == EMU_F32 || type == EMU_F64) {
        double a, v;
        float f;
        if (type == EMU_F32) {
            memcpy(&f, &old, 4), a = f;
            memcpy(&f, &value, 4), v = f;
        } else {
            memcpy(&a, &old, 8);
            memcpy(&v, &value, 8);
        }
        double r = op == EMU_ATOMIC_ADD ? a + v : op == EMU_ATOMIC_SUB ? a - v : op == EMU_ATOMIC_MIN ? (v < a ? v : a)
                 : op == EMU_ATOMIC_MAX ? (v > a ? v : a) : op == EMU_ATOMIC_CAS ? (old == compare ? v : a) : v;
        next = 0;
        if (type == EMU_F32) { /* a float sum rounded once from its exact double: as a float add */
            f = (float)r;
            memcpy(&next, &f, 4);
        } else
            memcpy(&next, &r, 8);
    } else {
        int sign = type == EMU_I32 || type == EMU_I64;
        unsigned long long mask = wide ? ~0ull : 0xffffffffull;
        long long sa = wide ? (long long)old : (long long)(int)(unsigned)old,
                  sv = wide ? (long long)value : (long long)(int)(unsigned)value;
        switch (op) {
        case EMU_ATOMIC_ADD: next = old + value; break;
        case EMU_ATOMIC_SUB: next = old - value; break;
        case EMU_ATOMIC_MIN: next = sign ? (sv < sa ? value : old) : ((value & mask) < (old & mask) ? value : old); break;
        case EMU_ATOMIC_MAX: next = sign ? (sv > sa ? value : old) : ((value & mask) > (old & mask) ? value : old); break;
        case EMU_ATOMIC_AND: next = old & value; break;
        case EMU_ATOMIC_OR: next = old | value; break;
        case EMU_ATOMIC_XOR: next = old ^ value; break;
        case EMU_ATOMIC_INC: next = (old & mask) >= (value & mask) ? 0 : old + 1; break;
        case EMU_ATOMIC_DEC: next = (old & mask) == 0 || (old & mask) > (value & mask) ? value : old - 1; break;
        case EMU_ATOMIC_CAS: next = (old & mask) == (compare & mask) ? value : old; break;
        default: next = value; /* exchange */
        }
        next &= mask;
    }
    memcpy(address, &next, wide ? 8 : 4);
    return old;
}

void emu_launch_constants(const char *begin, const char *end)
{
    rt.constants = begin;
    rt.constants_end = end;
}

static void prepare_fiber(int t)
{
    uint64_t *top = (uint64_t *)(rt.stacks + (size_t)(t + 1) * STACK_BYTES);
    uint64_t *sp = top - 10; /* 16-byte aligned: see emu_switch's pops and the ret */
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    memset(sp, 0, 10 * sizeof *sp);
    memcpy(sp, &mxcsr, sizeof mxcsr);
    memcpy((char *)sp + 4, &fpucw, sizeof fpucw);
    sp[7] = (uint64_t)(uintptr_t)emu_fiber_start; /* after 1 control word slot and 6 registers */
    rt.fibers[t].sp = sp;
    rt.fibers[t].state = READY;
    rt.fibers[t].epoch = 0;
    rt.fibers[t].vote = 0;
}

const char *emu_error(void)
{
    return rt.error;
}

static void (*fatal_handler)(const char *sentence);
static const char *thread_name(int t, char *buf, size_t len);

/* A kernel's printf. Its %s and %n would read or write memory the tracer never sees (libc is not
 * traced), so a format that has one ends the run, as any stray access does. */
int emu_printf(const char *format, ...)
{
    for (const char *p = strchr(format, '%'); p; p = strchr(p + 1, '%')) {
        if (p[1] == '%') {
            p++;
            continue;
        }
        const char *conv = p + 1 + strspn(p + 1, "-+ #0123456789.*hlLqjzt");
        if (*conv == 's' || *conv == 'n') {
            snprintf(rt.error, sizeof rt.error,
                     "printf's %%%c is not available to kernels in the emulator: it would %s memory the tracer cannot "
                     "see (print numbers instead)", *conv, *conv == 'n' ? "write" : "read");
            if (fatal_handler)
                fatal_handler(rt.error);
            abort();
        }
        p = conv;
    }
    va_list ap;
    va_start(ap, format);
    int n = vprintf(format, ap);
    va_end(ap);
    return n;
}

void emu_set_fatal_handler(void (*handler)(const char *sentence))
{
    fatal_handler = handler;
}


void emu_stop_at_bad_access(void)
{
    if (!fatal_handler)
        return;
    emu_report_bad_access(rt.error, sizeof rt.error);
    fatal_handler(rt.error);
    abort();
}

void emu_wild_access(uintptr_t pc, const void *addr, int is_write)
{
    char where[96];
    emu_where(pc, where, sizeof where);
    unsigned bx = blockDim.x ? blockDim.x : 1, t = (unsigned)rt.current;
    snprintf(rt.error, sizeof rt.error,
             "block (%u,%u): thread (%u,%u) %s memory it was not given, at %p (%s): nowhere near its inputs, its "
             "output, its shared memory or its own variables. A kernel may touch only those; the run was stopped",
             blockIdx.x, blockIdx.y, t % bx, t / bx, is_write ? "writes" : "reads", addr, where);
    if (fatal_handler)
        fatal_handler(rt.error);
    abort();
}

void emu_describe_spin(uintptr_t pc, char *buf, size_t len)
{
    char where[96], who[40];
    snprintf(buf, len, "%s of block (%u,%u) was running %s when it was stopped", thread_name(rt.current, who, sizeof who),
             blockIdx.x, blockIdx.y, emu_where(pc, where, sizeof where));
}

/* Says what the threads of a block disagree on at a barrier, or returns 0 if they agree. */
static int check_barrier(int threads)
{
    int waiting = 0, exited = 0, other = 0;
    uintptr_t pc = 0, other_pc = 0;
    for (int t = 0; t < threads; t++) {
        struct fiber *f = &rt.fibers[t];
        if (f->state == EXITED)
            exited++;
        else if (!pc || f->barrier_pc == pc) {
            pc = f->barrier_pc;
            waiting++;
        } else {
            other_pc = f->barrier_pc;
            other++;
        }
    }
    if (waiting == 0 || (exited == 0 && other == 0))
        return 0;
    char a[160], b[160];
    emu_where(pc, a, sizeof a);
    if (other)
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): %d threads wait at __syncthreads() in %s while %d wait at the one in %s: "
                 "every thread of a block must reach the same barriers",
                 blockIdx.x, blockIdx.y, waiting, a, other, emu_where(other_pc, b, sizeof b));
    else
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): %d thread%s wait%s at __syncthreads() in %s while %d ha%s returned without "
                 "reaching it: an early `return` before a barrier, or a barrier inside an `if` that only some "
                 "threads enter? Threads outside the matrix must still reach it",
                 blockIdx.x, blockIdx.y, waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "", a, exited,
                 exited == 1 ? "s" : "ve");
    return EMU_BARRIER_DIVERGENCE;
}

/* ---- the warps' collective operations ---- */

static const char *const op_names[EMU_WARP_OPS] = {
    "__syncwarp",     "__shfl_sync",    "__shfl_up_sync",    "__shfl_down_sync",  "__shfl_xor_sync",
    "__ballot_sync",  "__all_sync",     "__any_sync",        "__reduce_add_sync", "__reduce_min_sync",
    "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync", "__match_any_sync",
    "__match_all_sync"};

static const char *op_name(int op)
{
    return op >= 0 && op < EMU_WARP_OPS ? op_names[op] : "a warp operation";
}

/* "thread (3,1)" for a linear thread id. */
static const char *thread_name(int t, char *buf, size_t len)
{
    unsigned bx = blockDim.x ? blockDim.x : 1;
    snprintf(buf, len, "thread (%u,%u)", (unsigned)t % bx, (unsigned)t / bx);
    return buf;
}

/* The lane a shuffle reads for `lane`, or -1 when it keeps its own value. */
static int shuffle_source(const struct fiber *f, int lane)
{
    int w = f->width, start = lane & ~(w - 1), src;
    switch (f->op) {
    case EMU_SHFL_IDX:
        return start + (f->arg & (w - 1));
    case EMU_SHFL_UP:
        src = lane - f->arg;
        return src >= start ? src : -1;
    case EMU_SHFL_DOWN:
        src = lane + f->arg;
        return src < start + w ? src : -1;
    default: /* EMU_SHFL_XOR */
        src = lane ^ (f->arg & 31);
        return src < start + w ? src : -1;
    }
}

/* Completes the operation the lanes of `mask` (warp from `first`) all wait at. */
static int complete(int first, unsigned mask)
{
    struct fiber *lead = &rt.fibers[first + __builtin_ctz(mask)];
    int op = lead->op;
    unsigned long long ballot = 0, all = 1, any = 0;
    long long acc = 0;
    int started = 0;
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        const struct fiber *f = &rt.fibers[first + l];
        long long v = lead->arg == 1 ? (long long)(int)(unsigned)f->value : (long long)(unsigned)f->value;
        ballot |= (unsigned long long)(f->value != 0) << l;
        all &= f->value != 0;
        any |= f->value != 0;
        if (!started)
            acc = v;
        else if (op == EMU_REDUCE_ADD)
            acc += v;
        else if (op == EMU_REDUCE_MIN)
            acc = v < acc ? v : acc;
        else if (op == EMU_REDUCE_MAX)
            acc = v > acc ? v : acc;
        else if (op == EMU_REDUCE_AND)
            acc &= v;
        else if (op == EMU_REDUCE_OR)
            acc |= v;
        else if (op == EMU_REDUCE_XOR)
            acc ^= v;
        started = 1;
    }
    for (int l = 0; l < 32; l++) {
        if (!(mask >> l & 1))
            continue;
        struct fiber *f = &rt.fibers[first + l];
        char who[40], where[96];
        switch (op) {
        case EMU_SHFL_IDX:
        case EMU_SHFL_UP:
        case EMU_SHFL_DOWN:
        case EMU_SHFL_XOR: {
            if (f->width < 1 || f->width > 32 || (f->width & (f->width - 1))) {
                snprintf(rt.error, sizeof rt.error,
                         "block (%u,%u): %s calls %s with width %d (%s): the width must be a power of 2 from 1 to 32",
                         blockIdx.x, blockIdx.y, thread_name(first + l, who, sizeof who), op_name(op), f->width,
                         emu_where(f->barrier_pc, where, sizeof where));
                return EMU_WARP_MISMATCH;
            }
            int src = shuffle_source(f, l);
            if (src >= 0 && !(mask >> src & 1)) {
                snprintf(rt.error, sizeof rt.error,
                         "block (%u,%u): %s reads lane %d with %s (%s), but lane %d is not in the mask 0x%08x: a "
                         "value from a lane that does not take part is undefined on a GPU",
                         blockIdx.x, blockIdx.y, thread_name(first + l, who, sizeof who), src, op_name(op),
                         emu_where(f->barrier_pc, where, sizeof where), src, mask);
                return EMU_WARP_MISMATCH;
            }
            f->result = src >= 0 ? rt.fibers[first + src].value : f->value;
            break;
        }
        case EMU_VOTE_BALLOT:
            f->result = ballot;
            break;
        case EMU_VOTE_ALL:
            f->result = all;
            break;
        case EMU_VOTE_ANY:
            f->result = any;
            break;
        case EMU_MATCH_ANY:
        case EMU_MATCH_ALL: {
            unsigned same = 0;
            for (int k = 0; k < 32; k++)
                if ((mask >> k & 1) && rt.fibers[first + k].value == f->value)
                    same |= 1u << k;
            f->result = op == EMU_MATCH_ANY ? same : same == mask ? mask : 0;
            break;
        }
        case EMU_WARP_SYNC:
            f->result = 0;
            break;
        default: /* the reductions */
            f->result = (unsigned long long)(unsigned)acc;
        }
    }
    for (int l = 0; l < 32; l++)
        if (mask >> l & 1) {
            rt.fibers[first + l].state = READY;
            rt.fibers[first + l].epoch++;
        }
    return 0;
}

/* Completes every warp operation whose lanes have all arrived, when no thread can run. A lane
 * its mask names that returned, waits at a barrier or waits at another operation can never
 * arrive: an error. Returns how many operations completed, or -1 (rt.error says why). */
static int resolve_warps(int threads)
{
    int completed = 0;
    for (int first = 0; first < threads; first += 32) {
        int lanes = threads - first < 32 ? threads - first : 32;
        for (int l = 0; l < lanes; l++) {
            struct fiber *f = &rt.fibers[first + l];
            if (f->state != AT_WARP)
                continue;
            char who[40], other[40], where[96], there[96];
            emu_where(f->barrier_pc, where, sizeof where);
            thread_name(first + l, who, sizeof who);
            if (!(f->mask >> l & 1)) {
                snprintf(rt.error, sizeof rt.error,
                         "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, which leaves out its own lane %d: "
                         "every lane that calls it must be in the mask",
                         blockIdx.x, blockIdx.y, who, op_name(f->op), where, f->mask, l);
                return -1;
            }
            if (lanes < 32 && (f->mask >> lanes) != 0) {
                snprintf(rt.error, sizeof rt.error,
                         "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, which names lane %d, but its warp "
                         "has only %d threads (the block has %d)",
                         blockIdx.x, blockIdx.y, who, op_name(f->op), where, f->mask, lanes + __builtin_ctz(f->mask >> lanes),
                         lanes, threads);
                return -1;
            }
            for (int k = 0; k < 32; k++) {
                if (!(f->mask >> k & 1) || k == l)
                    continue;
                const struct fiber *g = &rt.fibers[first + k];
                thread_name(first + k, other, sizeof other);
                if (g->state == AT_WARP && g->op == f->op && g->mask == f->mask)
                    continue;
                if (g->state == EXITED)
                    snprintf(rt.error, sizeof rt.error,
                             "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, but lane %d, %s, has returned: "
                             "a lane the mask names must call it too (an early `return`, or a mask wider than the "
                             "lanes that get there?)",
                             blockIdx.x, blockIdx.y, who, op_name(f->op), where, f->mask, k, other);
                else if (g->state == AT_BARRIER)
                    snprintf(rt.error, sizeof rt.error,
                             "block (%u,%u): %s calls %s (%s) with the mask 0x%08x, but lane %d, %s, waits at "
                             "__syncthreads() in %s: a lane the mask names must call it too",
                             blockIdx.x, blockIdx.y, who, op_name(f->op), where, f->mask, k, other,
                             emu_where(g->barrier_pc, there, sizeof there));
                else
                    snprintf(rt.error, sizeof rt.error,
                             "block (%u,%u): lanes %d and %d of a warp meet at different warp operations: %s calls "
                             "%s (%s) with the mask 0x%08x, %s calls %s (%s) with the mask 0x%08x; the lanes of a "
                             "mask must all call the same one",
                             blockIdx.x, blockIdx.y, l, k, who, op_name(f->op), where, f->mask, other, op_name(g->op),
                             emu_where(g->barrier_pc, there, sizeof there), g->mask);
                return -1;
            }
            if (complete(first, f->mask))
                return -1;
            completed++;
        }
    }
    return completed;
}

static int run_block(int threads, char *shared_begin, char *shared_end)
{
    /* Every float a NaN of its own bits: reading shared memory nobody wrote shows in the output. */
    uint32_t poison = SHARED_POISON_BITS;
    for (char *p = shared_begin; p && p + sizeof poison <= shared_end; p += sizeof poison)
        memcpy(p, &poison, sizeof poison);
    for (int t = 0; t < threads; t++)
        prepare_fiber(t);
    for (;;) {
        int running = 0;
        for (int more = 1; more;) {
            for (int t = 0; t < threads; t++) {
                if (rt.fibers[t].state != READY)
                    continue;
                running++;
                rt.current = t;
                set_coordinates(t);
                emu_trace_switch_to(t, rt.fibers[t].epoch, rt.stacks + (size_t)t * STACK_BYTES,
                                    rt.stacks + (size_t)(t + 1) * STACK_BYTES);
                emu_switch(&rt.scheduler_sp, rt.fibers[t].sp);
            }
            more = resolve_warps(threads);
            if (more < 0)
                return EMU_WARP_MISMATCH;
        }
        emu_trace_interval_end(threads, 32);
        /* Threads that skipped a barrier first: what they then do races with the others. A race
         * next: a read of unwritten shared memory is often its consequence. */
        int rc = running ? check_barrier(threads) : 0;
        if (rc)
            return rc;
        if (emu_report_race(rt.error, sizeof rt.error))
            return EMU_RACE;
        int bad = emu_report_bad_access(rt.error, sizeof rt.error);
        if (bad)
            return bad;
        if (running == 0)
            return 0;
        int all_exited = 1, votes[3] = {0, 1, 0};
        for (int t = 0; t < threads; t++)
            if (rt.fibers[t].state == AT_BARRIER) {
                rt.fibers[t].state = READY;
                all_exited = 0;
                votes[EMU_BLOCK_COUNT] += rt.fibers[t].vote != 0;
                votes[EMU_BLOCK_AND] &= rt.fibers[t].vote != 0;
                votes[EMU_BLOCK_OR] |= rt.fibers[t].vote != 0;
                rt.fibers[t].vote = 0;
            }
        memcpy(rt.votes, votes, sizeof votes);
        if (all_exited)
            return 0;
    }
}

int emu_launch(struct dim3 grid, struct dim3 block, char *shared_begin, char *shared_end, void (*body)(void *),
               void *ctx)
{
    rt.error[0] = '\0';
    unsigned threads = block.x * block.y * block.z;
    if (threads == 0 || threads > MAX_THREADS || grid.x == 0 || grid.y == 0 || grid.z == 0) {
        snprintf(rt.error, sizeof rt.error, "invalid launch configuration");
        return EMU_BAD_LAUNCH;
    }
    if (!rt.stacks) {
        rt.stacks = mmap(NULL, (size_t)MAX_THREADS * STACK_BYTES, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (rt.stacks == MAP_FAILED) {
            rt.stacks = NULL;
            snprintf(rt.error, sizeof rt.error, "no memory for the threads' stacks");
            return EMU_OUT_OF_MEMORY;
        }
    }
    int t = 0;
    for (unsigned z = 0; z < block.z; z++)
        for (unsigned y = 0; y < block.y; y++)
            for (unsigned x = 0; x < block.x; x++)
                rt.fibers[t++].idx = (struct uint3){x, y, z};
    rt.body = body;
    rt.ctx = ctx;
    emu_trace_threads((uint64_t)threads * grid.x * grid.y * grid.z);
    blockDim = block;
    gridDim = grid;
    emu_trace_set_shared(shared_begin, shared_end);
    const void *readable[] = {&threadIdx, &blockIdx, &blockDim, &gridDim, rt.constants};
    const size_t bytes[] = {sizeof threadIdx, sizeof blockIdx, sizeof blockDim, sizeof gridDim,
                            rt.constants ? (size_t)(rt.constants_end - rt.constants) : 0};
    emu_trace_set_readable(readable, bytes, 5);
    emu_trace_reset_races();
    emu_trace_launch_begin();
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                blockIdx = (struct uint3){x, y, z};
                emu_trace_block(((long)z * grid.y + y) * grid.x + x);
                int rc = run_block((int)threads, shared_begin, shared_end);
                if (rc)
                    return rc;
            }
    return 0;
}

int emu_names_lines(void)
{
    return 0;
}

/* The runner may start no programs, so a code address leaves it as an offset in this
 * program's file, which the judge turns into file:line (symbolize.h). */
uint64_t emu_pc_offset(uintptr_t pc)
{
    static uintptr_t base = 1;
    if (base == 1) {
        Dl_info info;
        /* A position-independent program is looked up by offset, a fixed one by address. */
        base = dladdr((void *)emu_pc_offset, &info) && ((const Elf64_Ehdr *)info.dli_fbase)->e_type == ET_DYN
                   ? (uintptr_t)info.dli_fbase
                   : 0;
    }
    return pc - 1 - base; /* pc - 1: the call or access instruction, not the one after it */
}

const char *emu_where(uintptr_t pc, char *buf, size_t len)
{
    snprintf(buf, len, PC_MARK_FORMAT, (unsigned long)emu_pc_offset(pc));
    return buf;
}
