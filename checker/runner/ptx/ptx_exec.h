/* Running one kernel of a parsed PTX module (ptx.h) on the CPU: a grid of blocks one after
 * another, each block's warps in lockstep, every memory access checked and counted by the
 * emulator's tracer (checker/runner/emu/emu_trace.c). */
#ifndef WB_PTX_EXEC_H
#define WB_PTX_EXEC_H
#include "ptx.h"

struct ptx_launch {
    const struct ptx_module *m;
    const struct ptx_kernel *k;
    unsigned grid[3], block[3];
    const unsigned char *params; /* the parameter block, laid out as k->params say */
    const char *source;          /* the name to give .file 1 in messages (the lesson file) */
    int registers;               /* per thread, as ptxas gave them for the GPU (0: not known) */
    unsigned sample;             /* run only this many of the grid's blocks (0: all): the grid's
                                    four corners and others drawn from the schedule's seed; its
                                    counts are those blocks' alone (a time model's sample of a
                                    launch too large to run whole) */
    size_t dynamic_shared;       /* bytes of `extern __shared__` memory, after the kernel's own */
};

/* Runs the launch. 0, or an EMU_* code (emu.h) with emu_error() saying what went wrong and
 * where (file:line:column of the lesson file). */
int ptx_run(const struct ptx_launch *launch);

/* "file:line:column" of instruction i of the running kernel (or "?" outside it). */
const char *ptx_where(int insn, char *buf, size_t len);

#endif
