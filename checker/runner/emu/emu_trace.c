/* The emulator's memory tracer and cost model. Kernel files are compiled with
 * -fsanitize=thread but linked without its runtime: the __tsan_* calls the compiler puts
 * before every memory access land here. Accesses to the kernel's shared memory and to the
 * device buffers are logged per thread; when every thread of a block has stopped (at a
 * barrier or its end), the accesses of each warp are grouped into warp instructions, by code
 * address and by how many times that thread had executed it, and priced as the hardware
 * would: shared memory in wavefronts (per bank, the distinct 4-byte words asked of it; the same
 * word twice is a broadcast), global memory in distinct 32-byte sectors.
 *
 * Shared accesses are logged in every run, counted or not, for the race check: between two
 * barriers, no thread may read or write a shared word another thread wrote. */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "emu.h"

struct access {
    uintptr_t pc;
    uintptr_t addr;
    uint32_t size;
    uint32_t op; /* enum mem_op */
};

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
    int current;
    const char *stack_begin, *stack_end;
    const char *readable[8];
    size_t readable_bytes[8];
    int nreadable;
    struct log logs[MAX_THREADS];
    struct mem_counts total;
    struct emu_line_counts lines[EMU_MAX_LINES];
    int nlines;
} tr;

void emu_set_buffers(const struct emu_buffer *buffers, int n)
{
    tr.nbuffers = n < 8 ? n : 8;
    if (tr.nbuffers > 0)
        memcpy(tr.buffers, buffers, (size_t)tr.nbuffers * sizeof *buffers);
}

void emu_trace_set_shared(const char *begin, const char *end)
{
    tr.shared_begin = begin;
    tr.shared_end = end;
}

void emu_trace_switch_to(int thread, const char *stack_begin, const char *stack_end)
{
    tr.current = thread;
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
    tr.nlines = 0;
    tr.on = 1;
}

void emu_trace_stop(struct mem_counts *total, struct emu_line_counts *lines, int *nlines)
{
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

static void bad_access(int kind, int is_write, uintptr_t pc, const char *buffer, long offset)
{
    if (ba.found)
        return;
    ba.found = 1;
    ba.bad = (struct emu_bad_access){kind, is_write, tr.current, pc, buffer, offset};
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
            bad_access(EMU_OUT_OF_BOUNDS, write, pc, b->name, -(long)((b->begin - c + 3) / 4));
            return;
        }
        if (c >= b->end && c < b->end + b->guard) {
            bad_access(EMU_OUT_OF_BOUNDS, write, pc, b->name, (long)((c - b->begin) / 4));
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

static void record(const void *p, uint32_t size, int write, uintptr_t pc)
{
    if (size == 0)
        return;
    const char *c = p;
    int shared = inside(c, size, tr.shared_begin, tr.shared_end);
    int global = 0;
    for (int i = 0; !shared && !global && i < tr.nbuffers; i++)
        if (inside(c, size, tr.buffers[i].begin, tr.buffers[i].end)) {
            global = 1;
            if (write && tr.buffers[i].read_only)
                bad_access(EMU_INPUT_WRITE, 1, pc, tr.buffers[i].name, (long)((c - tr.buffers[i].begin) / 4));
        }
    if (!shared && !global)
        check_outside(c, size, write, pc);
    if (shared && !write && size >= 4) {
        uint32_t v;
        memcpy(&v, c, sizeof v);
        if (v == SHARED_POISON_BITS)
            bad_access(EMU_UNSET_SHARED_READ, 0, pc, NULL, 0);
    }
    if (!shared && !(global && tr.on))
        return;
    struct log *l = &tr.logs[tr.current];
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct access *a = realloc(l->a, cap * sizeof *a);
        if (!a)
            return;
        l->a = a;
        l->cap = cap;
    }
    uint32_t op = shared ? (write ? SHARED_ST : SHARED_LD) : (write ? GLOBAL_ST : GLOBAL_LD);
    l->a[l->n++] = (struct access){pc, (uintptr_t)c, size, op};
}

/* A range too large to check as one is memory nobody gave a kernel. */
static uint32_t range(const void *p, unsigned long n, int write, uintptr_t pc)
{
    if (n > UINT32_MAX / 2)
        emu_wild_access(pc, p, write);
    return (uint32_t)n;
}

/* ---- the compiler's instrumentation entry points ---- */
#define HOOKS(n)                                                                                                 \
    void __tsan_read##n(void *p) { record(p, n, 0, (uintptr_t)__builtin_return_address(0)); }                   \
    void __tsan_write##n(void *p) { record(p, n, 1, (uintptr_t)__builtin_return_address(0)); }                  \
    void __tsan_unaligned_read##n(void *p) { record(p, n, 0, (uintptr_t)__builtin_return_address(0)); }         \
    void __tsan_unaligned_write##n(void *p) { record(p, n, 1, (uintptr_t)__builtin_return_address(0)); }
HOOKS(1)
HOOKS(2)
HOOKS(4)
HOOKS(8)
HOOKS(16)
void __tsan_read_range(void *p, unsigned long n)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    record(p, range(p, n, 0, pc), 0, pc);
}
void __tsan_write_range(void *p, unsigned long n)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    record(p, range(p, n, 1, pc), 1, pc);
}
/* Copies and fills the compiler turns into calls: each side checked as a range, then done. */
static void record_copy(void *dst, const void *src, unsigned long n, uintptr_t pc)
{
    record(src, range(src, n, 0, pc), 0, pc);
    record(dst, range(dst, n, 1, pc), 1, pc);
}
void *__tsan_memcpy(void *dst, const void *src, unsigned long n);
void *__tsan_memcpy(void *dst, const void *src, unsigned long n)
{
    record_copy(dst, src, n, (uintptr_t)__builtin_return_address(0));
    return memcpy(dst, src, n);
}
void *__tsan_memmove(void *dst, const void *src, unsigned long n);
void *__tsan_memmove(void *dst, const void *src, unsigned long n)
{
    record_copy(dst, src, n, (uintptr_t)__builtin_return_address(0));
    return memmove(dst, src, n);
}
void *__tsan_memset(void *dst, int c, unsigned long n);
void *__tsan_memset(void *dst, int c, unsigned long n)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    record(dst, range(dst, n, 1, pc), 1, pc);
    return memset(dst, c, n);
}
void __tsan_init(void) {}
void __tsan_func_entry(void *pc) { (void)pc; }
void __tsan_func_exit(void) {}
void __tsan_vptr_update(void **p, void *v) { (void)p; (void)v; }
void __tsan_vptr_read(void **p) { (void)p; }

/* ---- pricing one warp's accesses ---- */

struct item {
    uintptr_t pc;
    uint32_t occurrence; /* how many times this thread had executed pc before */
    uint32_t op;
    uintptr_t addr;
    uint32_t size, lane;
};

static int by_instruction(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    if (a->pc != b->pc)
        return a->pc < b->pc ? -1 : 1;
    if (a->occurrence != b->occurrence)
        return a->occurrence < b->occurrence ? -1 : 1;
    return (int)a->op - (int)b->op;
}

/* Prices the items of one group (one warp instruction) into c. */
static void price(const struct item *g, size_t n, struct op_counts *c, uint32_t op)
{
    struct emu_lane_access lanes[32 * 4];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof lanes / sizeof lanes[0]; i++)
        lanes[k++] = (struct emu_lane_access){g[i].addr, g[i].size};
    emu_price(lanes, (int)k, (enum mem_op)op, c);
}

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

/* Numbers each access by how often its thread had executed the same code address before. */
static size_t gather_warp(int first, int lanes, struct item *items)
{
    size_t n = 0;
    for (int lane = 0; lane < lanes; lane++) {
        const struct log *l = &tr.logs[first + lane];
        size_t start = n;
        for (size_t i = 0; i < l->n; i++)
            items[n++] = (struct item){l->a[i].pc, 0, l->a[i].op, l->a[i].addr, l->a[i].size, (uint32_t)lane};
        /* Occurrence numbers within this lane: sort by pc (stable by position), count runs. */
        for (size_t i = start; i < n; i++)
            items[i].occurrence = (uint32_t)(i - start); /* position, as a tie-breaker */
        qsort(items + start, n - start, sizeof *items, by_instruction);
        for (size_t i = start; i < n; i++)
            items[i].occurrence = (i > start && items[i - 1].pc == items[i].pc) ? items[i - 1].occurrence + 1 : 0;
    }
    return n;
}

/* ---- the race check ---- */

#define MAX_SHARED_WORDS (228 * 1024 / 4) /* the most shared memory a block can have */

static struct {
    int writer[MAX_SHARED_WORDS]; /* thread + 1 that wrote the word in this interval, 0 none */
    uintptr_t writer_pc[MAX_SHARED_WORDS];
    int found;
    struct emu_race race;
} rc;

/* Looks for a word one thread wrote and another read or wrote between the same two barriers. */
static void check_races(int threads)
{
    size_t words = (size_t)(tr.shared_end - tr.shared_begin) / 4;
    if (rc.found || words == 0 || words > MAX_SHARED_WORDS)
        return;
    memset(rc.writer, 0, words * sizeof rc.writer[0]);
    for (int pass = 0; pass < 2 && !rc.found; pass++)
        for (int t = 0; t < threads && !rc.found; t++)
            for (size_t i = 0; i < tr.logs[t].n && !rc.found; i++) {
                const struct access *a = &tr.logs[t].a[i];
                if (a->op != SHARED_LD && a->op != SHARED_ST)
                    continue;
                size_t w = (size_t)(a->addr - (uintptr_t)tr.shared_begin) / 4;
                int other = rc.writer[w] - 1;
                if (pass == 0 && a->op == SHARED_ST && other < 0) {
                    rc.writer[w] = t + 1; /* first pass: who writes what */
                    rc.writer_pc[w] = a->pc;
                } else if (pass == 1 && other >= 0 && other != t) {
                    rc.found = 1;
                    rc.race = (struct emu_race){t, other, a->op == SHARED_ST, a->pc, rc.writer_pc[w]};
                }
            }
}

int emu_trace_race(struct emu_race *race)
{
    if (rc.found)
        *race = rc.race;
    return rc.found;
}

void emu_trace_reset_races(void)
{
    rc.found = 0;
    ba.found = 0;
}

void emu_trace_interval_end(int threads, int warp_size)
{
    check_races(threads);
    if (!tr.on) {
        for (int t = 0; t < threads; t++)
            tr.logs[t].n = 0;
        return;
    }
    size_t total = 0;
    for (int t = 0; t < threads; t++)
        total += tr.logs[t].n;
    if (total == 0)
        return;
    struct item *items = malloc(total * sizeof *items);
    for (int first = 0; items && first < threads; first += warp_size) {
        int lanes = threads - first < warp_size ? threads - first : warp_size;
        size_t n = gather_warp(first, lanes, items);
        qsort(items, n, sizeof *items, by_instruction);
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            while (j < n && items[j].pc == items[i].pc && items[j].occurrence == items[i].occurrence &&
                   items[j].op == items[i].op)
                j++;
            uint32_t op = items[i].op;
            price(items + i, j - i, &tr.total.op[op], op);
            struct emu_line_counts *l = line_of(items[i].pc);
            if (l)
                price(items + i, j - i, &l->op[op], op);
            i = j;
        }
    }
    free(items);
    for (int t = 0; t < threads; t++)
        tr.logs[t].n = 0;
}
