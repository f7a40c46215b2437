/* The emulator's runner: the same job as the GPU's runner (gpu_runner.c): outputs, guard
 * zones, failures; kernels run by the emulator and, instead of timings, each kernel's memory
 * traffic counted exactly. Its main is emu_runner.c. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "half.h"
#include "poison.h"
#include "runner.h"

#define entries runner_kernels
static const char *const role_names[ROLE_COUNT] = {"your kernel", "the reference solution", "the baseline kernel"};

#define GUARD_ELEMS (64 * 1024)

struct host_buffer {
    char *base, *data;
    size_t elems, esize; /* elements, and bytes each: 4 (floats), or 2 (an input of halves) */
};

/* The guard zone: GUARD_ELEMS elements' worth of GUARD_BITS words. */
static void fill_guard(char *p, size_t esize)
{
    uint32_t bits = GUARD_BITS;
    for (size_t i = 0; i < GUARD_ELEMS * esize / sizeof bits; i++)
        memcpy(p + i * sizeof bits, &bits, sizeof bits);
}

static int alloc_guarded(struct host_buffer *b, size_t elems, size_t esize)
{
    b->elems = elems;
    b->esize = esize;
    /* Aligned as cudaMalloc aligns, so that sectors (32 bytes) fall where they fall on a GPU. */
    b->base = aligned_alloc(256, ((elems + 2 * GUARD_ELEMS) * esize + 255) / 256 * 256);
    if (!b->base)
        return -1;
    b->data = b->base + GUARD_ELEMS * esize;
    fill_guard(b->base, esize);
    fill_guard(b->data + elems * esize, esize);
    return 0;
}

/* A launch's output into the job's slot for the judge; not where only a sample of the blocks
 * ran (pack_written sends what they wrote). */
static void copy_out(struct gpu_job *job, int slot, const struct host_buffer *b)
{
    if (!job->sample_blocks)
        memcpy(job_out(job, slot), b->data, job->out_elems * sizeof(float));
}

/* A sample's output (gpu_job.h): the elements its blocks wrote, those its pages hold that are no
 * longer POISON_BITS, for the judge to hold to its reference; only pages the blocks touched are
 * looked at (the rest were never made). */
static void pack_written(struct gpu_job *job, const struct host_buffer *b)
{
    struct written_element *to = (struct written_element *)job_out(job, OUT_STUDENT);
    size_t room = job->out_elems * sizeof(float) / sizeof *to, per_page = EMU_LAZY_PAGE / sizeof(float);
    job->rep.sampled_written = job->rep.sampled_dropped = 0;
    for (size_t page = 0; page * per_page < b->elems; page++) {
        if (!emu_trace_page_made(b->data, page))
            continue;
        for (size_t e = page * per_page; e < b->elems && e < (page + 1) * per_page; e++) {
            uint32_t bits;
            memcpy(&bits, b->data + e * sizeof(float), sizeof bits);
            if (bits == POISON_BITS)
                continue;
            if (job->rep.sampled_written == room) {
                job->rep.sampled_dropped++;
                continue;
            }
            struct written_element *w = &to[job->rep.sampled_written++];
            w->element = e, w->unused = 0;
            memcpy(&w->value, &bits, sizeof bits);
        }
    }
}

/* An output's: floats. */
static void check_guards(struct gpu_job *job, const struct host_buffer *b)
{
    const float *data = (const float *)b->data;
    guard_scan((const float *)b->base, GUARD_ELEMS, -(long)GUARD_ELEMS, b->elems, &job->rep.guard_writes,
               &job->rep.first_guard_write);
    guard_scan(data + b->elems, GUARD_ELEMS, (long)b->elems, b->elems, &job->rep.guard_writes,
               &job->rep.first_guard_write);
}

/* A side's inputs in each element type one of its roles takes: of[0][i] floats, of[1][i] halves
 * (family.h; lesson 10's baseline takes floats where its kernels take halves). */
struct host_inputs {
    struct host_buffer of[2][2];
};

static int current_role;

int emu_job_current_role(void)
{
    return current_role;
}

static int run_role(struct gpu_job *job, int role, struct host_inputs *inputs, struct host_buffer *out)
{
    current_role = role;
    if (!job->sample_blocks) /* (a sample's: page by page as its blocks touch them, emu_trace.c) */
        memset(out->data, 0xFF, out->elems * sizeof(float)); /* POISON_BITS in every float */
    const struct host_buffer *in = inputs->of[role_input_size(job, role) == 2];
    int rc = entries[role]->launch(entries[role], job, in[0].data, in[1].data, (float *)out->data);
    if (rc) {
        job->rep.failed_role = role;
        job->rep.sanitizer_fault = rc == EMU_OUT_OF_BOUNDS || rc == EMU_WILD_ACCESS || rc == EMU_MISALIGNED ||
                                   rc == EMU_RACE || rc == EMU_BARRIER_DIVERGENCE || rc == EMU_WARP_MISMATCH;
        const char *e = emu_error();
        size_t n = strlen(e);
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s: %s%s", role_names[role], e,
                 n && (e[n - 1] == '?' || e[n - 1] == '.') ? "" : ".");
        return -1;
    }
    return 0;
}

/* The student's code addresses that move the most memory: what the report shows. */
static int busiest_first(const void *x, const void *y)
{
    const struct emu_line_counts *a = x, *b = y;
    uint64_t wa = 0, wb = 0;
    for (int o = 0; o < MEM_OPS; o++) {
        wa += a->op[o].wavefronts;
        wb += b->op[o].wavefronts;
    }
    return (wa < wb) - (wa > wb);
}

/* The busiest code addresses added up by the source line they come from (file:line:column, as
 * emu_where names it), the busiest first: the report's line table. */
static void name_lines(struct gpu_job *job, const struct emu_line_counts *lines, int nlines)
{
    struct gpu_report *rep = &job->rep;
    rep->nlines = 0;
    for (int p = 0; p < nlines; p++) {
        char where[160];
        emu_line_where(lines[p].pc, where, sizeof where);
        int i = 0;
        while (i < rep->nlines && strcmp(rep->lines[i].where, where) != 0)
            i++;
        if (i == rep->nlines) {
            if (rep->nlines == MAX_COUNTED_LINES)
                continue;
            memset(&rep->lines[i], 0, sizeof rep->lines[i]);
            snprintf(rep->lines[rep->nlines++].where, sizeof rep->lines[i].where, "%.95s", where);
        }
        rep->lines[i].atomic |= lines[p].atomic;
        if (lines[p].float_atomic_warps > rep->lines[i].float_atomic_warps)
            rep->lines[i].float_atomic_warps = lines[p].float_atomic_warps;
        for (int o = 0; o < MEM_OPS; o++) {
            rep->lines[i].op[o].requests += lines[p].op[o].requests;
            rep->lines[i].op[o].wavefronts += lines[p].op[o].wavefronts;
            rep->lines[i].op[o].ideal += lines[p].op[o].ideal;
            rep->lines[i].op[o].bytes += lines[p].op[o].bytes;
        }
        /* The line's costliest request of each kind, over the code addresses it has. */
        for (int o = 0; o < 2; o++) {
            const struct shared_request *w = &lines[p].worst[o], *had = &rep->lines[i].worst[o];
            if (w->wavefronts && (!had->wavefronts || w->wavefronts - w->ideal > had->wavefronts - had->ideal))
                rep->lines[i].worst[o] = *w;
        }
    }
}

/* Runs each role of this side again with the tracer counting; the student's output of that
 * run is the range of later outputs (OUT_LATER_MIN and OUT_LATER_MAX both), to be judged like
 * the first. */
static int count_roles(struct gpu_job *job, struct host_inputs *in, struct host_buffer out[ROLE_COUNT])
{
    static struct emu_line_counts lines[EMU_MAX_LINES];
    int nlines;
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (!entries[r])
            continue;
        emu_trace_start();
        int rc = run_role(job, r, in, &out[r]);
        emu_trace_stop(&job->rep.counts[r], lines, &nlines);
        if (rc)
            return -1;
        if (r != ROLE_STUDENT)
            continue;
        if (job->sample_blocks)
            pack_written(job, &out[r]);
        copy_out(job, OUT_LATER_MIN, &out[r]);
        copy_out(job, OUT_LATER_MAX, &out[r]);
        qsort(lines, (size_t)nlines, sizeof *lines, busiest_first);
        name_lines(job, lines, nlines);
    }
    job->rep.counted = 1;
    return 0;
}

/* Element e of two launches' outputs: the same, but for what another order of float atomics
 * rounds otherwise (NaN the same as NaN: the judge holds a NaN to the reference anyway). */
static int same_result(float a, float b)
{
    if (a == b || (a != a && b != b))
        return 1;
    float m = fabsf(a) > fabsf(b) ? fabsf(a) : fabsf(b);
    return fabsf(a - b) <= 1e-4f * (1.0f + m);
}

/* The student's kernel again with its block's warps in other orders between barriers: backward,
 * then drawn at every barrier from its inputs (which the run's seed drew). A fixed order hides a
 * race between warps that the race check does not see; an output that then differs from the
 * first is one, named by the lines that wrote the element last in each order. Only at small
 * sizes (MAX_REORDERED input elements; each order is one more launch: make emulator-test grew
 * about 10%, 25% at four times the elements): a race between warps shows in a block of any size. */
#define MAX_REORDERED (16 * 1024) /* a matmul's N = 128, or 64 rows of lesson 7's 256 */
static int other_orders(struct gpu_job *job, struct host_inputs *in, struct host_buffer *out)
{
    size_t n = job->out_elems;
    const float *first = job_out(job, OUT_STUDENT);
    uint32_t *writers = malloc(n * sizeof *writers);
    if (!writers)
        return 0;
    for (size_t e = 0; e < n; e++)
        writers[e] = (uint32_t)emu_trace_last_writer(out->data + e * sizeof(float));
    uint64_t seed = 0xcbf29ce484222325ull; /* FNV-1a of the first input's first elements */
    const unsigned char *bytes = (const unsigned char *)job_in(job, 0);
    for (size_t k = 0; k < 4096 && k < job->in_elems[0] * sizeof(float); k++)
        seed = (seed ^ bytes[k]) * 0x100000001b3ull;
    static const char *const order_names[] = {"", "backward", "in an order drawn from the seed"};
    int rc = 0;
    for (int order = 1; order <= 2 && rc == 0; order++) {
        emu_set_schedule(order, seed);
        if (run_role(job, ROLE_STUDENT, in, out) != 0) {
            size_t used = strlen(job->rep.failure);
            snprintf(job->rep.failure + used, sizeof job->rep.failure - used, " (with the blocks and warps run %s)",
                     order_names[order]);
            rc = -1;
            break;
        }
        const float *now = (const float *)out->data;
        for (size_t e = 0; e < n && rc == 0; e++)
            if (!same_result(first[e], now[e])) {
                char was[96], is[120], both[300];
                emu_where(writers[e], was, sizeof was);
                emu_where(emu_trace_last_writer(out->data + e * sizeof(float)), is, sizeof is);
                if (strcmp(was, is) == 0)
                    snprintf(both, sizeof both, "last written by %s in both", was);
                else
                    snprintf(both, sizeof both, "last written by %s in the one and by %s in the other", was, is);
                job->rep.failed_role = ROLE_STUDENT;
                job->rep.sanitizer_fault = 1;
                snprintf(job->rep.failure, sizeof job->rep.failure,
                         /* the cause first: a long path in the places last cannot cut it off */
                         "your kernel: element %zu of %s changes when the warps and blocks run in another order: "
                         "threads of different warps or blocks race for it or for what it was computed from (a barrier "
                         "missing between warps, a block reading what another block writes, or an order of atomics "
                         "that matters?). It is %g with the blocks, and each block's warps, run in order and %g with "
                         "them run %s; %.80s.",
                         e, job_family(job)->output_name, (double)first[e], (double)now[e], order_names[order], both);
                rc = -1;
            }
    }
    emu_set_schedule(0, 0);
    free(writers);
    return rc;
}

int gpu_job_run(void *arg)
{
    struct gpu_job *job = arg;
    job->rep.failed_role = -1;
    job->rep.emulator = 1;
    snprintf(job->rep.device, sizeof job->rep.device, "the CPU emulator");
    for (int r = 0; r < ROLE_COUNT; r++)
        if (entries[r])
            entries[r]->attributes(entries[r], &job->rep.static_smem[r], &job->rep.regs[r]);
    if (!job->launch)
        return JOB_OK;

    struct host_inputs in = {{{{0}}}};
    struct host_buffer out[ROLE_COUNT] = {{0}};
    const struct family *f = job_family(job);
    int n_in = f->ninputs, types[2] = {0, 0};
    runner_input_types(job, types);
    int ok = 1;
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n_in && types[t] && ok; i++) {
            struct host_buffer *b = &in.of[t][i];
            ok = alloc_guarded(b, job->in_elems[i], t ? 2 : 4) == 0;
            if (ok && job->lazy_inputs) /* made page by page as the kernels read them (emu_trace.c) */
                continue;
            if (ok && t)
                floats_to_halves(job_in(job, i), (uint16_t *)b->data, b->elems);
            else if (ok)
                memcpy(b->data, job_in(job, i), b->elems * sizeof(float));
        }
    for (int r = 0; r < ROLE_COUNT && ok; r++)
        if (entries[r])
            ok = alloc_guarded(&out[r], job->out_elems, sizeof(float)) == 0;
    if (!ok) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "out of memory for the buffers.");
        return JOB_SETUP_FAILED;
    }
    /* What the kernel was given: every access outside these, its stack and its shared memory is
     * stopped with its line (emu_trace.c). */
    struct emu_buffer buffers[4 + ROLE_COUNT];
    const char *out_name = f->output_name;
    int nb = 0;
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n_in && types[t]; i++) {
            const struct host_buffer *b = &in.of[t][i];
            buffers[nb++] = (struct emu_buffer){b->data, b->data + b->elems * b->esize, GUARD_ELEMS * b->esize,
                                                f->input_names[i], 1, (int)b->esize,
                                                job->lazy_inputs ? job->lazy_inputs + (uint64_t)i : 0,
                                                f->input_bits ? f->input_bits : 24, 0};
        }
    for (int r = 0; r < ROLE_COUNT; r++)
        if (entries[r])
            buffers[nb++] = (struct emu_buffer){out[r].data, out[r].data + out[r].elems * sizeof(float),
                                                GUARD_ELEMS * sizeof(float), out_name, 0, 4, 0, 0,
                                                job->sample_blocks != 0};
    emu_set_buffers(buffers, nb);

    if (job->sample_blocks) {
        /* A sample of the blocks (gpu_job.h): counted alone (count_roles), its output sent back
         * where its blocks wrote it (pack_written). The blocks past the grid's corners are drawn
         * from the inputs' seed, which the judge draws from the check's: a kernel cannot know
         * which of its blocks will run. */
        emu_set_schedule(0, job->lazy_inputs);
        if (!job->count && role_in(job, ROLE_STUDENT)) { /* the output alone (family.h's timed_output_blocks) */
            int rc = run_role(job, ROLE_STUDENT, &in, &out[ROLE_STUDENT]);
            emu_set_schedule(0, 0);
            if (rc != 0)
                return JOB_KERNEL_FAILED;
            pack_written(job, &out[ROLE_STUDENT]);
        }
    } else if (role_in(job, ROLE_STUDENT)) {
        if (run_role(job, ROLE_STUDENT, &in, &out[ROLE_STUDENT]) != 0)
            return JOB_KERNEL_FAILED;
        copy_out(job, OUT_STUDENT, &out[ROLE_STUDENT]);
        check_guards(job, &out[ROLE_STUDENT]);
        if (!job->count && job->rep.guard_writes == 0 &&
            job->in_elems[0] <= (f->reordered_elems ? (size_t)f->reordered_elems : MAX_REORDERED) &&
            other_orders(job, &in, &out[ROLE_STUDENT]) != 0)
            return JOB_KERNEL_FAILED;
    } else {
        int ref = job_reference_role(job);
        if (run_role(job, ref, &in, &out[ref]) != 0)
            return JOB_KERNEL_FAILED;
        copy_out(job, OUT_REFERENCE, &out[ref]);
    }
    int rc = job->count && job->rep.guard_writes == 0 && count_roles(job, &in, out) != 0;
    emu_set_schedule(0, 0);
    return rc ? JOB_KERNEL_FAILED : JOB_OK;
}
