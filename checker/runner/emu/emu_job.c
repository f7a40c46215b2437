/* The emulator's runner: the same job as the GPU's runner (gpu_runner.c): outputs, guard
 * zones, failures; kernels run by the emulator and, instead of timings, each kernel's memory
 * traffic counted exactly. Its main is emu_runner.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "runner.h"

#define entries runner_kernels
static const char *const role_names[ROLE_COUNT] = {"your kernel", "the reference solution", "the baseline kernel"};

#define GUARD_ELEMS (64 * 1024)

struct host_buffer {
    float *base, *data;
    size_t elems;
};

static void fill_guard(float *p)
{
    uint32_t bits = GUARD_BITS;
    for (size_t i = 0; i < GUARD_ELEMS; i++)
        memcpy(&p[i], &bits, sizeof bits);
}

static int alloc_guarded(struct host_buffer *b, size_t elems)
{
    b->elems = elems;
    /* Aligned as cudaMalloc aligns, so that sectors (32 bytes) fall where they fall on a GPU. */
    b->base = aligned_alloc(256, (elems + 2 * GUARD_ELEMS) * sizeof(float));
    if (!b->base)
        return -1;
    b->data = b->base + GUARD_ELEMS;
    fill_guard(b->base);
    fill_guard(b->data + elems);
    return 0;
}

static void check_guards(struct gpu_job *job, const struct host_buffer *b)
{
    guard_scan(b->base, GUARD_ELEMS, -(long)GUARD_ELEMS, b->elems, &job->rep.guard_writes, &job->rep.first_guard_write);
    guard_scan(b->data + b->elems, GUARD_ELEMS, (long)b->elems, b->elems, &job->rep.guard_writes,
               &job->rep.first_guard_write);
}

static int current_role;

int emu_job_current_role(void)
{
    return current_role;
}

static int run_role(struct gpu_job *job, int role, struct host_buffer in[2], struct host_buffer *out)
{
    current_role = role;
    memset(out->data, 0xFF, out->elems * sizeof(float)); /* POISON_BITS in every float */
    int rc = entries[role]->launch(entries[role], job, in[0].data, in[1].data, out->data);
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
        for (int o = 0; o < MEM_OPS; o++) {
            rep->lines[i].op[o].requests += lines[p].op[o].requests;
            rep->lines[i].op[o].wavefronts += lines[p].op[o].wavefronts;
            rep->lines[i].op[o].ideal += lines[p].op[o].ideal;
        }
    }
}

/* Runs each role of this side again with the tracer counting; the student's output of that
 * run goes to OUT_STUDENT_TIMED, to be judged like the first. */
static int count_roles(struct gpu_job *job, struct host_buffer in[2], struct host_buffer out[ROLE_COUNT])
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
        memcpy(job_out(job, OUT_STUDENT_TIMED), out[r].data, job->out_elems * sizeof(float));
        qsort(lines, (size_t)nlines, sizeof *lines, busiest_first);
        name_lines(job, lines, nlines);
    }
    job->rep.counted = 1;
    return 0;
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

    struct host_buffer in[2] = {{0}}, out[ROLE_COUNT] = {{0}};
    const struct family *f = job_family(job);
    int n_in = f->ninputs;
    int ok = 1;
    for (int i = 0; i < n_in && ok; i++) {
        ok = alloc_guarded(&in[i], job->in_elems[i]) == 0;
        if (ok)
            memcpy(in[i].data, job_in(job, i), job->in_elems[i] * sizeof(float));
    }
    for (int r = 0; r < ROLE_COUNT && ok; r++)
        if (entries[r])
            ok = alloc_guarded(&out[r], job->out_elems) == 0;
    if (!ok) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "out of memory for the buffers.");
        return JOB_SETUP_FAILED;
    }
    /* What the kernel was given: every access outside these, its stack and its shared memory is
     * stopped with its line (emu_trace.c). */
    struct emu_buffer buffers[2 + ROLE_COUNT];
    const char *out_name = f->output_name;
    size_t guard = GUARD_ELEMS * sizeof(float);
    int nb = 0;
    for (int i = 0; i < n_in; i++)
        buffers[nb++] = (struct emu_buffer){(char *)in[i].data, (char *)(in[i].data + in[i].elems), guard,
                                            f->input_names[i], 1};
    for (int r = 0; r < ROLE_COUNT; r++)
        if (entries[r])
            buffers[nb++] = (struct emu_buffer){(char *)out[r].data, (char *)(out[r].data + out[r].elems), guard,
                                                out_name, 0};
    emu_set_buffers(buffers, nb);

    if (role_in(job, ROLE_STUDENT)) {
        if (run_role(job, ROLE_STUDENT, in, &out[ROLE_STUDENT]) != 0)
            return JOB_KERNEL_FAILED;
        memcpy(job_out(job, OUT_STUDENT), out[ROLE_STUDENT].data, job->out_elems * sizeof(float));
        check_guards(job, &out[ROLE_STUDENT]);
    } else {
        int ref = job_reference_role(job);
        if (run_role(job, ref, in, &out[ref]) != 0)
            return JOB_KERNEL_FAILED;
        memcpy(job_out(job, OUT_REFERENCE), out[ref].data, job->out_elems * sizeof(float));
    }
    if (job->count && job->rep.guard_writes == 0 && count_roles(job, in, out) != 0)
        return JOB_KERNEL_FAILED;
    return JOB_OK;
}
