/* Judging outputs (judge.h): against the reference kernel in full and the double-precision
 * CPU reference at sampled elements, with the guard zones, and a one-line diagnosis. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "check_run.h"
#include "compare.h"
#include "jobs.h"
#include "judge.h"
#include "half.h"
#include "lazy_input.h"
#include "reference.h"
#include "rng.h"

#define CPU_FULL_MAX (300 * 300) /* outputs up to this size are checked against the CPU in full */
#define CPU_SAMPLES 2048

static void out_shape(const struct gpu_job *job, int *rows, int *cols)
{
    checking.lesson->family->output_shape(job->rows, job->cols, rows, cols);
}

static struct tolerance tolerance_for(const struct gpu_job *job)
{
    return checking.lesson->family->tolerance(job->rows, job->cols);
}

static void describe_value(char *buf, size_t len, float x)
{
    if (has_bits(x, POISON_BITS))
        snprintf(buf, len, "NaN (never written)");
    else if (has_bits(x, GUARD_BITS))
        snprintf(buf, len, "NaN (guard: read outside the input)");
    else if (has_bits(x, SHARED_POISON_BITS))
        snprintf(buf, len, "NaN (shared memory nobody wrote)");
    else
        snprintf(buf, len, "%.7g", x);
}

static void show_mismatches(const struct comparison *c, const char *against)
{
    say("  %zu of %zu elements differ from %s; the first:\n", c->wrong, (size_t)c->rows * (size_t)c->cols, against);
    for (size_t i = 0; i < c->shown; i++) {
        char got[48];
        describe_value(got, sizeof got, c->first[i].got);
        say("    row %5d, col %5d: expected %.7g, got %s\n", c->first[i].row, c->first[i].col, c->first[i].want, got);
    }
}

/* The CPU reference at the sampled output elements. */
static size_t cpu_reference(struct gpu_job *job, size_t *idx, double *want)
{
    int orows, ocols;
    out_shape(job, &orows, &ocols);
    size_t n = reference_sample(orows, ocols, CPU_FULL_MAX, CPU_SAMPLES, checking.seed, idx);
    const struct family *f = checking.lesson->family;
    for (size_t i = 0; i < n; i++)
        want[i] = f->reference_at(job_in(job, 0), f->ninputs > 1 ? job_in(job, 1) : NULL, job->rows, job->cols, idx[i]);
    return n;
}

/* Compares one output of the student's kernel with the solution's and the CPU's. Returns 0 if
 * right; otherwise prints the mismatches and the diagnosis into the report and returns -1. */
int judge_output(struct gpu_job *job, const float *got, const char *when)
{
    int orows, ocols;
    out_shape(job, &orows, &ocols);
    struct tolerance tol = tolerance_for(job);
    size_t max_idx = CPU_FULL_MAX > CPU_SAMPLES + 2 * (size_t)(orows + ocols) ? CPU_FULL_MAX : CPU_SAMPLES + 2 * (size_t)(orows + ocols);
    size_t *idx = malloc(max_idx * sizeof *idx);
    double *want = malloc(max_idx * sizeof *want);
    float *likely[FAMILY_MISTAKES] = {0};
    int rc = -1;
    if (!idx || !want)
        goto out;
    size_t n = cpu_reference(job, idx, want);

    /* The reference kernel must agree with the CPU, or nothing can be judged. */
    struct comparison sol;
    const float *reference = job_out(job, OUT_REFERENCE);
    compare_sampled(reference, want, idx, n, orows, ocols, checking.lesson->family->output_tile, tol, &sol);
    if (sol.wrong) {
        show_mismatches(&sol, "the CPU reference (the output of the workbook's own kernel)");
        say("  The workbook's own kernel (%s) is wrong here: this is a bug in the workbook, please report it.\n",
            reference_name());
        goto out;
    }
    struct comparison vs_sol, vs_cpu;
    compare_outputs(got, reference, orows, ocols, checking.lesson->family->output_tile, tol, &vs_sol);
    compare_sampled(got, want, idx, n, orows, ocols, checking.lesson->family->output_tile, tol, &vs_cpu);
    if (vs_sol.wrong == 0 && vs_cpu.wrong == 0) {
        checking.judged_right = 1;
        rc = 0;
        goto out;
    }
    const struct family *f = checking.lesson->family;
    struct diagnosis_inputs d = {f->output_is_sum, reference, got, f->output_is_input_moved ? job_in(job, 0) : NULL,
                                 tol, checking.judged_right, {0}, {0}};
    for (int k = 0; k < FAMILY_MISTAKES && f->mistakes[k].compute; k++) {
        float *out = malloc((size_t)orows * ocols * sizeof *out);
        if (out && f->mistakes[k].compute(job_in(job, 0), f->ninputs > 1 ? job_in(job, 1) : NULL, job->rows,
                                          job->cols, out) == 0)
            d.likely[k] = likely[k] = out, d.likely_what[k] = f->mistakes[k].what;
        else
            free(out);
    }
    const struct comparison *c = vs_sol.wrong ? &vs_sol : &vs_cpu;
    say("  Wrong output %s.\n", when);
    show_mismatches(c, vs_sol.wrong ? reference_name() : "the CPU reference");
    if (checking.right_alone) /* alone, in runners of its own, the same job was right */
        say("  Diagnosis: run again alone, in a process of its own on the same inputs, your kernel was right here: it "
            "went wrong only after launches at other sizes before it in the same process, which a kernel does when "
            "it keeps state from one launch to the next (a flag or a counter in memory it was not given). Each "
            "launch must stand on its own.\n");
    else if (checking.later_launch) /* the first launch was right: what differs is what changed since */
        say("  Diagnosis: the first launch of the same kernel on the same inputs was right, so this is no bounds or "
            "indexing mistake: a later launch computed something else, which a kernel does when it keeps state from "
            "one launch to the next (a flag or a counter in memory it was not given) or races (a missing "
            "__syncthreads()?).\n");
    else
        say("  Diagnosis: %s\n", diagnose(c, &d));
out:
    free(idx);
    free(want);
    for (int k = 0; k < FAMILY_MISTAKES; k++)
        free(likely[k]);
    return rc;
}

int judge_later_outputs(struct gpu_job *job, const char *when)
{
    if (job->rep.timed_same)
        return 0;
    char in_range[200];
    const float *lo = job_out(job, OUT_LATER_MIN), *hi = job_out(job, OUT_LATER_MAX);
    checking.later_launch = 1;
    int rc;
    if (memcmp(lo, hi, job->out_elems * sizeof *lo) == 0) { /* one output (the emulator's counted launch) */
        rc = judge_output(job, lo, when);
    } else {
        /* Every later output lay between the two, and the tolerance around the right value is an
         * interval: both ends right, all right. */
        snprintf(in_range, sizeof in_range, "%s, in the least value each element took", when);
        rc = judge_output(job, lo, in_range);
        if (rc == 0) {
            snprintf(in_range, sizeof in_range, "%s, in the greatest value each element took", when);
            rc = judge_output(job, hi, in_range);
        }
    }
    checking.later_launch = 0;
    return rc;
}

int output_agrees(struct gpu_job *job)
{
    int orows, ocols;
    out_shape(job, &orows, &ocols);
    struct comparison r;
    compare_outputs(job_out(job, OUT_STUDENT), job_out(job, OUT_REFERENCE), orows, ocols,
                    checking.lesson->family->output_tile, tolerance_for(job), &r);
    return r.wrong == 0 && job->rep.guard_writes == 0 && job->rep.input_writes == 0;
}

/* Writes into the guard zones around the output are wrong even when every element is right. */
int judge_guards(const struct gpu_job *job)
{
    if (job->rep.input_writes > 0) {
        say("  Your kernel wrote %zu float%s outside its output, into its input or the guard zones around it: a "
            "kernel may only read its inputs (a store without its bounds check, or state kept between launches?).\n",
            job->rep.input_writes, job->rep.input_writes == 1 ? "" : "s");
        return -1;
    }
    if (job->rep.guard_writes == 0)
        return 0;
    long off = job->rep.first_guard_write;
    if (off < 0)
        say("  Your kernel wrote %zu float%s outside its output; the nearest is %ld element%s before its start "
            "(a negative index?).\n",
            job->rep.guard_writes, job->rep.guard_writes == 1 ? "" : "s", -off, off == -1 ? "" : "s");
    else
        say("  Your kernel wrote %zu float%s outside its output; the nearest is element %ld, %ld past its last "
            "(a store without its bounds check?).\n",
            job->rep.guard_writes, job->rep.guard_writes == 1 ? "" : "s", off, off - (long)job->out_elems + 1);
    return -1;
}

/* The kernels run at the size memory traffic is counted at (sz receives it), the emulator
 * counting when `count`; fails the case unless the student's output is right there, since the
 * traffic of a kernel that does not do the work means nothing. */
void count_size(int drawn, int *rows, int *cols)
{
    const struct family *f = checking.lesson->family;
    *rows = f->count_rows, *cols = f->count_cols;
    if (!drawn && checking.count_rows)
        *rows = checking.count_rows, *cols = checking.count_cols;
    if (!drawn)
        return;
    struct rng r;
    rng_seed(&r, checking.seed, 0x636f756e74ull); /* a stream no case's inputs use */
    int square = f->nscalars == 1;
    for (int tries = 0; tries < 64 && *rows == f->count_rows && *cols == f->count_cols; tries++)
        for (int d = 0; d < (square ? 1 : 2); d++) {
            const struct count_draw *c = &f->count_draw[d];
            int *v = d ? cols : rows;
            if (c->step > 0 && c->hi >= c->lo)
                *v = c->step * (c->lo + (int)(rng_next(&r) % (uint64_t)(c->hi - c->lo + 1)));
        }
    if (square)
        *cols = *rows;
}

/* A job of one launch at rows x cols (sz receives its size's text), counted when `count`, only
 * `sample` blocks of each launch run where sample > 0. */
static struct job_mem counted_create_at(int rows, int cols, int count, int sample, uint64_t stream, char *sz,
                                        size_t szlen)
{
    struct check_case sized = {.rows = rows, .cols = cols};
    size_text(&sized, sz, szlen);
    struct job_mem m = job_create(rows, cols, 1, 0);
    if (!m.job)
        case_fail("cannot allocate memory for %s", sz);
    m.job->count = count;
    m.job->sample_blocks = sample;
    if (m.job->sample_blocks) { /* the runner makes the pages the sampled blocks read (gpu_job.h) */
        struct rng r;
        rng_seed(&r, checking.seed, stream);
        m.job->lazy_inputs = rng_next(&r) | 1;
    } else
        fill_inputs(m.job, stream);
    return m;
}

static struct job_mem counted_create(int count, int drawn, uint64_t stream, char *sz, size_t szlen)
{
    int rows, cols;
    count_size(drawn, &rows, &cols);
    /* (a GPU runs every block) */
    return counted_create_at(rows, cols, count, drawn || !checking.emulator ? 0 : checking.sample_blocks, stream, sz,
                             szlen);
}

/* An input of a sample's job, which nobody holds whole (gpu_job.h's lazy_inputs): an array as large
 * as the input whose pages are made only where the reference reads them, with the runner's values. */
static float *lazy_array(const struct gpu_job *job, int k)
{
    void *p = mmap(NULL, job->in_elems[k] * sizeof(float), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void lazy_fill(const struct gpu_job *job, float *in, int k, size_t first, size_t count, size_t stride)
{
    const struct family *f = checking.lesson->family;
    for (size_t j = 0, e = first; j < count && e < job->in_elems[k]; j++, e += stride) {
        float x = lazy_input_value(job->lazy_inputs + (uint64_t)k, e, f->input_bits ? f->input_bits : 24);
        in[e] = f->input_half ? half_to_float(float_to_half(x, 0)) : x;
    }
}

/* The runs of an input a sample's reference has filled already (each element of a matmul's output
 * reads a whole row of A and a column of B, which the block's other elements read again): an
 * open-addressed set of (input, first, count, stride), so that each run is made from the seed once. */
struct filled_runs {
    uint64_t *keys; /* 4 a slot; first + 1 in the second, so that 0 marks a free slot */
    size_t slots;
};

static int filled_before(struct filled_runs *s, int k, size_t first, size_t count, size_t stride)
{
    if (!s->keys)
        return 0;
    uint64_t key[4] = {(uint64_t)k, (uint64_t)first + 1, (uint64_t)count, (uint64_t)stride};
    size_t h = (size_t)(((key[0] * 0x9E3779B97F4A7C15ull ^ key[1]) * 0xC2B2AE3D27D4EB4Full ^ key[2] ^ key[3] << 32) *
                        0x165667B19E3779F9ull >> 20) & (s->slots - 1);
    for (;; h = (h + 1) & (s->slots - 1)) {
        uint64_t *slot = s->keys + 4 * h;
        if (slot[1] == 0) {
            memcpy(slot, key, sizeof key);
            return 0;
        }
        if (!memcmp(slot, key, sizeof key))
            return 1;
    }
}

/* A written element's place in the output, and in the runner's list of them. */
struct written_at {
    uint64_t element;
    size_t i;
};

static int by_element(const void *a, const void *b)
{
    const struct written_at *x = a, *y = b;
    return x->element != y->element ? (x->element > y->element) - (x->element < y->element)
                                     : (x->i > y->i) - (x->i < y->i);
}

/* A sample's output (gpu_report's sampled_written): each element its blocks wrote against the CPU
 * reference, whose inputs are made from the seed where it reads them: a kernel wrong only at the
 * size a GPU times is seen there. 0, or -1 with the first wrong elements said. */
static int judge_sampled_output(const struct gpu_job *job, const char *sz)
{
    const struct family *f = checking.lesson->family;
    const struct written_element *w = (const struct written_element *)job_out((struct gpu_job *)job, OUT_STUDENT);
    size_t room = job->out_elems * sizeof(float) / sizeof *w;
    size_t n = job->rep.sampled_written < room ? job->rep.sampled_written : room, wrong = 0, shown = 0;
    say("  At %s only %d blocks of each launch ran, a sample: ", sz, job->sample_blocks);
    float *in[2] = {NULL, NULL};
    int k = 0;
    while (k < f->ninputs && (in[k] = lazy_array(job, k)) != NULL)
        k++;
    if (!f->input_run || k < f->ninputs) {
        say("its output is not judged there (%s).\n", f->input_run ? "no memory for the inputs" : "not for this family");
        for (k = 0; k < f->ninputs; k++)
            if (in[k])
                munmap(in[k], job->in_elems[k] * sizeof(float));
        return 0;
    }
    int orows, ocols;
    out_shape(job, &orows, &ocols);
    struct tolerance tol = tolerance_for(job);
    char lines[5][160];
    /* at most one run an input an element: twice the slots keep the set half empty (without
     * memory for it, every run is made again: slower, the same verdict) */
    struct filled_runs runs = {NULL, 1};
    while (runs.slots < 2 * n * (size_t)f->ninputs)
        runs.slots *= 2;
    runs.keys = calloc(4 * runs.slots, sizeof *runs.keys);
    /* The elements in the output's order (a row's together, as reference_each takes them), each
     * with its place in w; without memory for that, one at a time as they were written. */
    struct written_at *order = malloc((n ? n : 1) * sizeof *order);
    uint64_t *at = f->reference_each ? malloc((n ? n : 1) * sizeof *at) : NULL;
    double *want = f->reference_each ? malloc((n ? n : 1) * sizeof *want) : NULL;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (w[i].element >= job->out_elems)
            continue;
        for (k = 0; k < f->ninputs; k++) {
            size_t first, count, stride;
            f->input_run(job->rows, job->cols, w[i].element, k, &first, &count, &stride);
            if (!filled_before(&runs, k, first, count, stride))
                lazy_fill(job, in[k], k, first, count, stride);
        }
        if (order)
            order[m++] = (struct written_at){w[i].element, i};
    }
    int each = order && at && want;
    if (order)
        qsort(order, m, sizeof *order, by_element);
    if (each) {
        for (size_t j = 0; j < m; j++)
            at[j] = order[j].element;
        f->reference_each(in[0], in[1], job->rows, job->cols, at, m, want);
    }
    for (size_t j = 0; j < (order ? m : n); j++) {
        size_t i = order ? order[j].i : j;
        if (w[i].element >= job->out_elems)
            continue;
        double ref = each ? want[j] : f->reference_at(in[0], in[1], job->rows, job->cols, w[i].element);
        if (within(w[i].value, ref, tol))
            continue;
        if (shown < 5) {
            char got[48];
            describe_value(got, sizeof got, w[i].value);
            snprintf(lines[shown++], sizeof lines[0], "    row %5zu, col %5zu: expected %.7g, got %s\n",
                     (size_t)w[i].element / (size_t)ocols, (size_t)w[i].element % (size_t)ocols, ref, got);
        }
        wrong++;
    }
    free(order);
    free(at);
    free(want);
    free(runs.keys);
    for (k = 0; k < f->ninputs; k++)
        munmap(in[k], job->in_elems[k] * sizeof(float));
    if (n == 0) {
        say("they wrote no element of the output.\n");
        return -1;
    }
    if (!wrong) {
        say("the %zu output elements they wrote, held to the CPU reference: all right%s.\n", n,
            job->rep.sampled_dropped ? " (and more than could be sent back)" : "");
        return 0;
    }
    say("%zu of the %zu output elements they wrote differ from the CPU reference; the first:\n", wrong, n);
    for (size_t i = 0; i < shown; i++)
        say("%s", lines[i]);
    return -1;
}

int counted_judge(struct job_mem *m, const char *sz, int ran, const char *why, char *failure, size_t len)
{
    char when[96];
    if (!ran) {
        say("  At %s: %s\n", sz, why);
        snprintf(failure, len, "the kernel failed at %s (see above)", sz);
        return -1;
    }
    if (m->job->sample_blocks) { /* a sample of the launch's blocks: judged where they wrote */
        if (judge_sampled_output(m->job, sz) != 0) {
            snprintf(failure, len, "wrong output at %s where its sampled blocks wrote it: the size a GPU times, where "
                                   "a path taken only at some sizes or grids shows",
                     sz);
            return -1;
        }
        return m->job->rep.counted || !m->job->count ? 0 : -1;
    }
    snprintf(when, sizeof when, "at %s, so its memory traffic was not judged", sz);
    if (judge_guards(m->job) != 0 || judge_output(m->job, job_out(m->job, OUT_STUDENT), when) != 0) {
        snprintf(failure, len, "wrong output at %s: memory traffic not judged", sz);
        return -1;
    }
    /* The counted launch is judged too: its traffic means nothing if its output is wrong. */
    if (!m->job->count)
        return 0;
    if (!m->job->rep.counted) {
        snprintf(failure, len, "the emulator counted nothing at %s", sz);
        return -1;
    }
    snprintf(when, sizeof when, "in the launch whose memory traffic was counted (%s), though the first was right", sz);
    if (judge_later_outputs(m->job, when) != 0) {
        snprintf(failure, len, "wrong output in the counted launch at %s", sz);
        return -1;
    }
    return 0;
}

/* Runs a counted job and judges it (counted_judge), failing the case where it is wrong. */
static struct job_mem counted_run(struct job_mem m, const char *sz)
{
    char why[700], failure[200];
    int ran = run_job(m.job, 3 * checking.timeout_s, why, sizeof why) == 0;
    if (counted_judge(&m, sz, ran, why, failure, sizeof failure) != 0) {
        job_free(&m);
        case_fail("%s", failure);
    }
    return m;
}

struct job_mem counted_job(int count, int drawn, uint64_t stream, char *sz, size_t szlen)
{
    return counted_run(counted_create(count, drawn, stream, sz, szlen), sz);
}

struct job_mem sampled_job(int rows, int cols, int blocks, uint64_t stream, char *sz, size_t szlen)
{
    return counted_run(counted_create_at(rows, cols, 1, blocks, stream, sz, szlen), sz);
}

struct job_mem sampled_output_job(int rows, int cols, int blocks, uint64_t stream, char *sz, size_t szlen)
{
    return counted_run(counted_create_at(rows, cols, 0, blocks, stream, sz, szlen), sz);
}
