/* The CPU emulator's tracer, job and sentences, as its scheduler (the PTX interpreter,
 * checker/runner/ptx/) and its runner see them: every shared and global access is checked here
 * before it happens, races are looked for between barriers, and each warp instruction is priced
 * in banks and sectors. The execution model and its limits are in docs/emulator.md. */
#ifndef WB_EMU_H
#define WB_EMU_H
#include <stddef.h>
#include <stdint.h>

#include "bank_model.h"
#include "counts.h"

/* Launch results besides 0. */
enum {
    EMU_BARRIER_DIVERGENCE = 1,
    EMU_BAD_LAUNCH = 2,
    EMU_OUT_OF_MEMORY = 3,
    EMU_RACE = 4,
    EMU_UNSET_SHARED_READ = 5, /* a read of shared memory no thread of the block had written */
    EMU_OUT_OF_BOUNDS = 6,     /* an access to the guard zone around a buffer */
    EMU_INPUT_WRITE = 7,       /* a write into an input */
    EMU_WILD_ACCESS = 8,       /* an access to memory the kernel was not given: stopped at once */
    EMU_WARP_MISMATCH = 9,     /* a warp operation whose lanes cannot all meet */
    EMU_MISALIGNED = 10,       /* an 8- or 16-byte access at an address not a multiple of its size */
    EMU_BLOCK_RACE = 11,       /* two blocks of one launch touch the same global word, one writing */
    EMU_UNSET_OUTPUT_READ = 12, /* a read of an output element nothing had written yet */
};

/* A shared word that one thread wrote and another read (or wrote) with no barrier between (or,
 * for two lanes of one warp, no __syncwarp or other warp operation between). */
struct emu_race {
    int thread, writer; /* linear thread ids in the block */
    int is_write;       /* the second access was a write too */
    int same_warp;      /* both threads are lanes of one warp */
    int atomic;         /* one of the two was an atomic (the other was not) */
    uintptr_t pc, writer_pc;
    const char *buffer; /* global memory within a block: the buffer's name (NULL: shared memory),
                         * the element, and atomic 1 where the second access was the atomic (then
                         * is_write: the first was a write), 2 where the first was */
    long element;
    int fenced;         /* the launch ran a memory fence (__threadfence_block() and kin) before it */
};
/* The first race since emu_trace_reset_races(), if any. */
int emu_trace_race(struct emu_race *race);
void emu_trace_reset_races(void);
/* A memory fence ran: the race check orders warps by barriers only, not by fences and atomics, and
 * a race's sentence says so where the launch had one. */
void emu_trace_fence(void);

/* The first single access that was wrong in itself since emu_trace_reset_races(): a read of
 * unwritten shared memory, or a write into a guard zone. */
struct emu_bad_access {
    int kind; /* EMU_UNSET_SHARED_READ, EMU_OUT_OF_BOUNDS, EMU_INPUT_WRITE, EMU_MISALIGNED or
               * EMU_BLOCK_RACE */
    int is_write; /* EMU_UNSET_OUTPUT_READ: by an atomic */
    int thread;
    uintptr_t pc;
    const char *buffer; /* the buffer's name (NULL: shared memory) */
    long offset;        /* in elements of 4 bytes from its start (< 0: before) */
    int size;           /* EMU_MISALIGNED: the access's bytes, and its address modulo them */
    int misalignment;
    long other_block;   /* EMU_BLOCK_RACE: the linear id of the other block */
    int other_wrote;    /* EMU_BLOCK_RACE: the other block wrote (else read), 2: with an atomic */
};
int emu_trace_bad_access(struct emu_bad_access *bad);

/* A region of "device" memory whose accesses the tracer counts as global. */
struct emu_buffer {
    const char *begin, *end;
    size_t guard;     /* bytes of guard zone on each side: an access there is out of bounds */
    const char *name; /* for the report: "A", "out", ... */
    int read_only;    /* an input: a write to it is an error */
    int elem_bytes;   /* its elements' size, for the element a report names (0: 4, floats) */
    uint64_t lazy_seed; /* an input made page by page when first read (gpu_job.h's lazy_inputs):
                           its values from this seed (0: filled before the launch) */
    int lazy_bits;      /* ... as the judge's inputs are: 2u - 1 for u of this many random bits */
    int lazy_poison;    /* an output poisoned page by page when first touched (a sample's: its
                           pages never touched are never written) */
};
void emu_set_buffers(const struct emu_buffer *buffers, int n);
/* The pages a lazy buffer is made in, and whether page `page` of the buffer that begins at begin
 * has been (1) or was never touched (0). */
#define EMU_LAZY_PAGE 4096
int emu_trace_page_made(const void *begin, size_t page);
/* The buffers set last, and their number. */
const struct emu_buffer *emu_buffers(int *n);

/* Who ends the run after emu_wild_access (the runner: its sentence into the job, then exit). */
void emu_set_fatal_handler(void (*handler)(const char *sentence));

/* The sentence for what the tracer found, into error; 0 when it found nothing (emu_report.c):
 * the first wrong single access (returns its kind), or the first race (returns 1). */
int emu_report_bad_access(char *error, size_t len);
int emu_report_race(char *error, size_t len);

/* The role whose kernel runs now (emu_job.c). */
int emu_job_current_role(void);

/* The sentence explaining the last launch's failure. */
const char *emu_error(void);

/* Per code address of the kernel: where the conflicts and the sectors come from. */
#define EMU_MAX_LINES 1024
struct emu_line_counts {
    uintptr_t pc;
    struct op_counts op[MEM_OPS];
    uint8_t atomic; /* an atomic instruction */
    uint8_t float_atomic_warps; /* as counts.h's line_counts */
    struct shared_request worst[2]; /* its costliest shared load and store request (counts.h) */
};


/* ---- what the scheduler tells the tracer ---- */
/* One access of size bytes at p by the current thread (emu_trace_switch_to), made by the
 * instruction at pc, checked and logged before it happens. 8- and 16-byte accesses must be
 * aligned to their size. A read of shared memory nobody wrote is not an error here: the
 * scheduler follows the value and judges where it goes. */
void emu_trace_access(const void *p, uint32_t size, int write, uintptr_t pc);
/* The same for a read of bytes with no alignment of their own (cp.async's src-size, which may be
 * 12 of a 16-byte copy aligned to 16). */
void emu_trace_read_bytes(const void *p, uint32_t size, uintptr_t pc);
/* The same for an access the scheduler knows lies in the block's shared memory (bounds checked),
 * by thread `thread` after `epoch` warp operations: only what is left to check and log. */
void emu_trace_shared_access(int thread, int epoch, const void *p, uint32_t size, int write, uintptr_t pc);
/* An atomic read-modify-write of size bytes at p (the scheduler then does it): checked like any
 * access, recorded as an atomic read and write. float_add: a float add on shared memory, which
 * the GPU runs as a compare-and-swap loop (the warps that take turns on a word are counted). */
void emu_trace_atomic_access(void *p, uint32_t size, uintptr_t pc, int float_add);
/* One warp instruction's accesses of one kind (op), its n lanes', priced as the hardware serves
 * them (bank_model.h) into the counts while tracing; each lane's access must have gone through
 * emu_trace_access first. */
void emu_trace_price(uintptr_t pc, enum mem_op op, int atomic, struct emu_lane_access *lanes, int n);
/* The current thread's read at pc found shared memory nobody had written (not an error in
 * itself: the first one tells a race's sentence which barrier is missing). */
void emu_trace_note_unset_read(uintptr_t pc);
/* Since emu_trace_reset_races(): 1 and the place of the first such read, or 0. */
int emu_trace_unset_read(uintptr_t *pc);
/* A thread of the running block waited for its global loads with `bytes` of them in flight; each
 * thread's average over its waits is its burst (counts.h). */
void emu_trace_in_flight(int thread, uint32_t bytes);

/* Tracing: off by default (correctness runs need no counts); 1 while tracing. */
void emu_trace_start(void);
void emu_trace_stop(struct mem_counts *total, struct emu_line_counts *lines, int *nlines);
int emu_trace_counting(void);
/* A thread arrives at __syncthreads(); a launch starts n threads: counted while tracing. */
void emu_trace_barrier(void);
/* A barrier for some of the block's warps completed (warps: their mask): until the interval ends,
 * their accesses before it and after it are ordered, and no one else's. */
void emu_trace_named_phase(uint32_t warps, int threads);
/* The warps warp w last met at a barrier for some warps in this interval (0: none). */
uint32_t emu_trace_named_set(int w);
void emu_trace_threads(uint64_t n);
/* One warp's mma.sync m16n8k16 ran: 2048 multiply-adds on the tensor cores; and n lanes' float
 * fma, mad or mul on the ordinary cores. */
void emu_trace_mma(void);
/* ... and n of them issued while a tensor copy for a later stage was on its way (counts.h). */
void emu_trace_mma_ahead(uint32_t n);
void emu_trace_core_multiplies(uint64_t n);
void emu_trace_issue(int kind); /* one warp instruction issued, of enum issue_kind */

/* The running thread's linear id, how many warp operations it has completed in this block (its
 * place in the warp's order), and its local memory, which its kernel may use freely. */
void emu_trace_switch_to(int thread, int epoch, const char *stack_begin, const char *stack_end);
/* A launch starts: the cross-block check of global memory starts afresh; then each block. */
void emu_trace_launch_begin(void);
void emu_trace_block(long block);
/* The code address (pc) of the last write or atomic of the word at p of a writable buffer in this
 * launch, 0 if none: what names the lines when two orders of the warps end differently. */
uintptr_t emu_trace_last_writer(const void *p);
/* The order in which the interpreter runs a block's warps up to each barrier: forward (0),
 * backward (1), or drawn from seed at every barrier (2); ptx_exec.c. */
void emu_set_schedule(int order, uint64_t seed);
/* Memory the kernel may read but not write (its __constant__ data). */
void emu_trace_set_readable(const void *const *begin, const size_t *bytes, int n);
void emu_trace_set_shared(const char *begin, const char *end);
/* All threads of the block stopped (at a barrier or their end): the race check of the interval. */
void emu_trace_interval_end(int threads, int warp_size);

/* ---- what the scheduler provides ---- */
/* "file.cu:31:9": where the instruction at pc comes from. */
const char *emu_where(uintptr_t pc, char *buf, size_t len);
/* "file.cu:31:9 (A)": where the instruction at pc comes from and what it touches (a buffer or a
 * shared array), for the line table: two loads on one line told apart. */
const char *emu_line_where(uintptr_t pc, char *buf, size_t len);
/* The byte of the block's shared memory where the array holding byte `offset` starts (offset
 * itself where no array holds it): where a bank map numbers its words from. */
size_t emu_shared_array_start(size_t offset);
/* The name of the buffer p lies in or next to ("A", "out"), or NULL. */
const char *emu_trace_buffer_name(const void *p);
/* "thread (3,0) of block (1,2) was running file.cu:31:9": where a kernel that never finished was. */
void emu_describe_spin(uintptr_t pc, char *buf, size_t len);
/* Called for an access outside everything the kernel was given, before it happens; must not
 * return (the emulator's runner ends the run with the sentence). */
void emu_wild_access(uintptr_t pc, const void *addr, int is_write) __attribute__((noreturn));
/* Ends the run at once with the sentence of the bad access the tracer has just recorded (a
 * misaligned vector access), where a runner set a fatal handler; without one (the emulator's
 * own tests) it is reported when the block's threads stop, as any bad access. */
void emu_stop_at_bad_access(void);

#endif
