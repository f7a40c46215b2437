/* The sentences that name what the tracer found (emu_trace.c): a wrong single access, or a race
 * between two threads of a block, for the scheduler that feeds the tracer (the PTX interpreter,
 * checker/runner/ptx/). The block and thread
 * coordinates are the scheduler's (its blockIdx, blockDim and gridDim). */
#include <stdio.h>
#include <string.h>

#include "emu.h"

/* The running launch's coordinates, as the scheduler keeps them. */
extern struct emu_uint3 {
    unsigned x, y, z;
} blockIdx, blockDim, gridDim;

/* A sentence's start, "block (bx,by): thread (x,y) " (`threads` for the word), into error; returns
 * where the rest of it goes, with its room in *left. */
static char *sentence(char *error, size_t len, const char *threads, unsigned x, unsigned y, size_t *left)
{
    int n = snprintf(error, len, "block (%u,%u): %s (%u,%u) ", blockIdx.x, blockIdx.y, threads, x, y);
    size_t used = n < 0 ? 0 : (size_t)n < len ? (size_t)n : len ? len - 1 : 0;
    *left = len - used;
    return error + used;
}

/* Says what the tracer found wrong in a single access, if anything; returns its kind. */
int emu_report_bad_access(char *error, size_t len)
{
    struct emu_bad_access b;
    if (!emu_trace_bad_access(&b))
        return 0;
    char where[96];
    emu_where(b.pc, where, sizeof where);
    unsigned bx = blockDim.x ? blockDim.x : 1;
    size_t left;
    char *rest = sentence(error, len, "thread", (unsigned)b.thread % bx, (unsigned)b.thread / bx, &left);
    if (b.kind == EMU_MISALIGNED) {
        char at[96];
        if (b.buffer)
            snprintf(at, sizeof at, "at element %ld of %s", b.offset, b.buffer);
        else
            snprintf(at, sizeof at, "in shared memory");
        snprintf(rest, left,
                 "%s %d bytes %s (%s) at an address %ld bytes past a multiple of %d: a float2 or float4 access needs "
                 "an address that is a multiple of its size (on a GPU the kernel stops with \"misaligned address\"); "
                 "do its rows or its index keep it one?",
                 b.is_write ? "writes" : "reads", b.size, at, where,
                 (long)(b.misalignment), b.size);
    }
    else if (b.kind == EMU_UNSET_OUTPUT_READ && b.is_write) /* an atomic */
        snprintf(rest, left,
                 "adds with an atomic into element %ld of its output %s (%s) before anything wrote it: an output "
                 "starts with whatever the memory held (on a GPU, cudaMalloc does not clear it), so the sum starts "
                 "from garbage. Atomics into it are fine once it holds 0: the block whose sum it is writes 0 there "
                 "first, with a __syncthreads() between that store and the atomics (a block cannot clear an element "
                 "other blocks add to: blocks run in no fixed order); or keep the sum in registers and store it once",
                 b.offset, b.buffer, where);
    else if (b.kind == EMU_UNSET_OUTPUT_READ)
        snprintf(rest, left,
                 "reads element %ld of its output %s (%s) before anything wrote it: an output starts with whatever "
                 "the memory held (on a GPU, cudaMalloc does not clear it), so a sum kept in it (%s[i] += ...) "
                 "starts from garbage; keep the sum in a register from 0 and store it once",
                 b.offset, b.buffer, where, b.buffer);
    else if (b.kind == EMU_BLOCK_RACE) {
        char other[64];
        unsigned gx = gridDim.x ? gridDim.x : 1;
        if (b.other_block >= 0)
            snprintf(other, sizeof other, "block (%lu,%lu)", (unsigned long)b.other_block % gx,
                     (unsigned long)b.other_block / gx);
        else
            snprintf(other, sizeof other, "another block");
        snprintf(rest, left,
                 "%s element %ld of %s (%s), which %s %s: blocks of one launch run in no fixed order, so one block "
                 "may not read or write what another writes (except with atomics)",
                 b.is_write ? "writes" : "reads", b.offset, b.buffer, where, other,
                 b.other_wrote == 1 ? "wrote" : b.other_wrote == 2 ? "changed with an atomic" : "read");
    } else if (b.kind == EMU_INPUT_WRITE)
        snprintf(rest, left,
                 "writes element %ld of its input %s (%s): a kernel may only read its inputs (the harness gives the "
                 "same ones to every launch)",
                 b.offset, b.buffer, where);
    else if (b.kind == EMU_OUT_OF_BOUNDS && !b.is_write && b.offset < 0)
        snprintf(rest, left,
                 "reads %ld element%s before the start of %s (%s): a negative index?",
                 -b.offset, b.offset == -1 ? "" : "s", b.buffer, where);
    else if (b.kind == EMU_OUT_OF_BOUNDS && !b.is_write)
        snprintf(rest, left,
                 "reads element %ld of %s, past its end (%s): a load without its bounds check?",
                 b.offset, b.buffer, where);
    else if (b.kind == EMU_UNSET_SHARED_READ)
        snprintf(rest, left,
                 "reads shared memory that no thread of the block has written (%s): a tile element nobody loaded, an "
                 "index outside the loaded part, or a read that maps indices differently from the write",
                 where);
    else if (b.offset < 0)
        snprintf(rest, left, "writes %ld element%s before the start of %s (%s)",
                 -b.offset, b.offset == -1 ? "" : "s", b.buffer, where);
    else
        snprintf(rest, left,
                 "writes element %ld of %s, past its end (%s): a store without its bounds check?",
                 b.offset, b.buffer, where);
    return b.kind;
}

/* Says what the race check found, if anything. */
int emu_report_race(char *error, size_t len)
{
    struct emu_race r;
    if (!emu_trace_race(&r))
        return 0;
    char where[2][96];
    emu_where(r.pc, where[0], sizeof where[0]);
    emu_where(r.writer_pc, where[1], sizeof where[1]);
    unsigned bx = blockDim.x ? blockDim.x : 1;
    unsigned wx = (unsigned)r.writer % bx, wy = (unsigned)r.writer / bx;
    /* Two plain writes name both threads. */
    size_t left;
    char *rest = sentence(error, len, r.is_write && !r.atomic && !r.buffer ? "threads" : "thread",
                          (unsigned)r.thread % bx, (unsigned)r.thread / bx, &left);
    /* Two plain writes: an index collision, whatever orders them; a read beside a write in one
     * warp: a missing __syncwarp(). */
    if (r.buffer && r.atomic)
        snprintf(rest, left,
                 "%s element %ld of %s%s (%s), which thread (%u,%u) %s%s (%s), with no barrier between them: an "
                 "atomic orders only other atomics, so a plain access beside one is a race, whose outcome depends "
                 "on the order of the warps",
                 r.atomic == 1 ? "changes" : r.is_write ? "writes" : "reads", r.element, r.buffer,
                 r.atomic == 1 ? " with an atomic" : "", where[0], wx, wy,
                 r.atomic == 2 ? "changes" : r.is_write ? "writes" : "reads", r.atomic == 2 ? " with an atomic" : "",
                 where[1]);
    else if (r.buffer && r.is_write)
        snprintf(rest, left,
                 "writes element %ld of %s (%s) that thread (%u,%u) %s (%s), with no barrier between them: a race "
                 "between warps, whose outcome depends on their order (a __syncthreads() between the two, or "
                 "indices that do not collide?)",
                 r.element, r.buffer, where[0], wx, wy, "also uses", where[1]);
    else if (r.buffer)
        snprintf(rest, left,
                 "reads element %ld of %s (%s) that thread (%u,%u) writes (%s), with no barrier between them: a race "
                 "between warps, whose outcome depends on their order (a __syncthreads() between the two?)",
                 r.element, r.buffer, where[0], wx, wy, where[1]);
    else if (r.same_warp && !r.atomic && !r.is_write)
        snprintf(rest, left,
                 "reads a shared word (%s) that thread (%u,%u), a lane of the same warp, writes (%s), with no "
                 "__syncwarp() between them: a race, since the lanes of a warp do not run in lock step (a "
                 "__syncwarp(), or a shuffle instead of shared memory, orders them)",
                 where[0], wx, wy, where[1]);
    else if (r.atomic)
        snprintf(rest, left,
                 "%s a shared word (%s) that thread (%u,%u) %s (%s), with no %s between them: an atomic orders only "
                 "other atomics, so a plain access beside one is a race",
                 r.is_write ? "writes" : "reads", where[0], wx, wy,
                 "also uses", where[1], r.same_warp ? "__syncwarp()" : "barrier");
    else if (r.is_write)
        snprintf(rest, left,
                 "and (%u,%u) write the same shared word (%s and %s) between the same two barriers: their indices "
                 "collide, so one overwrites the other (is the mapping one-to-one?)",
                 wx, wy, where[0], where[1]);
    else {
        /* Which barrier is missing depends on what the read wanted: a value not written yet (the
         * read came too early) or the old value the write then replaced (the write came too early). */
        uintptr_t unset_pc;
        int too_early = r.writer < r.thread || (emu_trace_unset_read(&unset_pc) && unset_pc == r.pc);
        snprintf(rest, left,
                 "reads shared memory (%s) %s thread (%u,%u) %s (%s), with no barrier between them: a race, whose "
                 "outcome on a GPU depends on timing. %s",
                 where[0], too_early ? "that" : "before", wx, wy,
                 too_early ? "writes" : "writes it", where[1],
                 too_early ? "The read needs the write done first: a __syncthreads() after the write is missing."
                           : "The write replaces a value still being read: a __syncthreads() after the read, "
                             "before the next write, is missing.");
    }
    /* Fences and atomics can order two warps on a GPU (CUDA's last-block pattern, within a block);
     * the race check follows barriers only, and says so rather than send a right kernel's author
     * after a barrier it does not need. */
    size_t used = strlen(error);
    if (r.fenced && !r.same_warp && used < len)
        snprintf(error + used, len - used,
                 " (Your kernel has a memory fence. If a fence and an atomic order these two accesses on a GPU, "
                 "the emulator cannot see it: it orders warps by barriers only, docs/emulator.md, Limits)");
    return 1;
}

