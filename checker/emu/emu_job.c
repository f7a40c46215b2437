/* The child process's side of a check in the CPU emulator: the same job as gpu/gpu_job.c
 * (outputs, guard zones, failures), with kernels run by the emulator and, instead of timings,
 * each kernel's memory traffic counted exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu.h"
#include "gpu_job.h"

static const struct kernel_entry *const entries[ROLE_COUNT] = {&student_kernel, &solution_kernel, &baseline_kernel};
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

static int run_role(struct gpu_job *job, int role, struct host_buffer in[2], struct host_buffer *out)
{
    memset(out->data, 0xFF, out->elems * sizeof(float)); /* POISON_BITS in every float */
    int rc = entries[role]->launch(in[0].data, in[1].data, out->data, job->rows, job->cols);
    if (rc) {
        job->rep.failed_role = role;
        const char *e = emu_error();
        size_t n = strlen(e);
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s: %s%s", role_names[role], e,
                 n && (e[n - 1] == '?' || e[n - 1] == '.') ? "" : ".");
        return -1;
    }
    return 0;
}

/* The student's lines that move the most memory: what the report shows. */
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

/* Adds one code address's counts to its source line: an unrolled loop or a load and a store
 * on one line have several code addresses. */
static void add_line(struct gpu_report *rep, const struct emu_line_counts *pc, const char *where)
{
    int i = 0;
    while (i < rep->nlines && strcmp(rep->lines[i].where, where) != 0)
        i++;
    if (i == rep->nlines) {
        if (rep->nlines == MAX_COUNTED_LINES)
            return;
        memset(&rep->lines[rep->nlines], 0, sizeof rep->lines[0]);
        snprintf(rep->lines[rep->nlines++].where, sizeof rep->lines[0].where, "%.95s", where);
    }
    for (int o = 0; o < MEM_OPS; o++) {
        rep->lines[i].op[o].requests += pc->op[o].requests;
        rep->lines[i].op[o].wavefronts += pc->op[o].wavefronts;
        rep->lines[i].op[o].ideal += pc->op[o].ideal;
    }
}

static int count_roles(struct gpu_job *job, struct host_buffer in[2], struct host_buffer out[ROLE_COUNT])
{
    static struct emu_line_counts lines[EMU_MAX_LINES];
    int nlines;
    for (int r = 0; r < ROLE_COUNT; r++) {
        if (!role_present(r))
            continue;
        emu_trace_start();
        int rc = run_role(job, r, in, &out[r]);
        emu_trace_stop(&job->rep.counts[r], lines, &nlines);
        if (rc)
            return -1;
        if (r != ROLE_STUDENT)
            continue;
        qsort(lines, (size_t)nlines, sizeof *lines, busiest_first);
        static uintptr_t pcs[EMU_MAX_LINES];
        static char where[EMU_MAX_LINES][96];
        for (int i = 0; i < nlines; i++)
            pcs[i] = lines[i].pc;
        emu_where_many(pcs, nlines, where);
        job->rep.nlines = 0;
        for (int i = 0; i < nlines; i++)
            add_line(&job->rep, &lines[i], where[i]);
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
        if (role_present(r))
            entries[r]->attributes(&job->rep.static_smem[r], &job->rep.regs[r]);
    if (!job->launch)
        return JOB_OK;

    struct host_buffer in[2] = {{0}}, out[ROLE_COUNT] = {{0}};
    int n_in = job->family == FAMILY_MATMUL ? 2 : 1;
    int ok = 1;
    for (int i = 0; i < n_in && ok; i++) {
        ok = alloc_guarded(&in[i], job->in_elems[i]) == 0;
        if (ok)
            memcpy(in[i].data, job_in(job, i), job->in_elems[i] * sizeof(float));
    }
    for (int r = 0; r < ROLE_COUNT && ok; r++)
        ok = alloc_guarded(&out[r], job->out_elems) == 0;
    if (!ok) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "out of memory for the buffers.");
        return JOB_SETUP_FAILED;
    }
    struct emu_buffer buffers[2 + ROLE_COUNT];
    const char *in_names[2][2] = {{"A", "B"}, {"in", ""}};
    const char *out_name = job->family == FAMILY_MATMUL ? "C" : "out";
    size_t guard = GUARD_ELEMS * sizeof(float);
    int nb = 0;
    for (int i = 0; i < n_in; i++)
        buffers[nb++] = (struct emu_buffer){(char *)in[i].data, (char *)(in[i].data + in[i].elems), guard,
                                            in_names[job->family == FAMILY_MATMUL ? 0 : 1][i]};
    for (int r = 0; r < ROLE_COUNT; r++)
        buffers[nb++] = (struct emu_buffer){(char *)out[r].data, (char *)(out[r].data + out[r].elems), guard, out_name};
    emu_set_buffers(buffers, nb);

    int ref = reference_role();
    if (run_role(job, ref, in, &out[ref]) != 0)
        return JOB_KERNEL_FAILED;
    memcpy(job_out(job, OUT_REFERENCE), out[ref].data, job->out_elems * sizeof(float));
    if (run_role(job, ROLE_STUDENT, in, &out[ROLE_STUDENT]) != 0)
        return JOB_KERNEL_FAILED;
    memcpy(job_out(job, OUT_STUDENT), out[ROLE_STUDENT].data, job->out_elems * sizeof(float));
    check_guards(job, &out[ROLE_STUDENT]);
    if (job->count && job->rep.guard_writes == 0) {
        if (count_roles(job, in, out) != 0)
            return JOB_KERNEL_FAILED;
        memcpy(job_out(job, OUT_STUDENT_TIMED), out[ROLE_STUDENT].data, job->out_elems * sizeof(float));
    }
    return JOB_OK;
}

int gpu_run_plain(struct gpu_job *job, const int *roles, int nroles)
{
    (void)job, (void)roles, (void)nroles;
    return JOB_SETUP_FAILED; /* the emulator checks races and accesses on every run itself */
}
