/* The emulator's memory tracer and cost model. Its scheduler (the PTX interpreter) hands it
 * every shared and global access of every lane before it happens: an access outside what the
 * kernel was given is stopped, one into a guard zone, an input or a word another block wrote is
 * recorded for the report, and each warp instruction is priced as the hardware serves it
 * (emu_trace_price, checker/model/bank_model.c): shared memory in wavefronts, global memory in
 * 32-byte sectors. An atomic is priced as a read and a write; lanes of one shared-memory atomic
 * that hit the same word are not a broadcast but take a pass each (the GPU serialises them).
 *
 * Shared accesses are logged in every run, counted or not, for the race check: between two
 * barriers, no thread may read or write a shared word another thread wrote, unless both are
 * lanes of one warp with a warp operation (__syncwarp, a shuffle, a vote) between them, or
 * both accesses are atomics. Global memory has a check of its own across the blocks of a
 * launch: no block may read or write a word another block wrote (atomics apart); and within a
 * block, between two barriers, the same rule as shared memory's for threads of different warps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "half.h"
#include "lazy_input.h"
#include "poison.h"
#include "emu.h"

struct access {
    uintptr_t pc;
    uintptr_t addr;
    uint32_t size;
    uint32_t op : 3;      /* enum mem_op */
    uint32_t atomic : 1;  /* part of an atomic operation */
    uint32_t float_add : 1; /* ... a step of a compare-and-swap loop: a float add, or a CAS in a loop */
    uint32_t epoch : 27;  /* warp operations its thread had completed (saturating) */
    uint32_t phase;       /* barriers for some warps its warp had completed in the interval */
};
#define MAX_EPOCH ((1u << 27) - 1)

struct log {
    struct access *a;
    size_t n, cap;
};

#define MAX_THREADS 1024

static struct {
    int on;
    const char *shared_begin, *shared_end;
    struct emu_buffer buffers[8];
    int nbuffers;
    int current, epoch, atomic, float_add;
    int atomics_seen; /* an atomic in this interval: the race check looks for plain-atomic pairs */
    int float_adds_seen; /* a float add atomic on shared memory in this interval */
    long block; /* the running block's linear id */
    const char *stack_begin, *stack_end;
    const char *readable[8];
    size_t readable_bytes[8];
    int nreadable;
    struct log logs[MAX_THREADS];
    /* The interval's barriers for some warps: each warp's set (0: none) and each thread's phases. */
    uint32_t set[MAX_THREADS / 32];
    uint32_t phase[MAX_THREADS];
    int sets;
    struct mem_counts total;
    struct emu_line_counts lines[EMU_MAX_LINES];
    int nlines;
} tr;

/* ---- blocks of one launch: which block wrote, read or atomically changed each word of a
 * writable buffer (block id + 1, with MANY: more than one block). Mapped lazily and zeroed at
 * every launch by dropping the pages. */
#define MANY 0x80000000u
static struct shadow {
    uint32_t *writer, *reader, *atomic;
    size_t words;
} shadows[8];

/* ---- global memory within a block, the race check's (issue 45: a fixed order of warps hid a
 * plain store beside other warps' atomics). For each word of a writable buffer, in the current
 * interval (between two barriers of one block, stamp), and for each kind of access (a plain write,
 * an atomic, a plain read): its first thread + 1 and code address, and the first of another warp
 * than that one's, enough to find a thread of a warp other than any given one. Lanes of one warp
 * are not compared here (their order is shared memory's concern: global words are per thread in
 * the lessons). And each word's last writer, which names lines where two orders of the warps end
 * with different outputs. */
enum { G_WRITE, G_ATOMIC, G_READ, G_KINDS };
struct global_word {
    uint32_t stamp;
    uint16_t thread[G_KINDS][2];
    uint32_t pc[G_KINDS][2];
    uint32_t phase[G_KINDS][2];
};
static struct {
    struct global_word *words[8];
    uint32_t *last_writer[8];
    size_t nwords[8];
    uint32_t now; /* the interval: advanced at every barrier and block */
} gl = {.now = 1};

static void *map_zeroed(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void global_words_drop(int i)
{
    if (gl.words[i])
        munmap(gl.words[i], gl.nwords[i] * sizeof(struct global_word));
    if (gl.last_writer[i])
        munmap(gl.last_writer[i], gl.nwords[i] * sizeof(uint32_t));
    gl.words[i] = NULL, gl.last_writer[i] = NULL;
}

static void shadow_drop(struct shadow *sh)
{
    global_words_drop((int)(sh - shadows));
    uint32_t **arrays[3] = {&sh->writer, &sh->reader, &sh->atomic};
    for (int k = 0; k < 3; k++)
        if (*arrays[k]) {
            munmap(*arrays[k], sh->words * sizeof(uint32_t));
            *arrays[k] = NULL;
        }
}

/* ---- buffers made page by page (emu_buffer's lazy_seed): a page of an input the first time a
 * kernel reads it, its values as the judge draws inputs (2u - 1, u of lazy_bits random bits),
 * from a hash of the seed and the element, the same whichever order the pages are made in; a page
 * of an output (lazy_poison) poisoned the first time it is touched, so that a read of what nobody
 * wrote is seen there as everywhere. */
#define LAZY_PAGE EMU_LAZY_PAGE
static uint8_t *lazy_made[8];
static size_t lazy_pages[8];
static int lazy_whole[8]; /* every page made at once (no memory for the map) */

void emu_set_buffers(const struct emu_buffer *buffers, int n)
{
    n = n < 8 ? n : 8;
    for (int i = 0; i < 8; i++)
        if (i >= n || buffers[i].begin != tr.buffers[i].begin || buffers[i].end != tr.buffers[i].end)
            shadow_drop(&shadows[i]);
    tr.nbuffers = n;
    if (tr.nbuffers > 0)
        memcpy(tr.buffers, buffers, (size_t)tr.nbuffers * sizeof *buffers);
    for (int i = 0; i < 8; i++) { /* each job's buffers are new, wherever they lie */
        if (lazy_made[i])
            munmap(lazy_made[i], lazy_pages[i]), lazy_made[i] = NULL;
        lazy_whole[i] = 0;
    }
}

const struct emu_buffer *emu_buffers(int *n)
{
    *n = tr.nbuffers;
    return tr.buffers;
}

void emu_trace_launch_begin(void)
{
    for (int i = 0; i < 8; i++) {
        uint32_t *arrays[3] = {shadows[i].writer, shadows[i].reader, shadows[i].atomic};
        for (int k = 0; k < 3; k++)
            if (arrays[k])
                madvise(arrays[k], shadows[i].words * sizeof(uint32_t), MADV_DONTNEED);
        if (gl.last_writer[i])
            madvise(gl.last_writer[i], gl.nwords[i] * sizeof(uint32_t), MADV_DONTNEED);
    }
    gl.now++;
}

/* Each thread of the running block: the global bytes it had in flight each time it waited for
 * them, added up, and how many times that was. */
static struct {
    uint32_t bytes[MAX_THREADS], waits[MAX_THREADS];
    int threads;
} bursts;

/* The finished block's threads into the total's least burst: of the threads that load at all
 * (a kernel may leave some threads idle and give the others more; only timing can judge that),
 * the least of each one's bytes in flight per wait, on average: a thread that issues one wide
 * burst and then waits for every load of the rest keeps the memory as idle as one that always
 * waits, and its average says so where its largest burst would not. */
static void fold_bursts(void)
{
    for (int t = 0; t < bursts.threads; t++) {
        if (bursts.waits[t] == 0)
            continue;
        uint64_t mean = bursts.bytes[t] / bursts.waits[t];
        if (tr.total.burst_threads == 0 || mean < tr.total.min_burst_bytes)
            tr.total.min_burst_bytes = mean;
        tr.total.burst_threads++;
    }
    memset(bursts.bytes, 0, (size_t)bursts.threads * sizeof bursts.bytes[0]);
    memset(bursts.waits, 0, (size_t)bursts.threads * sizeof bursts.waits[0]);
    bursts.threads = 0;
}

/* Sets of sectors, open-addressed, each emptied by a new stamp when its owner changes: the
 * sectors the running block's global loads have read so far (block_ld_sectors; owner: the
 * block), and those the launch's loads, and apart from them its stores, have touched
 * (launch_sectors; owner: the launch). Past SECTOR_SET / 2 sectors a set's further ones all
 * count as new. */
#define SECTOR_SET (1u << 19)
struct sector_set {
    uint64_t *sector;
    uint32_t *stamp, now, n;
    long owner;
};
static struct sector_set block_seen = {.owner = -1}, launch_seen = {.owner = -1};
static long launches; /* the launch's number, the owner of launch_seen */

void emu_trace_block(long block)
{
    if (tr.on)
        fold_bursts();
    tr.block = block;
    gl.now++;
}

static uint32_t *shadow_array(uint32_t **array, size_t words)
{
    if (!*array) {
        void *p = mmap(NULL, words * sizeof(uint32_t), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
        *array = p == MAP_FAILED ? NULL : p;
    }
    return *array;
}

void emu_trace_set_shared(const char *begin, const char *end)
{
    tr.shared_begin = begin;
    tr.shared_end = end;
}

void emu_trace_switch_to(int thread, int epoch, const char *stack_begin, const char *stack_end)
{
    tr.current = thread;
    tr.epoch = epoch;
    tr.stack_begin = stack_begin;
    tr.stack_end = stack_end;
}

void emu_trace_set_readable(const void *const *begin, const size_t *bytes, int n)
{
    tr.nreadable = n < 8 ? n : 8;
    for (int i = 0; i < tr.nreadable; i++) {
        tr.readable[i] = begin[i];
        tr.readable_bytes[i] = bytes[i];
    }
}

void emu_trace_start(void)
{
    memset(&tr.total, 0, sizeof tr.total);
    block_seen.owner = -1; /* (a new launch's first block is a new block, whatever its number) */
    launches++;
    memset(&bursts, 0, sizeof bursts);
    tr.nlines = 0;
    tr.on = 1;
}

void emu_trace_barrier(void)
{
    if (tr.on)
        tr.total.barrier_arrivals++;
}

void emu_trace_threads(uint64_t n)
{
    if (tr.on)
        tr.total.threads += n;
}

void emu_trace_mma(void)
{
    if (tr.on)
        tr.total.mma_multiply_adds += 16 * 8 * 16;
}

void emu_trace_mma_ahead(uint32_t n)
{
    if (tr.on)
        tr.total.mma_ahead_multiply_adds += (uint64_t)n * 16 * 8 * 16;
}

void emu_trace_core_multiplies(uint64_t n)
{
    if (tr.on)
        tr.total.core_multiplies += n;
}

void emu_trace_issue(int kind)
{
    if (tr.on && kind >= 0 && kind < ISSUE_KINDS)
        tr.total.issued[kind]++;
}

void emu_trace_stop(struct mem_counts *total, struct emu_line_counts *lines, int *nlines)
{
    fold_bursts();
    tr.on = 0;
    *total = tr.total;
    memcpy(lines, tr.lines, (size_t)tr.nlines * sizeof *lines);
    *nlines = tr.nlines;
}

static struct {
    int found;
    struct emu_bad_access bad;
} ba;

int emu_trace_bad_access(struct emu_bad_access *bad)
{
    if (ba.found)
        *bad = ba.bad;
    return ba.found;
}

/* [c, c + size) lies inside [begin, end), without overflowing. */
static int inside(const char *c, uint32_t size, const char *begin, const char *end)
{
    return c >= begin && c < end && size <= (size_t)(end - c);
}

/* Keeps the first wrong access; returns whether this one was it. */
/* The size of the buffer's elements, which a report counts in. */
static long elem_bytes(const struct emu_buffer *b)
{
    return b->elem_bytes > 0 ? b->elem_bytes : 4;
}

static int bad_access(int kind, int is_write, uintptr_t pc, const char *buffer, long offset)
{
    if (ba.found)
        return 0;
    ba.found = 1;
    ba.bad = (struct emu_bad_access){kind, is_write, tr.current, pc, buffer, offset, 0, 0, -1, 0};
    return 1;
}

static void record(const void *p, uint32_t size, int write, uintptr_t pc, int aligned);
static void log_shared(const char *c, uint32_t size, int write, uintptr_t pc);
static struct emu_line_counts *line_of(uintptr_t pc);

void emu_trace_atomic_access(void *p, uint32_t size, uintptr_t pc, int float_add)
{
    tr.atomic = 1, tr.float_add = float_add;
    record(p, size, 0, pc, 1);
    record(p, size, 1, pc, 1);
    tr.atomic = 0, tr.float_add = 0;
}


/* Blocks of a launch run in no fixed order on a GPU (here: one after another), so a word of
 * global memory that one block writes may be neither read nor written by another, unless
 * both use atomics. */
static void check_blocks(int i, const char *c, uint32_t size, int write, uintptr_t pc)
{
    struct shadow *sh = &shadows[i];
    const struct emu_buffer *b = &tr.buffers[i];
    sh->words = (size_t)(b->end - b->begin) / 4;
    uint32_t *writer = shadow_array(&sh->writer, sh->words), *reader = shadow_array(&sh->reader, sh->words),
             *atomic = shadow_array(&sh->atomic, sh->words);
    if (!writer || !reader || !atomic || ba.found)
        return;
    uint32_t me = (uint32_t)tr.block + 1;
    for (size_t w = (size_t)(c - b->begin) / 4; w <= (size_t)(c + size - 1 - b->begin) / 4 && w < sh->words; w++) {
        /* The other block that makes this access a race, and what it did (1 wrote, 0 read, 2 atomic). */
        uint32_t other = 0;
        int did = 0;
        if (writer[w] && writer[w] != me)
            other = writer[w], did = 1;
        else if ((tr.atomic || write) && reader[w] && reader[w] != me)
            other = reader[w], did = 0;
        else if (!tr.atomic && atomic[w] && atomic[w] != me)
            other = atomic[w], did = 2;
        if (other) {
            if (bad_access(EMU_BLOCK_RACE, write || tr.atomic, pc, b->name, (long)w)) {
                ba.bad.other_block = (other & MANY) && (other & ~MANY) == me ? -1 : (long)(other & ~MANY) - 1;
                ba.bad.other_wrote = did;
            }
            return;
        }
        uint32_t *slot = tr.atomic ? &atomic[w] : write ? &writer[w] : &reader[w];
        if (!*slot)
            *slot = me;
        else if ((*slot & ~MANY) != me)
            *slot |= MANY;
    }
}

static int rc_found(void);
static void race_found(int thread, int other, int write, int atomic, uintptr_t pc, uintptr_t other_pc,
                       const char *buffer, long element);

/* Whether the warps of threads a and b met at a barrier for some warps in this interval (one set). */
static int in_one_set(int a, int b)
{
    return tr.set[a / 32] && (tr.set[a / 32] >> (b / 32) & 1);
}

/* Whether accesses of threads a and b (of different warps) are ordered within the interval: one
 * set's, in different phases of it. */
static int ordered_by_set(int a, int b, uint32_t phase_a, uint32_t phase_b)
{
    return in_one_set(a, b) && phase_a != phase_b;
}

/* Within the running block: word by word, an access of a thread against those of other warps
 * between the same two barriers (a plain write races with any access, an atomic with plain ones,
 * a plain read with writes and atomics); and the word's last writer. */
static void check_within_block(int i, const char *c, uint32_t size, int write, uintptr_t pc)
{
    const struct emu_buffer *b = &tr.buffers[i];
    size_t words = (size_t)(b->end - b->begin) / 4;
    if (!gl.words[i]) {
        gl.nwords[i] = words;
        gl.words[i] = map_zeroed(words * sizeof(struct global_word));
        gl.last_writer[i] = map_zeroed(words * sizeof(uint32_t));
    }
    if (!gl.words[i] || !gl.last_writer[i] || gl.nwords[i] != words)
        return;
    int me = tr.current, kind = tr.atomic ? G_ATOMIC : write ? G_WRITE : G_READ;
    static const int against[G_KINDS][3] = {
        {G_WRITE, G_ATOMIC, G_READ}, {G_WRITE, G_READ, -1}, {G_WRITE, G_ATOMIC, -1}};
    for (size_t w = (size_t)(c - b->begin) / 4; w <= (size_t)(c + size - 1 - b->begin) / 4 && w < words; w++) {
        struct global_word *x = &gl.words[i][w];
        if (write || tr.atomic)
            gl.last_writer[i][w] = (uint32_t)pc;
        if (x->stamp != gl.now) {
            memset(x, 0, sizeof *x);
            x->stamp = gl.now;
        }
        for (int k = 0; k < 3 && against[kind][k] >= 0 && !rc_found(); k++)
            for (int j = 0; j < 2; j++) {
                int o = x->thread[against[kind][k]][j] - 1;
                if (o >= 0 && o / 32 != me / 32 && !ordered_by_set(me, o, tr.phase[me], x->phase[against[kind][k]][j])) {
                    int other = against[kind][k];
                    race_found(me, o, kind == G_ATOMIC ? other == G_WRITE : write,
                               kind == G_ATOMIC ? 1 : other == G_ATOMIC ? 2 : 0, pc, x->pc[other][j], b->name,
                               (long)(w * 4 / (size_t)elem_bytes(b)));
                    break;
                }
            }
        uint16_t *t = x->thread[kind];
        uint32_t *p = x->pc[kind], *ph = x->phase[kind];
        int j = !t[0] ? 0 : !t[1] && (t[0] - 1) / 32 != me / 32 ? 1 : -1;
        /* an access of the set that an earlier phase's access of it is ordered before takes its
         * place: it races with every access the earlier one races with, and later ones of the
         * set are compared with it (two places would otherwise fill with old phases) */
        for (int k = 0; k < 2 && j < 0; k++)
            if (t[k] && ordered_by_set(me, t[k] - 1, tr.phase[me], ph[k]))
                j = k;
        if (j >= 0)
            t[j] = (uint16_t)(me + 1), p[j] = (uint32_t)pc, ph[j] = tr.phase[me];
    }
}

uintptr_t emu_trace_last_writer(const void *p)
{
    const char *c = p;
    for (int i = 0; i < tr.nbuffers; i++)
        if (c >= tr.buffers[i].begin && c < tr.buffers[i].end && gl.last_writer[i] &&
            gl.nwords[i] == (size_t)(tr.buffers[i].end - tr.buffers[i].begin) / 4)
            return gl.last_writer[i][(size_t)(c - tr.buffers[i].begin) / 4];
    return 0;
}

/* An access that is not to shared memory or inside a buffer: into a guard zone around a buffer
 * (reported with its line when the threads stop; the zone is ours to spoil), to the thread's
 * own stack or to what the runtime lets kernels read (fine), or anywhere else: stopped before
 * it happens, so that a kernel can neither read nor change memory it was not given (the
 * tracer's counts, the job). */
static void check_outside(const char *c, uint32_t size, int write, uintptr_t pc)
{
    for (int i = 0; i < tr.nbuffers; i++) {
        const struct emu_buffer *b = &tr.buffers[i];
        if (c >= b->begin - b->guard && c < b->begin) {
            bad_access(EMU_OUT_OF_BOUNDS, write, pc, b->name, -(long)((b->begin - c + elem_bytes(b) - 1) / elem_bytes(b)));
            return;
        }
        if (c >= b->end && c < b->end + b->guard) {
            bad_access(EMU_OUT_OF_BOUNDS, write, pc, b->name, (long)((c - b->begin) / elem_bytes(b)));
            return;
        }
    }
    if (inside(c, size, tr.stack_begin, tr.stack_end))
        return;
    for (int i = 0; !write && i < tr.nreadable; i++)
        if (inside(c, size, tr.readable[i], tr.readable[i] + tr.readable_bytes[i]))
            return;
    emu_wild_access(pc, c, write);
}

static void lazy_page(int i, size_t page)
{
    const struct emu_buffer *b = &tr.buffers[i];
    size_t esize = (size_t)elem_bytes(b), bytes = (size_t)(b->end - b->begin);
    size_t from = page * LAZY_PAGE, to = from + LAZY_PAGE < bytes ? from + LAZY_PAGE : bytes;
    if (b->lazy_poison) {
        memset((char *)b->begin + from, 0xFF, to - from); /* POISON_BITS, as run_role's memset */
        return;
    }
    for (size_t e = from / esize; e < to / esize; e++) {
        float x = lazy_input_value(b->lazy_seed, e, b->lazy_bits);
        if (esize == 2) {
            uint16_t h = float_to_half(x, 0);
            memcpy((char *)b->begin + e * 2, &h, 2);
        } else
            memcpy((char *)b->begin + e * 4, &x, 4);
    }
}

int emu_trace_page_made(const void *begin, size_t page)
{
    for (int i = 0; i < tr.nbuffers; i++)
        if (tr.buffers[i].begin == begin)
            return lazy_whole[i] || (lazy_made[i] && page < lazy_pages[i] && lazy_made[i][page]);
    return 0;
}

/* Makes the pages of buffer i that bytes [c, c + size) touch, where not made yet. */
static void lazy_make(int i, const char *c, uint32_t size)
{
    const struct emu_buffer *b = &tr.buffers[i];
    size_t bytes = (size_t)(b->end - b->begin), pages = (bytes + LAZY_PAGE - 1) / LAZY_PAGE;
    if (lazy_whole[i])
        return;
    if (!lazy_made[i] && !(lazy_made[i] = map_zeroed(pages))) {
        /* No memory for the map: every page made now, once (a poisoned page made twice would
         * lose what the kernel wrote). */
        for (size_t p = 0; p < pages; p++)
            lazy_page(i, p);
        lazy_whole[i] = 1;
        return;
    }
    lazy_pages[i] = pages;
    for (size_t p = (size_t)(c - b->begin) / LAZY_PAGE; p <= (size_t)(c + size - 1 - b->begin) / LAZY_PAGE; p++)
        if (!lazy_made[i][p])
            lazy_page(i, p), lazy_made[i][p] = 1;
}

/* aligned: the compiler's hook for an access of a naturally aligned type. Accesses of 8 and 16
 * bytes are float2/float4-like loads and stores, which must sit at a multiple of their size
 * (on a GPU anything else stops the kernel), whichever hook the compiler chose: it calls the
 * "unaligned" one when it cannot prove the alignment, as for a float4 cast from &tile[r][c]. */
static void record(const void *p, uint32_t size, int write, uintptr_t pc, int aligned)
{
    if (size == 0)
        return;
    const char *c = p;
    int shared = inside(c, size, tr.shared_begin, tr.shared_end);
    int global = 0;
    for (int i = 0; !shared && !global && i < tr.nbuffers; i++)
        if (inside(c, size, tr.buffers[i].begin, tr.buffers[i].end)) {
            global = 1;
            if ((tr.buffers[i].lazy_seed && !write) || tr.buffers[i].lazy_poison)
                lazy_make(i, c, size);
            if (write && tr.buffers[i].read_only)
                bad_access(EMU_INPUT_WRITE, 1, pc, tr.buffers[i].name, (long)((c - tr.buffers[i].begin) / elem_bytes(&tr.buffers[i])));
            else if (!tr.buffers[i].read_only) {
                check_blocks(i, c, size, write, pc);
                check_within_block(i, c, size, write, pc);
                /* The output starts as POISON_BITS: one still there was never written. */
                uint32_t v;
                if (!write && size >= 4 && (memcpy(&v, c, sizeof v), v == POISON_BITS))
                    bad_access(EMU_UNSET_OUTPUT_READ, tr.atomic, pc, tr.buffers[i].name, (long)((c - tr.buffers[i].begin) / elem_bytes(&tr.buffers[i])));
            }
            if (aligned && size > 1 && (uintptr_t)c % size &&
                bad_access(EMU_MISALIGNED, write, pc, tr.buffers[i].name, (long)((c - tr.buffers[i].begin) / elem_bytes(&tr.buffers[i])))) {
                ba.bad.size = (int)size, ba.bad.misalignment = (int)((uintptr_t)c % size);
                emu_stop_at_bad_access(); /* the CPU's own aligned vector access would fault next */
            }
        }
    if (shared && aligned && size > 1 && (uintptr_t)c % size &&
        bad_access(EMU_MISALIGNED, write, pc, NULL, (long)((c - tr.shared_begin) / 4))) {
        ba.bad.size = (int)size, ba.bad.misalignment = (int)((uintptr_t)c % size);
        emu_stop_at_bad_access();
    }
    if (!shared && !global)
        check_outside(c, size, write, pc);
    /* Logged: shared accesses, for the race check (the scheduler prices every access itself). */
    if (shared)
        log_shared(c, size, write, pc);
}

/* The race check's filter: a race needs a word that two threads touch between two barriers, one
 * of them writing. Each word remembers its first thread in the interval and whether it was
 * written or touched by another; an interval where no word is both is race-free and its logs are
 * not searched (most are: a tile is written in one interval and read in the next). */
#define MAX_SHARED_WORDS (228 * 1024 / 4) /* the most shared memory a block can have */
enum { TOUCHED_BY_MANY = 1, WRITTEN = 2 };
static struct {
    uint32_t stamp[MAX_SHARED_WORDS]; /* the interval the word's entry is of */
    uint16_t first[MAX_SHARED_WORDS]; /* its first thread in that interval */
    uint8_t flags[MAX_SHARED_WORDS];
    uint32_t now;
    int suspect; /* a word of this interval is both: the logs are searched */
} filter = {.now = 1};

static inline void filter_word(size_t w, int write)
{
    if (filter.stamp[w] != filter.now) {
        filter.stamp[w] = filter.now;
        filter.first[w] = (uint16_t)tr.current;
        filter.flags[w] = write ? WRITTEN : 0;
        return;
    }
    uint8_t f = filter.flags[w] | (write ? WRITTEN : 0) | (filter.first[w] != (uint16_t)tr.current ? TOUCHED_BY_MANY : 0);
    filter.flags[w] = f;
    filter.suspect |= f == (TOUCHED_BY_MANY | WRITTEN);
}

static void log_shared(const char *c, uint32_t size, int write, uintptr_t pc)
{
    size_t first = (size_t)(c - tr.shared_begin) / 4, last = (size_t)(c + size - 1 - tr.shared_begin) / 4;
    for (size_t w = first; w <= last && w < MAX_SHARED_WORDS; w++)
        filter_word(w, write || tr.atomic);
    struct log *l = &tr.logs[tr.current];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct access *a = realloc(l->a, cap * sizeof *a);
        if (!a)
            return;
        l->a = a;
        l->cap = cap;
    }
    uint32_t op = write ? SHARED_ST : SHARED_LD;
    uint32_t epoch = (uint32_t)tr.epoch < MAX_EPOCH ? (uint32_t)tr.epoch : MAX_EPOCH;
    l->a[l->n++] = (struct access){pc, (uintptr_t)c, size, op, (uint32_t)(tr.atomic != 0), (uint32_t)(tr.float_add != 0),
                                   epoch, tr.phase[tr.current]};
    tr.atomics_seen |= tr.atomic;
    tr.float_adds_seen |= tr.float_add;
}

void emu_trace_access(const void *p, uint32_t size, int write, uintptr_t pc)
{
    record(p, size, write, pc, 1);
}

void emu_trace_read_bytes(const void *p, uint32_t size, uintptr_t pc)
{
    record(p, size, 0, pc, 0);
}

void emu_trace_shared_access(int thread, int epoch, const void *p, uint32_t size, int write, uintptr_t pc)
{
    const char *c = p;
    tr.current = thread;
    tr.epoch = epoch;
    if (size > 1 && (uintptr_t)c % size && bad_access(EMU_MISALIGNED, write, pc, NULL, (long)((c - tr.shared_begin) / 4))) {
        ba.bad.size = (int)size, ba.bad.misalignment = (int)((uintptr_t)c % size);
        emu_stop_at_bad_access();
    }
    log_shared(c, size, write, pc);
}

static struct {
    int found;
    uintptr_t pc;
} unset;

void emu_trace_note_unset_read(uintptr_t pc)
{
    if (!unset.found)
        unset = (__typeof__(unset)){1, pc};
}

int emu_trace_unset_read(uintptr_t *pc)
{
    if (unset.found)
        *pc = unset.pc;
    return unset.found;
}

const char *emu_trace_buffer_name(const void *p)
{
    const char *c = p;
    for (int i = 0; i < tr.nbuffers; i++)
        if (c >= tr.buffers[i].begin - tr.buffers[i].guard && c < tr.buffers[i].end + tr.buffers[i].guard)
            return tr.buffers[i].name;
    return NULL;
}

int emu_trace_counting(void)
{
    return tr.on;
}

/* The request a line's bank map draws: of its shared loads (or stores), the one with the most
 * wavefronts beyond the conflict-free ones, the first of those. Its lanes are copied only when
 * it is a new worst, so counting costs one comparison more per conflicted request. */
static void keep_worst(struct shared_request *w, const struct emu_lane_access *lanes, int n, int atomic,
                       const struct op_counts *c)
{
    if (w->wavefronts && c->wavefronts - c->ideal <= (uint64_t)w->wavefronts - w->ideal)
        return;
    int k = 0;
    for (int i = 0; i < n && k < REQUEST_LANES; i++) {
        const char *p = (const char *)lanes[i].addr;
        if (!inside(p, lanes[i].size, tr.shared_begin, tr.shared_end))
            continue;
        w->lanes[k].offset = (uint32_t)(p - tr.shared_begin);
        w->lanes[k].size = (uint8_t)lanes[i].size;
        w->lanes[k++].lane = (uint8_t)lanes[i].lane;
    }
    w->nlanes = (uint8_t)k;
    w->atomic = (uint8_t)(atomic != 0);
    w->wavefronts = (uint32_t)c->wavefronts;
    w->ideal = (uint32_t)c->ideal;
    w->base = k ? (uint32_t)emu_shared_array_start(w->lanes[0].offset) : 0;
}

/* 1 if s is new to set since its owner became owner. */
static int sector_new(struct sector_set *set, long owner, uint64_t s)
{
    if (!set->sector) {
        set->sector = calloc(SECTOR_SET, sizeof *set->sector);
        set->stamp = calloc(SECTOR_SET, sizeof *set->stamp);
        if (!set->sector || !set->stamp)
            return 1;
    }
    if (set->owner != owner || set->now == 0) {
        set->owner = owner, set->n = 0;
        if (++set->now == 0) { /* the stamps wrapped: start them again */
            memset(set->stamp, 0, SECTOR_SET * sizeof *set->stamp);
            set->now = 1;
        }
    }
    if (set->n >= SECTOR_SET / 2)
        return 1;
    for (uint32_t h = (uint32_t)((s * 0x9E3779B97F4A7C15ull) >> 45);; h = (h + 1) % SECTOR_SET) {
        if (set->stamp[h] != set->now) {
            set->stamp[h] = set->now, set->sector[h] = s, set->n++;
            return 1;
        }
        if (set->sector[h] == s)
            return 0;
    }
}

void emu_trace_price(uintptr_t pc, enum mem_op op, int atomic, struct emu_lane_access *lanes, int n)
{
    if (!tr.on || n == 0)
        return;
    if (op == GLOBAL_LD || op == GLOBAL_ST)
        for (int i = 0; i < n; i++)
            for (uint64_t s = lanes[i].addr / 32; s <= (lanes[i].addr + lanes[i].size - 1) / 32; s++) {
                /* (a sector's read and its write are two of the launch's: the low bit says which) */
                tr.total.launch_sectors += (uint64_t)sector_new(&launch_seen, launches, s << 1 | (op == GLOBAL_ST));
                if (op == GLOBAL_LD)
                    tr.total.block_ld_sectors += (uint64_t)sector_new(&block_seen, tr.block, s);
            }
    /* A shared atomic's lanes on one word queue up: priced as words of one bank, 128 bytes apart
     * per lane, never as a broadcast (as the tracer's own pricing does). */
    if (atomic && (op == SHARED_LD || op == SHARED_ST))
        for (int i = 0; i < n; i++)
            lanes[i].addr += (uintptr_t)lanes[i].lane * 128;
    struct op_counts c = {0, 0, 0, 0};
    emu_price(lanes, n, op, &c); /* once, for the total and the line */
    struct emu_line_counts *l = line_of(pc);
    if (l && atomic)
        l->atomic = 1;
    struct op_counts *into[2] = {&tr.total.op[op], l ? &l->op[op] : NULL};
    for (int k = 0; k < 2; k++)
        if (into[k]) {
            into[k]->requests += c.requests;
            into[k]->wavefronts += c.wavefronts;
            into[k]->ideal += c.ideal;
            into[k]->bytes += c.bytes;
        }
    if (atomic && (op == SHARED_LD || op == SHARED_ST))
        for (int i = 0; i < n; i++)
            lanes[i].addr -= (uintptr_t)lanes[i].lane * 128;
    if (l && (op == SHARED_LD || op == SHARED_ST) && c.wavefronts > c.ideal)
        keep_worst(&l->worst[op], lanes, n, atomic, &c);
}

void emu_trace_in_flight(int thread, uint32_t bytes)
{
    if (tr.on && thread >= 0 && thread < MAX_THREADS && bytes) {
        bursts.bytes[thread] += bytes;
        bursts.waits[thread]++;
    }
}

/* ---- the counts by code address ---- */

static struct emu_line_counts *line_of(uintptr_t pc)
{
    static int slot_of[2 * EMU_MAX_LINES]; /* index + 1 into tr.lines; 0 = empty */
    if (tr.nlines == 0)
        memset(slot_of, 0, sizeof slot_of);
    for (size_t h = (pc * 0x9E3779B97F4A7C15ull) >> 53;; h = (h + 1) % (2 * EMU_MAX_LINES)) {
        int i = slot_of[h] - 1;
        if (i >= 0 && tr.lines[i].pc == pc)
            return &tr.lines[i];
        if (i < 0) {
            if (tr.nlines == EMU_MAX_LINES)
                return NULL;
            struct emu_line_counts *l = &tr.lines[tr.nlines];
            memset(l, 0, sizeof *l);
            l->pc = pc;
            slot_of[h] = ++tr.nlines;
            return l;
        }
    }
}

/* ---- the race check ----
 * Two accesses to one shared unit (two bytes: a half, as tensor-core tiles store them; every
 * unit an access covers, a float4's eight) race when different threads make them, one writes,
 * they are not both atomics, and nothing orders them: they lie between the same two barriers
 * and, for two lanes of one warp, between the same two warp operations (the same epoch). Among
 * a set of accesses that nothing orders, remembering for each unit the first plain write, the
 * first atomic and the first plain access, and comparing every access with those three, finds
 * a race whenever there is one. The set is the whole interval for threads of different warps,
 * and one epoch of one warp for its lanes. (Two threads writing the two bytes of one unit are
 * taken for a race: no lesson stores single bytes.) */
#define UNIT 2
#define MAX_SHARED_UNITS (MAX_SHARED_WORDS * 4 / UNIT)

/* The first access of a kind to each unit in the current set: its thread + 1 and code address;
 * stamp tells the set it belongs to, so that no array needs clearing between sets. */
struct first_access {
    uint64_t stamp[MAX_SHARED_UNITS];
    int thread[MAX_SHARED_UNITS];
    uintptr_t pc[MAX_SHARED_UNITS];
};
enum { FIRST_WRITE, FIRST_ATOMIC, FIRST_PLAIN, FIRSTS };

static struct {
    struct first_access first[FIRSTS];
    uint64_t stamp;
    int found, fenced;
    struct emu_race race;
} rc;

void emu_trace_fence(void)
{
    rc.fenced = 1;
}

static int rc_found(void)
{
    return rc.found;
}

static void race_found(int thread, int other, int write, int atomic, uintptr_t pc, uintptr_t other_pc,
                       const char *buffer, long element)
{
    if (rc.found)
        return;
    rc.found = 1;
    rc.race = (struct emu_race){thread, other, write, 0, atomic, pc, other_pc, buffer, element, 0};
}

/* Who counts as one in a set: a thread, a warp, or a set of warps that met at a barrier for some
 * warps (a warp that met none: itself). */
enum { BY_THREAD, BY_WARP, BY_SET };
static int same_one(int a, int b, int by)
{
    if (by == BY_THREAD)
        return a == b;
    return a / 32 == b / 32 || (by == BY_SET && in_one_set(a, b));
}

/* Unit w of access a by thread t: in pass 0 remembered where it is the first of its kind, in
 * pass 1 compared with the firsts it races with. */
static void check_unit(size_t w, const struct access *a, int t, int pass, int by, int atomics, uint64_t stamp)
{
    int kinds[2] = {a->atomic ? FIRST_ATOMIC : a->op == SHARED_ST ? FIRST_WRITE : -1,
                    a->atomic || !atomics ? -1 : FIRST_PLAIN};
    if (pass == 0) {
        for (int k = 0; k < 2; k++) {
            struct first_access *f = kinds[k] >= 0 ? &rc.first[kinds[k]] : NULL;
            if (f && f->stamp[w] != stamp) {
                f->stamp[w] = stamp;
                f->thread[w] = t;
                f->pc[w] = a->pc;
            }
        }
        return;
    }
    /* A plain write races with any access; an atomic with plain accesses; a plain access with atomics. */
    const int against[3] = {FIRST_WRITE, !atomics ? -1 : a->atomic ? FIRST_PLAIN : FIRST_ATOMIC, -1};
    for (int k = 0; against[k] >= 0 && !rc.found; k++) {
        const struct first_access *f = &rc.first[against[k]];
        int o = f->stamp[w] == stamp ? f->thread[w] : -1;
        if (o < 0 || same_one(o, t, by))
            continue;
        rc.found = 1;
        rc.race = (struct emu_race){t, o, a->op == SHARED_ST, o / 32 == t / 32, a->atomic || against[k] == FIRST_ATOMIC,
                                    a->pc, f->pc[w], NULL, 0, 0}; /* (NULL: in shared memory) */
    }
}

/* The accesses of one set: lanes [from, to) of the block, entries [begin[t], end[t]) of each
 * thread's log. by: who counts as one (BY_WARP, BY_SET: the set is an interval or a phase). */
static void check_set(int from, int to, const size_t *begin, const size_t *end, int by)
{
    int atomics = tr.atomics_seen;
    uint64_t stamp = ++rc.stamp;
    size_t units = (size_t)(tr.shared_end - tr.shared_begin) / UNIT;
    for (int pass = 0; pass < 2 && !rc.found; pass++)
        for (int t = from; t < to && !rc.found; t++)
            for (size_t i = begin[t - from]; i < end[t - from] && !rc.found; i++) {
                const struct access *a = &tr.logs[t].a[i];
                if (a->op != SHARED_LD && a->op != SHARED_ST)
                    continue;
                size_t at = (size_t)(a->addr - (uintptr_t)tr.shared_begin), last = at + (a->size ? a->size : 1) - 1;
                for (size_t w = at / UNIT; w <= last / UNIT && w < units && !rc.found; w++)
                    check_unit(w, a, t, pass, by, atomics, stamp);
            }
}

/* Each set of warps that met at barriers for some warps: its accesses of one phase (between two
 * such barriers) against each other's, by warp. */
static void check_phases(int threads, size_t *cur, size_t *stop)
{
    for (int w = 0; w * 32 < threads && !rc.found; w++) {
        uint32_t set = tr.set[w];
        if (!set || __builtin_ctz(set) != w) /* (each set once, from its first warp) */
            continue;
        int from = w * 32, to = (32 - __builtin_clz(set)) * 32;
        to = to < threads ? to : threads;
        for (int t = from; t < to; t++)
            cur[t - from] = stop[t - from] = 0;
        for (;;) {
            uint32_t phase = UINT32_MAX;
            for (int t = from; t < to; t++)
                if ((set >> (t / 32) & 1) && cur[t - from] < tr.logs[t].n && tr.logs[t].a[cur[t - from]].phase < phase)
                    phase = tr.logs[t].a[cur[t - from]].phase;
            if (phase == UINT32_MAX || rc.found)
                break;
            for (int t = from; t < to; t++) {
                size_t i = cur[t - from];
                while ((set >> (t / 32) & 1) && i < tr.logs[t].n && tr.logs[t].a[i].phase == phase)
                    i++;
                stop[t - from] = i;
            }
            check_set(from, to, cur, stop, BY_WARP);
            for (int t = from; t < to; t++)
                cur[t - from] = stop[t - from];
        }
    }
}

static void check_races(int threads)
{
    static size_t begin[MAX_THREADS], end[MAX_THREADS];
    if (rc.found || tr.shared_end - tr.shared_begin > MAX_SHARED_UNITS * UNIT)
        return;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int t = 0; t < threads; t++) {
        begin[t] = 0, end[t] = tr.logs[t].n;
        for (size_t i = 0; i < end[t]; i++) {
            lo = tr.logs[t].a[i].epoch < lo ? tr.logs[t].a[i].epoch : lo;
            hi = tr.logs[t].a[i].epoch > hi ? tr.logs[t].a[i].epoch : hi;
        }
    }
    /* No warp operation in this interval: nothing orders any two threads (one pass). A race
     * within a warp found so is reported only if no two warps race too: those need a barrier,
     * and a __syncwarp() would not do. */
    if (lo >= hi && !tr.sets) {
        check_set(0, threads, begin, end, BY_THREAD);
        if (rc.found && rc.race.same_warp) {
            struct emu_race within = rc.race;
            rc.found = 0;
            check_set(0, threads, begin, end, BY_WARP);
            if (!rc.found)
                rc.race = within, rc.found = 1;
        }
        return;
    }
    /* Threads of different warps (different sets of them, where barriers for some warps met):
     * nothing orders them between two barriers; warps of one set, one phase at a time. */
    check_set(0, threads, begin, end, BY_SET);
    if (tr.sets)
        check_phases(threads, begin, end);
    /* Lanes of one warp: one epoch at a time (each log is in its thread's order, epochs rising). */
    for (int first = 0; first < threads && !rc.found; first += 32) {
        int lanes = threads - first < 32 ? threads - first : 32;
        size_t *cur = begin + first, *stop = end + first;
        for (int l = 0; l < lanes; l++)
            cur[l] = 0;
        for (;;) {
            uint32_t epoch = UINT32_MAX;
            for (int l = 0; l < lanes; l++)
                if (cur[l] < tr.logs[first + l].n && tr.logs[first + l].a[cur[l]].epoch < epoch)
                    epoch = tr.logs[first + l].a[cur[l]].epoch;
            if (epoch == UINT32_MAX || rc.found)
                break;
            for (int l = 0; l < lanes; l++) {
                const struct log *g = &tr.logs[first + l];
                size_t i = cur[l];
                while (i < g->n && g->a[i].epoch == epoch)
                    i++;
                stop[l] = i;
            }
            check_set(first, first + lanes, cur, stop, BY_THREAD);
            for (int l = 0; l < lanes; l++)
                cur[l] = stop[l];
        }
    }
}

int emu_trace_race(struct emu_race *race)
{
    if (rc.found)
        *race = rc.race, race->fenced = rc.fenced;
    return rc.found;
}

/* The next interval: no word of the filter is of it yet. */
static void filter_next(void)
{
    filter.suspect = 0;
    if (++filter.now == 0) {
        memset(filter.stamp, 0, sizeof filter.stamp);
        filter.now = 1;
    }
}

static void sets_clear(void)
{
    if (!tr.sets)
        return;
    memset(tr.set, 0, sizeof tr.set);
    memset(tr.phase, 0, sizeof tr.phase);
    tr.sets = 0;
}

void emu_trace_reset_races(void)
{
    sets_clear();
    filter_next();
    rc.found = rc.fenced = 0;
    ba.found = 0;
    unset.found = 0;
}

/* The warps that took turns on one shared word with float add atomics (or compare-and-swaps and
 * exchanges in a loop) in the interval that ends: per word, the distinct warps whose lanes added
 * to it; the most of them into the launch's count and its line's. */
struct word_warp {
    uintptr_t word, pc;
    int warp;
};

static int by_word_then_warp(const void *a, const void *b)
{
    const struct word_warp *x = a, *y = b;
    if (x->word != y->word)
        return x->word < y->word ? -1 : 1;
    return (x->warp > y->warp) - (x->warp < y->warp);
}

static void count_float_add_turns(int threads, int warp_size)
{
    size_t n = 0, cap = 0;
    struct word_warp *ww = NULL;
    for (int t = 0; t < threads; t++)
        for (size_t i = 0; i < tr.logs[t].n; i++) {
            const struct access *a = &tr.logs[t].a[i];
            if (!a->float_add || a->op != SHARED_ST)
                continue;
            if (n == cap) {
                struct word_warp *more = realloc(ww, (cap = cap ? 2 * cap : 64) * sizeof *ww);
                if (!more)
                    break;
                ww = more;
            }
            ww[n++] = (struct word_warp){a->addr / 4, a->pc, t / warp_size};
        }
    qsort(ww, n, sizeof *ww, by_word_then_warp);
    for (size_t i = 0, warps = 0; i < n; i++) {
        warps = i && ww[i].word == ww[i - 1].word ? warps + (ww[i].warp != ww[i - 1].warp) : 1;
        if (warps > tr.total.float_atomic_warps)
            tr.total.float_atomic_warps = warps;
        struct emu_line_counts *line = line_of(ww[i].pc);
        if (line && warps > line->float_atomic_warps)
            line->float_atomic_warps = (uint8_t)(warps < 255 ? warps : 255);
    }
    free(ww);
}

void emu_trace_named_phase(uint32_t warps, int threads)
{
    tr.sets = 1;
    for (int t = 0; t < threads; t++)
        if (warps >> (t / 32) & 1) {
            tr.set[t / 32] = warps;
            tr.phase[t]++;
        }
}

uint32_t emu_trace_named_set(int w)
{
    return w >= 0 && w < MAX_THREADS / 32 ? tr.set[w] : 0;
}

void emu_trace_interval_end(int threads, int warp_size)
{
    if (tr.on && tr.float_adds_seen)
        count_float_add_turns(threads, warp_size);
    tr.float_adds_seen = 0;
    gl.now++;
    if (filter.suspect)
        check_races(threads);
    sets_clear();
    filter_next();
    tr.atomics_seen = 0;
    if (tr.on)
        bursts.threads = threads;
    for (int t = 0; t < threads; t++)
        tr.logs[t].n = 0;
}
