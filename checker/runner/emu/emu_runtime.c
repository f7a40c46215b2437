/* The emulator's scheduler: every CUDA thread of a block is a fiber with its own stack; each
 * runs until it reaches __syncthreads() or returns; when none can go on, the barrier is
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

enum fiber_state { READY, AT_BARRIER, EXITED };

struct fiber {
    void *sp;
    enum fiber_state state;
    uintptr_t barrier_pc; /* where it waits */
    struct uint3 idx;
};

static struct {
    struct fiber fibers[MAX_THREADS];
    char *stacks;
    void *scheduler_sp;
    int current;
    void (*body)(void *);
    void *ctx;
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

void emu_syncthreads(void)
{
    struct fiber *f = &rt.fibers[rt.current];
    f->state = AT_BARRIER;
    f->barrier_pc = (uintptr_t)__builtin_return_address(0);
    emu_switch(&f->sp, rt.scheduler_sp);
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
}

const char *emu_error(void)
{
    return rt.error;
}

static void (*fatal_handler)(const char *sentence);

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
                 "block (%u,%u): %d thread%s wait%s at __syncthreads() in %s while %d ha%s returned: "
                 "an early `return` before a barrier? Threads outside the matrix must still reach it",
                 blockIdx.x, blockIdx.y, waiting, waiting == 1 ? "" : "s", waiting == 1 ? "s" : "", a, exited,
                 exited == 1 ? "s" : "ve");
    return EMU_BARRIER_DIVERGENCE;
}

/* Says what the tracer found wrong in a single access, if anything; returns its kind. */
static int report_bad_access(void)
{
    struct emu_bad_access b;
    if (!emu_trace_bad_access(&b))
        return 0;
    char where[96];
    emu_where(b.pc, where, sizeof where);
    unsigned bx = blockDim.x ? blockDim.x : 1, x = (unsigned)b.thread % bx, y = (unsigned)b.thread / bx;
    if (b.kind == EMU_INPUT_WRITE)
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): thread (%u,%u) writes element %ld of its input %s (%s): a kernel may only read its "
                 "inputs (the harness gives the same ones to every launch)",
                 blockIdx.x, blockIdx.y, x, y, b.offset, b.buffer, where);
    else if (b.kind == EMU_OUT_OF_BOUNDS && !b.is_write && b.offset < 0)
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): thread (%u,%u) reads %ld element%s before the start of %s (%s): a negative index?",
                 blockIdx.x, blockIdx.y, x, y, -b.offset, b.offset == -1 ? "" : "s", b.buffer, where);
    else if (b.kind == EMU_OUT_OF_BOUNDS && !b.is_write)
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): thread (%u,%u) reads element %ld of %s, past its end (%s): a load without its bounds "
                 "check?",
                 blockIdx.x, blockIdx.y, x, y, b.offset, b.buffer, where);
    else if (b.kind == EMU_UNSET_SHARED_READ)
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): thread (%u,%u) reads shared memory that no thread of the block has written "
                 "(%s): a tile element nobody loaded, an index outside the loaded part, or a read that maps "
                 "indices differently from the write",
                 blockIdx.x, blockIdx.y, x, y, where);
    else if (b.offset < 0)
        snprintf(rt.error, sizeof rt.error, "block (%u,%u): thread (%u,%u) writes %ld element%s before the start of %s (%s)",
                 blockIdx.x, blockIdx.y, x, y, -b.offset, b.offset == -1 ? "" : "s", b.buffer, where);
    else
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): thread (%u,%u) writes element %ld of %s, past its end (%s): a store without its "
                 "bounds check?",
                 blockIdx.x, blockIdx.y, x, y, b.offset, b.buffer, where);
    return b.kind;
}

/* Says what the race check found, if anything. */
static int report_race(void)
{
    struct emu_race r;
    if (!emu_trace_race(&r))
        return 0;
    char where[2][96];
    emu_where(r.pc, where[0], sizeof where[0]);
    emu_where(r.writer_pc, where[1], sizeof where[1]);
    unsigned bx = blockDim.x ? blockDim.x : 1;
    unsigned x = (unsigned)r.thread % bx, y = (unsigned)r.thread / bx, wx = (unsigned)r.writer % bx,
             wy = (unsigned)r.writer / bx;
    if (r.is_write)
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): threads (%u,%u) and (%u,%u) write the same shared word (%s and %s) between the same "
                 "two barriers: their indices collide, so one overwrites the other (is the mapping one-to-one?)",
                 blockIdx.x, blockIdx.y, x, y, wx, wy, where[0], where[1]);
    else {
        /* Which barrier is missing depends on what the read wanted: a value not written yet (the
         * read came too early) or the old value the write then replaced (the write came too early). */
        struct emu_bad_access b;
        int too_early = r.writer < r.thread ||
                        (emu_trace_bad_access(&b) && b.kind == EMU_UNSET_SHARED_READ && b.pc == r.pc);
        snprintf(rt.error, sizeof rt.error,
                 "block (%u,%u): thread (%u,%u) reads shared memory (%s) %s thread (%u,%u) %s (%s), with no "
                 "barrier between them: a race, whose outcome on a GPU depends on timing. %s",
                 blockIdx.x, blockIdx.y, x, y, where[0], too_early ? "that" : "before", wx, wy,
                 too_early ? "writes" : "writes it", where[1],
                 too_early ? "The read needs the write done first: a __syncthreads() after the write is missing."
                           : "The write replaces a value still being read: a __syncthreads() after the read, "
                             "before the next write, is missing.");
    }
    return 1;
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
        for (int t = 0; t < threads; t++) {
            if (rt.fibers[t].state != READY)
                continue;
            running++;
            rt.current = t;
            set_coordinates(t);
            emu_trace_switch_to(t, rt.stacks + (size_t)t * STACK_BYTES, rt.stacks + (size_t)(t + 1) * STACK_BYTES);
            emu_switch(&rt.scheduler_sp, rt.fibers[t].sp);
        }
        emu_trace_interval_end(threads, 32);
        /* A race first: a read of unwritten shared memory is often its consequence. */
        if (report_race())
            return EMU_RACE;
        int bad = report_bad_access();
        if (bad)
            return bad;
        if (running == 0)
            return 0;
        int rc = check_barrier(threads);
        if (rc)
            return rc;
        int all_exited = 1;
        for (int t = 0; t < threads; t++)
            if (rt.fibers[t].state == AT_BARRIER) {
                rt.fibers[t].state = READY;
                all_exited = 0;
            }
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
    blockDim = block;
    gridDim = grid;
    emu_trace_set_shared(shared_begin, shared_end);
    const void *readable[] = {&threadIdx, &blockIdx, &blockDim, &gridDim};
    const size_t bytes[] = {sizeof threadIdx, sizeof blockIdx, sizeof blockDim, sizeof gridDim};
    emu_trace_set_readable(readable, bytes, 4);
    emu_trace_reset_races();
    for (unsigned z = 0; z < grid.z; z++)
        for (unsigned y = 0; y < grid.y; y++)
            for (unsigned x = 0; x < grid.x; x++) {
                blockIdx = (struct uint3){x, y, z};
                int rc = run_block((int)threads, shared_begin, shared_end);
                if (rc)
                    return rc;
            }
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
