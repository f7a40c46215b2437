/* The check program's jobs (check_run.h): job memory shared between this process and the
 * child that runs the kernels, the child's run with a time limit, the inputs, the narration. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "check_run.h"
#include "isolate.h"
#include "rng.h"

void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    FILE *out = checking.narrate_to_stderr ? stderr : stdout;
    if (checking.narrate_to_stderr)
        fputs("# ", out);
    vfprintf(out, fmt, ap);
    va_end(ap);
    fflush(out);
}

static size_t round_up(size_t n) { return (n + 63) & ~(size_t)63; }

struct job_mem job_create(int rows, int cols, int launch, int reps)
{
    struct job_mem m = {0};
    int matmul = checking.lesson->family == FAMILY_MATMUL;
    size_t elems = (size_t)rows * (size_t)cols;
    size_t in_bytes[2] = {elems * sizeof(float), matmul ? elems * sizeof(float) : 0};
    size_t out_bytes = elems * sizeof(float);
    size_t off = round_up(sizeof(struct gpu_job));
    size_t in_off[2], out_off[OUT_COUNT];
    for (int i = 0; i < 2; i++) {
        in_off[i] = off;
        off += round_up(launch ? in_bytes[i] : 0);
    }
    for (int s = 0; s < OUT_COUNT; s++) {
        out_off[s] = off;
        off += round_up(launch ? out_bytes : 0);
    }
    void *p = mmap(NULL, off, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return m;
    m.job = p;
    m.bytes = off;
    m.job->family = checking.lesson->family;
    m.job->rows = rows;
    m.job->cols = cols;
    m.job->launch = launch;
    m.job->time_reps = reps;
    m.job->in_elems[0] = elems;
    m.job->in_elems[1] = matmul ? elems : 0;
    m.job->out_elems = elems;
    memcpy(m.job->in_offset, in_off, sizeof in_off);
    memcpy(m.job->out_offset, out_off, sizeof out_off);
    return m;
}

void job_free(struct job_mem *m)
{
    if (m->job)
        munmap(m->job, m->bytes);
    m->job = NULL;
}

static void show_child_output(const struct isolate_result *r)
{
    if (r->output_len == 0)
        return;
    say("  The kernels printed (shown as is, never read as a result):\n");
    for (const char *p = r->output; *p;) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        say("  | %.*s\n", len, p);
        p += len + (nl ? 1 : 0);
    }
    if (r->output_cut)
        say("  | ... (more output cut)\n");
}

/* Runs a job in a child process. Returns 0 when it completed; otherwise says why and returns -1. */
int run_job(struct gpu_job *job, double timeout_s, char *why, size_t len)
{
    struct isolate_result r;
    run_isolated(gpu_job_run, job, timeout_s, &r);
    show_child_output(&r);
    if (r.outcome == ISOLATE_TIMED_OUT) {
        checking.hung = 1;
        isolate_describe(&r, why, len);
        return -1;
    }
    if (r.outcome == ISOLATE_SIGNALED && job->rep.emulator && (r.status == SIGSEGV || r.status == SIGBUS)) {
        snprintf(why, len, "your kernel crashed the emulator (%s): it accessed memory far outside its buffers, "
                           "or recursed too deep.", strsignal(r.status));
        return -1;
    }
    if (r.outcome != ISOLATE_EXITED) {
        isolate_describe(&r, why, len);
        return -1;
    }
    switch (r.status) {
    case JOB_OK:
        return 0;
    case JOB_NO_GPU:
        snprintf(why, len, "no NVIDIA GPU is visible (%s).", job->rep.failure);
        return -1;
    case JOB_KERNEL_FAILED:
    case JOB_SETUP_FAILED:
        snprintf(why, len, "%s", job->rep.failure[0] ? job->rep.failure : "the GPU run failed.");
        return -1;
    default:
        isolate_describe(&r, why, len);
        return -1;
    }
}

void fill_inputs(struct gpu_job *job, uint64_t stream)
{
    struct rng r;
    for (int i = 0; i < 2; i++) {
        rng_seed(&r, checking.seed, stream * 2 + (uint64_t)i);
        rng_fill_uniform(&r, job_in(job, i), job->in_elems[i]);
    }
}

const char *size_text(const struct check_case *c, char *buf, size_t len)
{
    if (checking.lesson->family == FAMILY_MATMUL)
        snprintf(buf, len, "N=%d", c->rows);
    else
        snprintf(buf, len, "%dx%d", c->rows, c->cols);
    return buf;
}
