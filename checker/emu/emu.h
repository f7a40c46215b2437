/* The CPU emulator's runtime, as the rest of the checker sees it (plain C). The kernel side
 * is cuda_emu.h; the execution model and its limits are in docs/emulator.md. */
#ifndef WB_EMU_H
#define WB_EMU_H
#include <stddef.h>
#include <stdint.h>

#include "counts.h"

/* Launch results besides 0. */
enum {
    EMU_BARRIER_DIVERGENCE = 1,
    EMU_BAD_LAUNCH = 2,
    EMU_OUT_OF_MEMORY = 3,
    EMU_RACE = 4,
    EMU_UNSET_SHARED_READ = 5, /* a read of shared memory no thread of the block had written */
    EMU_OUT_OF_BOUNDS = 6,     /* a write into the guard zone around a buffer */
};

/* A shared word that one thread wrote and another read (or wrote) with no barrier between. */
struct emu_race {
    int thread, writer; /* linear thread ids in the block */
    int is_write;       /* the second access was a write too */
    uintptr_t pc, writer_pc;
};
/* The first race since emu_trace_reset_races(), if any. */
int emu_trace_race(struct emu_race *race);
void emu_trace_reset_races(void);

/* The first single access that was wrong in itself since emu_trace_reset_races(): a read of
 * unwritten shared memory, or a write into a guard zone. */
struct emu_bad_access {
    int kind; /* EMU_UNSET_SHARED_READ or EMU_OUT_OF_BOUNDS */
    int thread;
    uintptr_t pc;
    const char *buffer; /* EMU_OUT_OF_BOUNDS: its name */
    long offset;        /* EMU_OUT_OF_BOUNDS: in elements of 4 bytes from its start (< 0: before) */
};
int emu_trace_bad_access(struct emu_bad_access *bad);

/* A region of "device" memory whose accesses the tracer counts as global. */
struct emu_buffer {
    const char *begin, *end;
    size_t guard;     /* bytes of guard zone on each side: a write there is out of bounds */
    const char *name; /* for the report: "A", "out", ... */
};
void emu_set_buffers(const struct emu_buffer *buffers, int n);

/* The sentence explaining the last launch's failure. */
const char *emu_error(void);

/* Per code address of the kernel: where the conflicts and the sectors come from. */
#define EMU_MAX_LINES 1024
struct emu_line_counts {
    uintptr_t pc;
    struct op_counts op[MEM_OPS];
};

/* Prices one warp instruction, the accesses of its n active lanes (all of one kind), as the
 * hardware serves it: for shared memory the wavefronts (per bank, the distinct 4-byte words
 * asked of it; one word asked by many lanes is a broadcast) and the conflict-free ideal; for
 * global memory the distinct 32-byte sectors. Adds to c. */
struct emu_lane_access {
    uintptr_t addr;
    uint32_t size;
};
void emu_price(const struct emu_lane_access *lanes, int n, enum mem_op op, struct op_counts *c);

/* Tracing: off by default (correctness runs need no counts). */
void emu_trace_start(void);
void emu_trace_stop(struct mem_counts *total, struct emu_line_counts *lines, int *nlines);

/* "file.cu:31" for a code address of the kernel, or "?" (asks llvm-symbolizer); the second
 * form looks up many at once. */
const char *emu_where(uintptr_t pc, char *buf, size_t len);
void emu_where_many(const uintptr_t *pcs, int n, char (*where)[96]);

/* Scheduler hooks for the tracer (emu_runtime.c calls them). */
void emu_trace_switch_to(int thread);                  /* the running fiber's linear thread id */
void emu_trace_interval_end(int threads, int warp_size); /* all threads stopped: count what they did */
void emu_trace_set_shared(const char *begin, const char *end);

#endif
