/* The emulator's runner program: the kernels of one side of a job (gpu_job.h), run on the CPU.
 * Built per side: the student's runner holds the student's kernel alone (checker/runner/emu/
 * launch.cu with the lesson file), the reference runner the solution and the baseline. A lesson
 * file is host code here, so before any of it runs the runner shuts itself into the sandbox
 * (sandbox.h); the judge has already limited it (checker/judge/spawn.c).
 *
 * Usage: emu-runner, the job on fd 3. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <ucontext.h>
#include <unistd.h>

#include "emu.h"
#include "runner.h"
#include "sandbox.h"

/* The roles linked into this runner (launch.cu defines one per role it is built for). */
extern const struct kernel_entry student_kernel __attribute__((weak));
extern const struct kernel_entry solution_kernel __attribute__((weak));
extern const struct kernel_entry baseline_kernel __attribute__((weak));

const struct kernel_entry *runner_kernels[ROLE_COUNT];

static struct gpu_job *job;

/* A kernel touched memory it was not given (emu_wild_access): the sentence into the job and
 * the run ends there, before the access happens. */
static void stop_run(const char *sentence)
{
    int role = emu_job_current_role();
    static const char *const who[ROLE_COUNT] = {"your kernel", "the reference solution", "the baseline kernel"};
    job->rep.failed_role = role;
    snprintf(job->rep.failure, sizeof job->rep.failure, "%s: %s.", who[role], sentence);
    _exit(JOB_KERNEL_FAILED);
}

/* The lesson files' code (kernel_file.cu puts it there). */
extern char __start_wb_text_kernel[] __attribute__((weak));
extern char __stop_wb_text_kernel[] __attribute__((weak));

/* The CPU-time limit's first signal: where the kernel was goes into the job (the judge names
 * the line), then the signal's default action ends the run as the judge expects. */
static void at_cpu_limit(int sig, siginfo_t *info, void *context)
{
    (void)info;
    uintptr_t pc = (uintptr_t)((ucontext_t *)context)->uc_mcontext.gregs[REG_RIP];
    /* Outside the kernel's own code (in the tracer, the scheduler): its last access's line. */
    if (pc < (uintptr_t)__start_wb_text_kernel || pc >= (uintptr_t)__stop_wb_text_kernel)
        pc = emu_trace_last_pc();
    else
        pc++; /* a marks's address is taken as a return address, one byte past the instruction */
    if (pc && job)
        emu_describe_spin(pc, job->rep.failure, sizeof job->rep.failure);
    raise(sig); /* delivered, with the default action (SA_RESETHAND), when this returns */
}

int main(void)
{
    job = runner_map_job(3);
    if (!job) {
        fprintf(stderr, "usage: emu-runner, with the job on fd 3 (the judge starts it)\n");
        return JOB_USAGE;
    }
    const struct kernel_entry *linked[ROLE_COUNT] = {&student_kernel, &solution_kernel, &baseline_kernel};
    for (int r = 0; r < ROLE_COUNT; r++)
        runner_kernels[r] = role_in(job, r) && linked[r] ? linked[r] : NULL;
    emu_set_fatal_handler(stop_run);
    /* Before the sandbox, which forbids changing signal handlers. */
    struct sigaction sa = {0};
    sa.sa_sigaction = at_cpu_limit;
    sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigaction(SIGXCPU, &sa, NULL);
    char why[256];
    if (sandbox_enter(&job->rep.forbidden_syscall, why, sizeof why) != 0) {
        snprintf(job->rep.failure, sizeof job->rep.failure, "the sandbox could not be set up: %s.", why);
        return JOB_SETUP_FAILED;
    }
    int rc = gpu_job_run(job);
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        job->rep.cpu_seconds = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec +
                               (double)ru.ru_stime.tv_sec + 1e-6 * (double)ru.ru_stime.tv_usec;
    return rc;
}
