/* A runner that lies: the judge's test that a side's copy of the job is read only where that
 * side may write (checker/tests/steps/forged-side-test.sh). It stands where build/common/ptx-runner
 * stands, runs the real runner (ptx-runner.real beside it) on the job it was given, and then,
 * on the student's side, writes every field of the job that side may not speak for: which roles
 * ran, the reference's and the baseline's counts, timings and attributes, the device, the
 * reference output's slot, the buffers' offsets, the job's size and shape. A judge that believed
 * any of it would grade the student's kernel by the forger's numbers.
 *
 * Usage: as ptx-runner (the judge starts it), with the jobs on fds 3, 4, ...: every job of a
 * batch is forged. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner.h"

int main(int argc, char **argv)
{
    char real[4096];
    snprintf(real, sizeof real, "%s.real", argv[0]);
    pid_t pid = fork();
    if (pid == 0) {
        argv[0] = real;
        execv(real, argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int n = runner_batch(&argc, &argv);
    for (int b = 0; b < n; b++) {
        struct gpu_job *job = runner_map_job(3 + b);
        if (!(job && argc > 1 && strcmp(argv[1], "student") == 0))
            continue;
        struct gpu_report *r = &job->rep;
        job->roles = SIDE_REFERENCE | SIDE_STUDENT; /* "I ran them all" */
        for (int role = ROLE_SOLUTION; role < ROLE_COUNT; role++) {
            memset(&r->counts[role], 0, sizeof r->counts[role]);
            /* a baseline that moved a billion sectors and conflicted everywhere: any student's
             * kernel would look good beside it */
            for (int op = 0; op < MEM_OPS; op++)
                r->counts[role].op[op] = (struct op_counts){1u << 30, 1ull << 40, 1, 1ull << 45};
            r->counts[role].barrier_arrivals = 1ull << 40;
            r->counts[role].threads = 1;
            for (int k = 0; k < MAX_REPS; k++)
                r->ms[role][k] = 1e9f; /* and took forever */
            r->static_smem[role] = 0;
            r->regs[role] = 0;
        }
        for (int k = 0; k < MAX_REPS; k++)
            r->limit_ms[k] = 1e9f;
        snprintf(r->device, sizeof r->device, "a forged GPU");
        r->emulator = 0;
        r->cc_major = 99;
        /* the reference output's slot, and every offset, pointed at the student's own output */
        for (int slot = 0; slot < OUT_COUNT; slot++)
            job->out_offset[slot] = job->out_offset[OUT_STUDENT] + 1000000000;
        job->in_offset[0] = job->in_offset[1] = 8;
        job->bytes = 1;
        job->rows = job->cols = 1;
        job->have_solution = 0;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
