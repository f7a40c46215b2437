/* The PTX interpreter's runner program: the kernels of one side of a job (gpu_job.h), each read
 * from the PTX nvcc made of its lesson file and interpreted (ptx_exec.c). Nothing of a lesson
 * file runs natively; the runner still shuts itself into the sandbox (sandbox.h) once its files
 * are read, since a bug of the interpreter's must not become the student's way out.
 *
 * Usage: ptx-runner student PTX KERNEL SOURCE [REGISTERS]
 *        ptx-runner reference SOLUTION.ptx|- KERNEL SOURCE BASELINE.ptx KERNEL SOURCE
 * with the job on fd 3; SOURCE is the lesson file's name for messages; REGISTERS, the registers
 * per thread ptxas gave the student's kernel for the GPU (the judge reads them from its cubin). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "emu.h"
#include "ptx_exec.h"
#include "runner.h"
#include "sandbox.h"
#include "tensor_map.h"

const struct kernel_entry *runner_kernels[ROLE_COUNT];

static struct gpu_job *job;
static const char *const who[ROLE_COUNT] = {"your kernel", "the reference solution", "the baseline kernel"};

struct ptx_entry {
    struct kernel_entry entry; /* first: launch gets the ptx_entry as its entry */
    struct ptx_module module;
    const struct ptx_kernel *kernel;
    const struct family *family;
    const char *source;
    int registers; /* per thread, from the cubin (0: not known) */
    char name[160];
};
static struct ptx_entry entries[ROLE_COUNT];

/* The full stop a sentence still needs: none after one that ends in a question (issue 47: "...keep it
 * one?."). */
static const char *full_stop(const char *sentence)
{
    size_t n = strlen(sentence);
    return n && (sentence[n - 1] == '.' || sentence[n - 1] == '?' || sentence[n - 1] == '!') ? "" : ".";
}

static void stop_run(const char *sentence)
{
    int role = emu_job_current_role();
    job->rep.failed_role = role;
    snprintf(job->rep.failure, sizeof job->rep.failure, "%s: %s%s", who[role], sentence, full_stop(sentence));
    _exit(JOB_KERNEL_FAILED);
}

/* Input k as the tensor map the family gives it (family.h's input_box), over the n x n halves at
 * base: the emulator's own map (tensor_map.h) in the parameter's 128 bytes. */
static void put_tensor_map(const struct family *f, int k, const void *base, int n, unsigned char *param)
{
    struct wb_tensor_map m = {.base = (uint64_t)(uintptr_t)base,
                              .dims = {(uint64_t)n, (uint64_t)n},
                              .row_bytes = (uint64_t)n * 2,
                              .box = {(uint32_t)f->input_box[k].cols, (uint32_t)f->input_box[k].rows},
                              .elem_bytes = 2,
                              .swizzle = (uint32_t)f->tensor_swizzle};
    wb_tensor_map_put(param, &m);
}

/* The family's arguments, laid out as the kernel's .param list says: its inputs (pointers, or
 * tensor maps), the output, rows (and cols). */
static int launch(const struct kernel_entry *k, const struct gpu_job *j, const void *in0, const void *in1, float *out)
{
    const struct ptx_entry *e = (const struct ptx_entry *)k;
    const struct family *f = e->family;
    const struct ptx_kernel *pk = e->kernel;
    int maps = f->input_box[0].cols > 0;
    uint64_t values[6];
    int n = 0;
    values[n++] = (uint64_t)(uintptr_t)in0;
    if (f->ninputs > 1)
        values[n++] = (uint64_t)(uintptr_t)in1;
    values[n++] = (uint64_t)(uintptr_t)out;
    values[n++] = (uint64_t)(uint32_t)j->rows;
    if (f->nscalars > 1)
        values[n++] = (uint64_t)(uint32_t)j->cols;
    unsigned char params[1024] = {0};
    if (pk->nparams != n || pk->param_bytes > (int)sizeof params) {
        snprintf((char *)emu_error(), 100, "the kernel's parameters are not the contract's");
        return EMU_BAD_LAUNCH;
    }
    if (maps && f->size_step > 1 && j->rows % f->size_step) {
        snprintf((char *)emu_error(), 160, "the family %s takes sizes that are multiples of %d (a tensor map's rows "
                 "are whole 16-byte units), not %d", f->name, f->size_step, j->rows);
        return EMU_BAD_LAUNCH;
    }
    for (int i = 0; i < n; i++)
        if (maps && i < f->ninputs)
            put_tensor_map(f, i, (const void *)(uintptr_t)values[i], j->rows, params + pk->params[i].offset);
        else
            memcpy(params + pk->params[i].offset, &values[i], (size_t)pk->params[i].bytes);
    unsigned g[2];
    family_grid(f, j->rows, j->cols, g);
    struct ptx_launch L = {&e->module, pk, {g[0], g[1], 1}, {(unsigned)f->block_x, (unsigned)f->block_y, 1}, params,
                           e->source, e->registers, (unsigned)(j->sample_blocks > 0 ? j->sample_blocks : 0),
                           (size_t)f->dynamic_shared};
    return ptx_run(&L);
}

static int attributes(const struct kernel_entry *k, size_t *static_smem, int *regs)
{
    const struct ptx_entry *e = (const struct ptx_entry *)k;
    *static_smem = e->kernel->shared_bytes;
    *regs = e->registers; /* (the PTX's virtual registers say nothing of the GPU's) */
    return 0;
}

/* Reads and parses role's PTX and finds its kernel by the contract's mangled name; 0, or -1
 * with the reason in the job. */
static int load(int role, const char *path, const char *kernel, const char *source)
{
    struct ptx_entry *e = &entries[role];
    e->family = job_role_family(job, role);
    e->source = source;
    if (!e->family) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s is written for a family this runner does not know.",
                 who[role]);
        return -1;
    }
    if (family_kernel_symbol(e->family, kernel, e->name, sizeof e->name) != 0) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s: the family %s's parameter `%s` has a type the "
                 "runner cannot name.", who[role], e->family->name, e->name);
        return -1;
    }
    char *text = ptx_read_file(path, (size_t)64 << 20); /* nvcc writes nothing near this for a lesson */
    if (!text) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s: its PTX (%s) cannot be read.", who[role], path);
        return -1;
    }
    int rc = ptx_parse(text, &e->module);
    free(text);
    if (rc) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "%s cannot be interpreted: %s%s", who[role],
                 e->module.error, full_stop(e->module.error));
        return -1;
    }
    /* A lesson file makes one kernel (the lint, and the cubin gate on a GPU): a second can only
     * come from inline assembly that leaves its function's body, into module scope. */
    if (e->module.nkernels != 1) {
        snprintf(job->rep.failure, sizeof job->rep.failure,
                 "%s: its PTX holds %d kernels where a lesson file makes one (inline assembly that closes its "
                 "function with a `}` and opens another?).", who[role], e->module.nkernels);
        return -1;
    }
    e->kernel = ptx_find_kernel(&e->module, e->name);
    if (!e->kernel) {
        snprintf(job->rep.failure, sizeof job->rep.failure,
                 "%s has no kernel with the contract's name and parameters (%s).", who[role], e->name);
        return -1;
    }
    e->entry = (struct kernel_entry){e->name, launch, attributes, NULL};
    runner_kernels[role] = &e->entry;
    return 0;
}

static double cpu_seconds_used(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
           1e-6 * (double)ru.ru_stime.tv_usec;
}

static void at_cpu_limit(int sig)
{
    if (job)
        emu_describe_spin(0, job->rep.failure, sizeof job->rep.failure);
    raise(sig); /* delivered with the default action (SA_RESETHAND) when this returns */
}

int main(int argc, char **argv)
{
    int n = runner_batch(&argc, &argv);
    struct gpu_job *jobs[MAX_BATCH];
    for (int k = 0; k < n; k++) /* every job mapped before the sandbox shuts */
        if (!(jobs[k] = runner_map_job(3 + k)))
            n = 0;
    job = n > 0 ? jobs[0] : NULL;
    int student = (argc == 5 || argc == 6) && strcmp(argv[1], "student") == 0;
    int reference = argc == 8 && strcmp(argv[1], "reference") == 0;
    if (!job || !(student || reference)) {
        fprintf(stderr, "usage: ptx-runner [--jobs=N] student PTX KERNEL SOURCE [REGISTERS] | reference SOLUTION.ptx|- KERNEL "
                        "SOURCE BASELINE.ptx KERNEL SOURCE, with the jobs on fds 3, 4, ... (the judge starts it)\n");
        return JOB_USAGE;
    }
    job->rep.failed_role = -1;
    if (student && role_in(job, ROLE_STUDENT) && load(ROLE_STUDENT, argv[2], argv[3], argv[4]))
        return job->rep.failed_role = ROLE_STUDENT, JOB_SETUP_FAILED;
    if (student && argc == 6)
        entries[ROLE_STUDENT].registers = atoi(argv[5]);
    if (reference) {
        if (role_in(job, ROLE_SOLUTION) && job->have_solution && strcmp(argv[2], "-") != 0 &&
            load(ROLE_SOLUTION, argv[2], argv[3], argv[4]))
            return job->rep.failed_role = ROLE_SOLUTION, JOB_SETUP_FAILED;
        if (role_in(job, ROLE_BASELINE) && load(ROLE_BASELINE, argv[5], argv[6], argv[7]))
            return job->rep.failed_role = ROLE_BASELINE, JOB_SETUP_FAILED;
    }
    emu_set_fatal_handler(stop_run);
    struct sigaction sa = {0};
    sa.sa_handler = at_cpu_limit;
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGXCPU, &sa, NULL);
    char why[256];
    if (sandbox_enter(&job->rep.forbidden_syscall, why, sizeof why) != 0) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "the sandbox could not be set up: %s.", why);
        return JOB_SETUP_FAILED;
    }
    for (int k = 0; k < n; k++) {
        job = jobs[k]; /* where a failure is written */
        job->rep.failed_role = -1;
        /* A job's budget counts from its start: a slow kernel's other sizes, run before it in the
         * batch, do not use it up (the judge's limit on the whole batch stays the hard one). */
        struct rlimit cpu;
        if (job->cpu_budget_s > 0 && getrlimit(RLIMIT_CPU, &cpu) == 0) {
            double at = cpu_seconds_used() + job->cpu_budget_s + 0.999;
            cpu.rlim_cur = cpu.rlim_max != RLIM_INFINITY && (rlim_t)at > cpu.rlim_max ? cpu.rlim_max : (rlim_t)at;
            setrlimit(RLIMIT_CPU, &cpu);
        }
        int rc = gpu_job_run(job);
        job->rep.cpu_seconds = cpu_seconds_used(); /* the batch's so far */
        if (rc != JOB_OK)
            return rc;
        job->rep.finished = 1;
    }
    return JOB_OK;
}
